"""The stuck detector on its own: each pattern, the nudge-then-stop rule, what does not count."""

from __future__ import annotations

from larik.agent.stuck import StuckDetector, call_key
from larik.config import StuckConfig


def feed(det: StuckDetector, *steps, text: str = ""):
    """One reply with ``steps`` as its tool calls: (tool, args, result[, is_error])."""
    out = [det.reply(text)]
    for step in steps:
        name, args, result, *err = step
        out.append(det.tool(name, call_key(name, args), result, bool(err and err[0])))
    return [v for v in out if v is not None]


READ = ("read_file", {"path": "a.py"}, "1\tx = 1")
GLOB = ("glob", {"pattern": "*.py"}, "a.py")


def test_the_same_call_with_the_same_result_is_a_nudge_then_a_stop():
    det = StuckDetector()
    assert feed(det, READ) == [] and feed(det, READ) == []
    [nudge] = feed(det, READ)
    assert nudge.pattern == "repeat" and not nudge.stop and nudge.count == 3
    assert "read_file" in nudge.message and "a.py" in nudge.message
    assert "3 times" in nudge.message and "final answer" in nudge.message
    [stop] = feed(det, READ)
    assert stop.stop and stop.pattern == "repeat" and stop.count == 4
    assert stop.message.startswith("stopped: the model is stuck")


def test_the_same_call_with_a_different_result_is_progress_for_a_while():
    det = StuckDetector()
    for i in range(5):
        assert feed(det, ("bash", {"command": "pytest"}, f"{i} failed")) == []
    (nudge,) = feed(det, ("bash", {"command": "pytest"}, "5 failed"))  # six in a row: a loop
    assert nudge.pattern == "same_call" and not nudge.stop
    det = StuckDetector()
    for i in range(10):  # something else in between: progress
        assert feed(det, ("bash", {"command": "pytest"}, f"{i} failed")) == []
        assert feed(det, ("edit_file", {"path": "a.py", "old_string": f"{i}"}, "ok")) == []


def test_arguments_are_normalised_keys_order_whitespace_and_nulls():
    assert call_key("glob", {"pattern": " *.py ", "path": None}) == call_key(
        "glob", '{"pattern":"*.py"}'
    )
    assert call_key("t", {"b": 1, "a": 2}) == call_key("t", {"a": 2, "b": 1})
    assert call_key("t", "not json  at\nall") == "t not json at all"
    assert call_key("t", {"a": 1}) != call_key("u", {"a": 1})


def test_durations_in_a_result_do_not_make_it_new():
    det = StuckDetector()
    results = ["1 failed in 0.03s", "1 failed in 0.05s", "1 failed in 1.2 s"]
    out = [feed(det, ("bash", {"command": "pytest"}, r)) for r in results]
    assert out[:2] == [[], []] and out[2][0].pattern == "repeat"


def test_two_calls_alternating_is_a_nudge_then_a_stop():
    det = StuckDetector()
    got = [feed(det, READ if i % 2 == 0 else GLOB) for i in range(6)]
    assert got[:5] == [[]] * 5
    [nudge] = got[5]
    assert nudge.pattern == "alternate" and nudge.count == 3 and not nudge.stop
    assert "read_file" in nudge.message and "glob" in nudge.message
    [stop] = feed(det, READ)
    assert stop.stop and stop.pattern == "alternate"


def test_the_same_text_reply_repeated_is_a_nudge_then_a_stop():
    det = StuckDetector()
    say = "I will now fix the bug."
    assert feed(det, READ, text=say) == []
    assert feed(det, GLOB, text="  I will now\nfix the bug. ") == []  # whitespace aside
    [nudge] = feed(det, ("grep", {"pattern": "x"}, "a.py:1"), text=say)
    assert nudge.pattern == "text" and not nudge.stop and say in nudge.message
    [stop] = feed(det, ("grep", {"pattern": "y"}, "a.py:2"), text=say)
    assert stop.stop and stop.pattern == "text"


def test_empty_replies_are_not_a_repeated_text():
    det = StuckDetector()
    for i in range(6):
        assert feed(det, ("grep", {"pattern": str(i)}, str(i)), text="") == []


def test_a_run_of_errors_from_one_tool_even_with_other_tools_between():
    det = StuckDetector()
    for i in range(4):
        edit = ("edit_file", {"path": "a.py", "old_string": f"v{i}"}, f"not found {i}", True)
        assert feed(det, (READ[0], {"path": "a.py", "offset": i + 1}, str(i)), edit) == []
    [nudge] = feed(det, ("edit_file", {"path": "a.py", "old_string": "v9"}, "nope", True))
    assert nudge.pattern == "errors" and nudge.count == 5 and "edit_file failed 5" in nudge.what
    [stop] = feed(det, ("edit_file", {"path": "a.py", "old_string": "v10"}, "no", True))
    assert stop.stop and stop.pattern == "errors"


def test_a_success_of_the_tool_resets_its_error_run():
    det = StuckDetector()
    for i in range(12):
        ok = i % 4 == 3
        step = ("edit_file", {"old_string": f"v{i}"}, "edited" if ok else "not found", not ok)
        assert feed(det, step) == []


def test_one_nudge_per_reply_the_stop_comes_only_after_the_model_saw_it():
    det = StuckDetector()
    verdicts = feed(det, READ, READ, READ, READ, READ)  # five identical calls in one reply
    assert [v.stop for v in verdicts] == [False]
    [stop] = feed(det, READ)
    assert stop.stop


def test_a_broken_pattern_does_not_stop_but_a_later_loop_does():
    det = StuckDetector()
    feed(det, READ)
    feed(det, READ)
    assert not feed(det, READ)[0].stop
    assert feed(det, GLOB) == []  # the model changed course
    assert feed(det, ("grep", {"pattern": "q"}, "")) == []
    feed(det, GLOB)
    feed(det, GLOB)
    assert feed(det, GLOB)[0].stop  # looping again: the one warning was spent


def test_a_new_turn_starts_afresh():
    det = StuckDetector()
    for _ in range(3):
        feed(det, READ)
    det.start_turn()
    assert feed(det, READ) == [] and feed(det, READ) == []
    assert not feed(det, READ)[0].stop


def test_limits_set_the_counts_zero_turns_a_pattern_off_and_warnings_zero_stops_at_once():
    det = StuckDetector(StuckConfig(repeats=0, alternations=0, text_repeats=0, tool_errors=0))
    for _ in range(20):
        assert feed(det, READ, text="same") == []
        assert feed(det, ("edit_file", {}, "bad", True)) == []
    det = StuckDetector(StuckConfig(repeats=2, warnings=0))
    assert feed(det, READ) == []
    [stop] = feed(det, READ)
    assert stop.stop and stop.count == 2
    det = StuckDetector(StuckConfig(repeats=2, warnings=2))
    feed(det, READ)
    assert [v.stop for v in feed(det, READ) + feed(det, READ) + feed(det, READ)] == [
        False,
        False,
        True,
    ]


def test_a_hostile_call_is_quoted_clipped_in_the_message():
    det = StuckDetector()
    huge = ("write_file", {"path": "a.py", "content": "x" * 100_000}, "wrote a.py (1 line)")
    feed(det, huge)
    feed(det, huge)
    [nudge] = feed(det, huge)
    assert len(nudge.message) < 600 and "write_file" in nudge.message
