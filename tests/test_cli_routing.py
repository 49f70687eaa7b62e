"""`larik models` and `larik routing` on the command line; bad config -> one line, exit 2."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from larik.cli import app
from larik.config import user_config_path

runner = CliRunner()


def write_user(text: str) -> None:
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def run(*args: str):
    return runner.invoke(app, list(args))


def test_models_lists_the_catalog_with_access_window_and_prices(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant")
    monkeypatch.setenv("COLUMNS", "200")
    result = run("models", "--all")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    opus = next(line for line in lines if line.startswith("anthropic/claude-opus-5-5 "))
    assert "✓ key" in opus and "1M" in opus and " 4 " in opus and " 20 " in opus
    gpt = next(line for line in lines if line.startswith("openai/gpt-5.5 "))
    assert "✗ no key" in gpt
    assert any(
        line.split()[:2] == ["openai", "(14"] and "set OPENAI_API_KEY" in line for line in lines
    )
    assert "as of 20" in lines[-1] or "as of 20" in lines[-2]


def test_models_json_is_machine_readable():
    result = run("models", "--json", "--provider", "gemini")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["prices_as_of"]
    assert {m["provider"] for m in data["models"]} == {"gemini"}
    flash = next(m for m in data["models"] if m["model"] == "gemini-3.5-flash")
    assert flash["available"] is False and "GEMINI_API_KEY" in flash["access"]
    assert flash["context_window"] == 1_048_576 and flash["input_price"] == 1.5


def test_models_shows_a_reachable_local_server(loopback):
    write_user(
        f'[providers.box]\ntype = "openai-compatible"\nbase_url = "{loopback.url}/v1"\n'
        '[models."box/coder"]\ncontext_window = 32000\n'
    )
    data = json.loads(run("models", "--json", "--available").stdout)
    box = next(m for m in data["models"] if m["spec"] == "box/coder")
    assert box["available"] and box["access"] == "server up" and box["local"]
    assert all(m["available"] for m in data["models"])


def test_models_lists_what_a_running_local_server_serves_when_the_catalog_has_none(loopback):
    from tests.loopback import Reply

    body = '{"object": "list", "data": [{"id": "qwen2.5-coder-7b.gguf", "object": "model"}]}'
    loopback.route("/v1/models", Reply(body=body, content_type="application/json"))
    write_user(f'[providers.llamacpp]\nbase_url = "{loopback.url}/v1"\n')
    result = run("models", "--provider", "llamacpp")
    assert result.exit_code == 0, result.output
    row = next(line for line in result.stdout.splitlines() if line.startswith("llamacpp/"))
    assert row.startswith("llamacpp/qwen2.5-coder-7b.gguf ") and "✓ server up" in row


def test_models_for_an_unknown_provider_is_an_error_naming_the_known_ones():
    result = run("models", "--provider", "nosuch")
    assert result.exit_code == 2 and "unknown provider 'nosuch'" in result.stderr
    assert "llamacpp" in result.stderr


def test_routing_shows_each_role_model_and_fallbacks():
    write_user(
        'model = "ollama/devstral"\n[roles]\nworker = "ollama/qwen3-coder"\n'
        '[fallbacks]\nworker = ["ollama/gpt-oss:20b", "groq/qwen/qwen3-32b"]\n'
    )
    result = run("routing")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "worker   →  ollama/qwen3-coder  →  ollama/gpt-oss:20b" in out
    assert "skipped fallback groq/qwen/qwen3-32b: no API key for groq: set GROQ_API_KEY" in out
    assert "explore  →  ollama/devstral" in out
    assert "opus     →  anthropic/claude-opus-5-5" in out


def test_routing_reports_an_unresolvable_role_on_its_row():
    result = run("routing", "--json")
    assert result.exit_code == 0
    rows = {r["role"]: r for r in json.loads(result.stdout)["roles"]}
    assert rows["(main)"]["model"] is None and "ANTHROPIC_API_KEY" in rows["(main)"]["error"]
    assert rows["opus"]["model"] == "anthropic/claude-opus-5-5"
    assert "ANTHROPIC_API_KEY" in rows["opus"]["error"]


def test_routing_without_a_main_model_says_its_error_once():
    out = run("routing").stdout.splitlines()
    assert out[0].startswith("(main)") and "no API key found" in out[0]
    worker = next(line for line in out if line.startswith("worker"))
    assert worker.endswith("→  (main)")
    assert sum("no API key found" in line for line in out) == 1


def test_routing_without_a_main_model_points_at_a_running_local_server(loopback):
    write_user(f'[providers.llamacpp]\nbase_url = "{loopback.url}/v1"\n')
    out = run("routing").stdout
    assert "A local server answers on this machine: larik -m llamacpp/MODEL" in out


def test_routing_suggest_shows_bench_evidence(loopback):
    from larik.config import state_dir

    write_user(
        f'[providers.box]\ntype = "openai-compatible"\nbase_url = "{loopback.url}/v1"\n'
        '[models."box/coder-30b"]\ncontext_window = 128000\n'
    )
    results = state_dir() / "bench" / "results.jsonl"
    results.parent.mkdir(parents=True)
    results.write_text(
        "\n".join(json.dumps({"model": "box/coder-30b", "passed": p, "cost": 0}) for p in [1, 1, 0])
    )
    result = run("routing", "--suggest")
    assert result.exit_code == 0, result.output
    assert "worker   →  box/coder-30b" in result.stdout
    assert "bench 2/3 passed (67%)" in result.stdout


@pytest.mark.parametrize(
    ("toml", "expect"),
    [
        (
            '[providers.box]\ntype = "openai-compatible"\nbase_url = "http://10.1.2.3/v1"\n',
            "providers.box.base_url: uses http for 10.1.2.3",
        ),
        (
            '[providers.box]\ntype = "openai-compatible"\nbase_url = "https://u:pw@h.example"\n',
            "providers.box.base_url: must not contain a user name or password",
        ),
        ('max_turns = "many"\n', "max_turns: should be a whole number (got 'many')"),
        ('model = "a/b"\n[roles\n', ":2: invalid TOML"),
    ],
)
@pytest.mark.parametrize("command", ["models", "routing"])
def test_a_bad_config_is_one_line_on_stderr_and_exit_code_2(command, toml, expect):
    write_user(toml)
    result = run(command)
    assert result.exit_code == 2
    assert result.stdout == ""
    err = result.stderr.strip()
    assert "\n" not in err and "Traceback" not in err
    assert err.startswith(f"larik: {user_config_path()}") and expect in err
