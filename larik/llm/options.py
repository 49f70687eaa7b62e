"""Checks for adapter options from config (``[providers.NAME.options]``): a bad value is a
one-line ``ConfigError`` when the adapter is built, never a ValueError at the first request."""

from __future__ import annotations

from typing import Any

from .errors import ConfigError

__all__ = ["positive_number"]


def positive_number(provider: str, key: str, value: Any) -> float:
    """``value`` as a float > 0 (bools and strings refused)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ConfigError(f"{provider}: {key} must be a positive number, not {value!r}")
    return float(value)
