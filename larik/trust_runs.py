"""What trusting a project lets run that its config's words do not show: the files inside it
that its hooks and MCP servers run (:func:`programs`, by :mod:`larik.program_files`) and its
command files with ``!`…``` shell lines (:func:`shell_command_files`). Both are in the trust
digest (:mod:`larik.trust`), so a changed one asks again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .program_files import Coverage, Entry, covered
from .trust import CLAUDE_HOOKS, MCP_JSON, in_project
from .trust_words import hook_commands

__all__ = ["programs", "shell_command_files"]


def programs(gated: Mapping[str, Any], root: Path) -> Coverage:
    """The files inside ``root`` that the gated hooks and MCP servers run, and what of that the
    digest cannot see (larik.program_files: every project file their command lines name, and
    the files under each program's folder)."""
    entries: list[Entry] = []
    tables = [("[hooks]", gated.get("hooks"))]
    tables += [(in_project(str(p)), t) for p, t in dict(gated.get(CLAUDE_HOOKS) or {}).items()]
    for label, table in tables:
        for where, command in hook_commands(table):
            entries.append(Entry(f"{label} {where}", line=command))
    mcp = gated.get("mcp")
    servers = [("[mcp]", mcp.get("servers") if isinstance(mcp, Mapping) else None)]
    servers.append((MCP_JSON, gated.get(MCP_JSON)))
    for label, table in servers:
        for name, server in table.items() if isinstance(table, Mapping) else ():
            if not isinstance(server, Mapping) or not server.get("command"):
                continue
            args = server.get("args")
            env = server.get("env")
            entries.append(
                Entry(
                    f"{label} server {name}",
                    argv=[
                        str(server["command"]),
                        *(map(str, args) if isinstance(args, list) else ()),
                    ],
                    cwd=str(server.get("cwd") or ""),
                    env={str(k): str(v) for k, v in env.items()}
                    if isinstance(env, Mapping)
                    else {},
                )
            )
    return covered(entries, root)


def shell_command_files(folders: list[tuple[Path, Path]]) -> dict[str, str]:
    """The command files with ``!`…``` shell lines under each ``(folder, project root)``
    (a project's ``.larik/commands``, ``.claude/commands``): path -> SHA-256 of the file, what
    trusting the project lets run (the ``COMMAND_SHELL`` key). Read as the custom commands
    read them (``larik.command_files``): a file they would not load is not counted."""
    from .command_files import SHELL_LINE, read_command, walk

    out: dict[str, str] = {}
    done: set[Path] = set()
    for folder, project in folders:
        try:
            real = folder.resolve()
        except (OSError, RuntimeError):
            continue
        if real in done or not real.is_dir():
            continue
        done.add(real)
        for path, parts in walk(folder, "project", project, []):
            read = read_command(path, parts, [])
            if read is not None and SHELL_LINE.search(read[1].body):
                out[str(path)] = hashlib.sha256(read[0]).hexdigest()
    return out
