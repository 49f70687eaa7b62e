"""resolve_endpoint: the one place a provider's kind, base URL, key and locality are worked out."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest

from larik import cli, routing
from larik.config import Config
from larik.llm.endpoint import Endpoint, is_local, kind_of, resolve_endpoint
from larik.llm.errors import ConfigError, MissingKeyError, ResolveError
from larik.llm.types import Message, Request
from tests.llm.providers.kits import anthropic as anthropic_kit
from tests.llm.providers.kits import gemini as gemini_kit
from tests.llm.providers.kits import openai_responses as responses_kit
from tests.loopback import LoopbackServer

ENV_URLS = [
    ("anthropic", "ANTHROPIC_BASE_URL", "http://evil.example"),
    ("openai", "OPENAI_BASE_URL", "http://evil.example/v1"),
    ("gemini", "GOOGLE_GEMINI_BASE_URL", "http://evil.example"),
    ("ollama", "OLLAMA_HOST", "evil.example:11434"),
]


def cfg(**providers: dict) -> Config:
    return Config(providers=providers)


# -- base URLs from the environment get the config's https rule ---------------------------------


@pytest.mark.parametrize(("provider", "var", "url"), ENV_URLS)
def test_a_plain_http_base_url_from_the_environment_is_refused_naming_the_variable(
    monkeypatch, provider, var, url
):
    monkeypatch.setenv(var, url)
    with pytest.raises(ConfigError) as ei:
        resolve_endpoint(provider, Config())
    message = str(ei.value)
    assert var in message and "evil.example" in message and "https" in message
    assert "\n" not in message


@pytest.mark.parametrize(("provider", "var", "url"), ENV_URLS)
def test_resolve_refuses_it_before_anything_is_built(monkeypatch, provider, var, url):
    monkeypatch.setenv(var, url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-123456")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-123456")
    monkeypatch.setenv("GEMINI_API_KEY", "gm-test-123456")
    with pytest.raises(ConfigError, match=var):
        routing.resolve(f"{provider}/some-model", Config())


def test_print_mode_with_a_hostile_anthropic_base_url_exits_2_with_one_line(
    monkeypatch, tmp_path: Path
):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-123456")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://evil.example")
    out, err = io.StringIO(), io.StringIO()
    old = sys.argv, sys.stdout, sys.stderr
    sys.argv = ["larik", "-p", "hi", "-m", "anthropic/claude-sonnet-4-5"]
    sys.stdout, sys.stderr = out, err
    try:
        with pytest.raises(SystemExit) as ei:
            cli.main()
    finally:
        sys.argv, sys.stdout, sys.stderr = old
    assert ei.value.code == 2
    lines = err.getvalue().strip().splitlines()
    assert len(lines) == 1 and "ANTHROPIC_BASE_URL" in lines[0], err.getvalue()
    assert "sk-ant-test-123456" not in err.getvalue() + out.getvalue()


@pytest.mark.parametrize(
    ("provider", "var", "value", "url"),
    [
        ("anthropic", "ANTHROPIC_BASE_URL", "https://proxy.example", "https://proxy.example"),
        ("openai", "OPENAI_BASE_URL", "http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"),
        ("ollama", "OLLAMA_HOST", "127.0.0.1:11500", "http://127.0.0.1:11500"),
        ("ollama", "OLLAMA_HOST", "https://gpu.example", "https://gpu.example:443"),
    ],
)
def test_a_safe_base_url_from_the_environment_is_used(monkeypatch, provider, var, value, url):
    monkeypatch.setenv(var, value)
    assert resolve_endpoint(provider, Config()).base_url == url


def test_the_config_base_url_wins_over_the_environment(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://evil.example")
    config = cfg(anthropic={"base_url": "https://proxy.example"})
    assert resolve_endpoint("anthropic", config).base_url == "https://proxy.example"


def test_a_bad_config_or_default_url_names_its_config_key():
    from larik.llm import registry

    registry.register(
        "test-http-default", "x:y", [], type="openai-compatible", base_url="http://x.example"
    )
    try:
        with pytest.raises(
            ConfigError, match=r"^providers\.test-http-default\.base_url: uses http"
        ):
            resolve_endpoint("test-http-default", Config())
    finally:
        registry.unregister("test-http-default")


def test_a_custom_openai_compatible_provider_without_a_base_url_is_a_config_error():
    with pytest.raises(ConfigError, match=r"providers\.box\.base_url"):
        resolve_endpoint("box", cfg(box={"type": "openai-compatible"}))


@pytest.mark.parametrize(
    ("kit", "var"),
    [
        (anthropic_kit.KIT, "ANTHROPIC_BASE_URL"),
        (responses_kit.KIT, "OPENAI_BASE_URL"),
        (gemini_kit.KIT, "GOOGLE_GEMINI_BASE_URL"),
    ],
    ids=["anthropic", "openai", "gemini"],
)
async def test_the_sdks_never_read_their_own_base_url_variable(monkeypatch, kit, var):
    """The adapter is handed its URL; the SDK's variable pointing elsewhere changes nothing."""
    right, wrong = LoopbackServer().start(), LoopbackServer().start()
    try:
        monkeypatch.setenv(var, wrong.url + ("/v1" if var == "OPENAI_BASE_URL" else ""))
        right.add(kit.text_reply(["ok"], _usage()))
        request = Request(model=kit.model, messages=[Message.user("hi")], max_tokens=16)
        events = [ev async for ev in kit.make(right.url).stream(request)]
        assert events[-1].message.text() == "ok"
        assert len(right.requests) == 1 and wrong.requests == []
    finally:
        right.stop()
        wrong.stop()


