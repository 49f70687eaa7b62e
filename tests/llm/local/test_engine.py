"""The embedded engine with a real model (SmolLM2-135M, the GGUF CI installs): it starts on
loopback, streams, turns a fenced call into real tool_calls through its template, and stops
with Larik on every way Larik ends — no engine is left behind."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from larik.config import Config
from larik.llm.endpoint import resolve_endpoint
from larik.llm.errors import APIError, LocalModelError
from larik.llm.local import cpu, engine
from larik.llm.local.engine import Engine, ensure, fit, stop_all
from larik.llm.local.store import Entry, Store
from larik.llm.providers.local import LocalProvider
from larik.llm.types import EventType, Message, Request, ToolSpec
from tests.patience import WAIT
from tests.procs import MARK_VARIABLE, carrying

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[3]
READ_FILE = ToolSpec(
    name="read_file",
    description="Read a file",
    input_schema={
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
    },
)
COPY_A_CALL = (
    "Reply with exactly this and nothing else:\n```json\n"
    '{"name": "read_file", "arguments": {"path": "a.py"}}\n```'
)


def _gone(pid: int, wait: float = WAIT) -> bool:
    end = time.monotonic() + wait
    while time.monotonic() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:  # a zombie of ours is gone too
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                return True
        except ChildProcessError:
            pass
        time.sleep(0.05)
    return False


async def test_starts_on_loopback_streams_and_returns_a_real_tool_call(smol: Entry, store: Store):
    config = Config()
    provider = LocalProvider(
        resolve_endpoint("local", config), model=smol.name, constrained_tools="never"
    )
    try:
        request = Request(
            model=smol.name,
            system=["You are a helpful assistant."],
            messages=[Message.user("Say hello in one short sentence.")],
            max_tokens=12,
            temperature=0,
        )
        events = [ev async for ev in provider.stream(request)]
        text = "".join(e.text for e in events if e.type is EventType.TEXT_DELTA)
        assert events[0].type is EventType.NOTICE and "starting the local engine" in events[0].text
        assert text.strip() and events[-1].type is EventType.DONE
        assert events[-1].message.text() == text and events[-1].usage.output > 0

        running = engine._engines[Path(smol.path)]
        assert running.base_url.startswith("http://127.0.0.1:")
        assert (store.logs_dir / f"{smol.name}.log").stat().st_size > 0  # its log: state dir
        assert await provider.context_window(smol.name) == running.settings.n_ctx == 8192

        call = Request(
            model=smol.name,
            system=["You are a tool caller."],
            messages=[Message.user(COPY_A_CALL)],
            tools=[READ_FILE],
            max_tokens=60,
            temperature=0,
        )
        done = [ev async for ev in provider.stream(call)][-1]
        uses = [b for b in done.message.blocks if b.type == "tool_use"]
        assert uses and done.stop_reason.value == "tool_use"  # real tool_calls, not text
        for b in uses:
            args = json.loads(b.input) if isinstance(b.input, str) else b.input
            assert (b.name, args) == ("read_file", {"path": "a.py"})
    finally:
        pid = next(iter(engine._engines.values())).pid if engine._engines else None
        stop_all()
    assert pid is not None and _gone(pid)


# A Larik that a hangup ends: run under nohup (as CI may be), SIGHUP is inherited ignored, and
# an ignored signal stays ignored (install_exit_hooks), so the SIGHUP case never ended. The same
# for Ctrl+C: a suite started in the background by a shell (`nohup … &`) hands its tests SIGINT
# ignored, and the SIGINT case waited out its 30 s; a terminal's Larik gets KeyboardInterrupt.
EXITER = """
import signal, sys, time
signal.signal(signal.SIGHUP, signal.SIG_DFL)
signal.signal(signal.SIGINT, signal.default_int_handler)
from larik.config import Config
from larik.llm.local.engine import ensure, fit
from larik.llm.local.store import Store
store = Store(Config().local_dir)
entry = store.find(sys.argv[1])
print(ensure(fit(entry, store)).pid, flush=True)
how = sys.argv[2]
if how == "exception":
    raise RuntimeError("boom")
if how == "normal":
    sys.exit(0)
