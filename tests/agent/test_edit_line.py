"""One line, asked for alone (:mod:`larik.agent.edit_line`): which line, and what of a reply
is taken as that line."""

from __future__ import annotations

from pathlib import Path

from larik.agent.edit_line import LineAsk, ask_for, message, parsed
from larik.agent.seen import Saw

CALC = "def add(a, b):\n    return a - b\n"


def saw(fix: str = "a + b", source: str = "return a - b", line: int = 2) -> Saw:
    return Saw("…", "calc.py", line, source, fix, "5" if fix else "", "operator", "-")


def test_only_a_return_with_a_fix_whose_value_the_last_reply_left_wrong_is_asked_for(
    tmp_path: Path,
):
    (tmp_path / "calc.py").write_text(CALC)
    asked = LineAsk("calc.py", 2, "    return a - b", "a + b", "5", "operator", "-")
    assert ask_for(tmp_path, [saw()], [saw()], None) == asked
    assert ask_for(tmp_path, [saw(fix="")], [saw()], None) is None  # no change gives the value
    # the line changed to another wrong one: still asked for
    assert ask_for(tmp_path, [saw()], [saw(source="return a * b")], None) == asked
    assert (
        ask_for(tmp_path, [saw()], [Saw("…", "other.py", 2, "return a - b", "a + b")], None) is None
    )
    assert ask_for(tmp_path, [saw()], [], None) is None  # nothing seen before the reply
    assert ask_for(tmp_path, [saw(line=1)], [saw(line=1)], None) is None  # not a return line
    assert ask_for(tmp_path, [saw()], [saw()], lambda p: p.name == "calc.py") is None  # denied


def test_the_reply_s_first_line_of_code_replaces_the_line_and_nothing_else(tmp_path: Path):
    (tmp_path / "calc.py").write_text("# c\r\ndef add(a, b):\r\n    return a - b\r\nX = 1\r\n")
    ask = LineAsk("calc.py", 3, "    return a - b")
    [edit] = parsed(tmp_path, ask, "```python\n    # the fix\n  return a + b\n```", None).edits
    assert edit.path == "calc.py"
    assert edit.whole == "# c\r\ndef add(a, b):\r\n    return a + b\r\nX = 1\r\n"


def test_what_is_not_one_line_of_code_is_not_taken_as_the_line(tmp_path: Path):
    (tmp_path / "calc.py").write_text(CALC)
    ask = LineAsk("calc.py", 2, "    return a - b")
    for reply in (
        "```python\n    Use + instead of -.\n```",  # prose
        "```python\ndef add(x, y):\n    return x + y\n```",  # a function changed elsewhere too
        "```python\n    from os import system\n```",
        "```python\n```",
        "",
        # a whole file begun: its first line would stand in for the return
        '```python\n"""Calc."""\ndef add(a, b):\n    return a + b\n```',
        "```python\nreturn a + b\nreturn a\n```",  # two lines: which is it
    ):
        assert parsed(tmp_path, ask, reply, None) is None, reply
    # the line with its neighbours as the file has them (the 1.5B model wrote a loop's header
    # and its body; or the function, that line changed): that line
    whole = parsed(tmp_path, ask, "```python\ndef add(a, b):\n    return a + b\n```", None)
    assert whole is not None and whole.edits[0].whole == "def add(a, b):\n    return a + b\n"
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return b - a\n")  # changed since
    assert parsed(tmp_path, ask, "return a + b", None) is None


def test_the_question_to_work_out_first_fits_the_change():
    """Asked for the line at once, the 1.5B model copied peek's line back; asked first which
    index holds the expected value, it wrote the right index (docs/bench.md)."""
    index = LineAsk(
        "ring.py",
        9,
        "        return self._items[self._start - 1]",
        "self._items[self._start]",
        "'a'",
        "index",
        "self._items",
    )
    assert message(index) == (
        "Line 9 of ring.py, `return self._items[self._start - 1]`, is where the wrong value "
        "comes from: there `self._items[self._start]` is 'a', the expected value.\n\n"
        "First say which index of `self._items` holds the expected value 'a', and which "
        "expression of the ones above equals that index. Then reply with line 9 as it should "
        "be, in a ```python block: one line, not the whole file."
    )
    # where the one index that holds it is known, it is said: the question is which of the
    # values equals it (the 1.5B model named the wrong index three rounds running)
    known = LineAsk(
        index.path, index.line, index.text, index.fix, index.want, "index", "self._items", "0"
    )
    assert (
        "is 'a', the expected value.\n\nThe expected value 'a' is `self._items[0]`. First say "
        "which expression of the ones above equals 0. Then reply with line 9" in message(known)
    )
    operator = LineAsk(
        "s.py", 5, "    return sum(v) // len(v)", "sum(v) / len(v)", "2.5", "operator", "//"
    )
    assert (
        "First say which operator, in place of `//`, gives the expected value 2.5 from the values above."
        in message(operator)
    )
    other = LineAsk("s.py", 5, "    return x[1:]", "x", "[1, 2]", "other", "")
    assert "First say how the line must change to give the expected value [1, 2]." in message(other)
