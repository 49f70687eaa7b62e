"""Running a bench check: someone else's code, run as the agent's commands are.

A check is pytest on files a task or a suite brought — a repository's code, as untrusted as the
model's commands — and ``--validate`` runs it with no model and no key. So it runs:

* in the bash tool's OS sandbox (:class:`larik.sandbox.Sandbox`, ``workspace-write``): the
  check's own throwaway folder writable, the rest of the file system read-only, a private
  ``/tmp``, the secrets in ``$HOME`` hidden, no network;
* with the bash tool's credential-free environment (:func:`larik.processes.child_env`:
  no provider keys, nothing named like a key, token, secret or password);
* under a reaper (``_reaper.py``): when the check ends, or runs out of time, every process it
  started is killed — also one that left its process group and session (``setsid``).

Where there is no sandbox (bwrap missing, user namespaces off, not Linux) a check runs with the
same environment and the same reaper, unsandboxed; :func:`unsandboxed` says why, once per bench.
The same holds on a Ray worker, which runs the same ``run_check``.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .. import sandbox

__all__ = ["Ran", "box", "run", "unsandboxed"]

REAPER = Path(__file__).with_name("_reaper.py")
TIMED_OUT = 124  # the reaper's exit code for a command out of time (_reaper.TIMED_OUT)
GRACE = 20.0  # seconds past the time limit before the reaper itself is killed


@dataclass(frozen=True)
class Ran:
    code: int
    output: str  # stdout then stderr
    timed_out: bool


def box() -> sandbox.Sandbox | None:
    """The sandbox checks run in here; None where bubblewrap cannot run."""
    return None if sandbox.probe() else sandbox.Sandbox(mode="workspace-write", network=False)


def unsandboxed() -> str:
    """ "" when checks run sandboxed here, else the one line that says they do not, and why."""
    why = sandbox.probe()
    if not why:
        return ""
    return (
        f"no OS sandbox: {why}; bench checks run unsandboxed (still without credentials in "
        "their environment, and every process they start is ended after; docs/security.md)"
    )


def run(argv: list[str], workdir: Path, env: Mapping[str, str], timeout: float) -> Ran:
    """``argv`` run in ``workdir`` as a check: sandboxed where possible, ``env`` without its
    credentials, every process it started gone when this returns."""
    from ..processes import child_env

    reaped = [sys.executable, "-I", "-S", str(REAPER), repr(float(timeout)), "--", *argv]
    where = box()
    cmd = where.wrap(reaped, workdir) if where is not None else reaped
    try:
        done = subprocess.run(
            cmd,
            cwd=workdir,
            env=child_env(env),
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout + GRACE,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired as e:  # the reaper did not end in time: killed with it
        out = _text(e.stdout) + _text(e.stderr)
        return Ran(-9, out, True)
    return Ran(done.returncode, done.stdout + done.stderr, done.returncode == TIMED_OUT)


def _text(data: bytes | str | None) -> str:
    if isinstance(data, bytes):
        return data.decode("utf-8", "replace")
    return data or ""
