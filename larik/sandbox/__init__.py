"""The OS sandbox the bash tool runs commands in: bubblewrap (``bwrap``) on Linux.

``[sandbox] mode``:

- ``workspace-write`` (default): the project root and ``writable`` paths are writable, the rest
  of the file system is read-only; ``/tmp`` is a private, empty tmpfs (the host's ``/tmp`` is
  not written unless listed in ``writable``).
- ``read-only``: nothing of the host is writable (a private ``/tmp`` still is).
- ``off``: commands run as they are, guarded by the permission prompts only.

In both sandboxed modes the secrets in ``$HOME`` (:data:`HIDDEN_HOME`) and Larik's own config
and state folders are covered with an empty tmpfs (files: with ``/dev/null``), and the network
is cut (``--unshare-net``: only a private loopback) unless ``network = true``. Every command
runs without privilege, root's included (:func:`isolation`): a user namespace with no
capability, its own pid and IPC namespaces, a new session.

Where bwrap is missing or cannot start (user namespaces switched off), :func:`probe` says why
and the caller falls back to the prompts, saying so once. We use bwrap rather than hand-written
namespace code: it is what Flatpak runs on and what Codex and Claude Code use on Linux.
"""

from __future__ import annotations

import atexit
import functools
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from .. import git_followed, host_programs
from . import kept, seccomp

Mode = Literal["workspace-write", "read-only", "off"]

#: Paths under ``$HOME`` a sandboxed command must not see: keys and cloud credentials.
HIDDEN_HOME = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".kube",
    ".docker",
    ".netrc",
    ".git-credentials",
    ".config/gh",
    ".pypirc",
    ".npmrc",
    ".ray",  # Ray's cluster token (auth_token): a bench check on a Ray worker runs in here
    # the logins of other coding tools, which hold OAuth tokens for the plans Larik signs in to
    ".codex/auth.json",  # Codex's ChatGPT login (`larik login chatgpt --from-codex` reads it)
    ".config/github-copilot",  # the Copilot editor plugins' GitHub token (hosts.json, apps.json)
    ".claude/.credentials.json",  # Claude Code's login
    ".cache/huggingface/token",  # Hugging Face's token (huggingface_hub: `larik local pull`)
    ".huggingface/token",  # … where older versions kept it
)

