"""``initialize``'s auth methods: none when ``session/new`` will find a model — one asked for
with ``-m``, a ``model`` in the user's config.toml (a local server's as any), the model
remembered as the default when it can start, a key for a provider a session starts on unasked,
in the environment or in config.toml, a pulled model — and otherwise the methods naming the
variables to set. The early answer reads the config as plain TOML; the cases below hold it to
the rule ``session/new`` applies (routing.targets.default_model)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from larik.acp import handshake
from larik.config import load_config
from larik.llm.errors import LarikError
from larik.llm.local.store import Entry, Store
from larik.locations import local_dir
from larik.routing import remembered, target

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
    "a remembered local server's model": ("", {}, "ollama/qwen3"),
    # groq: a provider no session starts on unasked, so only the remembered model reaches it
    "a remembered model whose key is set": ("", {"GROQ_API_KEY": "gsk-test"}, "groq/qwen3-32b"),
    "a remembered model whose key is not set": ("", {}, "groq/qwen3-32b"),
    "a remembered model of a provider that is gone": ("", {}, "gone/model"),
    "a remembered pulled model that was removed": ("", {}, "local/gone"),
    "a pulled model": ("", {}, "", "tiny"),
}


def _write_config(text: str) -> Path:
    path = Path(os.environ["LARIK_HOME"]) / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _variables(result: dict) -> list[str]:
    return [v["name"] for m in result["authMethods"] for v in m.get("vars", [])]


def _pull(name: str, where: Path) -> None:
    """A model pulled for Larik's own engine (its file a stand-in: nothing runs it here)."""
    gguf = where / f"{name}.gguf"
    gguf.write_bytes(b"GGUF")
    Store(local_dir()).add(Entry(name, str(gguf), 4, "0" * 64, "file"))


@pytest.mark.parametrize("case", sorted(CASES))
def test_no_auth_method_exactly_when_session_new_finds_a_model(case, monkeypatch, tmp_path):
    config, environ, *state = CASES[case]
    _write_config(config)
    if state and state[0]:
        remembered.write(state[0])
    if len(state) > 1:
        _pull(state[1], tmp_path)
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


UNREACHED = {
    "nothing",
    "a key for a provider no session starts on",
    "api_key_env not set",
    "a remembered model whose key is not set",
    "a remembered model of a provider that is gone",
    "a remembered pulled model that was removed",
}


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
