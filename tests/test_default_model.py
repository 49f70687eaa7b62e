"""One rule decides the model every face starts on when none is asked for
(``routing.targets.default_model``): the TUI, ``larik -p``, ``larik acp`` and ``larik bench``,
each a real process but the TUI (a pilot on the real agent factory), given the same state, start
on the same model. And every face's "no model" names what it found and the line that uses it.

The state the issue met (issue 43 item 2): a model remembered by the TUI, and a model pulled
after it (``larik local pull``). Before the rule, ``larik -p`` and ``larik acp`` took the
pulled model, ``larik acp`` listed auth methods, and ``larik bench`` wanted ``-m``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from larik.config import load_config
from larik.llm.local.store import Entry, Store
from larik.locations import local_dir, user_config_path
from larik.routing import remembered
from larik.routing.targets import SOURCES, NoModelError, default_model
from larik.tui.app import LarikApp

from .loopback import LoopbackServer, Reply

ROOT = Path(__file__).resolve().parents[1]
WAIT = 120.0  # seconds a real process may take on a loaded machine before the test gives up
TASK = "rename-across-files"  # a bundled bench task


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    return root


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}


def _larik(project: Path, *argv: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "larik.cli", *argv],
        input=stdin,
        capture_output=True,
        cwd=project,
        env=_env(),
        timeout=WAIT,
    )


def _rpc(id_: int, method: str, params: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params}).encode()


def _acp(project: Path, *args: str) -> dict[int, dict[str, Any]]:
    """``initialize`` and ``session/new`` to a real ``larik acp``, raw JSON-RPC lines."""
    lines = [
        _rpc(1, "initialize", {"protocolVersion": 1}),
        _rpc(2, "session/new", {"cwd": str(project), "mcpServers": []}),
    ]
    proc = subprocess.Popen(
        [sys.executable, "-m", "larik.cli", "acp", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=project,
        env=_env(),
    )
    assert proc.stdin is not None and proc.stdout is not None
    answers: dict[int, dict[str, Any]] = {}
    try:
        proc.stdin.write(b"\n".join(lines) + b"\n")
        proc.stdin.flush()
        while 2 not in answers:
            raw = proc.stdout.readline()
            assert raw, "larik acp closed stdout before answering"
            message = json.loads(raw)
            if "id" in message and ("result" in message or "error" in message):
                answers[message["id"]] = message
        proc.stdin.close()
        proc.wait(timeout=WAIT)
    finally:
        proc.kill()
        proc.wait()
    return answers


def _acp_model(answer: dict[str, Any]) -> str:
    options = answer["result"]["configOptions"]
    return next(o["currentValue"] for o in options if o["id"] == "model")


def _pull(name: str, where: Path) -> None:
    """A model pulled for Larik's own engine (its file a stand-in: nothing runs it here)."""
    gguf = where / f"{name}.gguf"
    gguf.write_bytes(b"GGUF")
    Store(local_dir()).add(Entry(name, str(gguf), 4, "0" * 64, "file"))


async def _tui_model(project: Path) -> tuple[str, str]:
    """The model the TUI starts on (its real agent factory) and what it said about it."""
    from larik.tui.widgets.notice import Notice

    from .tui.conftest import wait_for

    async def no_local(config: Any = None) -> list[Any]:
        return []

    app = LarikApp(cwd=project, config=load_config(project), discover_local=no_local)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.chat.session.agent is not None, timeout=WAIT)
        said = "\n".join(n.text for n in app.query(Notice))
        return app.chat.session.spec, said


