"""What confines every sandboxed command, whatever the mode: no privilege (:func:`isolation`:
its own user, pid and IPC namespaces, no capability, root as ``nobody``), the secrets it must
not see covered (:func:`hidden_paths`: keys and logins in ``$HOME``, Larik's config and state,
root's shadow files; :func:`proc_hidden`: the keyrings' names), and Larik's own install shown
read-only where the private ``/tmp`` would hide it (:func:`own_install`).
"""

from __future__ import annotations

import functools
import glob
import os
import sys
from collections.abc import Iterable
from pathlib import Path

__all__ = [
    "HIDDEN_FROM_ROOT",
    "HIDDEN_HOME",
    "HIDDEN_MOVED",
    "NOBODY",
    "PROC_HIDDEN",
    "hidden_paths",
    "hide",
    "isolation",
    "own_install",
    "proc_hidden",
]


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


#: The uid and gid root's commands have inside their user namespace ("nobody"): no program in
#: the sandbox takes itself for root (tar would try to chown, pip to write system folders).
NOBODY = 65534


def isolation() -> list[str]:
    """The bwrap flags that take every privilege away, the same for every command and for
    :func:`larik.sandbox.probe`: a user namespace (root's capabilities on the host do not reach into it,
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


#: What a command's ``/proc`` does not show: the keys of the keyrings it could view (their
#: names and sizes; the filter refuses every keyring call, so these are all that is left).
PROC_HIDDEN = ("/proc/keys", "/proc/key-users")


def proc_hidden() -> list[str]:
    """bwrap arguments covering :data:`PROC_HIDDEN` (what this kernel has of it)."""
    out: list[str] = []
    for path in PROC_HIDDEN:
        if os.path.exists(path):
            out += ["--ro-bind", "/dev/null", path]
    return out


def hide(path: Path, root: Path, writable: Iterable[Path]) -> list[str]:
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
