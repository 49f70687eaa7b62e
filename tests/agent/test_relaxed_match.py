"""Edits that survive small drift: each relaxation, the order, and never an ambiguous guess."""

from __future__ import annotations

import pytest

from larik.agent.tools._match import Ambiguous, relaxed_match


def edit(content: str, old: str, new: str) -> tuple[str, str]:
    found = relaxed_match(content, old, new)
    assert found is not None, "no match"
    return found.apply(content), found.relaxation


SRC = "def total(items):\n    s = 0  \n    for i in items:\n        s += i\n    return s\n"


def test_trailing_whitespace_the_model_dropped():
    out, how = edit(SRC, "    s = 0\n    for i in items:\n", "    s = 1\n    for i in items:\n")
    assert how == "trailing whitespace"
    assert out == SRC.replace("    s = 0  \n", "    s = 1\n")


def test_a_block_indented_differently_is_found_and_the_new_text_takes_the_files_indent():
    old = "for i in items:\n    s += i\n"
    new = "for i in items:\n    if i:\n        s += i\n"
    out, how = edit(SRC, old, new)
    assert how == "indentation"
    assert "    for i in items:\n        if i:\n            s += i\n    return s\n" in out


def test_a_block_indented_too_much_comes_back_to_the_files_indent():
    old = "            s += i\n"
    out, how = edit(SRC, old, "            s -= i\n")
    assert how == "indentation" and "\n        s -= i\n" in out


def test_relative_indentation_inside_the_block_must_still_match():
    old = "for i in items:\ns += i\n"  # the body not indented under the loop
    assert relaxed_match(SRC, old, "x") is None


def test_single_quotes_for_double_quotes_and_the_new_text_keeps_the_files_style():
    src = 'def name():\n    return "billing"\n'
    out, how = edit(src, "return 'billing'", "return 'invoices'")
    assert how == "quotes" and out == 'def name():\n    return "invoices"\n'


def test_curly_quotes_from_a_chat_model():
    src = 'msg = "it\'s done"\n'
    out, how = edit(src, "msg = \u201cit\u2019s done\u201d", 'msg = "it\'s finished"')
    assert how == "quotes" and out == 'msg = "it\'s finished"\n'


def test_quotes_together_with_indentation():
    src = "class A:\n    def f(self):\n        return {'a': 1}\n"
    out, how = edit(
        src, 'def f(self):\n    return {"a": 1}\n', 'def f(self):\n    return {"a": 2}\n'
    )
    assert how == "quotes"
    assert out == "class A:\n    def f(self):\n        return {'a': 2}\n"


def test_crlf_in_old_string_against_a_lf_file():
    out, how = edit("a\nb\nc\n", "a\r\nb", "x\r\ny")
    assert how in ("trailing whitespace", "line endings")
    assert out == "x\ny\nc\n"


def test_line_endings_inside_a_line_fragment():
    out, how = edit("one two\r\nthree four\r\n", "two\nthree", "2\n3")
    assert how == "line endings" and out == "one 2\r\n3 four\r\n"


def test_new_text_gets_the_files_crlf_endings():
    src = "a  \r\nb\r\nc\r\n"
    out, how = edit(src, "a\nb\n", "A\nB\n")
    assert how == "trailing whitespace" and out == "A\r\nB\r\nc\r\n"


def test_two_places_matching_after_relaxing_is_refused_with_the_count():
    src = "if x:\n    go()\nif y:\n        go()\n"
    with pytest.raises(Ambiguous) as e:
        relaxed_match(src, "go()\n", "stop()\n")
    assert e.value.relaxation == "indentation" and e.value.count == 2


def test_the_first_relaxation_that_finds_anything_decides():
    # trailing whitespace finds exactly one; indentation would find two: the first wins
    src = "go()  \n    go()\n"
    out, how = edit(src, "go()\n", "stop()\n")
    assert how == "trailing whitespace" and out == "stop()\n    go()\n"


def test_nothing_similar_is_none_and_blank_old_is_never_matched():
    assert relaxed_match(SRC, "while True:\n", "x") is None
    assert relaxed_match(SRC, "   \n\n", "x") is None


def test_a_huge_file_with_many_candidate_lines_is_quick_enough_to_finish():
    src = "x = 1\n" * 200_000
    with pytest.raises(Ambiguous):
        relaxed_match(src, "x = 1  \nx = 1\n", "y")
