"""What bench draws of a task, a suite or a run is shown as it is (issue 22 item 14): a task's
summary that would set the pane title and clear the screen, Rich markup in a tag, a bidi
override in a name or in a check's output all reach the terminal defused — through ``--list``,
``--validate``, the progress lines and the tables of a real run, ``--merge`` and ``--format``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from larik.cli import app

TITLE, CLEAR, RLO = "\x1b]0;PWNED\x07", "\x1b[2J", "\u202e"
NAME = f"evil{CLEAR}{RLO}task"
RAW = ("\x1b", "\x07", RLO)


def _no_raw(text: str) -> None:
    for ch in RAW:
        assert ch not in text, repr(ch)


@pytest.fixture
def hostile_tasks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "tasks"
    task = root / NAME
    for part in ("repo", "check", "solution"):
        (task / part).mkdir(parents=True)
    (task / "repo" / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (task / "solution" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (task / "check" / "test_calc.py").write_text(
        "from calc import add\n\n\ndef test_add():\n"
        f"    assert add(1, 2) == 3, {TITLE + CLEAR + RLO + 'check says'!r}\n"
    )
    toml = {
        "name": NAME,
        "summary": f"{TITLE}{CLEAR}looks {RLO}fine",
        "prompt": "fix add",
        "tags": ["[link=https://evil.example]click[/link]", f"t{RLO}"],
        "difficulty": "easy",
    }
    lines = [f"{k} = {json.dumps(v)}" for k, v in toml.items()]  # JSON strings are TOML strings
    (task / "task.toml").write_text("\n".join(lines) + "\n")
    monkeypatch.setenv("LARIK_BENCH_TASKS", str(root))
    return root


def test_list_shows_a_hostile_summary_name_and_tags_defused(hostile_tasks):
    r = CliRunner().invoke(app, ["bench", "--list"], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    _no_raw(r.output)
    assert "[link=https://evil.example]click[/link]" in r.output  # text, not markup
    assert "\\u202efine" in r.output and "evil\ufffd[2J\\u202etask" in r.output


def test_validate_lines_are_defused(hostile_tasks):
    r = CliRunner().invoke(app, ["bench", "--validate"], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    _no_raw(r.output)
    assert "evil\ufffd[2J\\u202etask: repo fails its check, solution passes" in r.output


def test_a_runs_progress_and_tables_are_defused(hostile_tasks, tmp_path):
    script = tmp_path / "idle.json"
    script.write_text(json.dumps({"turns": [{"text": "nothing to do"}]}))
    out = tmp_path / "out.json"
    r = CliRunner().invoke(
        app,
        ["bench", "-m", f"scripted/{script}", "--json", str(out)],
        env={"COLUMNS": "200"},
    )
    assert r.exit_code == 0, r.output
    assert json.loads(out.read_text())[0]["passed"] is False
    _no_raw(r.output)
    _no_raw(r.stderr)
    assert "failures" in r.output and "evil\ufffd[2J\\u202etask" in r.output


def test_merged_results_from_elsewhere_are_defused_in_every_format(tmp_path):
    run = {
        "model": f"scripted/{RLO}m{TITLE}",
        "task": NAME,
        "repeat": 1,
        "passed": False,
        "reason": "check failed",
        "detail": f"{CLEAR}boom {RLO}",
        "finished": f"2026-01-01{TITLE}",
    }
    shard = tmp_path / "shard.json"
    shard.write_text(json.dumps([run]))
    r = CliRunner().invoke(app, ["bench", "--merge", str(shard)], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    _no_raw(r.output)
    assert "scripted/\\u202em" in r.output


def test_a_report_written_to_a_terminal_is_defused_and_to_a_file_kept(tmp_path, monkeypatch):
    import io
    import sys

    from larik.commands.bench import _show

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    report = f"| {RLO}{TITLE} |\n"  # a Markdown report naming a hostile task or model
    monkeypatch.setattr("larik.bench.formats.write_report", lambda fmt, summaries, out: report)
    tty = Tty()
    monkeypatch.setattr(sys, "stdout", tty)
    _show(None, [], "md", None, None)
    _no_raw(tty.getvalue())
    assert "\\u202e" in tty.getvalue()
    pipe = io.StringIO()
    monkeypatch.setattr(sys, "stdout", pipe)
    _show(None, [], "md", None, None)
    assert pipe.getvalue() == report
