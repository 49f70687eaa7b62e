"""What a project's hooks and MCP servers run from the project: the files the trust digest holds.

Trusting a project's hooks and servers trusts the code they run *as it is*: when the code
changes, the trust question is asked again (larik.trust). That code is more than the command
line: ``bash .claude/hooks/check.sh`` runs the script, the ``lib.sh`` it sources, the helpers it
imports. So for each command line (a hook's shell line, a server's ``command`` and ``args``),
read with the bash parse tree (:mod:`larik.shell`: lists, ``cd DIR &&``, ``bash -c '…'``,
``env``/``nohup`` wrappers seen through), :func:`covered` holds:

- every file inside the project that a word names, at any position (``--config=x.toml`` too),
  from the root and from every folder the line ``cd``\\ s into;
- the *program*: the first such file of a simple command (``./x.sh``, ``python3 tools/s.py``,
  ``node srv/index.js``), a folder an interpreter is given (``python3 pkg``), or the module of
  ``python -m pkg.mod`` (its top package's folder, or the module file) — and every file under
  the program's folder that git does not ignore (``git ls-files --cached --others
  --exclude-standard``; outside a git repository a walk that skips ``.git``, ``node_modules``
  and virtualenvs). A program at the project's top therefore covers the whole project.
  ``__pycache__`` folders are never covered (Python rewrites them itself);
- :data:`MAX_FILES` files and :data:`MAX_BYTES` bytes at most: past that the rest is not seen,
  and a note says so.

What the digest cannot see is said in words, one note each: a runner that finds its code itself
(``make``, ``npm run``, ``cargo``, ``pytest``: :data:`RUNNERS`), a command the tree cannot vouch
for (``eval``, ``$CMD``, a file sourced by a name known only when it runs), an argument known
only when a server starts (``${VAR}``), an environment variable that changes what code loads
(``PYTHONPATH``, ``NODE_OPTIONS``). Code a program loads from outside its folder without naming
it on the line (``source ../lib.sh`` inside a script) is not covered.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from . import host_programs, shell
from .words import count

__all__ = ["MAX_BYTES", "MAX_FILES", "RUNNERS", "Coverage", "Entry", "covered"]

MAX_FILES = 2000  # files held at most, over all the entries
MAX_BYTES = 64 << 20  # bytes read at most (a file past the rest is held by its size alone)
MAX_FILE = 16 << 20  # one file larger than this is held by its size and first 16 MiB

#: Programs that find the code they run themselves (a Makefile, package.json's scripts, a
#: build file, test discovery): the digest cannot follow them.
RUNNERS = frozenset(
    """
    make gmake just task cargo go mvn gradle ant rake bundle tox nox pytest pre-commit npm yarn
    pnpm npx bunx composer invoke poe dotnet sbt mix bazel
    """.split()
)
#: Launchers whose ``run`` (``exec``, ``x``) runs what follows: ``uv run pytest`` is pytest.
_LAUNCHERS = frozenset("uv poetry pipenv pdm hatch rye conda pixi bun deno".split())
_LAUNCH_VERBS = frozenset({"run", "exec", "x", "dlx"})
#: Interpreters: a folder they are given is a program (``python3 pkg`` runs pkg/__main__.py).
_INTERPRETER = re.compile(r"(python|pypy)[0-9.]*|node|nodejs|bun|deno|ruby|perl|php|lua")
_PYTHON = re.compile(r"(python|pypy)[0-9.]*")
#: Environment variables (of an MCP server) that change what code a program loads.
_LOADER_ENV = re.compile(r"PYTHON(PATH|STARTUP|HOME)|NODE_(OPTIONS|PATH)|PERL5?LIB|RUBYLIB|LD_\w+")
_SKIP_DIRS = frozenset(
    ".git __pycache__ node_modules .venv venv .tox .nox .mypy_cache .pytest_cache".split()
)
_PROJECT_DIR = re.compile(r"\$(?:\{(?:CLAUDE|LARIK)_PROJECT_DIR\}|(?:CLAUDE|LARIK)_PROJECT_DIR\b)")


@dataclass(frozen=True)
class Entry:
    """One thing that runs: ``where`` names it for the user (``.claude/settings.json
    SessionStart``, ``MCP server db``); ``line`` is a shell line (a hook) or ``argv`` a program
    and its arguments (a stdio server), started in ``cwd`` (relative to the root)."""

    where: str
    line: str = ""
    argv: Sequence[str] = ()
    cwd: str = ""
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass
class Coverage:
    files: dict[str, str]  # path relative to the root -> "sha256:size"
    unseen: list[str]  # what the digest cannot see, one note each


def covered(entries: Iterable[Entry], root: Path) -> Coverage:
    """The project files ``entries`` run, and what of them cannot be seen (see the module)."""
    root = root.resolve()
    named: dict[Path, None] = {}
    folders: dict[Path, None] = {}
    unseen: list[str] = []
    for entry in entries:
        _read(entry, root, named, folders, unseen)
    budget = _Budget()
    files: dict[str, str] = {}
    for path in named:
        _hold(path, root, files, budget)
    for folder in folders:
        for path in _listing(folder):
            _hold(path, root, files, budget)
    if budget.cut:
        unseen.append(
            f"the digest holds {count(len(files), 'file')} ({budget.read >> 20} MiB read) and not the "
            f"rest (past its limit of {count(MAX_FILES, 'file')} and {MAX_BYTES >> 20} MiB)"
        )
    return Coverage(dict(sorted(files.items())), list(dict.fromkeys(unseen)))


# -- reading one entry -------------------------------------------------------------------------
def _read(
    entry: Entry,
    root: Path,
    named: dict[Path, None],
    folders: dict[Path, None],
    unseen: list[str],
) -> None:
    start = _inside(root / entry.cwd, root) if entry.cwd else root
    if start is None:
        start = root
    if entry.argv:
        words = [_PROJECT_DIR.sub(str(root), w) for w in entry.argv]
        for w in words:
            if "${" in w:
                unseen.append(f"{entry.where}: {shell.short(w, 60)} is known only when it starts")
        for name, value in entry.env.items():
            if _LOADER_ENV.fullmatch(name):
                unseen.append(
                    f"{entry.where}: sets {name}, so the digest cannot see all the code it loads"
                )
            _name(_PROJECT_DIR.sub(str(root), value), [start], root, named)
        line = shlex.join(words)
    else:
        line = _PROJECT_DIR.sub(str(root), entry.line)
    script = shell.parse(line)
    sourcing = {shell.OPAQUE["source"], shell.OPAQUE["."]}
    for why in script.unvouched:
        if why not in sourcing:
            unseen.append(f"{entry.where}: {why}, so the digest cannot see what it runs")
    dirs = [start]
    for cmd in script.commands:
        values = [w.value for w in cmd.words]
        head = values[0] or ""
        base = head.rsplit("/", 1)[-1]
        if base in ("cd", "pushd"):
            target = next((v for v in values[1:] if v and not v.startswith("-")), None)
            if target is not None:
                moved = [d for d in (_inside(d / target, root) for d in dirs) if d is not None]
                dirs.extend(d for d in moved if _is_dir(d) and d not in dirs)
            continue
        if base in ("source", ".") and (len(values) < 2 or values[1] is None):
            unseen.append(f"{entry.where}: it sources a file named only when it runs")
        runner = _runner(values)
        if runner:
            unseen.append(f"{entry.where}: runs {runner}: the digest cannot see what it runs")
        program: Path | None = None
        for i, v in enumerate(values):
            if v is None:
                continue
            for found in _name(v, dirs, root, named):
                program = program or found.parent
            after = values[i + 1] if i + 1 < len(values) else None
            if v == "-m" and after and any(_PYTHON.fullmatch(_base(x)) for x in values[:i]):
                module = _module(after, dirs, root)
                if module is not None:
                    program = program or module
            if (
                i
                and _INTERPRETER.fullmatch(_base(values[i - 1]))
                and not v.startswith("-")
                and program is None
            ):
                folder = next((p for p in (_inside(d / v, root) for d in dirs) if p), None)
                if folder is not None and _is_dir(folder):
                    program = folder
        if program is not None:
            folders[program] = None


def _base(value: str | None) -> str:
    return (value or "").rsplit("/", 1)[-1]


def _runner(values: list[str | None]) -> str:
    """``make``, ``npm run build``, ``uv run pytest``…: a runner that finds its own code."""
    i = 0
    while i < len(values):
        base = _base(values[i])
        if base in RUNNERS:
            sub = values[i + 1] if i + 1 < len(values) else None
            return f"{base} {sub}" if sub and not sub.startswith("-") else base
        if base in _LAUNCHERS and i + 1 < len(values) and values[i + 1] in _LAUNCH_VERBS:
            i += 2
            while i < len(values) and (values[i] or "").startswith("-"):
                i += 1
            continue
        return ""
    return ""


def _name(value: str, dirs: list[Path], root: Path, named: dict[Path, None]) -> list[Path]:
    """The project files ``value`` names (``--opt=FILE`` too), added to ``named``."""
    found: list[Path] = []
    for text in dict.fromkeys([value, value.partition("=")[2]]):
        if not text or text.startswith("-") or "\0" in text:
            continue
        for d in dirs:
            path = _inside(d / Path(text).expanduser(), root)
            if path is not None and _is_file(path):
                named[path] = None
                found.append(path)
    return found


def _module(name: str, dirs: list[Path], root: Path) -> Path | None:
    """The folder ``python -m NAME`` runs from the project: its top package, or the folder
    of a top-level module file; None when it is not the project's."""
    top = name.split(".")[0]
    if not top.isidentifier():
        return None
    for d in dirs:
        for base in (d, d / "src"):
            package = _inside(base / top, root)
            if package is not None and _is_dir(package):
                return package
            module = _inside(base / f"{top}.py", root)
            if module is not None and _is_file(module):
                return module.parent
    return None


