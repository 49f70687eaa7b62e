"""``initialize``'s auth methods: none when ``session/new`` will find a model — one asked for
with ``-m``, a ``model`` in the user's config.toml (a local server's as any), a key for a
provider a session starts on unasked, in the environment or in config.toml — and otherwise
the methods naming the variables to set. The early answer reads the config as plain TOML; the
cases below hold it to the rule ``session/new`` applies (routing.targets)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from larik.acp import handshake
from larik.config import load_config
from larik.llm.errors import LarikError
from larik.routing import target

from .client import Recorder, larik_acp

# (config.toml, environment): each a way a model is (or is not) within reach
CASES = {
    "nothing": ("", {}),
    "a key in the environment": ("", {"ANTHROPIC_API_KEY": "sk-ant-test"}),
    "a key for a provider no session starts on": ("", {"GROQ_API_KEY": "gsk-test"}),
    "a key in config.toml": ('[providers.openai]\napi_key = "sk-test"\n', {}),
    "api_key_env set": ('[providers.gemini]\napi_key_env = "MY_GEMINI"\n', {"MY_GEMINI": "g"}),
    "api_key_env not set": ('[providers.gemini]\napi_key_env = "MY_GEMINI"\n', {}),
    "a local server configured": ('model = "ollama/qwen3"\n', {}),
    "a configured openai-compatible server": (
        'model = "box/m"\n[providers.box]\ntype = "openai-compatible"\n'
        'base_url = "http://127.0.0.1:9/v1"\n',
        {},
    ),
}


def _write_config(text: str) -> Path:
    path = Path(os.environ["LARIK_HOME"]) / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _variables(result: dict) -> list[str]:
    return [v["name"] for m in result["authMethods"] for v in m.get("vars", [])]


@pytest.mark.parametrize("case", sorted(CASES))
def test_no_auth_method_exactly_when_session_new_finds_a_model(case, monkeypatch, tmp_path):
    config, environ = CASES[case]
    _write_config(config)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    try:
        target("", load_config(tmp_path))
        found = True
    except LarikError:
        found = False
    result = handshake.initialize_result(1)
    assert (result["authMethods"] == []) is found, case
    if not found:  # which variables to set, the session-starting providers' first
        assert {"ANTHROPIC_API_KEY", "OPENAI_API_KEY"} <= set(_variables(result))
    assert found is (case not in UNREACHED)  # the cases are what they say


UNREACHED = {"nothing", "a key for a provider no session starts on", "api_key_env not set"}


def test_a_model_asked_for_needs_no_auth_method():
    assert handshake.initialize_result(1, "scripted/x.json")["authMethods"] == []
    assert handshake.initialize_result(1)["authMethods"] != []


def test_a_config_that_cannot_be_read_lists_the_methods():
    _write_config('model = "unterminated\n')
    assert "ANTHROPIC_API_KEY" in _variables(handshake.initialize_result(1))


async def test_larik_acp_with_a_key_in_the_users_config_lists_no_auth_method(project):
    rec = Recorder()
    async with larik_acp(project, rec) as (conn, _):
        before = await conn.initialize(protocol_version=1)
    assert any(getattr(m, "vars", None) for m in before.auth_methods)  # nothing to reach yet
    _write_config('[providers.anthropic]\napi_key = "sk-ant-from-config"\n')
    async with larik_acp(project, rec) as (conn, _):
        after = await conn.initialize(protocol_version=1)
    assert after.auth_methods == []
