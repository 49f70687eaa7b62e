"""The OS sandbox for the programs a config names: hooks and stdio MCP servers.

A hook or an MCP server is a program someone configured — you, or a project you trusted. Both
run in the session's sandbox, the bash tool's (``[sandbox]``, :mod:`.sandbox`): the project
writable (in ``workspace-write``), the rest of the disk read-only, ``$HOME``'s secrets and
Larik's config and state hidden, a private ``/tmp``. What differs by kind is a table:

=============  ======================================  ====================================
               hooks                                   stdio MCP servers
=============  ======================================  ====================================
network        ``[sandbox] network`` (off by default)  on (many servers are API clients),
               or ``network = true`` on the entry      or ``network = false`` on the entry
unsandboxed    ``sandbox = false`` on an entry of your own config. A project's entry asking for
               it (``.larik/config.toml``, ``.mcp.json``) runs sandboxed all the same, and the
               session says so once (:func:`refused`): a project's programs always run sandboxed
=============  ======================================  ====================================

What one of *your* entries names by path on its command line (``~`` and ``$HOME`` expanded) is
visible to it, read-only, where the sandbox would hide it: under ``/tmp``, or in Larik's config
folder (a hook script in ``~/.config/larik/hooks/``) — never a secret of
:data:`~.confinement.HIDDEN_HOME`, the config file itself, Larik's state, nor a folder holding one of
those or the project. A program that is a virtualenv's (``pyvenv.cfg`` beside its ``bin/``) sees
that virtualenv, read-only, whoever configured it: a virtualenv is code, not a secret. A
project's entry gets nothing more: what it runs is in the project.

Where there is no sandbox (``[sandbox] mode = "off"``, or bubblewrap cannot run here, which the
session says once) they run as they are, as bash does.
"""

from __future__ import annotations

import dataclasses
import os
import shlex
import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from . import REFUSAL, Sandbox
from .confinement import HIDDEN_HOME, hidden_paths

if TYPE_CHECKING:
    from ..config import Config
    from ..hooks.config import HookEntry
    from ..hooks.runner import Launcher

__all__ = ["entry_box", "hint", "hook_launcher", "program_path", "refused", "shell_words"]

_HOME_PREFIXES = ("~/", "$HOME/", "${HOME}/")


def entry_box(
    session: Sandbox | None,
    *,
    user: bool,
    unsandboxed: bool,
    network: bool,
    words: Sequence[str],
    root: Path,
) -> Sandbox | None:
    """The sandbox one hook or MCP server runs in, None for none: ``session`` is the session's
    (None: there is none), ``user`` whether the entry is the user's own, ``unsandboxed`` its
    ``sandbox = false`` (honoured for the user's only), ``words`` its command line."""
    if session is None or not session.active or (unsandboxed and user):
        return None
    return dataclasses.replace(
        session, network=network, readable=_readable(words, user, root, session.writable)
    )


def hook_launcher(session: Sandbox | None, root: Path) -> Launcher:
    """How the session's hooks start: each in its sandbox (:func:`entry_box`)."""
    from ..hooks.runner import Launch

    where = "network = true (or sandbox = false) on its [[hooks.EVENT]] entry"

    def explain(stderr: str) -> str:
        return hint("hook", where) if REFUSAL.search(stderr) else ""

    def launch(entry: HookEntry, command: str) -> Launch:
        box = entry_box(
            session,
            user=entry.user,
            unsandboxed=entry.unsandboxed,
            network=entry.network or (session is not None and session.network),
            words=shell_words(command),
            root=root,
        )
        if box is None:
            return Launch(None)
        return Launch(box.wrap(["bash", "-c", command], root), explain)

    return launch


