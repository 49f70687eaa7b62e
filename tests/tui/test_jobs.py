"""``/jobs`` and the background jobs' end with the TUI: the real agent starts a dev-server-like
job; the screen lists it at 80×24 and stops it; quitting (``/exit``, Ctrl+C twice, SIGTERM on a
real pseudo-terminal) leaves none of a job's processes — its grandchild included — running."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import pytest

from larik.config import Config, PermissionsConfig
from larik.tui.screens.jobs import JobsScreen
from larik.tui.widgets.tool_card import ToolCard
from tests.patience import WAIT

from ..procs import carrying
from .conftest import ready, screen_text, send, turn_done, wait_for
from .test_quit_signals import Tui
from .test_quit_signals import wait_for as wait_until
from .test_real_agent import Real

# the interpreter itself, not the venv's link to it: a venv under /tmp (CI clones there) is
# hidden by the sandbox's private /tmp, and these commands need only the standard library
PY = os.path.realpath(sys.executable)

SERVER = (
    f"{PY} -u -c \"import time\nprint('listening on http://127.0.0.1:8000')\n"
    "i = 0\nwhile True:\n    i += 1; print('GET /', i); time.sleep(0.05)\""
)
# every pid into ./pids: a grandchild under a shell that ignores SIGTERM, a printing loop, the job
FAMILY = (
    "bash -c 'trap \"\" TERM; sleep 1000 & echo $! >> pids; wait' & echo $! >> pids; "
    f"{PY} -u -c \"import time\nwhile True: print('tick'); time.sleep(0.05)\" & "
    "echo $! >> pids; echo $$ >> pids; wait"
)


def bg(command: str) -> dict:
    return {"name": "bash", "input": {"command": command, "background": True}}


def pids(project: Path) -> list[int]:
    f = project / "pids"
    return [int(x) for x in f.read_text().split()] if f.exists() else []


@pytest.fixture
def real(tmp_path: Path) -> Real:
    r = Real(tmp_path)
    r.config = Config(permissions=PermissionsConfig(mode="yolo"))
    return r


async def test_slash_jobs_lists_the_jobs_and_k_stops_the_highlighted_one(real):
    app = real.app([{"tool_calls": [bg(SERVER), bg("sleep 300")]}, {"text": "both started"}])
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "start the server")
        await turn_done(pilot)
        table = real.agents[-1].jobs
        assert "job 1 running" in screen_text(app)  # the bash card names the job
        await send(pilot, "/jobs")
        await wait_for(pilot, lambda: isinstance(app.screen, JobsScreen))
        await wait_for(pilot, lambda: "GET /" in screen_text(app))
        text = screen_text(app)
        assert "Background jobs" in text and "k stop the job · Esc close" in text
        assert "  1  running" in text and "  2  running" in text and "sleep 300" in text
        await pilot.press("k")  # the first job is highlighted
        await wait_for(pilot, lambda: table.get(1).state == "stopped")
        await wait_for(pilot, lambda: "  1  stopped" in screen_text(app))
        assert table.get(2).state == "running"
        await pilot.press("down", "delete")
        await wait_for(pilot, lambda: "  2  stopped" in screen_text(app))
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, JobsScreen))
        assert await _gone_all(table)


async def test_slash_jobs_with_no_job_says_so(real):
    app = real.app([])
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "/jobs")
        await wait_for(pilot, lambda: isinstance(app.screen, JobsScreen))
        assert "no background jobs in this session" in screen_text(app)
        await pilot.press("k", "escape")  # nothing to stop: nothing breaks


@pytest.mark.parametrize("how", ["/exit", "ctrl+c twice"])
async def test_quitting_the_tui_ends_every_process_of_every_job(real, how, mark):
    app = real.app([{"tool_calls": [bg(FAMILY), bg(SERVER)]}, {"text": "started"}])
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "start them")
        await turn_done(pilot)
        await wait_for(pilot, lambda: len(pids(real.cwd)) == 4)
        table = real.agents[-1].jobs
        family = carrying(mark)  # the job's pids are its sandbox's: found by their mark
        assert len(family) >= 5 and table.get(2).pgid in family
        if how == "/exit":
            await send(pilot, "/exit")
        else:
            await pilot.press("ctrl+c", "ctrl+c")
        await wait_for(pilot, lambda: table.closed)
    assert await _gone_all(table)
    wait_until(lambda: carrying(mark) == [], "every process of every job to end")


def test_sigterm_on_the_real_tui_ends_every_process_of_every_job(tmp_path, mark):
    project = tmp_path / "proj"
    project.mkdir()
    script = tmp_path / "s.json"
    turns = [{"tool_calls": [bg(FAMILY)]}, {"text": "started"}]
    script.write_text(json.dumps({"turns": turns}))
    tui = Tui(["-m", f"scripted/{script}", "--permission-mode", "yolo"], project)
    try:
        wait_until(lambda: b"/help" in tui.out, "the TUI to start")
        tui.type("start it\r")
        wait_until(lambda: len(pids(project)) == 4, "the job to start")
        assert len(carrying(mark)) >= 5  # the TUI, the job's four (the sandbox's pids), bwrap
        tui.proc.send_signal(signal.SIGTERM)
        assert tui.proc.wait(timeout=WAIT) == 128 + signal.SIGTERM
        wait_until(lambda: carrying(mark) == [], "every process of the job to end")
    finally:
        tui.close()


async def _gone_all(table) -> bool:
    import asyncio

    end = asyncio.get_running_loop().time() + WAIT
    while asyncio.get_running_loop().time() < end:
        if not any(j.alive() for j in table.jobs.values()):
            return True
        await asyncio.sleep(0.02)
    return False


async def test_clear_ends_the_old_sessions_jobs(real):
    app = real.app([{"tool_calls": [bg(SERVER)]}, {"text": "started"}])
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "start it")
        await turn_done(pilot)
        table = real.agents[-1].jobs
        assert table.get(1).state == "running"
        await send(pilot, "/clear")
        await wait_for(pilot, lambda: len(real.agents) == 2 and table.closed)
        assert await _gone_all(table)
        assert not real.agents[-1].jobs.jobs  # the new session starts with none


async def test_stopping_a_job_is_a_success_on_its_card_and_a_failed_job_is_not(real):
    """job_stop's card was ✗ "exit -15": the job it stopped was taken for a failed command."""
    stop = {"name": "job_stop", "input": {"job_id": 1}}
    read = {"name": "job_output", "input": {"job_id": 2, "wait": 5}}
    app = real.app(
        [
            {"tool_calls": [bg("sleep 300"), bg("echo broken; exit 3")]},
            {"tool_calls": [stop, read]},
            {"text": "done"},
        ]
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "start and stop")
        await turn_done(pilot)
        headers = [" ".join(c._header_text().plain.split()) for c in app.query(ToolCard)]
    assert any(h.startswith("✓ job_stop stop job 1 · job 1 stopped") for h in headers), headers
    assert any(h.startswith("✗ job_output job 2 · job 2 exited · exit 3") for h in headers), headers


