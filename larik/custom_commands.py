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
  text files of at most :data:`MAX_INCLUDE` bytes;
* ``!`cmd``` runs ``cmd`` with the bash tool, through the agent's tool runner and permission policy (deny rules
  hold, ``ask`` mode asks, print mode refuses what would ask), and puts its output there.
  Only your own commands and a *trusted* project's run: a project's command whose shell lines
  the user has not trusted still runs, with each shell line replaced by a note saying it was not
  run (and the same note shown to the user). Which project files have shell lines is part of
  what "Trust this folder?" asks about (``larik.trust_runs.shell_command_files``, which
  ``larik.config.load_config`` calls; the files are read as here: ``larik.command_files``), with each file's SHA-256: a file changed since is not trusted.

A shell line never gets the arguments as text: its ``$ARGUMENTS`` and ``$1``… become references
to shell variables set at its start (:func:`shell_line`), so no quoting context — double or
single quotes, ``$(…)``, backticks — can make an argument code. Text that arrives by
substitution, from a shell line's output or from an included file is never scanned again for
``!`` or ``@``. Discovery reads each file once (files over :data:`MAX_BYTES` are refused unread)
and is cheap; front ends run it after their first frame, and again when a name is not found.
"""

from __future__ import annotations

import hashlib
import re
import shlex
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import frontmatter
from .command_files import MAX_BYTES, PROJECT_FOLDERS, read_command
from .command_files import SHELL_LINE as _SHELL
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
    "CustomCommand",
    "Expanded",
    "command_turn",
    "discover_commands",
    "expand",
    "shell_line",
    "shell_refusal",
]

MAX_INCLUDE = 256 * 1024  # an @path file larger than this is not included
SHELL_TIMEOUT = 120.0
_TOKEN = re.compile(r"!`([^`\n]+)`|(?:(?<=\s)|^)@((?:\\ |[^\s`])+)")
_ARG = re.compile(r"\$(ARGUMENTS|\d+)")

Shell = Callable[[str], Awaitable[tuple[str, bool]]]  # command -> (output or refusal, ran)
PathDenied = Callable[[str, Path], bool]


@dataclass(frozen=True)
class CustomCommand:
    name: str  # "review", "frontend:review" (lowercase)
    path: Path
    scope: str  # "user" or "project"
    where: str  # what /help shows: "user", "project", "project:frontend"
    body: str
    digest: str  # SHA-256 of the file's bytes, as trusted
    description: str = ""
    argument_hint: str = ""
    model: str = ""
    allowed_tools: tuple[str, ...] = ()

    @property
    def short(self) -> str:
        return self.name.rpartition(":")[2]

    @property
    def has_shell(self) -> bool:
        return bool(_SHELL.search(self.body))

    def hint(self) -> str:
        """What the command takes: its ``argument-hint``, else what its body uses
        (``$ARGUMENTS`` → ``[arguments]``, ``$1 $2`` → ``[arg1] [arg2]``), else nothing."""
        if self.argument_hint:
            return self.argument_hint
        keys = set(_ARG.findall(self.body))
        if "ARGUMENTS" in keys:
            return "[arguments]"
        return " ".join(f"[arg{n}]" for n in sorted(int(k) for k in keys))

    def usage(self) -> str:
        return f"/{self.name} {self.hint()}".rstrip()

    def summary(self) -> str:
        """The description; else the body's first line, its placeholders shown as ``…`` (the
        usage column names the arguments: /help showed "Say hello to $ARGUMENTS")."""
        text = self.description or _ARG.sub("…", _first_line(self.body)) or "(no description)"
        return f"{text} ({self.where})"


@dataclass(frozen=True)
class CommandCatalog:
    commands: tuple[CustomCommand, ...] = ()
    problems: tuple[str, ...] = ()

    def find(self, name: str) -> CustomCommand | None:
        """By full name; else by the last part of a namespaced name when only one has it."""
        key = name.lower()
        for c in self.commands:
            if c.name == key:
                return c
        matches = [c for c in self.commands if c.short == key]
        return matches[0] if len(matches) == 1 else None

    def ambiguous(self, name: str) -> list[CustomCommand]:
        key = name.lower()
        matches = [c for c in self.commands if c.short == key]
        return matches if len(matches) > 1 and self.find(name) is None else []

    def complete(self, prefix: str) -> list[CustomCommand]:
        p = prefix.lower()
        return [c for c in self.commands if c.name.startswith(p) or c.short.startswith(p)]


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


def _first_line(body: str) -> str:
    for line in body.splitlines():
        if line.strip():
            return frontmatter.one_line(line.strip().lstrip("#").strip(), 80)
    return ""


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


# -- expansion --------------------------------------------------------------------------------


@dataclass
class Expanded:
    prompt: str
    notes: list[str] = field(default_factory=list)  # one line each, for the user
    includes: list[str] = field(default_factory=list)  # the @paths included


async def expand(
    cmd: CustomCommand,
    arguments: str,
    *,
    root: Path,
    shell: Shell | None,
    refusal: str = "",
    path_denied: PathDenied | None = None,
) -> Expanded:
    """The prompt ``cmd`` sends for ``arguments``. ``shell`` runs a shell line under the
    permission rules; ``refusal`` (from :func:`shell_refusal`) says why none may run."""
    args = _words(arguments)
    out = Expanded("")
    pieces: list[str] = []
    files: list[str] = []
    pos = 0
    for m in _TOKEN.finditer(cmd.body):
        pieces.append(_substitute(cmd.body[pos : m.start()], arguments, args))
        pos = m.end()
        if m.group(1) is not None:
            pieces.append(await _shell_line(m.group(1), arguments, args, shell, refusal, out))
        else:
            raw = m.group(2)
            pieces.append(_substitute(raw and "@" + raw, arguments, args))
            name = _substitute(raw, arguments, args).replace("\\ ", " ").rstrip(".,;:!?)")
            text = _include(name, root, path_denied, out)
            if text is not None:
                files.append(text)
    pieces.append(_substitute(cmd.body[pos:], arguments, args))
    prompt = "".join(pieces).strip()
    if arguments.strip() and not _ARG.search(cmd.body):
        prompt += f"\n\nARGUMENTS: {arguments.strip()}"
    out.prompt = "\n\n".join([prompt, *files])
    return out


def _words(arguments: str) -> list[str]:
    try:
        return shlex.split(arguments)
    except ValueError:  # an unclosed quote: plain words
        return arguments.split()


def _substitute(text: str, arguments: str, args: list[str]) -> str:
    def value(m: re.Match[str]) -> str:
        key = m.group(1)
        if key == "ARGUMENTS":
            return arguments.strip()
        i = int(key)
        return args[i - 1] if 1 <= i <= len(args) else ""

    return _ARG.sub(value, text)


async def _shell_line(
    template: str, arguments: str, args: list[str], shell: Shell | None, refusal: str, out: Expanded
) -> str:
    short = frontmatter.one_line(template, 60)
    why = (
        refusal
        or ("" if shell is not None else "no shell here")
        or _arithmetic(template, arguments)
    )
    if why or shell is None:
        out.notes.append(f"!`{short}` not run: {why}")
        return f"[!`{template}` was not run: {why}]"
    text, ran = await shell(shell_line(template, arguments, args))
    if not ran:
        # the refusal whole: it ends with the allow rule to add (a long one loses its middle)
        out.notes.append(f"!`{short}` not run: {frontmatter.one_line(text, 800, keep_end=True)}")
        return f"[!`{template}` was not run: {text}]"
    return text.removesuffix("[exit code 0]").rstrip("\n")


# -- a shell line's arguments -------------------------------------------------------------------

#: The shell variables a shell line's ``$ARGUMENTS`` (as one string, and as words: an array)
#: and ``$1``, ``$2``… become.
ARGS_VAR, ARGV_VAR, ARG_VAR = "LARIK_ARGUMENTS", "LARIK_ARGV", "LARIK_ARG_{}"
#: Where bash reads a ``${…}`` as text, not as words (no splitting, no globbing).
_QUOTED = frozenset({"string", "heredoc_body"})
#: Where a ``${…}`` stands for a whole command line of its own.
_BOUNDARY = frozenset({"command_substitution", "process_substitution", "subshell"})
#: The places a whole word of ``$ARGUMENTS`` is the user's words, each its own.
_WORDS = frozenset({"command", "command_name", "array", "for_statement"})
#: A line that may do arithmetic: bash evaluates a value there as an expression, and a
#: subscript in it (``a[$(cmd)]``) runs code, whoever quoted it.
_ARITHMETIC = re.compile(
    r"\(\(|\$\[|\b(let|declare|typeset|local)\b|-(eq|ne|lt|le|gt|ge)\b|\$\{[^}]*[\[:]"
)


def shell_line(template: str, arguments: str, args: list[str]) -> str:
    """The command a shell line runs for ``arguments`` (``args``: its words).

    The arguments are never spliced into the line's text: each ``$ARGUMENTS`` and ``$N`` bash
    reads becomes a reference to a shell variable, quoted for where it stands (bash's parse
    tree says: inside double quotes ``${LARIK_ARG_1}``, elsewhere ``"${LARIK_ARG_1}"``, a whole
    word ``$ARGUMENTS`` the words ``"${LARIK_ARGV[@]}"``), and the variables are set at the
    line's start, each value shell-quoted in a plain assignment. What bash does not read as an
    expansion (inside single quotes, a comment) stays as written. What runs — and what the
    permission rules and the user see — is that whole line."""
    matches = list(_ARG.finditer(template))
    if not matches:
        return template
    refs, spans, pos = bytearray(), [], 0
    for m in matches:
        refs += template[pos : m.start()].encode()
        ref = f"${{{_var(m.group(1))}}}".encode()
        spans.append((len(refs), len(refs) + len(ref)))
        refs += ref
        pos = m.end()
    refs += template[pos:].encode()
    read = _how_read(bytes(refs), set(spans))
    used: dict[str, str] = {}
    pieces, pos = [], 0
    for m, span in zip(matches, spans, strict=True):
        pieces.append(template[pos : m.start()])
        pos = m.end()
        how = read.get(span)
        name = _var(m.group(1))
        if how is None:
            pieces.append(m.group(0))  # literal to bash: as written
            continue
        if how == "words" and m.group(1) == "ARGUMENTS":
            name = ARGV_VAR
        used[name] = _value(m.group(1), arguments, args) if name != ARGV_VAR else ""
        pieces.append(_reference(name, how))
    pieces.append(template[pos:])
    sets = [
        f"{n}=({' '.join(shlex.quote(a) for a in args)})"
        if n == ARGV_VAR
        else f"{n}={shlex.quote(v)}"
        for n, v in used.items()
    ]
    return "; ".join([*sets, "".join(pieces)])


def _reference(name: str, how: str) -> str:
    if how == "quoted":  # inside double quotes already
        return f"${{{name}}}"
    return f'"${{{name}[@]}}"' if name == ARGV_VAR else f'"${{{name}}}"'


def _var(key: str) -> str:
    return ARGS_VAR if key == "ARGUMENTS" else ARG_VAR.format(int(key))


def _value(key: str, arguments: str, args: list[str]) -> str:
    if key == "ARGUMENTS":
        return arguments.strip()
    i = int(key)
    return args[i - 1] if 1 <= i <= len(args) else ""


def _how_read(source: bytes, spans: set[tuple[int, int]]) -> dict[tuple[int, int], str]:
    """For each span that bash reads as an expansion: "quoted" (as text), "words" (a whole
    word where words go) or "word"; spans bash reads otherwise are left out."""
    from .shell import syntax_tree

    out: dict[tuple[int, int], str] = {}
    stack = [syntax_tree(source)]
    while stack:
        node = stack.pop()
        span = (node.start_byte, node.end_byte)
        if node.type == "expansion" and span in spans and span not in out:
            out[span] = _context(node)
        stack.extend(node.children)
    return out


def _context(node: Any) -> str:
    parent = node.parent
    up = parent
    while up is not None and up.type not in _BOUNDARY:
        if up.type in _QUOTED:
            return "quoted"
        up = up.parent
    return "words" if parent is not None and parent.type in _WORDS else "word"


def _arithmetic(template: str, arguments: str) -> str:
    """Why the line may not run with these arguments ("" when it may): one holds ``[`` and the
    line may do arithmetic, where bash would run the ``$(…)`` of a subscript in it."""
    if "[" in arguments and _ARG.search(template) and _ARITHMETIC.search(template):
        return (
            "an argument holds '[' and the line may do arithmetic, where bash runs the code in "
            "a subscript (a[$(…)]) of a value"
        )
    return ""


def _include(name: str, root: Path, path_denied: PathDenied | None, out: Expanded) -> str | None:
    from .paths import resolve_path

    if not name:
        return None
    rp = resolve_path(root, name)
    try:
        exists = rp.path.exists()
    except OSError:
        exists = False
    if not exists:
        if "/" in name:
            out.notes.append(f"@{name}: no such file, not included")
        return None
    if not rp.inside:
        out.notes.append(f"@{name}: outside the project, not included")
        return None
    if path_denied is not None and path_denied("read_file", rp.path):
        out.notes.append(f"@{name}: covered by a permissions.deny rule, not included")
        return None
    if rp.path.is_dir():
        return None
    try:
        data = _read(rp.path, MAX_INCLUDE)
    except _Refused as e:
        out.notes.append(f"@{name}: {e}, not included")
        return None
    out.includes.append(rp.rel)
    content = data.decode("utf-8", errors="replace")
    return f'<file path="{rp.rel}">\n{content}\n</file>'


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
