"""``larik models``: the models usable here first (only those unless ``--all``), in 80 columns,
and what a local model runs on said truly — a pulled model's engine is not a server that is up,
and a server's listed window is shown as the ``/model`` picker shows it."""

from __future__ import annotations

import json
import socket

import pytest
from typer.testing import CliRunner

from larik.cli import app
from larik.config import Config, user_config_path
from larik.llm.local.store import Entry, Store

runner = CliRunner()


def _dead_port() -> int:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(autouse=True)
def _eighty_columns_and_no_server_of_this_machine(monkeypatch):
    """A model server another program runs here (llama.cpp on 8080) is not the test's."""
    monkeypatch.setenv("COLUMNS", "80")
    dead = f"http://127.0.0.1:{_dead_port()}"
    monkeypatch.setenv("OLLAMA_HOST", dead)
    write_user("")


PRESETS = ("llamacpp", "vllm", "lmstudio")


def write_user(text: str) -> None:
    """The test's config, every preset server not named in it at a port nothing answers."""
    dead = f"http://127.0.0.1:{_dead_port()}/v1"
    quiet = "".join(
        f'[providers.{p}]\nbase_url = "{dead}"\n' for p in PRESETS if f"[providers.{p}]" not in text
    )
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n" + quiet, encoding="utf-8")


def run(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def rows(out: str) -> list[str]:
    lines = out.splitlines()
    return [line for line in lines[1 : lines.index("")] if line]


def test_models_lists_only_usable_models_and_one_line_per_provider_for_the_rest(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant")
    out = run("models")
    assert all(line.startswith("anthropic/") and "✓ key" in line for line in rows(out))
    assert "✗" not in out
    assert "openai (" in out and "set OPENAI_API_KEY" in out
    assert "larik models --all lists them." in out


def test_models_all_lists_the_usable_models_before_the_others(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-oa")
    marks = [line.split()[1] for line in rows(run("models", "--all"))]
    assert "✗" in marks and marks == sorted(marks, key=lambda m: m != "✓")


@pytest.mark.parametrize("args", [(), ("--all",)])
def test_models_fits_80_columns(monkeypatch, args):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant")
    out = run("models", *args)
    assert max(len(line) for line in out.splitlines()) <= 80
    assert rows(out)[0].split()[:3] == ["anthropic/claude-fable-5-1", "✓", "key"]


def test_models_with_nothing_usable_says_so_and_what_would_do():
    out = run("models")
    assert out.startswith("No model is usable here yet.")
    assert "set ANTHROPIC_API_KEY" in out and "larik login copilot" in out


def test_a_pulled_model_is_usable_but_not_said_to_be_a_server_that_is_up(tmp_path):
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF")
    Store(Config().local_dir).add(Entry("tiny", str(gguf), 4, "0" * 64, "file"))
    line = next(x for x in run("models").splitlines() if x.startswith("local/tiny "))
    assert "✓ pulled" in line and "server up" not in line
    data = json.loads(run("models", "--json", "--provider", "local"))
    (row,) = data["models"]
    assert row["available"] and row["access"].startswith("pulled: ")


def test_models_shows_the_window_a_local_server_lists_as_the_picker_does(loopback):
    from larik.routing.local import scan
    from larik.session.models import picker_entries
    from tests.loopback import Reply

    body = json.dumps(
        {"data": [{"id": "tiny-8k.gguf", "meta": {"n_ctx": 8192, "n_ctx_train": 32768}}]}
    )
    loopback.route("/v1/models", Reply(body=body, content_type="application/json"))
    write_user(f'[providers.llamacpp]\nbase_url = "{loopback.url}/v1"\n')
    line = next(x for x in rows(run("models")) if x.startswith("llamacpp/tiny-8k.gguf "))
    assert line.split()[4] == "8k"
    config = Config.model_validate({"providers": {"llamacpp": {"base_url": f"{loopback.url}/v1"}}})
    picker = {e.spec: e.window for e in picker_entries(config, scan(config).models)}
    assert picker["llamacpp/tiny-8k.gguf"] == 8192


def test_a_model_a_listed_provider_serves_outside_the_catalog_is_listed(loopback, monkeypatch):
    from tests.loopback import Reply

    body = json.dumps({"models": [{"name": "qwen2.5-coder:0.5b"}]})
    loopback.route("/api/tags", Reply(body=body, content_type="application/json"))
    monkeypatch.setenv("OLLAMA_HOST", loopback.url)
    specs = [line.split()[0] for line in rows(run("models"))]
    assert "ollama/qwen2.5-coder:0.5b" in specs
