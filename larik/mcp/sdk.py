"""The ``mcp`` SDK's edges: importing it (most of a second: in a thread, as the first server
starts, never before), quieting its logging, and one line for what it or a transport raises.

:mod:`larik.mcp.server`, :mod:`larik.mcp.stdio` and :mod:`larik.mcp.http` talk to the SDK.
"""

from __future__ import annotations

import logging

__all__ = ["SDK_MODULES", "StartError", "describe", "import_sdk", "innermost", "is_gone"]

SDK_MODULES = ("anyio", "mcp", "mcp.client.stdio", "mcp.client.streamable_http")

_logging_quiet = False


class StartError(Exception):
    """A server that cannot start, in Larik's words (its command, its config's variables, the
    SDK itself): :func:`describe` says it as written; the server fails with it."""


def import_sdk(oauth: bool = False) -> None:
    import importlib

    try:
        for name in SDK_MODULES + (("larik.mcp.oauth",) if oauth else ()):
            importlib.import_module(name)
    except ImportError as e:
        raise StartError(f"the MCP SDK cannot be imported ({e}); reinstall larik") from None


def quiet_sdk_logging() -> None:
    """The SDK logs transport faults with ``logging``; with no handler Python would print them
    on stderr, over the TUI. Larik reports them as the server's state instead."""
    global _logging_quiet
    if not _logging_quiet:
        log = logging.getLogger("mcp")
        log.addHandler(logging.NullHandler())
        log.propagate = False
        _logging_quiet = True


def is_gone(e: BaseException) -> bool:
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    text = str(e).lower()
    return isinstance(e, (EOFError, ConnectionError)) or "connection closed" in text


def innermost(e: BaseException) -> BaseException:
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    return e


def describe(e: BaseException) -> str:
    """One line for an exception from the SDK or a transport (an ExceptionGroup unwrapped)."""
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    if isinstance(e, StartError):
        return str(e)
    text = " ".join(str(e).split()) or type(e).__name__
    if isinstance(e, OSError) and e.strerror:
        text = e.strerror
    name = type(e).__name__
    return text if name in ("MCPError", "McpError") else f"{name}: {text}"