async def test_every_face_starts_on_the_remembered_model_over_a_model_pulled_later(
    project, tmp_path
):
    script = tmp_path / "remembered.json"
    script.write_text(json.dumps({"turns": [{"text": "the remembered model answers"}] * 3}))
    spec = f"scripted/{script}"
    remembered.write(spec)
    _pull("tiny", tmp_path)  # pulled after the pick: the rule keeps the pick

    assert default_model(load_config(project)).source == "remembered"

    model, said = await _tui_model(project)
    assert model == spec
    assert f"model: {spec} (the one you picked last, remembered in {remembered.path()}" in said

    printed = _larik(project, "-p", "hello", "--output-format", "json")
    assert printed.returncode == 0, printed.stderr.decode()
    result = json.loads(printed.stdout)
    assert (result["model"], result["text"]) == (spec, "the remembered model answers")

    answers = _acp(project)
    assert answers[1]["result"]["authMethods"] == []  # a model is within reach: nothing to set
    assert "error" not in answers[2], answers[2]
    assert _acp_model(answers[2]) == spec

    out = tmp_path / "bench.json"
    bench = _larik(project, "bench", "--task", TASK, "--json", str(out))
    assert bench.returncode == 0, bench.stderr.decode()
    assert f"no -m: benching {spec}, the one you picked last" in bench.stderr.decode()
    assert {run["model"] for run in json.loads(out.read_text())} == {spec}


def test_the_rules_order_is_config_then_remembered_then_a_key_then_pulled(
    project, tmp_path, monkeypatch
):
    """Each source wins over every later one; the order is SOURCES (docs/configuration.md)."""
    _pull("tiny", tmp_path)
    assert default_model(load_config(project)).spec == "local/tiny"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert default_model(load_config(project)).source == "key"
    remembered.write("ollama/qwen3")
    assert default_model(load_config(project)).spec == "ollama/qwen3"
    user_config_path().write_text('model = "anthropic/claude-sonnet-4-5"\n')
    chosen = default_model(load_config(project))
    assert (chosen.source, chosen.spec) == ("config", "anthropic/claude-sonnet-4-5")
    assert SOURCES == ("config", "remembered", "key", "pulled")


def test_a_remembered_model_that_cannot_start_is_passed_over_and_said(project, tmp_path):
    remembered.write("groq/qwen3-32b")  # no GROQ_API_KEY here
    with pytest.raises(NoModelError) as e:
        default_model(load_config(project))
    assert "the model you picked last, groq/qwen3-32b, cannot start: no API key for groq" in str(
        e.value
    )
    _pull("tiny", tmp_path)
    chosen = default_model(load_config(project))
    assert chosen.spec == "local/tiny" and chosen.passed_over  # the next source, and why


@pytest.fixture
def llama_server() -> Any:
    """A model server on loopback listing one model, as llama.cpp's /v1/models does."""
    server = LoopbackServer().start()
    body = json.dumps({"object": "list", "data": [{"id": "qwen-test", "object": "model"}]})
    server.route("/v1/models", Reply(body=body, content_type="application/json"))
    try:
        yield server
    finally:
        server.stop()


def test_every_faces_no_model_names_the_server_that_answers_and_the_line_that_uses_it(
    project, tmp_path, llama_server
):
    port = llama_server.port
    user_config_path().write_text(
        f'[providers.box]\ntype = "openai-compatible"\nbase_url = "http://127.0.0.1:{port}/v1"\n'
    )
    remembered.write("groq/qwen3-32b")  # remembered, but its key is not set: said, not used
    found = f"a local server answers at 127.0.0.1:{port} (box/qwen-test)"
    passed = "the model you picked last, groq/qwen3-32b, cannot start"

    printed = _larik(project, "-p", "hello")
    err = printed.stderr.decode()
    assert printed.returncode == 2, err
    assert f"{found}: run `larik -m box/qwen-test -p …`" in err and passed in err
    assert "Traceback" not in err

    answers = _acp(project)
    details = answers[2]["error"]["data"]["details"]
    assert f"{found}: run `larik acp -m box/qwen-test`" in details and passed in details

    bench = _larik(project, "bench", "--task", TASK)
    err = bench.stderr.decode()
    assert bench.returncode == 2, err
    assert f"{found}: run `larik bench -m box/qwen-test`" in err and passed in err
