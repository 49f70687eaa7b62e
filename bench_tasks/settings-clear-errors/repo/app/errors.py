"""Errors of the app."""


class SettingsError(Exception):
    """A settings file is invalid."""