async def test_slash_jobs_shows_a_progress_bar_as_its_last_state_not_every_step(real):
    """The output was split at carriage returns too: each state of a progress bar was a line
    of its own, pushing what the job really printed out of the window."""
    bar = r"for p in 10 50 100; do printf 'fetch %s%%\r' $p; done; echo; echo READY; sleep 300"
    app = real.app([{"tool_calls": [bg(bar)]}, {"text": "started"}])
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "start it")
        await turn_done(pilot)
        await send(pilot, "/jobs")
        await wait_for(pilot, lambda: isinstance(app.screen, JobsScreen))
        await wait_for(pilot, lambda: "READY" in screen_text(app))
        text = screen_text(app)
        assert "fetch 100%" in text and "fetch 10%" not in text and "fetch 50%" not in text
        await pilot.press("k", "escape")


async def test_jobs_offers_k_only_for_a_running_job_and_the_status_line_counts_them(real):
    """issue 25 item 30: "k stop the job" was offered for a stopped job, and the status line
    did not say a job was running."""
    turns = [{"tool_calls": [bg("sleep 300"), bg("sleep 301")]}, {"text": "started"}]
    app = real.app(turns)
    async with app.run_test(size=(100, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "start them")
        await turn_done(pilot)
        table = real.agents[-1].jobs
        status = app.chat.status
        await wait_for(pilot, lambda: "2 jobs" in str(status.render()))
        await send(pilot, "/jobs")
        await wait_for(pilot, lambda: isinstance(app.screen, JobsScreen))
        await wait_for(pilot, lambda: "k stop the job" in screen_text(app))
        await pilot.press("k")
        await wait_for(pilot, lambda: table.get(1).state == "stopped")
        await wait_for(pilot, lambda: "  1  stopped" in screen_text(app))
        await wait_for(pilot, lambda: "k stop" not in screen_text(app))  # the stopped one
        assert "Esc close" in screen_text(app)
        await pilot.press("down")
        await wait_for(pilot, lambda: "k stop the job" in screen_text(app))  # the running one
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, JobsScreen))
        await wait_for(pilot, lambda: " 1 job " in str(status.render()))  # without a turn
        await table.stop(2)
        await wait_for(pilot, lambda: " job" not in str(status.render()))
        assert await _gone_all(table)
