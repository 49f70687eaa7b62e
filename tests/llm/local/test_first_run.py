"""Once a model is pulled, plain ``larik`` (no key, no config) uses it; ``/model``, ``larik
models`` and the roles see it beside the local servers' models; ``-m local/NAME`` routes to it."""

from __future__ import annotations

from pathlib import Path

import pytest

from larik.config import Config
from larik.llm.errors import ResolveError
from larik.llm.local.store import Entry, Store
from larik.routing import resolve, target
from larik.routing.local import scan
from larik.routing.targets import NoModelError


def _pulled(name: str, tmp_path: Path) -> Entry:
    f = tmp_path / f"{name}.gguf"
    f.write_bytes(b"GGUF")
    entry = Entry(name, str(f), 4, "", "file")
    Store(Config().local_dir).add(entry)
    return entry


def test_with_no_key_plain_larik_uses_the_model_pulled_last(tmp_path, monkeypatch):
    with pytest.raises(NoModelError):
        target("", Config())
    _pulled("qwen2.5-coder-0.5b", tmp_path)
    _pulled("qwen2.5-coder-1.5b", tmp_path)
    assert target("", Config()).spec == "local/qwen2.5-coder-1.5b"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    assert target("", Config()).provider_name == "anthropic"  # a key still comes first


def test_local_name_routes_to_the_engine_and_a_role_may_name_it(tmp_path):
    _pulled("qwen2.5-coder-0.5b", tmp_path)
    resolved = resolve("local/qwen2.5-coder-0.5b", Config())
    assert resolved.provider_name == "local" and resolved.model == "qwen2.5-coder-0.5b"
    config = Config(roles={"explore": "local/qwen2.5-coder-0.5b"})
    assert target("explore", config).spec == "local/qwen2.5-coder-0.5b"
    with pytest.raises(ResolveError, match="local model's name"):
        target("local/", Config())


def test_the_scan_lists_pulled_models_as_local_ones_without_starting_anything(tmp_path):
    assert "local" not in scan(Config(), timeout=0.1).up
    _pulled("qwen2.5-coder-0.5b", tmp_path)
    found = scan(Config(), timeout=0.1)
    assert "local" in found.up
    assert [m.spec for m in found.models if m.provider == "local"] == ["local/qwen2.5-coder-0.5b"]