#: Login files a variable may move out of ``$HOME``: (variable, the file in its folder).
HIDDEN_MOVED = (("CODEX_HOME", "auth.json"), ("HF_HOME", "token"))

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
    the flags every command gets (:func:`isolation`: a user namespace, no capabilities, a
    private pid namespace, …), so a kernel that refuses one of them is found here, once per
    bwrap. The bwrap is Larik's own (:func:`~larik.host_programs.find`): one found only in a
    project (its ``.venv/bin``) is not run."""
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


#: The uid and gid root's commands have inside their user namespace ("nobody"): no program in
#: the sandbox takes itself for root (tar would try to chown, pip to write system folders).
NOBODY = 65534


def isolation() -> list[str]:
    """The bwrap flags that take every privilege away, the same for every command and for
    :func:`probe`: a user namespace (root's capabilities on the host do not reach into it,
    and it holds none of its own: ``--cap-drop ALL``; root is ``nobody`` inside), a pid
    namespace (no process outside can be seen, signalled, traced, or entered through
    ``/proc/PID/root``, ``/ns``, ``/environ``; what a command leaves running ends with it), a
    private IPC namespace, a new session (no ``TIOCSTI`` into a terminal), and the command
    killed when Larik dies."""
    out = ["--unshare-user", "--unshare-pid", "--unshare-ipc", "--cap-drop", "ALL"]
    if os.geteuid() == 0:
        out += ["--uid", str(NOBODY), "--gid", str(NOBODY)]
    return [*out, "--new-session", "--die-with-parent"]


#: What only root may read on most systems, hidden from root's commands too: inside their user
#: namespace they keep root's uid for file access, so a file readable by its owner (root) is
#: readable to them (:func:`isolation`).
HIDDEN_FROM_ROOT = (
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/ssh/ssh_host_*_key",
)


def hidden_paths(home: Path | None = None) -> list[Path]:
    """What a sandboxed command must not see: :data:`HIDDEN_HOME` (and :data:`HIDDEN_MOVED`)
    and Larik's config and state; for root also :data:`HIDDEN_FROM_ROOT` and root's own home's secrets (``$HOME`` may be
    another folder)."""
    from ..config import state_dir, user_config_path

    homes = [home or Path(os.environ.get("HOME") or Path.home())]
    extra: list[Path] = []
    if os.geteuid() == 0:
        homes.append(Path(os.path.expanduser("~root")))
        for pattern in HIDDEN_FROM_ROOT:
            extra += [Path(p) for p in sorted(glob.glob(pattern))]
    paths = [h / p for h in dict.fromkeys(homes) for p in HIDDEN_HOME]
    for variable, name in HIDDEN_MOVED:
        if os.environ.get(variable):
            paths.append(Path(os.environ[variable]).expanduser() / name)
    return paths + [user_config_path().parent, state_dir(), *extra]


@functools.cache
def own_install() -> tuple[Path, ...]:
    """Where Larik itself runs from that the private ``/tmp`` would hide: its interpreter's
    prefix (a virtualenv: the check's pytest, a server's SDK, ``ruff server``), the base
    interpreter, and the ``larik`` package (an editable install's checkout), each when it lies
    under ``/tmp`` (CI clones there). Shown read-only: what any command outside ``/tmp`` sees."""
    found: list[Path] = []
    for raw in (sys.prefix, sys.base_prefix, Path(__file__).resolve().parents[1]):
        try:
            path = Path(raw).resolve()
        except (OSError, RuntimeError):
            continue
        if path.is_relative_to("/tmp") and path != Path("/tmp") and path.is_dir():
            found.append(path)
    return tuple(dict.fromkeys(found))


#: What to set when a session's commands cannot share a loopback (said with why).
NO_SHARED_LOOPBACK = (
    "background jobs and later commands do not share a loopback ({why}): each command has its "
    "own network namespace, so a job's server is not reachable from the next command; "
    "install nsenter (util-linux), or set [sandbox] network = true to let them meet on the "
    "host's loopback (docs/security.md)"
)


class Space:
    """What one session's sandboxed commands share, background jobs included: a private
    ``/tmp`` (a 0700 folder of the host's temporary folder, bound over ``/tmp``) and, while the
    network is off, one private network namespace — its loopback, so a job's dev server is
    reachable from the next command and nothing else is. Both are made on first use and end
    with :meth:`close` (the session's end).

    The namespace is made by a bwrap that holds it only until Larik has opened it (its user and
    network namespace, as file descriptors that keep them alive); each command then enters it
    with ``nsenter`` through Larik's own descriptors, and its bwrap makes the rest as usual
    (its own user, pid, IPC and mount namespaces, no capability). The namespace is owned by a
    user namespace of Larik's user, so no privilege is needed, and no command can leave it: a
    command holds no capability, and sees neither Larik nor the descriptors (its own pid
    namespace). Where that cannot be done, :attr:`problem` says why and what to set, and
    commands get a network namespace each, as before."""

    def __init__(self) -> None:
        self._tmp: Path | None = None
        self._fds: tuple[int, int, str] | None = None  # user, net, the nsenter to run
        self.problem = ""  # why commands do not share a loopback ("" when they do, or not tried)
        self.closed = False

    def tmp(self) -> Path | None:
        """The session's ``/tmp`` folder on the host (None once closed)."""
        if self._tmp is None and not self.closed:
            self._tmp = Path(tempfile.mkdtemp(prefix="larik-tmp-"))
            host_programs.guard(self._tmp)  # its commands write it: no program is found there
            _open_spaces.add(self)
        return self._tmp

    def enter(self) -> list[str]:
        """The words that put a command in the session's network namespace (``[]``: none to
        enter — closed, or not possible here: :attr:`problem`)."""
        if self.closed:
            return []
        if self._fds is None and not self.problem:
            held = _hold_network()
            if isinstance(held, str):
                self.problem = NO_SHARED_LOOPBACK.format(why=held)
            else:
                self._fds = held
        if self._fds is None:
            return []
        user, net, nsenter = self._fds
        me = f"/proc/{os.getpid()}/fd"
        return [
            nsenter,
            f"--user={me}/{user}",
            f"--net={me}/{net}",
            "--preserve-credentials",
            "--",
        ]

    def close(self) -> None:
        """The session has ended: the namespace is let go, the ``/tmp`` folder removed."""
        self.closed = True
        if self._fds is not None:
            os.close(self._fds[0])
            os.close(self._fds[1])
            self._fds = None
        if self._tmp is not None:
            _remove(self._tmp)
            self._tmp = None


@atexit.register
def _close_spaces() -> None:
    """Python exits without a session having been closed: no ``/tmp`` folder is left."""
    for space in list(_open_spaces):
        space.close()


_open_spaces: weakref.WeakSet[Space] = weakref.WeakSet()


def close_space(box: Sandbox | None) -> None:
    """The session has ended: what its commands shared goes (nothing when it had none)."""
    if box is not None and box.space is not None:
        box.space.close()


def _hold_network() -> tuple[int, int, str] | str:
    """A new user and network namespace (its loopback up: bwrap brings it up), as two open
    file descriptors and the nsenter to enter them with: a bwrap made them and waits on its
    stdin until they are opened. Or why that cannot be done."""
    try:
        exe, nsenter = host_programs.find("bwrap"), host_programs.find("nsenter")
    except host_programs.NotOwn as e:
        return e.line
    ids = ["--uid", str(NOBODY), "--gid", str(NOBODY)] if os.geteuid() == 0 else []
    argv = [exe, "--unshare-user", "--unshare-net", *ids, "--cap-drop", "ALL"]
    argv += ["--die-with-parent", "--ro-bind", "/", "/"]
    r, w = os.pipe()
    try:
        proc = subprocess.Popen(
            [*argv, "--info-fd", str(w), "--", "cat"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            pass_fds=(w,),
        )
    except OSError as e:
        os.close(r)
        os.close(w)
        return f"bwrap cannot start: {e}"
    os.close(w)
    try:
        info = _read_info(r)
        pid = info.get("child-pid") if isinstance(info, dict) else None
        if not isinstance(pid, int):
            err = proc.stderr.read().decode("utf-8", "replace").strip() if proc.stderr else ""
            return f"bwrap cannot start: {err.splitlines()[-1] if err else 'no child'}"
        fds: list[int] = []
        try:
            for kind in ("user", "net"):
                fds.append(os.open(f"/proc/{pid}/ns/{kind}", os.O_RDONLY | os.O_CLOEXEC))
        except OSError as e:
            for fd in fds:
                os.close(fd)
            return f"its namespace cannot be opened: {e.strerror}"
        return fds[0], fds[1], nsenter
    finally:
        os.close(r)
        if proc.stdin is not None:
            proc.stdin.close()  # the holder ends; the namespaces live on in the descriptors
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()


def _read_info(fd: int) -> object:
    """bwrap's ``--info-fd`` JSON (``child-pid``), read until it parses or the pipe ends."""
    data = b""
    while True:
        chunk = os.read(fd, 4096)
        if not chunk:
            return None
        data += chunk
        try:
            return json.loads(data)
        except ValueError:
            continue


def _remove(path: Path) -> None:
    """Remove a session's ``/tmp`` folder, whatever modes its commands left on its folders."""
    for folder, _dirs, _files in os.walk(path):
        try:
            os.chmod(folder, 0o700)
        except OSError:
            pass
    shutil.rmtree(path, ignore_errors=True)


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
        out += ["--proc", "/proc", *_proc_hidden()]
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
            out += _hide(path, root, self.writable)
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


#: What a command's ``/proc`` does not show: the keys of the keyrings it could view (their
#: names and sizes; the filter refuses every keyring call, so these are all that is left).
PROC_HIDDEN = ("/proc/keys", "/proc/key-users")


def _proc_hidden() -> list[str]:
    """bwrap arguments covering :data:`PROC_HIDDEN` (what this kernel has of it)."""
    out: list[str] = []
    for path in PROC_HIDDEN:
        if os.path.exists(path):
            out += ["--ro-bind", "/dev/null", path]
    return out


def _hide(path: Path, root: Path, writable: Iterable[Path]) -> list[str]:
    """bwrap arguments covering ``path`` (none when it does not exist, or when it holds the
    project or a writable path: hiding those would break the command)."""
    try:
        os.lstat(path)  # most do not exist: one system call to know
        real = Path(os.path.realpath(path))
        is_dir = os.path.isdir(real)
        if not is_dir and not os.path.exists(real):
            return []
    except OSError:
        return []
    for keep in (root, *writable):
        if keep.is_relative_to(real):
            return []
    if is_dir:
        return ["--tmpfs", str(real)]
    return ["--ro-bind", "/dev/null", str(real)]


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
    """Root's commands run without root's power over file modes (:func:`isolation`): in a
    project another user owns they can write only what its modes let anyone write."""
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
