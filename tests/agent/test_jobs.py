"""Background jobs (bash with background: true, job_output, job_stop) against real processes:
a dev-server-like job that keeps printing, a job whose child forks a grandchild, and what a
model may try — a denied command, a pid that is not its job, a hundred jobs, 10 MB of output."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from typing import Any

import pytest

from larik.agent import jobs
from larik.agent.jobs import JobTable
from larik.agent.permissions import PermissionPolicy
from larik.agent.tools import ToolContext, ToolError, get_tool
from larik.agent.tools import bash as bash_tool
from larik.config import Config, PermissionsConfig
from tests.patience import WAIT, until

from ..procs import all_gone, carrying
from .conftest import run, script
from .test_tools import gone

# the interpreter itself, not the venv's link to it: a venv under /tmp (CI clones there) is
# hidden by the sandbox's private /tmp, and these commands need only the standard library
PY = os.path.realpath(sys.executable)

# a dev server: says where it listens, then keeps printing
# each request line in one write (``print('GET /', i)`` unbuffered is four writes, and a read
# that woke between them saw only " 20": a CI failure of the first-lines test)
SERVER = (
    f"{PY} -u -c \"import time\nprint('listening on http://127.0.0.1:8000')\n"
    "i = 0\nwhile True:\n    i += 1; print(f'GET / {i}'); time.sleep(0.05)\""
)
# a job whose child forks a grandchild that ignores SIGTERM; it prints the three pids
FAMILY = (
    "bash -c 'trap \"\" TERM; sleep 1000' & grand=$!; "
    f"{PY} -u -c \"import os, time\nprint('pids', os.getppid(), os.getpid(), "
    'flush=True)\nwhile True: time.sleep(0.05)" & echo grand $grand; wait'
)


def bg(command: str, **kw) -> dict:
    return {"name": "bash", "input": {"command": command, "background": True, **kw}}


def results(agent) -> list[str]:
    return [b.content for m in agent.messages for b in m.blocks if b.type == "tool_result"]


@pytest.fixture
def first_line_in_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """A start gives a job ``FIRST_WAIT`` (1 s) to print its first lines, then returns whatever
    came: on a loaded machine a Python dev server had printed nothing by then. Here the start
    waits for the job's first byte (up to the suite's ceiling), then does as Larik does."""
    real = jobs._first_lines

    async def first_lines(job: Any) -> None:
        await until(lambda: job.out.total or job.ended is not None, "the job's first line")
        await real(job)

    monkeypatch.setattr(jobs, "_first_lines", first_lines)


async def test_a_dev_server_started_in_the_background_returns_at_once_with_its_first_lines(
    make_agent, first_line_in_time
):
    p = script(
        {"tool_calls": [bg(SERVER)]},
        {"tool_calls": [{"name": "job_output", "input": {"job_id": 1, "wait": 30}}]},
        {"tool_calls": [{"name": "job_output", "input": {}}]},
        {"tool_calls": [{"name": "job_stop", "input": {"job_id": 1}}]},
        {"text": "done"},
    )
    agent = await make_agent(p)
    await run(agent)
    started, output, listing, stopped = results(agent)
    assert "started background job 1" in started and "listening on http://127.0.0.1:8000" in started
    assert "job 1 (running" in started
    new = output.split("\n", 1)[1]  # after the job's line: only what came since the last read
    assert "GET /" in new and "listening" not in new
    assert listing.startswith("job 1 (running")
    assert "job 1 (stopped, killed by signal 15" in stopped
    job = agent.jobs.get(1)
    assert await gone(job.pgid)
    await agent.close()


async def test_every_process_of_every_job_is_gone_when_the_session_closes(make_agent, mark):
    p = script({"tool_calls": [bg(FAMILY), bg(SERVER)]}, {"text": "started"})
    agent = await make_agent(p)
    await run(agent)
    table = agent.jobs
    text = lambda: bytes(table.jobs[1].out.buf).decode()  # noqa: E731
    await until(lambda: "pids" in text() and "grand" in text(), "the family's pids", every=0.05)
    # both shells, the child and its grandchild, the server (and bwrap around each job)
    started = carrying(mark)
    assert len(started) >= 5 and {table.jobs[1].pgid, table.jobs[2].pgid} <= set(started)
    await agent.close()
    assert await all_gone(mark), "a job's process outlived the session"
    assert [j.state for j in table.jobs.values()] == ["stopped", "stopped"]


async def test_an_interrupt_ends_the_turn_but_not_the_jobs(make_agent):
    p = script({"tool_calls": [bg(SERVER)]}, {"text": "x", "delay": 10 * WAIT})  # interrupted
    agent = await make_agent(p)
    task = asyncio.create_task(run(agent))
    while not agent.jobs.jobs or agent.messages[-1].role != "user":
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.1)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert agent.jobs.get(1).state == "running"
    await agent.close()
    assert await gone(agent.jobs.get(1).pgid)


# -- hostile ------------------------------------------------------------------------------------
async def test_background_is_no_way_around_a_deny_rule_or_the_prompt(make_agent, project):
    marker = project / "ran"
    deny = Config(permissions=PermissionsConfig(deny=["bash: touch*"]))
    p = script(
        {"tool_calls": [bg(f"touch {marker}"), bg(f"env touch {marker}")]},
        {"text": "ok"},
    )
    agent = await make_agent(p, config=deny)
    await run(agent)
    assert all("permission denied" in r for r in results(agent))
    # no one to ask (print mode) in ask mode: refused, as a foreground command is
    p = script({"tool_calls": [bg(f"touch {marker}")]}, {"text": "ok"})
    agent = await make_agent(p, permission_mode="ask")
    await run(agent)
    assert "permission denied" in results(agent)[0]
    await asyncio.sleep(0.2)
    assert not marker.exists() and not agent.jobs.jobs


def test_plan_mode_refuses_a_background_command_unless_it_is_read_only(project):
    bash = get_tool("bash")
    policy = PermissionPolicy(project, "plan")
    touch = bash.args(command="touch x", background=True)
    assert policy.decide(bash, touch).verdict == "deny"
    tail = bash.args(command="tail -f calc.py", background=True)
    assert policy.decide(bash, tail).verdict == "allow"
    for name in ("job_output", "job_stop"):  # the session's own jobs: allowed, as reads are
        tool = get_tool(name)
        assert policy.decide(tool, tool.args(job_id=1)).verdict == "allow"


def test_leaving_the_sandbox_in_the_background_is_asked_as_in_the_foreground(project):
    from larik.sandbox import Sandbox

    bash = get_tool("bash")
    policy = PermissionPolicy(project, "yolo", sandbox=Sandbox())
    d = policy.decide(bash, bash.args(command="ls", background=True, sandbox=False))
    assert d.verdict == "ask" and d.firm


async def test_job_stop_reaches_only_the_sessions_own_jobs(project):
    other = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        table = JobTable()
        ctx = ToolContext(root=project, jobs=table)
        stop = get_tool("job_stop")
        for job_id in (other.pid, 1, -1, 0):
            with pytest.raises(ToolError, match="no job"):
                await stop.run(stop.args(job_id=job_id), ctx)
        assert other.poll() is None  # untouched
    finally:
        other.kill()
        other.wait()


async def test_stopping_a_job_tells_the_face_its_count_changed(project, monkeypatch):
    """The status line's "1 job" stayed after a stop: the stop cancelled the watcher that
    would have said the job ended (tryout A3). Here the watcher is between two polls (a job
    that has run a while is polled every 0.25 s) for as long as the stop takes."""

    async def between_polls(job, table) -> None:
        await asyncio.Event().wait()

    monkeypatch.setattr(jobs, "_watch", between_polls)
    table = JobTable()
    seen: list[int] = []
    table.on_change = lambda: seen.append(len(table.running()))
    table.start("sleep 300", project)
    assert seen == [1]
    await table.stop(1)
    assert seen[-1] == 0, seen
    await table.close()


async def test_a_hundred_jobs_stop_at_the_limit(project, monkeypatch):
    monkeypatch.setattr(
        jobs, "FIRST_WAIT", 0.0
    )  # no start waits 1 s for lines `sleep` never prints
    table = JobTable(max_jobs=8)
    ctx = ToolContext(root=project, jobs=table)
    refused = 0
    for _ in range(100):
        try:
            await bash_tool.run(bash_tool.Args(command="sleep 30", background=True), ctx)
        except ToolError as e:
            assert "8 background jobs are running" in str(e)
            refused += 1
    assert refused == 92 and len(table.running()) == 8
    await table.close()
    assert all([await gone(j.pgid) for j in table.jobs.values()])
    with pytest.raises(ToolError, match="session is ending"):
        table.start("true", project)


async def test_a_job_printing_10_mb_holds_only_its_buffer(project):
    table = JobTable(buffer=100_000)
    command = f"{PY} -c \"import sys; sys.stdout.write('x' * 10_000_000 + 'END')\""
    table.start(command, project)
    job = table.get(1)
    while job.state == "running" or not job.tasks[0].done():
        assert len(job.out.buf) <= 100_000
        await asyncio.sleep(0.01)
    assert job.out.total == 10_000_003 and len(job.out.buf) == 100_000
    out = table.read(1).content
    assert len(out) < jobs.READ_CAP + 500 and out.rstrip().endswith("END")
    assert "9,970,003 bytes of output skipped" in out
    assert "(no new output)" in table.read(1).content
    await table.close()


async def test_a_small_model_gets_no_job_tools_and_bash_refuses_background(project):
    ctx = ToolContext(root=project)  # what the agent hands a model without the job tools
    with pytest.raises(ToolError, match="not available"):
        await bash_tool.run(bash_tool.Args(command="sleep 30", background=True), ctx)
    from larik.agent.profile import SMALL_DROPS

    assert "job_output" in SMALL_DROPS and "job_stop" in SMALL_DROPS


def test_jobs_config_is_capped():
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        Config.model_validate({"jobs": {"max": 1000}})
    with pytest.raises(ValidationError):
        Config.model_validate({"jobs": {"output_buffer": 10**10}})


async def test_an_exited_job_reports_its_exit_code(project):
    table = JobTable()
    r = await table.run("echo bye; exit 3", project)
    assert "exit code 3" in r.content and "bye" in r.content
    assert r.data["state"] == "exited" and r.data["exit_code"] == 3
    await table.close()
    assert os.path.isdir(project)


def test_a_table_never_closed_still_leaves_no_job_when_python_exits(project):
    """The atexit hook: jobs of a table dropped without close() are killed on the way out."""
    code = (
        "import asyncio, gc, re, sys\n"
        "from pathlib import Path\n"
        "from larik.agent.jobs import JobTable\n"
        "async def main():\n"
        "    table = JobTable()\n"
        f"    job = table.start({FAMILY!r}, Path.cwd())\n"
        # python -u writes print's words one by one: wait for the whole lines
        "    while not re.search(rb'grand \\d+\\n', job.out.buf) or "
        "not re.search(rb'pids \\d+ \\d+\\n', job.out.buf):\n"
        "        await asyncio.sleep(0.02)\n"
        "    print(bytes(job.out.buf).decode(), job.pgid, flush=True)\n"
        "asyncio.run(main())\n"
        "gc.collect()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=project, capture_output=True, text=True, timeout=WAIT
    )
    assert done.returncode == 0, done.stderr
    pids = [int(x) for x in re.findall(r"\d+", done.stdout)]
    assert len(pids) == 4, done.stdout
    left = [pid for pid in pids if not asyncio.run(gone(pid))]
    assert not left, f"a job outlived Python: {left} of {done.stdout!r}"


async def test_a_job_that_ends_by_itself_tells_the_listeners_and_a_stopped_one_does_not(tmp_path):
    table = JobTable()
    ended: list = []
    table.listeners.append(ended.append)
    done = table.start(f"{PY} -c \"print('built')\"", tmp_path)
    await until(lambda: ended, "the job's end to be told", every=0.01)  # the watcher polls
    assert [j.id for j in ended] == [done.id] and ended[0].exit_code == 0
    long = table.start(f'{PY} -c "import time; time.sleep(30)"', tmp_path)
    await table.stop(long.id)
    await asyncio.gather(*long.tasks, return_exceptions=True)
    assert [j.id for j in ended] == [done.id]  # stopped by the user: not news
    await table.close()


async def test_a_session_cancelled_while_its_jobs_end_still_lets_go_of_the_rest(
    make_agent, monkeypatch
):
    """Asked twice to leave, the app cancels ``Agent.close`` while the jobs end: the language
    servers, the session's sandbox namespaces and the transcript's lock were left held."""
    from larik.agent import agent as agent_module

    agent = await make_agent(script({"text": "hi"}))
    let_go: list[str] = []

    async def cancelled(grace: float = 0.0) -> None:
        agent.jobs.kill_all()
        raise asyncio.CancelledError

    class Servers:
        async def close(self) -> None:
            let_go.append("lsp")

    monkeypatch.setattr(agent.jobs, "close", cancelled)
    agent._ctx.lsp = Servers()
    monkeypatch.setattr(agent_module.sandbox, "close_space", lambda box: let_go.append("space"))
    log_close = agent.log.close
    monkeypatch.setattr(agent.log, "close", lambda: (let_go.append("log"), log_close()))
    with pytest.raises(asyncio.CancelledError):
        await agent.close()
    assert let_go == ["lsp", "space", "log"]