time.sleep(600)  # until a signal
"""


@pytest.mark.parametrize("how", ["normal", "exception", "SIGTERM", "SIGINT", "SIGHUP", "SIGKILL"])
def test_the_engine_stops_with_larik_on_every_exit_path(smol: Entry, tmp_path: Path, how: str):
    mark = f"engine-exit-{how}-{os.getpid()}"
    env = {**os.environ, MARK_VARIABLE: mark, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-c", EXITER, smol.name, how],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.strip().isdigit(), proc.stderr.read() if proc.stderr else ""
        pid = int(line)
        if how.startswith("SIG"):  # (the others end at once, taking the engine along)
            assert pid in carrying(mark)  # the engine runs, and carries the test's mark
            proc.send_signal(getattr(signal, how))
        proc.wait(timeout=WAIT)
        assert _gone(pid), f"the engine {pid} outlived Larik ({how})"
        assert carrying(mark) == []  # nothing of it left: no orphan
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for left in carrying(mark):
            os.kill(left, signal.SIGKILL)


def test_a_port_clash_picks_another_port(smol: Entry, store: Store):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        e = Engine(fit(smol, store, n_ctx=2048, threads=1))
        try:
            url = e.start(port=port)
            assert url.startswith("http://127.0.0.1:") and e.port != port
            assert engine.health(f"{url}/health")
            assert f"on port {port}:" in (store.logs_dir / f"{smol.name}.log").read_text()
        finally:
            e.stop()
    assert e.pid is not None and _gone(e.pid)


def test_a_gguf_the_engine_cannot_load_is_one_line_naming_the_file(
    smol: Entry, store: Store, tmp_path: Path
):
    cut = tmp_path / "half.gguf"
    data = Path(smol.path).read_bytes()
    cut.write_bytes(data[: len(data) // 2])  # its header whole, half its weights
    entry = Entry("half", str(cut), cut.stat().st_size, "", "file")
    e = Engine(fit(entry, store, n_ctx=2048, threads=1))
    with pytest.raises(LocalModelError) as info:
        e.start()
    message = str(info.value)
    assert "\n" not in message and str(cut) in message and "cannot load" in message
    assert e.pid is not None and _gone(e.pid)


async def test_a_file_that_is_no_gguf_fails_before_anything_is_spawned(store: Store, tmp_path):
    bad = tmp_path / "notes.gguf"
    bad.write_text("not a model\n")
    store.add(Entry("notes", str(bad), bad.stat().st_size, "", "file"))
    provider = LocalProvider(resolve_endpoint("local", Config()), model="notes")
    with pytest.raises(APIError) as info:
        await provider.context_window("notes")
    assert str(bad) in str(info.value) and "not a GGUF" in str(info.value)
    assert info.value.retryable is False and engine._engines == {}


def test_a_cpu_without_the_wheels_instructions_gets_a_message_not_sigill(
    smol: Entry, store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    old = tmp_path / "cpuinfo"
    old.write_text("processor\t: 0\nflags\t\t: fpu sse sse2 pni ssse3 sse4_1 sse4_2 avx\n")
    monkeypatch.setattr(cpu, "CPUINFO", old)
    monkeypatch.setattr(cpu.platform, "machine", lambda: "x86_64")
    e = Engine(fit(smol, store, n_ctx=2048, threads=1))
    with pytest.raises(LocalModelError, match="lacks AVX2, F16C, FMA, BMI2") as info:
        e.start()
    assert "Ollama" in str(info.value) and e.proc is None  # nothing loaded the wheel


def test_the_cpu_check_names_what_is_missing_and_skips_other_machines():
    flags = "flags : " + " ".join(cpu.NEEDED)
    assert cpu.missing(flags, "x86_64") == []
    assert cpu.missing(flags.replace(" avx2", ""), "x86_64") == ["AVX2"]
    assert cpu.missing("flags : sse", "arm64") == []  # not the x86 wheel: not checked
    assert cpu.check(flags, "AMD64") == ""


def test_ensure_gives_one_engine_per_model_per_process(smol: Entry, store: Store):
    settings = fit(smol, store, n_ctx=2048, threads=1)
    try:
        first = ensure(settings)
        assert ensure(settings) is first and first.alive()
    finally:
        stop_all()
    assert engine._engines == {} and first.pid is not None and _gone(first.pid)


def test_the_engine_gets_no_credential_but_its_own_key(monkeypatch):
    """The engine is llama.cpp's server: it needs no provider's key, nor a GitHub token."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret-value")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_secret_value")
    env = engine._child_env()
    assert "ANTHROPIC_API_KEY" not in env and "GITHUB_TOKEN" not in env
    assert "PATH" in env and str(Path(engine.__file__).resolve().parents[3]) in env["PYTHONPATH"]


def test_an_engine_that_died_is_let_go_before_another_starts(tmp_path: Path):
    settings = engine.Settings(tmp_path / "no.gguf", "x", 2048, 1, None, tmp_path / "x.log")
    dead = Engine(settings)
    dead.proc = subprocess.Popen(["true"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    dead.proc.wait()
    engine._engines[settings.model] = dead
    try:
        with pytest.raises(LocalModelError):  # the new one cannot start: no such file
            ensure(settings)
    finally:
        engine._engines.pop(settings.model, None)
    assert dead.proc.stdin is not None and dead.proc.stdin.closed
    assert dead.proc.stdout is not None and dead.proc.stdout.closed


async def test_a_turn_cancelled_while_the_engine_loads_ends_the_start_at_once(
    smol: Entry, store: Store, tmp_path: Path, monkeypatch
):
    """The engine starts in a worker thread, and loading a big model takes minutes: a quit
    (or Esc) cancelled the turn, but the worker went on waiting for the engine — up to 300 s
    in which Larik could not exit (asyncio waits for its worker threads)."""
    import asyncio

    hangs = tmp_path / "loads-forever"  # stands in for `python -m larik.llm.local.child`
    hangs.write_text("#!/bin/sh\nexec sleep 300\n")
    hangs.chmod(0o755)
    monkeypatch.setattr(engine.sys, "executable", str(hangs))
    provider = LocalProvider(resolve_endpoint("local", Config()), model=smol.name)
    task = asyncio.create_task(provider._ready())
    deadline = time.monotonic() + WAIT
    while not (engine._engines and next(iter(engine._engines.values())).pid):
        assert time.monotonic() < deadline and not task.done()
        await asyncio.sleep(0.02)
    pid = next(iter(engine._engines.values())).pid
    assert pid is not None
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # the worker stops the child and leaves within its next poll, not at its 300 s deadline
    # (the test's ceiling is shorter than that deadline: a worker that waited for it fails)
    assert await asyncio.to_thread(_gone, pid)
    deadline = time.monotonic() + WAIT
    while engine._engines:
        assert time.monotonic() < deadline, "the start went on"
        await asyncio.sleep(0.02)
