"""Bench asks the registry, not a provider's name: a kind that holds a run's state gets a new
adapter per run (``Kind.fresh_per_run``), and a kind whose model is a file here sends the file
with a Ray run (``Kind.model_file``) — ``scripted`` is one such kind, not a special case."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from larik.bench.agent_run import fresh_adapters
from larik.bench.ray_run import _model_files
from larik.config import Config
from larik.llm import registry
from larik.llm.providers.scripted import ScriptedProvider

BENCH = Path(__file__).parents[2] / "larik"


@pytest.fixture
def replay_kind():
    """A seventh kind, registered the way a plugin would: stateful, model given as a file."""
    made: list[ScriptedProvider] = []

    def factory(endpoint, *, model: str, fresh: bool = False, **_):
        p = ScriptedProvider.from_file(model)
        made.append(p)
        return p

    registry.register_kind(
        registry.Kind(
            name="replay",
            adapter=factory,
            warm_modules=(),
            in_process=True,
            per_model=True,
            fresh_per_run=True,
            model_file=True,
            retry=False,
            listed=False,
        )
    )
    yield made
    registry.unregister_kind("replay")


def test_a_fresh_per_run_kind_gets_a_new_adapter_for_every_run(replay_kind, tmp_path):
    script = tmp_path / "s.json"
    script.write_text('{"turns": [{"text": "hi"}]}')
    spec = f"replay/{script}"
    resolver_for = fresh_adapters(Config())
    first, second = resolver_for(spec), resolver_for(spec)
    assert first is not None and second is not None
    a, b = first(spec), second(spec)
    assert a.provider is not b.provider
    assert a.spec == spec and a.provider is first(spec).provider  # one adapter within a run
    assert resolver_for("anthropic/claude-sonnet-4-5") is None  # a stateless kind: routing's own


def test_a_model_file_kind_sends_its_file_with_a_ray_run(replay_kind, tmp_path):
    script = tmp_path / "s.json"
    script.write_bytes(b'{"turns": []}')
    files = _model_files([f"replay/{script}", "anthropic/claude-sonnet-4-5"], Config())
    assert files == {f"replay/{script}": (".json", b'{"turns": []}')}


def test_bench_code_never_names_the_scripted_provider():
    """issue 12: `scripted` registers like any other provider; bench asks its kind's flags."""
    sources = [*sorted((BENCH / "bench").glob("*.py")), BENCH / "commands" / "bench.py"]
    for path in sources:
        tree = ast.parse(path.read_text())
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docstrings
            ):
                assert "scripted" not in node.value, f"{path.name}:{node.lineno}: {node.value!r}"
