"""The programs Larik runs itself, outside the sandbox, are its own: never one a project put on
``PATH``.

A virtualenv the user activated (``source .venv/bin/activate``, direnv, ``poetry shell``) puts
``PROJECT/.venv/bin`` first on ``PATH``: inside the project, which sandboxed commands may write.
A ``git`` or a ``bwrap`` planted there would run on the host, as Larik, the next time Larik ran
its own — a checkpoint at the end of the same turn, or the next command's sandbox. So every
program Larik starts outside the sandbox (:data:`PROGRAMS`) is looked up, as an absolute path
that is what runs, on
:func:`safe_path`: ``PATH`` without the entries that are relative, lie inside a folder a
project, a model or a sandboxed command may write (the projects Larik works in and the
sandbox's writable folders, :func:`guard`; the root passed in), or that anyone may write
(world-writable and not sticky). The program found must resolve, symlinks followed, outside
those folders too. A program found only in such a folder is not run: :func:`find` raises
:class:`NotOwn`, a ``FileNotFoundError`` whose one line says where it was and why not.

The children of such a program — what git starts, a language server's helpers, an unsandboxed
hook's commands — get the same clean ``PATH`` (:func:`host_env`). A sandboxed command keeps the
user's ``PATH`` (the virtualenv's ``pytest`` is what the user means): ``bwrap`` is started with
the user's environment, and what it runs is inside the sandbox.

What is left out is Larik's own interpreter (``sys.executable``: the engine, the HTML worker,
the bench reaper), which is not looked up on ``PATH`` at all. A test walks every place in the
package that starts a process (:data:`STARTS`), so a new one cannot forget this module.

:func:`project_git` is the one way Larik's own git reads a project's repository.

A leaf: the standard library only.
"""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

__all__ = [
    "PROGRAMS",
    "STARTS",
    "NotOwn",
    "find",
    "guard",
    "guarded",
    "host_env",
    "project_git",
    "safe_path",
    "which",
]

#: Every program Larik starts by name outside the sandbox, and what for.
PROGRAMS: dict[str, str] = {
    "bwrap": "the OS sandbox every sandboxed command, hook, MCP server and check starts in",
    "nsenter": "the sandbox's shared loopback, entered before bwrap",
    "git": "checkpoints, the prompt's git status, file listings, kept files, bench suites",
    "rg": "the grep tool's ripgrep engine",
    "bash": "the bash tool and hooks where they run unsandboxed",
    "env": "the editor's terminal command line (ACP), run by the editor",
    "wl-copy": "the TUI's copy (Wayland)",
    "xclip": "the TUI's copy and image paste (X)",
    "xsel": "the TUI's copy (X)",
    "pbcopy": "the TUI's copy (macOS)",
    "wl-paste": "the TUI's image paste (Wayland)",
    "pbpaste": "the TUI's image paste (macOS)",
    "osascript": "the TUI's image paste (macOS)",
    "pngpaste": "the TUI's image paste (macOS)",
    "xdg-open": "opening the sign-in page in a browser (Linux)",
    "open": "opening the sign-in page in a browser (macOS)",
}

#: Every module of the package that starts a process, and how it finds the program: a name of
#: :data:`PROGRAMS` through :func:`find`, Larik's own interpreter, or a program the session's
#: config names, run in the sandbox (or, for the user's own ``sandbox = false`` entries, found
#: on :func:`safe_path`). tests/test_host_programs.py walks the package and this table.
STARTS: dict[str, str] = {
    "larik/host_programs.py": "git reading a project (project_git): listings, status, config",
    "larik/sandbox/__init__.py": "bwrap (the probe)",
    "larik/sandbox/space.py": "bwrap, nsenter (a session's network namespace)",
    "larik/agent/checkpoints.py": "git",
    "larik/bench/suite.py": "git",
    "larik/agent/tools/grep.py": "rg",
    "larik/agent/tools/bash.py": "bash (or bwrap), env for the editor's terminal",
    "larik/hooks/process.py": "bash (or bwrap)",
    "larik/tui/clipboard.py": "the clipboard programs",
    "larik/tui/images.py": "the clipboard programs",
    "larik/commands/login.py": "a browser (xdg-open, open)",
    "larik/lsp/client.py": "a language server: sandboxed, or found by lsp/servers.py",
    "larik/mcp/stdio.py": "an MCP server: sandboxed, or the user's own found on safe_path()",
    "larik/llm/local/engine.py": "Larik's own interpreter",
    "larik/agent/tools/web_fetch.py": "Larik's own interpreter",
    "larik/bench/confine.py": "Larik's own interpreter, in bwrap",
    "larik/bench/_reaper.py": "a bench check's own command, run in bwrap where there is one",
}

_guarded: set[Path] = set()


class NotOwn(FileNotFoundError):
    """A program Larik would run that is missing, or found only where a project, a model or a
    sandboxed command could have put it. ``str()`` is the one line to show."""

    def __init__(self, line: str) -> None:
        super().__init__(line)
        self.line = line

    def __str__(self) -> str:
        return self.line


