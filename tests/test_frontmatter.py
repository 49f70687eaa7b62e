"""Front matter of command and skill files: YAML as strings, Claude Code's looser lines, and
hostile blocks that are left out with a one-line reason."""

from __future__ import annotations

from larik import frontmatter as fm


def test_yaml_values_stay_the_strings_they_were_written_as():
    doc = fm.parse("---\ndescription: yes\nmodel: 3.5\nallowed-tools: [Read, Grep]\n---\nBody\n")
    assert doc.meta == {"description": "yes", "model": "3.5", "allowed-tools": ["Read", "Grep"]}
    assert doc.body == "Body\n" and not doc.problem
    assert fm.words(doc, "allowed-tools") == ("Read", "Grep")
    assert fm.text(doc, "allowed-tools") == "[Read, Grep]"  # a list, shown as written


def test_claude_codes_front_matter_that_is_not_yaml_is_read_as_written():
    text = (
        "---\nallowed-tools: Bash(git add:*), Bash(git status:*)\n"
        "argument-hint: [pr-number] [priority] [assignee]\n"
        "description: Review: the PR\n---\nReview PR #$1\n"
    )
    doc = fm.parse(text)
    assert not doc.problem
    assert fm.text(doc, "argument-hint") == "[pr-number] [priority] [assignee]"
    assert fm.text(doc, "description") == "Review: the PR"
    assert fm.words(doc, "allowed-tools") == ("Bash(git add:*)", "Bash(git status:*)")
    assert doc.body == "Review PR #$1\n"


def test_bom_and_crlf_are_accepted():
    doc = fm.parse("\ufeff---\r\ndescription: x\r\n---\r\nbody\r\n")
    assert fm.text(doc, "description") == "x" and doc.body == "body\r\n"


def test_no_front_matter_is_all_body():
    doc = fm.parse("just a prompt with --- in it\n---\n")
    assert doc.meta == {} and doc.body.startswith("just") and not doc.has_front_matter


def test_malformed_front_matter_is_left_out_with_one_line_saying_where():
    doc = fm.parse("---\ndescription: ok\n  - [broken: {\n---\nbody\n")
    assert doc.meta == {} and doc.body == "body\n"
    assert "not valid YAML" in doc.problem and "line" in doc.problem and "\n" not in doc.problem


def test_unclosed_front_matter_is_read_as_plain_text():
    doc = fm.parse("---\ndescription: x\nbody\n")
    assert doc.meta == {} and "never closed" in doc.problem and doc.body.startswith("---")


def test_a_huge_front_matter_is_not_parsed():
    doc = fm.parse("---\n" + "k: v\n" * 10_000 + "---\nbody")
    assert doc.meta == {} and "longer than" in doc.problem and doc.body == "body"


def test_an_alias_bomb_is_never_expanded():
    lol = "a: &a [x, x, x, x, x, x, x, x, x]\n"
    for i in range(1, 9):
        prev = chr(ord("a") + i - 1)
        cur = chr(ord("a") + i)
        lol += f"{cur}: &{cur} [{', '.join(['*' + prev] * 9)}]\n"
    doc = fm.parse("---\n" + lol + "description: *i\n---\n")
    assert fm.text(doc, "description") == "*i"  # as written: the list is never turned into text
    assert fm.words(doc, "description") == ()  # nested lists are not flattened


def test_deep_nesting_is_a_problem_not_a_crash():
    doc = fm.parse("---\nx: " + "[" * 5000 + "]" * 5000 + "\n---\nbody")
    assert doc.body == "body"


def test_one_line_drops_control_bidi_and_zero_width_characters():
    assert fm.one_line("a\x1b[31m\tb\r\nc\u202ed\u200be\x07", 100) == "a [31m b c d e"
    assert fm.one_line("x" * 50, 10) == "x" * 9 + "…"
