"""A project's gated settings in words: the lines "Trust this folder?" asks about and the
"ignored" line says, one a setting (a table of hooks: one a hook, an MCP table: its servers'
command lines), each naming the file it comes from. What is gated is :mod:`larik.trust`'s.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .trust import (
    CLAUDE_HOOKS,
    COMMAND_SHELL,
    MCP_JSON,
    PROGRAM_FILES,
    PROGRAM_UNSEEN,
    UNREADABLE,
    in_project,
    server_target,
    short,
    shown_command,
)

__all__ = ["OWN_FILES", "describe", "hook_commands"]


#: The gated keys that come from files of their own, not from the project's config file:
#: their words in :func:`describe` name those files themselves.
OWN_FILES = (MCP_JSON, CLAUDE_HOOKS, COMMAND_SHELL, PROGRAM_FILES, PROGRAM_UNSEEN)


def describe(gated: Mapping[str, Any], user_mode: str, config_name: str = "") -> tuple[str, ...]:
    """The gated settings in words, one entry each, each naming the file it comes from (the
    settings of the project's config file: ``config_name``, e.g. ``.larik/config.toml``)."""
    return tuple(
        f"{config_name}: {ask}"
        if config_name and (key not in OWN_FILES or ask.startswith(("[hooks]", "[mcp]")))
        else ask
        for key, ask in _described(gated, user_mode)
    )


def _described(gated: Mapping[str, Any], user_mode: str) -> Iterator[tuple[str, str]]:
    for key, value in gated.items():
        for ask in _words(key, value, user_mode):
            yield key, short(ask)


def _words(key: str, value: Any, user_mode: str) -> list[str]:
    """One gated setting in words (a table of hooks: one entry a hook)."""
    out: list[str] = []
    if key == "permissions.mode":
        out.append(f"permissions.mode = {value!r} (yours: {user_mode!r})")
    elif key == MCP_JSON and isinstance(value, Mapping):
        out.append(f"{MCP_JSON} starts MCP servers: " + "; ".join(_server_lines(value)))
    elif key == "mcp" and isinstance(value, Mapping) and isinstance(value.get("servers"), Mapping):
        out.append("[mcp] starts MCP servers: " + "; ".join(_server_lines(value["servers"])))
    elif key == CLAUDE_HOOKS and isinstance(value, Mapping):
        for path, events in value.items():  # one entry a hook: a command may hold "; "
            if isinstance(events, Mapping) and UNREADABLE in events:
                why = shown_command(str(events[UNREADABLE]))
                out.append(f"{in_project(str(path))}: its hooks cannot be read ({why})")
                continue
            out.extend(f"{in_project(str(path))} runs a hook: {h}" for h in _hooks(events))
    elif key == "hooks" and isinstance(value, Mapping):
        out.extend(f"[hooks] runs a hook: {h}" for h in _hooks(value))
    elif key == PROGRAM_FILES and isinstance(value, Mapping):
        names = list(value)
        more = f" (and {len(names) - 20} more)" if len(names) > 20 else ""
        out.append(
            "files its hooks and MCP servers run (asked again if one changes): "
            + ", ".join(names[:20])
            + more
        )
    elif key == PROGRAM_UNSEEN and isinstance(value, list):
        out.extend(str(v) for v in value)
    elif key == COMMAND_SHELL and isinstance(value, Mapping):
        files = ", ".join(in_project(str(p)) for p in value)
        out.append(f"commands that run shell lines (!`…`): {files}")
    elif key == "prefer" and isinstance(value, Mapping):
        roles = ", ".join(f"{role} = {how!r}" for role, how in value.items())
        out.append(f"[prefer] {roles} (your signed-in plans first: spends their quota)")
    elif key == "permissions.allow":
        rules = ", ".join(repr(r) for r in value) if isinstance(value, list) else repr(value)
        out.append(f"permissions.allow = [{rules}]")
    elif isinstance(value, Mapping):
        out.append(f"[{key}] {', '.join(sorted(map(str, value))) or '(empty)'}")
    else:
        out.append(f"{key} = {value!r}")
    return out


def _server_lines(servers: Mapping[str, Any]) -> list[str]:
    """Each server as ``NAME (the command line or URL)``: what trusting the project runs."""
    return [f"{name} ({server_target(table)})" for name, table in servers.items()]


def _hooks(events: Any) -> list[str]:
    """Each hook command as ``EVENT MATCHER: command`` (Claude Code's nested shape and
    ``[hooks]``' flat one): what trusting the project runs."""
    return [f"{where}: {shown_command(command)}" for where, command in hook_commands(events)]


def hook_commands(events: Any) -> Iterator[tuple[str, str]]:
    """``(EVENT MATCHER, command)`` for each hook command of a ``[hooks]``-shaped table."""
    for event, entries in events.items() if isinstance(events, Mapping) else ():
        for entry in entries if isinstance(entries, list) else ():
            if not isinstance(entry, Mapping):
                continue
            matcher = entry.get("matcher")
            where = f"{event} {matcher}" if isinstance(matcher, str) and matcher else str(event)
            nested = entry.get("hooks")
            commands = nested if isinstance(nested, list) else [entry]
            for c in commands:
                if isinstance(c, Mapping) and c.get("command") is not None:
                    yield where, str(c["command"])
