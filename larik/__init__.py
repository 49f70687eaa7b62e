"""Larik: a terminal coding agent that works with any model.

Importing this package is cheap: no vendor SDK and no Textual is imported here.
"""

__version__ = "0.1.0"
__all__ = ["__version__"]
