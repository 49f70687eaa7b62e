"""What one session's sandboxed commands share, background jobs included (:class:`Space`): a
private ``/tmp`` and, while the network is off, one private network namespace, held by Larik's
own file descriptors and entered with ``nsenter``.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import tempfile
import weakref
from pathlib import Path

from .. import host_programs
from .confinement import NOBODY

__all__ = ["NO_SHARED_LOOPBACK", "Space"]


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