def _usage():
    from larik.llm.types import Usage

    return Usage(input=1, output=1)


def test_no_adapter_reads_the_environment():
    root = Path(__file__).resolve().parents[2] / "larik" / "llm" / "providers"
    readers = [
        f"{path.name}:{n}"
        for path in sorted(root.glob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if re.search(r"os\.environ|getenv\(", line)
    ]
    assert readers == []


# -- keys ------------------------------------------------------------------------------------


def test_the_key_comes_from_the_first_declared_variable_that_is_set(monkeypatch):
    monkeypatch.setenv("GOOGLE_API_KEY", "google-key-1234")
    ep = resolve_endpoint("gemini", Config())
    assert (ep.api_key, ep.key_env) == ("google-key-1234", "GOOGLE_API_KEY")
    monkeypatch.setenv("GEMINI_API_KEY", "gemini-key-1234")
    assert resolve_endpoint("gemini", Config()).key_env == "GEMINI_API_KEY"


def test_config_api_key_then_api_key_env_then_the_declared_variables(monkeypatch):
    monkeypatch.setenv("GROQ_API_KEY", "gsk_declared_1234")
    monkeypatch.setenv("WORK_GROQ", "gsk_work_1234")
    assert resolve_endpoint("groq", Config()).api_key == "gsk_declared_1234"
    work = resolve_endpoint("groq", cfg(groq={"api_key_env": "WORK_GROQ"}))
    assert (work.api_key, work.key_env, work.key_names) == (
        "gsk_work_1234",
        "WORK_GROQ",
        ("WORK_GROQ",),
    )
    given = resolve_endpoint("groq", cfg(groq={"api_key": "gsk_config_1234"}))
    assert (given.api_key, given.key_env, given.key_hint) == ("gsk_config_1234", "", "GROQ_API_KEY")


def test_a_missing_required_key_names_the_variables():
    ep = resolve_endpoint("gemini", Config())
    assert ep.api_key is None
    with pytest.raises(MissingKeyError, match="GEMINI_API_KEY or GOOGLE_API_KEY"):
        ep.require_key()


def test_a_custom_table_of_a_keyed_kind_needs_that_kinds_key():
    config = cfg(claude={"type": "anthropic", "base_url": "https://proxy.example"})
    with pytest.raises(MissingKeyError, match="ANTHROPIC_API_KEY"):
        resolve_endpoint("claude", config).require_key()


def test_ollamas_key_is_optional_and_read_when_set(monkeypatch):
    assert resolve_endpoint("ollama", Config()).require_key() is None
    monkeypatch.setenv("OLLAMA_API_KEY", "ollama-key-1234")
    ep = resolve_endpoint("ollama", Config())
    assert (ep.api_key, ep.key_env) == ("ollama-key-1234", "OLLAMA_API_KEY")


# -- kind and locality -------------------------------------------------------------------------


def test_the_kind_is_the_tables_type_else_the_registered_one():
    assert resolve_endpoint("groq", Config()).kind == "openai-compatible"
    assert resolve_endpoint("box", cfg(box={"type": "ollama"})).kind == "ollama"
    assert kind_of("anthropic") == "anthropic" and kind_of("nope") == ""


def test_an_unknown_provider_and_a_typeless_new_table_are_errors():
    with pytest.raises(ResolveError, match="unknown provider"):
        resolve_endpoint("nope", Config())
    with pytest.raises(ConfigError, match=r"providers\.box\.type"):
        resolve_endpoint("box", cfg(box={"base_url": "https://box.example"}))


def test_local_means_a_loopback_base_url(monkeypatch):
    assert is_local("ollama") and is_local("llamacpp") and not is_local("anthropic")
    assert is_local(
        "box", cfg(box={"type": "openai-compatible", "base_url": "http://localhost:1/v1"})
    )
    assert not is_local("llamacpp", cfg(llamacpp={"base_url": "https://gpu.example/v1"}))
    monkeypatch.setenv("OLLAMA_HOST", "https://gpu.example")
    assert not is_local("ollama")
    assert resolve_endpoint("scripted", Config()).local  # runs in-process


def test_an_endpoint_repr_never_shows_the_key():
    ep = Endpoint(
        "x", "openai-compatible", "https://x.example", "sk-secret-123456", headers={"A": "b"}
    )
    assert "sk-secret" not in repr(ep)
