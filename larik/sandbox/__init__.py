"""The OS sandbox the bash tool runs commands in: bubblewrap (``bwrap``) on Linux.

``[sandbox] mode``:

- ``workspace-write`` (default): the project root and ``writable`` paths are writable, the rest
  of the file system is read-only; ``/tmp`` is a private, empty tmpfs (the host's ``/tmp`` is
  not written unless listed in ``writable``).
- ``read-only``: nothing of the host is writable (a private ``/tmp`` still is).
- ``off``: commands run as they are, guarded by the permission prompts only.

In both sandboxed modes the secrets in ``$HOME`` (:data:`~.confinement.HIDDEN_HOME`) and
Larik's own config and state folders are covered with an empty tmpfs (files: with
``/dev/null``), and the network is cut (``--unshare-net``: only a private loopback) unless
``network = true``. Every command runs without privilege, root's included
(:func:`~.confinement.isolation`): a user namespace with no capability, its own pid and IPC
namespaces, a new session.

Where bwrap is missing or cannot start (user namespaces switched off), :func:`probe` says why
and the caller falls back to the prompts, saying so once. We use bwrap rather than hand-written
namespace code: it is what Flatpak runs on and what Codex and Claude Code use on Linux.

This module is the sandbox a session's commands run in (:class:`Sandbox`: its bwrap command
line) and whether there is one (:func:`probe`, :func:`for_session`); what confines every
command is :mod:`.confinement`'s, what a session's commands share :mod:`.space`'s, what stays
read-only in a writable folder :mod:`.kept`'s, the system calls refused :mod:`.seccomp`'s.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from .. import git_followed, host_programs
from . import kept, seccomp
from .confinement import hidden_paths, hide, isolation, own_install, proc_hidden
from .space import Space

__all__ = [
    "REFUSAL",
    "Mode",
    "Sandbox",
    "Space",
    "close_space",
    "for_session",
    "from_config",
    "probe",
]

Mode = Literal["workspace-write", "read-only", "off"]


#: Output that a sandbox refusal produces (checked only when a sandboxed command failed).
REFUSAL = re.compile(
    r"Read-only file system|Permission denied|Operation not permitted|Network is unreachable"
    r"|Could not resolve host|Temporary failure in name resolution|Name or service not known"
    r"|No address associated with hostname|getaddrinfo failed|Connection refused"
    r"|could not write config file"  # git's own words for a read-only .git/config
    r"|Device or resource busy",  # renaming or removing what the sandbox keeps (a mount point)
)


def probe() -> str:
    """ "" when bwrap can run a sandbox here, else why not (one line). It runs ``true`` with
    the flags every command gets (:func:`~.confinement.isolation`: a user namespace, no
    capabilities, a private pid namespace, …), so a kernel that refuses one of them is found
    here, once per bwrap. The bwrap is Larik's own (:func:`~larik.host_programs.find`): one
    found only in a project (its ``.venv/bin``) is not run."""
    if sys.platform != "linux":  # macOS: a sandbox-exec profile is the plan (docs/security.md)
        name = "macOS" if sys.platform == "darwin" else sys.platform
        return f"bubblewrap needs Linux, not {name} (sandbox-exec is planned for macOS)"
    try:
        exe = host_programs.find("bwrap")
    except host_programs.NotOwn as e:
        return (
            "bubblewrap (bwrap) is not installed" if e.line == "bwrap is not installed" else e.line
        )
    return _probe(exe)


@functools.cache
def _probe(exe: str) -> str:
    argv = Sandbox(mode="read-only").wrap(["true"], Path("/"))
    at = next(i for i, word in enumerate(argv) if os.path.basename(word) == "bwrap")
    argv[at] = exe  # after the filter's opener (:func:`seccomp.launch`)
    try:
        done = subprocess.run(
            argv,
            capture_output=True,
            timeout=10,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"bwrap cannot start: {e}"
    if done.returncode != 0:
        err = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"bwrap cannot start: {err[-1] if err else f'exit code {done.returncode}'}"
    return ""


@dataclass(frozen=True)
class Sandbox:
    """How commands run: ``mode``, ``network``, extra ``writable`` paths (absolute), and
    ``readable`` paths bound back read-only over everything else (the caller vouches that
    they hold no secret and cover no writable path: :mod:`.programs`); ``space``:
    what the session's commands share (:class:`Space`; None: each command its own ``/tmp``
    and network namespace)."""

    mode: Mode = "workspace-write"
    network: bool = False
    writable: tuple[Path, ...] = ()
    readable: tuple[Path, ...] = ()
    space: Space | None = field(default=None, compare=False, repr=False)

    @property
    def active(self) -> bool:
        return self.mode != "off"

    def wrap(self, argv: list[str], root: Path, guard: kept.Guard | None = None) -> list[str]:
        """``argv`` as a bwrap command line for a command run in ``root`` (with ``guard``,
        the one :meth:`guard` made for it: its plans are not worked out twice)."""
        root = root.resolve()
        written = (root, *self.writable) if self.mode == "workspace-write" else ()
        bwrap = host_programs.find("bwrap", *written)  # Larik's own: never the project's
        opener, refused = seccomp.launch()  # the system calls refused (:mod:`.seccomp`)
        out = [bwrap, *isolation(), *refused, "--ro-bind", "/", "/", "--dev", "/dev"]
        out += ["--proc", "/proc", *proc_hidden()]
        tmp = self.space.tmp() if self.space is not None else None
        out += ["--bind", str(tmp), "/tmp"] if tmp is not None else ["--tmpfs", "/tmp"]
        for path in own_install():  # before the project's binds, which may lie inside them
            out += ["--ro-bind", str(path), str(path)]
        if self.mode == "workspace-write":
            for path in (root, *self.writable):
                if path.exists():
                    out += ["--bind", str(path), str(path)]
            for plan in (guard.plans if guard is not None else self.plans(root)).values():
                out += plan.mounts()
        elif root.is_relative_to("/tmp"):
            out += ["--ro-bind", str(root), str(root)]  # back after the private /tmp covered it
        for path in hidden_paths():
            out += hide(path, root, self.writable)
        for path in self.readable:
            out += ["--ro-bind", str(path), str(path)]
        enter: list[str] = []
        if not self.network:
            enter = self.space.enter() if self.space is not None else []
            if not enter:
                out.append("--unshare-net")
        out += ["--chdir", str(root), "--", *argv]
        return [*opener, *enter, *out]

    def plans(self, root: Path) -> dict[Path, kept.Plan]:
        """What stays read-only in each writable folder (:mod:`.kept`); none in read-only mode."""
        if self.mode != "workspace-write":
            return {}
        folders = [p for p in dict.fromkeys((root.resolve(), *self.writable)) if p.is_dir()]
        followed = [t for p in folders for t in git_followed.targets(p)]
        return {p: kept.plan(p, followed) for p in folders}

    def guard(self, root: Path) -> kept.Guard:
        """Before a command in ``root``: what it must not make; ``settle()`` after it ends."""
        return kept.Guard(self.plans(root))

    def explain(self, output: str, exit_code: int) -> str:
        """A line for a failed command whose output looks like a sandbox refusal, else ""."""
        if not self.active or exit_code == 0 or not REFUSAL.search(output):
            return ""
        shared = self.space is not None and not self.space.problem
        off = "network off" + (
            ": the session's jobs and commands share a private loopback" if shared else ""
        )
        what = [f"mode {self.mode}"] + ([] if self.network else [off])
        if self.mode == "read-only":
            where = (
                "the whole file system is read-only, the project included (plan mode runs "
                "commands so)"
            )
        else:
            where = (
                "outside the project the file system is read-only, and so are the files that "
                "decide what runs next time (.git's config and hooks and the files that "
                "config names, .larik/, .mcp.json, "
                ".claude/settings*.json, AGENTS.md, …)"
            )
        alone = f" ({self.space.problem})" if self.space is not None and self.space.problem else ""
        return (
            f"[this may be the sandbox ({', '.join(what)}): {where}; secrets in $HOME are "
            f"hidden{alone}; the kernel keyring, new namespaces and mounts are refused. If the "
            "command needs more, run it again with sandbox: false — the user is asked to approve "
            "that]"
        )


def close_space(box: Sandbox | None) -> None:
    """The session has ended: what its commands shared goes (nothing when it had none)."""
    if box is not None and box.space is not None:
        box.space.close()


def from_config(mode: Mode, network: bool, writable: Iterable[str], root: Path) -> Sandbox:
    """The sandbox ``[sandbox]`` asks for; ``writable`` entries may use ``~`` or be relative
    to ``root``."""
    paths = tuple((root / Path(p).expanduser()).resolve() for p in writable)
    return Sandbox(mode=mode, network=network, writable=paths)


def for_session(config: object, root: Path) -> tuple[Sandbox | None, list[str]]:
    """The session's sandbox from ``config.sandbox``, and the notice to show once: none when
    it runs as configured, else why commands run unsandboxed (guarded by the prompts only)."""
    cfg = getattr(config, "sandbox", None)
    host_programs.guard(root)  # the session's commands may write it: no own program is found there
    if cfg is None or cfg.mode == "off":
        return None, []
    why = probe()
    if why:
        return None, [
            f"no OS sandbox: {why}; commands run unsandboxed, guarded by the permission prompts "
            "only (docs/security.md)"
        ]
    box = from_config(cfg.mode, cfg.network, cfg.writable, root)
    host_programs.guard(*box.writable)
    notes = [*_root_notes(cfg.mode, root), *filter(None, [seccomp.problem()])]
    return box, notes


def _root_notes(mode: Mode, root: Path) -> list[str]:
    """Root's commands run without root's power over file modes
    (:func:`~.confinement.isolation`): in a project another user owns they can write only what
    its modes let anyone write."""
    if mode != "workspace-write" or os.geteuid() != 0:
        return []
    try:
        owner = root.stat().st_uid
    except OSError:
        return []
    if owner == 0:
        return []
    return [
        f"sandbox: Larik runs as root, but its commands do not: they run without root's "
        f"power over file permissions, and this project belongs to uid {owner}, so they can "
        "write only what its permissions let others write (docs/security.md)"
    ]
