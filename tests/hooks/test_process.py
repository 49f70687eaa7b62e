"""One hook process: bounded output, killed with everything it started, no credentials."""

from __future__ import annotations

import json
from typing import Any

from larik.hooks.process import MAX_STDERR, MAX_STDOUT, run_hook
from tests.patience import WAIT, grown_until_async
from tests.procs import gone


async def test_a_hook_that_hangs_is_killed_with_what_it_started(tmp_path):
    pidfile = tmp_path / "child.pid"
    command = f"sleep {10 * WAIT:g} & echo $! > {pidfile}; wait"

    async def attempt(timeout: float) -> Any:
        done = await run_hook(command, b"{}", cwd=tmp_path, timeout=timeout)
        return done if pidfile.exists() else None  # killed before it wrote: a longer timeout

    done = await grown_until_async(attempt, 0.5)
    assert done.timed_out and done.code is None
    assert await gone(int(pidfile.read_text()))  # SIGKILL is at once; reaping may take a moment


async def test_a_hook_that_prints_ten_megabytes_keeps_only_the_head(tmp_path):
    command = "head -c 10000000 /dev/zero | tr '\\0' x; head -c 10000000 /dev/zero >&2"
    done = await run_hook(command, b"{}", cwd=tmp_path, timeout=WAIT)
    assert done.code == 0
    assert done.stdout.over and done.stdout.total == 10_000_000
    assert len(done.stdout.buf) == MAX_STDOUT and len(done.stderr.buf) == MAX_STDERR


async def test_a_big_event_goes_to_a_hook_that_never_reads_it(tmp_path):
    payload = json.dumps({"tool_input": {"content": "x" * 5_000_000}}).encode()
    done = await run_hook("exit 0", payload, cwd=tmp_path, timeout=WAIT)
    assert done.code == 0 and not done.timed_out


async def test_a_hook_gets_the_event_on_stdin_and_no_credentials(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret-value")
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-secret-value")
    monkeypatch.setenv("HARMLESS", "kept")
    command = "cat > event.json; env > env.txt"
    done = await run_hook(command, b'{"hook_event_name": "Stop"}', cwd=tmp_path, timeout=WAIT)
    assert done.code == 0
    assert json.loads((tmp_path / "event.json").read_text()) == {"hook_event_name": "Stop"}
    env = (tmp_path / "env.txt").read_text()
    assert "secret-value" not in env and "HARMLESS=kept" in env
    assert f"CLAUDE_PROJECT_DIR={tmp_path}" in env and f"LARIK_PROJECT_DIR={tmp_path}" in env


async def test_a_hook_that_cannot_start_says_so(tmp_path):
    done = await run_hook("true", b"{}", cwd=tmp_path / "missing", timeout=WAIT)
    assert done.error and done.code is None
