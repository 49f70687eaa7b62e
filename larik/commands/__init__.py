"""Subcommands of ``larik``: one module per group, each exposing ``register(app)``."""
