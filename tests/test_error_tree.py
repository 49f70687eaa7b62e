"""One error tree (issue 12): every exception class Larik defines derives from LarikError and
is drawn in the tree of ``larik/llm/errors.py``, or is in ``OUTSIDE_THE_TREE`` with its reason."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import larik
from larik.llm import errors
from larik.llm.errors import LarikError

OUTSIDE_THE_TREE = {
    # a tool's answer to the model (an error result it reads), not a failure Larik reports
    "larik.tool_contract.ToolError",
    # how a turn ends, caught by the loop (control flow)
    "larik.agent.turn.TurnOver",
    # the edit tool's relaxed match found several places: edit_file turns it into a ToolError
    "larik.agent.tools._match.Ambiguous",
    # a bad registration is a bug in the registering code; ValueError, raised at import time
    "larik.llm.registry.RegistryError",
    # a ValueError for the code that catches it: the MCP server fails to start, saying why
    "larik.mcp.config.MissingVariable",
    # an MCP server that cannot start, raised by its transport: the server fails, saying why
    "larik.mcp.sdk.StartError",
    # raised inside the MCP SDK's OAuth flow to stop a login; the server reports its problem
    "larik.mcp.oauth.OAuthStopped",
    # private control flow, caught in their own module
    "larik.agent.checkpoint_files.Refused",  # caught by checkpoints.py: a path not written
    "larik.agent.skills._Refused",
    "larik.command_files.Refused",  # a file not read: its reader says why, one line
    "larik.agent.prompt._Skipped",  # an instruction file not read: a warning names it
    "larik.agent.runaway.RunawayReply",  # cancels a runaway stream inside the agent's loop
    "larik.bench._reaper._Stop",  # a signal to the check's reaper: it ends what the check started
    "larik.print_signals.Stopped",  # a KeyboardInterrupt: a signal ends print mode as Ctrl+C does
    "larik.llm.local.gguf._Short",  # a header cut short: read_meta says so, naming the file
    # a FileNotFoundError, so what caught a missing program catches one not Larik's own too
    "larik.host_programs.NotOwn",
    # ValueErrors, so what caught a bad parse or a value with no JSON text catches these too
    "larik.llm.jsontext.NotJson",
    "larik.llm.others_parse.Unreadable",
    "larik.acp.wire.NotSent",  # a message with no JSON text: handled like a client gone away
    "larik.llm.local.pull._TooLong",  # a download past its size: pull says so, one line
}


def _larik_exceptions() -> dict[str, type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(larik.__path__, "larik."):
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if (
                inspect.isclass(obj)
                and issubclass(obj, BaseException)
                and obj.__module__ == module.__name__
            ):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return found


def test_every_larik_exception_is_in_the_tree_or_says_why_not():
    found = _larik_exceptions()
    assert "larik.llm.errors.ConfigError" in found and "larik.agent.turn.TurnOver" in found
    outside = {name for name, cls in found.items() if not issubclass(cls, LarikError)}
    assert outside == OUTSIDE_THE_TREE


def test_the_tree_in_the_errors_docstring_names_every_larik_error():
    doc = errors.__doc__ or ""
    tree = doc[: doc.index("Errors that are not Larik's")]
    drawn = {cls.__name__ for cls in _larik_exceptions().values() if issubclass(cls, LarikError)}
    assert {name for name in drawn if f" {name} " not in tree and f" {name}(" not in tree} == set()
