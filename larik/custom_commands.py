"""Custom slash commands: Markdown files whose name is the command (Claude Code's format).

``.claude/commands/review.md`` is ``/review``; a subfolder is a namespace, ``frontend/review.md``
is ``/frontend:review`` (and plain ``/review`` while no other command has that name, as Claude
Code has it now). Where they are found, in this order — the first command of a name wins, so a
repository cannot replace one of yours, and none may take a built-in command's name:

1. yours: ``commands/`` beside your Larik config, then Claude Code's ``~/.claude/commands/``;
2. the project's: ``.larik/commands/``, then ``.claude/commands/`` (the nearest of each from the
   working directory up to the git root).

A file is optional front matter (``description``, ``argument-hint``, ``model``,
``allowed-tools``; :mod:`larik.frontmatter`) and a body, the prompt. Running it
(:func:`command_turn`) expands the body, then runs one agent turn on it:

* ``$ARGUMENTS`` is everything typed after the name, ``$1``, ``$2``, … its words (shell-style
  quoting); with neither in the body, the arguments are appended as ``ARGUMENTS: …``;
* ``@path`` includes a project file (after the body, like ``@path`` typed in the TUI): inside
  the project only, symlinks resolved, ``permissions.deny`` for ``read_file`` honoured, regular
  text files of at most :data:`~larik.command_expand.MAX_INCLUDE` bytes;
* ``!`cmd``` runs ``cmd`` with the bash tool, through the agent's tool runner and permission
  policy (deny rules hold, ``ask`` mode asks, print mode refuses what would ask), and puts its
  output there. Only your own commands and a *trusted* project's run: a project's command
  whose shell lines the user has not trusted still runs, with each shell line replaced by a
  note saying it was not run (and the same note shown to the user). Which project files have
  shell lines is part of what "Trust this folder?" asks about
  (``larik.trust_runs.shell_command_files``, which ``larik.config.load_config`` calls; the
  files are read as here: ``larik.command_files``), with each file's SHA-256: a file changed
  since is not trusted.

A shell line never gets the arguments as text: its ``$ARGUMENTS`` and ``$1``… become references
to shell variables set at its start (:func:`larik.command_shell_line.shell_line`), so no
quoting context — double or single quotes, ``$(…)``, backticks — can make an argument code.
Text that arrives by substitution, from a shell line's output or from an included file is never
scanned again for ``!`` or ``@``. Discovery reads each file once (files over :data:`MAX_BYTES`
are refused unread) and is cheap; front ends run it after their first frame, and again when a
name is not found.

This module finds the commands and runs one; what a command is, is :mod:`larik.command_catalog`'s,
its expansion :mod:`larik.command_expand`'s.
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import frontmatter
from .command_catalog import CommandCatalog, CustomCommand
from .command_expand import expand
from .command_files import MAX_BYTES, PROJECT_FOLDERS, read_command
from .command_files import Refused as _Refused
from .command_files import read_bounded as _read
from .command_files import shown as _shown
from .command_files import walk as _walk

if TYPE_CHECKING:
    from .agent.events import AgentEvent
    from .config import Config

__all__ = [
    "MAX_BYTES",
    "CommandCatalog",
    "command_folders",
    "command_turn",
    "discover_commands",
    "shell_refusal",
]

SHELL_TIMEOUT = 120.0


# -- discovery --------------------------------------------------------------------------------


def command_folders(root: Path) -> list[tuple[Path, str, Path | None]]:
    """``(folder, scope, project)`` in the order commands are read; ``project`` is the folder a
    project command must stay inside (None for yours)."""
    from .config import claude_home, project_folder, user_config_path

    out: list[tuple[Path, str, Path | None]] = [
        (user_config_path().parent / "commands", "user", None),
        (claude_home() / "commands", "user", None),
    ]
    for rel in PROJECT_FOLDERS:
        found = project_folder(root, rel)
        if found is not None:
            out.append((found, "project", found.parent.parent.resolve()))
    return out


def discover_commands(root: Path, reserved: frozenset[str] = frozenset()) -> CommandCatalog:
    """Every custom command a session in ``root`` can run; ``reserved`` are the built-in
    names (and aliases) a custom command may not take."""
    commands: list[CustomCommand] = []
    problems: list[str] = []
    seen: dict[str, CustomCommand] = {}
    for folder, scope, project in _folders(root):
        for path, parts in _walk(folder, scope, project, problems):
            cmd = _load(path, parts, scope, problems)
            if cmd is None:
                continue
            if cmd.name in reserved:
                problems.append(
                    f"command {_shown(path)}: /{cmd.name} is a built-in command; not loaded "
                    "(rename the file)"
                )
            elif cmd.name in seen:
                problems.append(
                    f"command {_shown(path)}: /{cmd.name} is taken by "
                    f"{_shown(seen[cmd.name].path)}; not loaded"
                )
            else:
                seen[cmd.name] = cmd
                commands.append(cmd)
    return CommandCatalog(tuple(commands), tuple(problems))


def _folders(root: Path) -> list[tuple[Path, str, Path | None]]:
    out, done = [], set()
    for folder, scope, project in command_folders(root):
        try:
            real = folder.resolve()
        except (OSError, RuntimeError):
            continue
        if real not in done and real.is_dir():
            done.add(real)
            out.append((folder, scope, project))
    return out


def _load(path: Path, parts: list[str], scope: str, problems: list[str]) -> CustomCommand | None:
    shown = _shown(path)
    read = read_command(path, parts, problems)
    if read is None:
        return None
    data, doc = read
    name = ":".join(p.lower() for p in parts)
    where = scope if len(parts) == 1 else f"{scope}:{':'.join(parts[:-1])}"
    model = frontmatter.one_line(frontmatter.text(doc, "model"), 200)
    from .llm.endpoint import plays_a_file

    if scope == "project" and plays_a_file(model):  # as for a project's config file
        problems.append(
            f"command {shown}: model {model[:80]!r} plays a file as the model; a project's "
            "command may name only real providers' models; the session's model is used"
        )
        model = ""
    return CustomCommand(
        name=name,
        path=path,
        scope=scope,
        where=where,
        body=doc.body,
        digest=hashlib.sha256(data).hexdigest(),
        description=frontmatter.one_line(frontmatter.text(doc, "description"), 200),
        argument_hint=frontmatter.one_line(frontmatter.text(doc, "argument-hint"), 80),
        model=model,
        allowed_tools=frontmatter.words(doc, "allowed-tools"),
    )


# -- trust ------------------------------------------------------------------------------------


def shell_refusal(cmd: CustomCommand, config: Config | None) -> str:
    """Why ``cmd``'s shell lines may not run ("" when they may): your own commands always may;
    a project's only when the project is trusted with this very file."""
    if cmd.scope == "user":
        return ""
    from .trust import COMMAND_SHELL

    trust = config.project_trust if config is not None else None
    if trust is None or not trust.trusted:
        return "this project is not trusted (pass --trust-project, or trust the folder)"
    try:
        digest = hashlib.sha256(_read(cmd.path)).hexdigest()
    except _Refused:
        digest = ""
    allowed = trust.gated.get(COMMAND_SHELL) or {}
    if allowed.get(str(cmd.path)) != digest or digest != cmd.digest:
        return "the file changed after the project was trusted (restart Larik to be asked again)"
    return ""


