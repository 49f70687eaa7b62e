"""Every JSON text Larik writes is JSON (issue 42 item 7): no ``NaN``, ``Infinity`` or
``-Infinity`` on a protocol stream, in print mode's output, in a transcript or a state file.

The walk: every ``json.dump``/``json.dumps`` call in the package says ``allow_nan`` outright
— ``False`` (or it goes through :mod:`larik.llm.jsontext`, which does), ``True`` only where the
text is never written for a reader (a key, a size, a display) and :data:`LENIENT` says why.
The faces: print mode's JSON and stream-json and the transcript, as real processes, with a
model that sends arguments holding ``NaN`` and ``1e400`` (the ACP face: tests/acp/test_storms.py)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from larik.llm import jsontext

from .acp.raw import strict_json

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "larik"

#: (file, function) -> why a NaN there may stay (the text is never written for a reader)
LENIENT = {
    ("larik/agent/stuck.py", "call_key"): "a key that calls are compared by, in memory",
    ("larik/session/budget.py", "estimate"): "a length, to estimate a request's tokens",
    ("larik/mcp/manager.py", "spec_tokens"): "a length, to estimate the tools' tokens",
    ("larik/mcp/offer.py", "fit_schema"): "a length, to bound a server's schema",
    ("larik/mcp/content.py", "result_parts"): "a tool result's text for the model",
    ("larik/mcp/tools.py", "target"): "a permission rule's target, matched in memory",
    ("larik/tui/render.py", "pretty_args"): "shown on the screen",
    ("larik/tui/widgets/tool_card.py", "tool_text"): "shown on the screen",
    ("larik/trust.py", "digest"): "hashed, never written (and config values are finite)",
    ("larik/agent/values_probe.py", "main"): "runs in the project's Python; Larik reads it",
}


def _calls() -> list[tuple[str, str, ast.Call]]:
    """Every ``json.dump(s)(...)`` call in the package: (file, enclosing function, call)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel == "larik/llm/jsontext.py":
            continue
        tree = ast.parse(path.read_text(), rel)
        for func in [None, *ast.walk(tree)]:
            if func is not None and not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            body = tree if func is None else func
            for node in ast.walk(body):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("dump", "dumps")
                    and isinstance(node.func.value, ast.Name)
                    and node.func.value.id == "json"
                ):
                    found.append((rel, func.name if func else "", node))
    innermost: dict[int, tuple[str, str, ast.Call]] = {}
    for rel, name, node in found:  # ast.walk sees a call once per enclosing function
        innermost[id(node)] = (rel, name, node)
    return list(innermost.values())


def _allow_nan(call: ast.Call) -> object:
    for kw in call.keywords:
        if kw.arg == "allow_nan" and isinstance(kw.value, ast.Constant):
            return kw.value.value
    return None


def test_every_json_writer_in_the_package_refuses_nan_or_is_listed_as_never_written():
    calls = _calls()
    assert calls, "the walk found no json.dumps call at all"
    unsaid = [f"{rel}:{c.lineno}" for rel, _, c in calls if _allow_nan(c) is None]
    assert unsaid == [], "use larik.llm.jsontext.dumps (allow_nan=False) for these"
    lenient = {(rel, name) for rel, name, c in calls if _allow_nan(c) is True}
    assert lenient <= set(LENIENT), lenient - set(LENIENT)
    assert set(LENIENT) <= lenient, f"stale rows: {set(LENIENT) - lenient}"


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_a_value_with_no_json_text_is_refused_saying_where(value):
    with pytest.raises(jsontext.NotJson, match=r"at \$\.usage\.cost"):
        jsontext.dumps({"usage": {"cost": value}})


@pytest.mark.parametrize("text", ["NaN", "Infinity", "-Infinity", "1e400", '{"a": [-1e999]}'])
def test_what_is_no_json_is_not_read_as_json(text):
    with pytest.raises(ValueError):
        jsontext.loads(text)


@pytest.mark.parametrize("price", ["inf", "nan", "1e308"])
def test_a_config_price_that_makes_no_json_number_is_a_clear_error(tmp_path, price):
    from larik.config import load_config
    from larik.llm.errors import LarikError

    home = Path(os.environ["LARIK_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(f'[models."x/y"]\ninput_price = {price}\n')
    with pytest.raises(LarikError, match="input_price"):
        load_config(tmp_path)


NAN_CALL = '{"path": "a.txt", "n": NaN, "m": 1e400, "k": -Infinity}'


def _print_mode(project: Path, tmp_path: Path, fmt: str) -> subprocess.CompletedProcess[str]:
    model = tmp_path / "m.json"
    turns = [{"tool_calls": [{"name": "read_file", "input": NAN_CALL}]}, {"text": "done"}]
    model.write_text(json.dumps({"turns": turns}))
    return subprocess.run(
        [sys.executable, "-m", "larik.cli", "-p", "go", "-m", f"scripted/{model}"]
        + ["--output-format", fmt],
        cwd=project,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )


@pytest.mark.parametrize("fmt", ["json", "stream-json"])
def test_print_mode_writes_only_json_whatever_the_model_sends(tmp_path, fmt):
    project = tmp_path / "proj"
    project.mkdir()
    (project / "a.txt").write_text("hello\n")
    out = _print_mode(project, tmp_path, fmt)
    assert "Traceback" not in out.stderr
    lines = out.stdout.splitlines()
    parsed = [strict_json(line) for line in lines]  # every line JSON, NaN refused
    result = parsed[-1]
    assert result["type"] == "result" and result["ok"] is True and out.returncode == 0
    if fmt == "stream-json":
        [end] = [p for p in parsed if p["type"] == "tool_end"]
        assert end["is_error"] and "NaN is not JSON" in end["text"]  # the model is told
    sessions = list(Path(os.environ["LARIK_HOME"]).rglob("*.jsonl"))
    assert sessions
    for line in sessions[0].read_text().splitlines():  # the transcript too
        strict_json(line)