def _inside(path: Path, root: Path) -> Path | None:
    try:
        real = path.resolve()
    except (OSError, RuntimeError, ValueError):
        return None
    return real if real.is_relative_to(root) else None


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):  # a name too long, a NUL: not a file of the project
        return False


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except (OSError, ValueError):
        return False


def _rel(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() or "."


# -- the files under a folder, and holding them --------------------------------------------------
def _listing(folder: Path) -> list[Path]:
    """The files under ``folder`` that git does not ignore (outside a git repository, a walk
    skipping :data:`_SKIP_DIRS`), sorted; a walk stops past MAX_FILES (the rest is cut)."""
    args = ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", "."]
    listed = host_programs.project_git(args, folder, timeout=10)
    if listed is not None:
        names = sorted({os.fsdecode(n) for n in listed.split(b"\0") if n})
        return [folder / n for n in names if "__pycache__" not in n.split("/")]
    out: list[Path] = []
    for here, subdirs, names in os.walk(folder):
        subdirs[:] = sorted(d for d in subdirs if d not in _SKIP_DIRS)
        out.extend(Path(here) / n for n in sorted(names))
        if len(out) > MAX_FILES:
            break
    return out


@dataclass
class _Budget:
    read: int = 0
    cut: int = 0


def _hold(path: Path, root: Path, files: dict[str, str], budget: _Budget) -> None:
    real = _inside(path, root)
    if real is None or not _is_file(real):
        return
    name = _rel(real, root)
    if name in files:
        return
    if len(files) >= MAX_FILES:
        budget.cut += 1
        return
    try:  # O_NONBLOCK: a file swapped for a FIFO since the check is not waited on
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            return
        size = st.st_size
        room = max(0, min(MAX_FILE, MAX_BYTES - budget.read))
        try:
            data = f.read(room) if room else b""
        except OSError:
            return
    budget.read += len(data)
    if len(data) < size and room < MAX_FILE:
        budget.cut += 1  # held by its size alone: the bytes are past the budget
    files[name] = f"{hashlib.sha256(data).hexdigest()}:{size}"
