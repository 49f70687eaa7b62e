"""Run a command, then end every process it started: ``python -I -S _reaper.py SECONDS -- ARGV``.

A bench check runs through this (larik/bench/confine.py). It becomes a *child subreaper*
(Linux ``PR_SET_CHILD_SUBREAPER``), so a process the command starts that leaves its process
group and session (``setsid``, a double fork) is re-parented here, not to init, when its parent
exits. When the command exits — or after ``SECONDS`` (exit code :data:`TIMED_OUT`), or when this
process's parent dies (``PR_SET_PDEATHSIG``: SIGTERM) — every process left below is killed,
those re-parented meanwhile too, until none is left. Elsewhere (no prctl) the command's process
group is killed instead.

Run as a file, with the standard library only: the check's environment has no PYTHONPATH to
Larik. Its start is kept short (``-I -S``; ``_signal`` and ``posix_spawn`` rather than ``signal``
and ``subprocess``, whose imports cost more than the rest): it runs once per check.
"""

from __future__ import annotations

import _signal as signal  # signal's own numbers and calls, without its enum import
import os
import sys
import time

TIMED_OUT = 124  # as timeout(1) says it
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
SWEEP_SECONDS = 10.0  # a fork loop that outruns the kills is left after this


class _Stop(Exception):
    pass


def _raise(signum: int, frame: object) -> None:
    raise _Stop(signum)


def _prctl(option: int, value: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    return libc.prctl(option, value, 0, 0, 0) == 0


def _children() -> list[int]:
    """This process's children (zombies too), from /proc."""
    me, out = os.getpid(), []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        if ppid == me:
            out.append(int(name))
    return out


def _sweep() -> None:
    """Kill and reap every child, then the children that re-parented here, until none is left."""
    deadline = time.monotonic() + SWEEP_SECONDS
    while time.monotonic() < deadline:
        kids = _children()
        if not kids:
            return
        for pid in kids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for pid in kids:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


def _quiet() -> None:
    """No more time limit or SIGTERM: what is left must be swept (retried if one lands now)."""
    while True:
        try:
            signal.signal(signal.SIGALRM, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            signal.setitimer(signal.ITIMER_REAL, 0)
            return
        except _Stop:
            continue


def main(argv: list[str]) -> int:
    seconds, sep, command = float(argv[0]), argv[1], argv[2:]
    if sep != "--" or not command:
        print("usage: _reaper.py SECONDS -- ARGV", file=sys.stderr)
        return 2
    reaper = _prctl(PR_SET_CHILD_SUBREAPER, 1)
    signal.signal(signal.SIGTERM, _raise)
    signal.signal(signal.SIGALRM, _raise)
    _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    code, pid = 1, 0
    try:
        signal.setitimer(signal.ITIMER_REAL, seconds)
        if reaper:
            pid = os.posix_spawnp(command[0], command, os.environ)
        else:  # without a subreaper, its own process group is what can be killed after
            pid = os.posix_spawnp(command[0], command, os.environ, setpgroup=0)
        code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        code = 128 - code if code < 0 else code
    except _Stop as stop:
        code = TIMED_OUT if stop.args[0] == signal.SIGALRM else 128 + signal.SIGTERM
    except KeyboardInterrupt:
        code = 128 + signal.SIGINT
    except OSError as e:
        print(f"{command[0]}: {e.strerror or e}", file=sys.stderr)
        code = 127
    finally:
        _quiet()
        if reaper:
            _sweep()
        elif pid:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