def guard(*folders: Path | str) -> None:
    """Folders a project, a model or a sandboxed command may write — a session's project root,
    the sandbox's writable folders, its private ``/tmp`` — kept out of :func:`safe_path` for
    the rest of the process (a process may serve several projects: ACP, bench)."""
    for folder in folders:
        _guarded.add(_real(Path(folder)))


def guarded() -> frozenset[Path]:
    """What :func:`guard` has been given so far."""
    return frozenset(_guarded)


def safe_path(path: str | None = None, roots: Iterable[Path | str] = ()) -> str:
    """``path`` (default: this process's ``PATH``) without the entries :func:`find` may not
    use: relative ones, those inside ``roots`` or a :func:`guard`-ed folder, and those anyone
    may write."""
    raw = os.environ.get("PATH", os.defpath) if path is None else path
    unsafe = _unsafe(roots)
    kept = [e for e in dict.fromkeys(raw.split(os.pathsep)) if _entry_ok(e, unsafe)]
    return os.pathsep.join(kept)


def find(name: str, *roots: Path | str) -> str:
    """``name``'s absolute path on :func:`safe_path` (``roots``: the project the caller works
    in, beside what was :func:`guard`-ed): what the caller runs, so nothing looks it up again
    (a few ``stat`` calls a start, and a program installed meanwhile is found). Raises
    :class:`NotOwn` when it is not there: missing, or only where the project could have put
    it."""
    raw = os.environ.get("PATH", os.defpath)
    unsafe = _unsafe(roots)
    found = _lookup(name, raw, unsafe)
    if isinstance(found, NotOwn):
        raise found
    return found


def which(name: str, *roots: Path | str) -> str | None:
    """:func:`find`, or None where it would raise."""
    try:
        return find(name, *roots)
    except NotOwn:
        return None


def host_env(env: Mapping[str, str] | None = None, *roots: Path | str) -> dict[str, str]:
    """``env`` (default: this process's environment) with ``PATH`` made :func:`safe_path`: what
    a program Larik runs on the host passes to what it starts."""
    out = dict(os.environ if env is None else env)
    out["PATH"] = safe_path(out.get("PATH", os.defpath), roots)
    return out


#: What every read of a project's repository runs git with: nothing its config names runs (an
#: fsmonitor program, hooks), and nothing is written back (``GIT_OPTIONAL_LOCKS``: no index refresh).
READ_ONLY_GIT = ("-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null")


def project_git(
    args: Sequence[str], cwd: Path, *, timeout: float, env: Mapping[str, str] | None = None
) -> bytes | None:
    """Larik's own git reading the repository at ``cwd`` (its file listing, its status, its
    config): :func:`find`'s git, :data:`READ_ONLY_GIT`, :func:`host_env`'s ``PATH`` (``env``:
    the environment to start from, default this process's), no prompt. Its stdout, or None when
    git is not Larik's own, fails, or takes over ``timeout`` seconds."""
    run_env = host_env(env, cwd)
    run_env.update(GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0")
    try:
        done = subprocess.run(
            [find("git", cwd), *READ_ONLY_GIT, *args],
            cwd=cwd,
            env=run_env,
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=timeout,
            check=False,
        )
    except (OSError, ValueError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def _lookup(name: str, raw: str, unsafe: frozenset[Path]) -> str | NotOwn:
    if "/" in name or not name:
        return NotOwn(f"{name!r}: Larik runs its own programs by name, found on PATH")
    planted: list[str] = []
    for entry in dict.fromkeys(raw.split(os.pathsep)):
        candidate = os.path.join(entry, name) if entry else name
        if not (os.path.isfile(candidate) and os.access(candidate, os.X_OK)):
            continue
        if not _entry_ok(entry, unsafe) or _inside(_real(Path(candidate)), unsafe):
            planted.append(candidate)
            continue
        return os.path.abspath(candidate)
    if planted:
        return NotOwn(
            f"{name} is found only at {planted[0]}, where the project, the model or a sandboxed "
            "command could have put it: Larik does not run it (install it outside the project, "
            "docs/security.md)"
        )
    return NotOwn(f"{name} is not installed")


def _unsafe(roots: Iterable[Path | str]) -> frozenset[Path]:
    return frozenset({*_guarded, *(_real(Path(r)) for r in roots)})


def _entry_ok(entry: str, unsafe: frozenset[Path]) -> bool:
    """A ``PATH`` entry :func:`find` may look in: absolute, outside ``unsafe``, and not
    writable by anyone (world-writable without the sticky bit)."""
    if not entry or not os.path.isabs(entry):
        return False
    real = _real(Path(entry))
    if _inside(real, unsafe):
        return False
    try:
        mode = os.stat(real).st_mode
    except OSError:
        return True  # not there: nothing to find in it (a writable place to make it is unsafe)
    return not (mode & stat.S_IWOTH and not mode & stat.S_ISVTX)


def _inside(path: Path, folders: Iterable[Path]) -> bool:
    return any(path == f or path.is_relative_to(f) for f in folders)


def _real(path: Path) -> Path:
    try:
        return Path(os.path.realpath(path))
    except (OSError, ValueError):
        return path