def shell_words(command: str) -> list[str]:
    """A hook's command line as words (plain whitespace when it does not parse)."""
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def program_path(
    command: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> str | None:
    """Where ``command`` is, as the process started in ``cwd`` would find it (a name on
    ``PATH``, a relative path from ``cwd``); None: nowhere."""
    if "/" in command and cwd is not None:
        command = str(cwd / command)
    path = (env or {}).get("PATH") or os.environ.get("PATH") or os.defpath
    return shutil.which(command, path=path)


def hint(kind: str, where: str) -> str:
    """The words a sandboxed program's failure that looks like the sandbox's doing gets."""
    return (
        f"[this may be the OS sandbox: outside the project the file system is read-only, "
        f"secrets in $HOME are hidden{' and the network is off' if kind == 'hook' else ''}. "
        f"If the {kind} needs more, set {where} in your own config (docs/security.md)]"
    )


def refused(config: Config) -> list[str]:
    """One line for each entry of a project that asks to run outside the OS sandbox: it runs
    sandboxed all the same (only the user's own config may say ``sandbox = false``)."""
    from ..hooks.config import EVENTS

    out: list[str] = []
    for event in EVENTS:
        for entry in config.hooks.entries(event):
            if not entry.sandbox and not entry.user:
                out.append(f"a {event} hook{_from(entry.source)}")
    for name, server in config.mcp.servers.items():
        if server.command and not server.sandbox and not server.user:
            out.append(f"MCP server {name!r}{_from(server.source)}")
    return [
        f"{what} asks for sandbox = false: ignored, it runs in the OS sandbox (only your own "
        "config may run a hook or an MCP server outside it)"
        for what in out
    ]


def _from(source: str) -> str:
    return f" from {source}" if source else ""


def _readable(
    words: Sequence[str], user: bool, root: Path, writable: Iterable[Path]
) -> tuple[Path, ...]:
    """What the entry's command line names that the sandbox would hide and it may see."""
    home = Path(os.environ.get("HOME") or Path.home())
    named = [p for w in words for p in _paths(w, home)] if user else []
    first = words[0] if words else ""
    program = Path(first) if first.startswith("/") else None
    if program is None and first and "/" not in first:
        found = program_path(first)
        program = Path(found) if found else None
    candidates = [v for p in (*named, *([program] if program else [])) if (v := _venv(p))]
    candidates += named
    return tuple(dict.fromkeys(p for c in candidates if (p := _visible(c, root, writable))))


def _paths(word: str, home: Path) -> list[Path]:
    """The absolute paths a word names: itself, or what follows ``=`` in ``--opt=PATH``."""
    out = []
    for text in (word, word.partition("=")[2]):
        for prefix in _HOME_PREFIXES:
            if text.startswith(prefix):
                text = str(home / text[len(prefix) :])
        if text.startswith("/"):
            out.append(Path(text))
    return out


def _venv(program: Path) -> Path | None:
    """The virtualenv ``program`` belongs to (not resolved: a venv's python links out of it)."""
    folder = program.parent
    if folder.name == "bin" and (folder.parent / "pyvenv.cfg").is_file():
        return folder.parent
    return None


def _visible(path: Path, root: Path, writable: Iterable[Path]) -> Path | None:
    """``path`` resolved, when binding it back read-only is both needed and harmless."""
    from ..config import user_config_path

    try:
        real = path.resolve()
        if not real.exists():
            return None
        config_file = user_config_path().resolve()
        hidden = [p.resolve() for p in hidden_paths()]
    except (OSError, RuntimeError):
        return None
    config_folder = config_file.parent
    in_config = real.is_relative_to(config_folder) and not config_file.is_relative_to(real)
    in_tmp = real.is_relative_to("/tmp") and real != Path("/tmp")  # not the host's whole /tmp
    if not (in_tmp or in_config):
        return None  # the sandbox shows it already (or hides it for a reason: a secret)
    home = Path(os.environ.get("HOME") or Path.home())
    secrets = [(home / p).resolve() for p in HIDDEN_HOME]
    for keep in (root.resolve(), *writable):
        if real.is_relative_to(keep) or keep.is_relative_to(real):
            return None  # inside the project (visible, and writable) or holding it
    for secret in (*secrets, *(h for h in hidden if h != config_folder)):
        if real.is_relative_to(secret) or secret.is_relative_to(real):
            return None
    if config_file.is_relative_to(real):
        return None
    return real
