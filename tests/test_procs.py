"""The suite's own process helpers (tests/procs.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.procs import dead


def test_a_process_reaped_while_its_stat_is_read_is_dead(monkeypatch: pytest.MonkeyPatch):
    """Seen in CI: /proc/PID/stat opened, the process reaped, the read fails with ESRCH."""

    def reaped(self: Path, *a: object, **kw: object) -> str:
        raise ProcessLookupError(3, "No such process")

    monkeypatch.setattr(Path, "read_text", reaped)
    assert dead(12345)


def test_a_running_process_is_not_dead_and_an_ended_one_is():
    proc = subprocess.Popen(["sleep", "30"])
    try:
        assert not dead(proc.pid)
    finally:
        proc.kill()
        proc.wait()
    assert dead(proc.pid)