# -- running one ------------------------------------------------------------------------------


async def command_turn(
    agent: Any, cmd: CustomCommand, arguments: str, config: Config | None
) -> AsyncGenerator[AgentEvent, None]:
    """Expand ``cmd`` (its notes as warning notices), then run one turn of ``agent`` on it —
    on the command's ``model`` if it names one, the session's model again afterwards."""
    from .agent.events import AgentEvent, AgentEventType, NoticeLevel
    from .llm.errors import LarikError

    def notice(text: str) -> AgentEvent:
        return AgentEvent(AgentEventType.NOTICE, text=text, level=NoticeLevel.WARNING)

    async def shell(command: str) -> tuple[str, bool]:
        call = {"command": command, "timeout": SHELL_TIMEOUT}
        result = await agent.tool_runner.run_tool("bash", call)
        return result.content, not (result.data.get("denied") or result.data.get("bad_call"))

    expanded = await expand(
        cmd,
        arguments,
        root=Path(agent.root),
        shell=shell,
        refusal=shell_refusal(cmd, config) if cmd.has_shell else "",
        path_denied=agent.path_denied,
    )
    for note in expanded.notes:
        yield notice(f"/{cmd.name}: {note}")
    before = None
    if cmd.model:
        try:
            before = agent.spec
            agent.set_model(cmd.model)
        except LarikError as e:
            before = None
            yield notice(f"/{cmd.name}: model {cmd.model!r}: {e}; using {agent.spec}")
    try:
        typed = f"/{cmd.name} {arguments.strip()}".rstrip()
        async for ev in agent.run_turn(expanded.prompt, typed):
            yield ev
    finally:
        if before is not None:
            agent.set_model(before)
