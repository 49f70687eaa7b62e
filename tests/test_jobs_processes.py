"""Background jobs end with a print-mode run, however it ends: a real `larik -p` whose model
starts a job that keeps printing and whose child forks a grandchild that ignores SIGTERM."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest

from .procs import carrying
from .test_printmode import write_script
from .test_printmode_processes import WAIT, needs_proc, start, wait_for

# the interpreter itself, not the venv's link to it: a venv under /tmp (CI clones there) is
# hidden by the sandbox's private /tmp, and these commands need only the standard library
PY = os.path.realpath(sys.executable)

# every pid of the job goes into ./pids: a grandchild under a shell that ignores SIGTERM, a
# python loop that keeps printing, and the job's own shell
FAMILY = (
    "bash -c 'trap \"\" TERM; sleep 1000 & echo $! >> pids; wait' & echo $! >> pids; "
    f"{PY} -u -c \"import time\nwhile True: print('tick'); time.sleep(0.05)\" & "
    "echo $! >> pids; echo $$ >> pids; wait"
)
JOB = {"name": "bash", "input": {"command": FAMILY, "background": True}}


def pids(project: Path) -> list[int]:
    f = project / "pids"
    return [int(x) for x in f.read_text().split()] if f.exists() else []


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    monkeypatch.chdir(root)
    return root


@needs_proc
def test_a_background_job_ends_when_the_print_run_ends(project, tmp_path, mark):
    # the model waits, as a command, for every pid of the job to be written, then ends the run
    written = 'until [ "$(wc -l < pids 2>/dev/null)" -ge 4 ]; do sleep 0.05; done'
    wait = {"tool_calls": [{"name": "bash", "input": {"command": written}}]}
    model = write_script(tmp_path / "s.json", {"tool_calls": [JOB]}, wait, {"text": "started it"})
    proc = start(project, "-p", "serve", "-m", model, "--permission-mode", "yolo")
    out, err = proc.communicate(timeout=WAIT)
    assert proc.returncode == 0, err
    assert "started it" in out
    assert len(pids(project)) == 4
    wait_for(lambda: carrying(mark) == [], "every process of the job to end")


@needs_proc
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_background_job_ends_when_a_signal_stops_the_run(project, tmp_path, sig, mark):
    talk = {"text": "word " * 400, "hold": 2}
    model = write_script(tmp_path / "s.json", {"tool_calls": [JOB]}, talk)
    proc = start(project, "-p", "serve", "-m", model, "--permission-mode", "yolo")
    wait_for(lambda: len(pids(project)) == 4, "the job to start")
    assert len(carrying(mark)) >= 5  # larik, the job's four (their pids are the sandbox's), bwrap
    proc.send_signal(sig)
    proc.communicate(timeout=WAIT)
    assert proc.returncode == 128 + sig
    wait_for(lambda: carrying(mark) == [], "every process of the job to end")
