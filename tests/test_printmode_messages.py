"""Print mode's words (issue 25 items 10, 22, 28): a shell line's refusal whole with the allow
rule it suggests, usage keyed ``provider/model`` as ``model`` is, and ``--verbose`` showing each
tool call's result as well as the call. Through the real CLI entry, on a scripted model."""

from __future__ import annotations

import json

import pytest

from .test_printmode import FIX, larik, project, write_script

__all__ = ["project"]  # the fixture, shared


def test_a_shell_lines_refusal_is_shown_whole_up_to_the_allow_rule(project, tmp_path):
    """It was cut at 200 characters, just before ``'bash: git log*'``."""
    (project / ".git").mkdir()
    commands = project / ".larik" / "commands"
    commands.mkdir(parents=True)
    (commands / "log.md").write_text("Summarize:\n!`git log --oneline -5`\n")
    model = write_script(tmp_path / "s.json", {"text": "ok"})
    code, _, err = larik("-p", "/log", "-m", model, "--trust-project")
    assert code == 0, err
    line = next(x for x in err.splitlines() if "/log: !`git log --oneline -5` not run" in x)
    assert line.endswith("add a permissions.allow rule such as 'bash: git log*'."), line
    assert "…" not in line


def test_a_very_long_refusal_loses_its_middle_not_its_end():
    from larik.frontmatter import one_line

    text = "permission denied: " + "x" * 2000 + " such as 'bash: git log*'."
    short = one_line(text, 300, keep_end=True)
    assert len(short) <= 300 and short.endswith("such as 'bash: git log*'.")
    assert short.startswith("permission denied: ") and " … " in short


def _result(out: str) -> dict:
    return json.loads(out.strip().splitlines()[-1])


def test_json_usage_and_cost_are_keyed_provider_slash_model_as_model_is(project, tmp_path):
    """``usage_by_model`` said ``/tmp/…/fix.json`` where ``model`` said ``scripted//tmp/…``."""
    model = write_script(tmp_path / "fix.json", *FIX)
    code, out, err = larik(
        "-p", "fix add", "-m", model, "--permission-mode", "edits", "--output-format", "json"
    )
    assert code == 0, err
    result = _result(out)
    assert result["model"] == model
    assert list(result["usage_by_model"]) == [model] == list(result["cost_by_model"])


def test_stream_json_usage_events_and_progress_name_provider_slash_model(project, tmp_path):
    model = write_script(tmp_path / "fix.json", *FIX)
    code, out, err = larik(
        "-p",
        "fix",
        "-m",
        model,
        "--permission-mode",
        "edits",
        "--output-format",
        "stream-json",
        "--verbose",
    )
    assert code == 0, err
    usage = [json.loads(line) for line in out.splitlines() if '"type": "usage"' in line]
    assert len(usage) == 3 and {u["model"] for u in usage} == {model}
    assert f"larik: · {model} replied (" in err


def test_a_resumed_sessions_usage_keeps_its_provider_too(project, tmp_path):
    first = write_script(tmp_path / "a.json", {"text": "one", "usage": {"input": 5, "output": 1}})
    code, out, err = larik("-p", "hi", "-m", first, "--output-format", "json")
    assert code == 0, err
    session = _result(out)["session_id"]
    second = write_script(tmp_path / "b.json", {"text": "two", "usage": {"input": 7, "output": 1}})
    code, out, err = larik("-p", "again", "-m", second, "-r", session, "--output-format", "json")
    assert code == 0, err
    assert sorted(_result(out)["usage_by_model"]) == sorted([first, second])


def test_verbose_shows_each_tool_calls_result_after_the_call(project, tmp_path):
    """``--verbose`` listed the calls but not what they gave back."""
    model = write_script(tmp_path / "fix.json", *FIX)
    code, _, err = larik("-p", "fix add", "-m", model, "--permission-mode", "edits", "--verbose")
    assert code == 0, err
    lines = err.splitlines()
    call = lines.index("larik: · read_file calc.py")
    result = lines[call + 1]
    assert result.startswith("larik: · read_file done in "), result
    assert result.endswith("s: 1 def add(a, b): (+1 line)"), result
    assert any(x.startswith("larik: · edit_file done in ") for x in lines)


@pytest.mark.parametrize("ok", [True, False])
def test_a_results_line_says_failed_for_an_error_and_no_output_when_there_is_none(ok):
    from larik.agent.events import AgentEvent, AgentEventType
    from larik.print_lines import result_line

    ev = AgentEvent(
        AgentEventType.TOOL_END, tool_name="bash", text="", is_error=not ok, duration=1.25
    )
    assert result_line(ev) == f"bash {'done' if ok else 'failed'} in 1.2s: (no output)"
