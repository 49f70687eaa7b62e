"""One line, asked for alone (:mod:`larik.agent.edit_line`): which line, and what of a reply
is taken as that line."""

from __future__ import annotations

from pathlib import Path

from larik.agent.edit_line import LineAsk, ask_for, parsed, start
from larik.agent.seen import Saw

CALC = "def add(a, b):\n    return a - b\n"


def saw(fix: str = "a + b", source: str = "return a - b", line: int = 2) -> Saw:
    return Saw("…", "calc.py", line, source, fix, "5" if fix else "")


def test_only_a_return_with_a_fix_left_as_it_was_is_asked_for(tmp_path: Path):
    (tmp_path / "calc.py").write_text(CALC)
    asked = LineAsk("calc.py", 2, "    return a - b", "a + b", "5")
    assert ask_for(tmp_path, [saw()], [saw()], None) == asked
    assert ask_for(tmp_path, [saw(fix="")], [saw()], None) is None  # no change gives the value
    assert ask_for(tmp_path, [saw()], [saw(source="return a * b")], None) is None  # it changed
    assert ask_for(tmp_path, [saw()], [], None) is None  # nothing seen before the reply
    assert ask_for(tmp_path, [saw(line=1)], [saw(line=1)], None) is None  # not a return line
    assert ask_for(tmp_path, [saw()], [saw()], lambda p: p.name == "calc.py") is None  # denied


def test_the_reply_s_first_line_of_code_replaces_the_line_and_nothing_else(tmp_path: Path):
    (tmp_path / "calc.py").write_text("# c\r\ndef add(a, b):\r\n    return a - b\r\nX = 1\r\n")
    ask = LineAsk("calc.py", 3, "    return a - b")
    assert start(ask) == "```python\n    "
    [edit] = parsed(tmp_path, ask, "```python\n    # the fix\n  return a + b\n```", None).edits
    assert edit.path == "calc.py"
    assert edit.whole == "# c\r\ndef add(a, b):\r\n    return a + b\r\nX = 1\r\n"


def test_what_is_not_one_line_of_code_is_not_taken_as_the_line(tmp_path: Path):
    (tmp_path / "calc.py").write_text(CALC)
    ask = LineAsk("calc.py", 2, "    return a - b")
    for reply in (
        "```python\n    Use + instead of -.\n```",  # prose
        "```python\ndef add(a, b):\n    return a + b\n```",  # the whole function
        "```python\n    from os import system\n```",
        "```python\n```",
        "",
    ):
        assert parsed(tmp_path, ask, reply, None) is None, reply
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return b - a\n")  # changed since
    assert parsed(tmp_path, ask, "return a + b", None) is None
