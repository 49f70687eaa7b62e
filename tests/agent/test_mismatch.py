"""What a failed comparison's two sides differ in (larik/agent/mismatch.py), said with the failure.

Measured (issue 24): shown ``Expected: 'hello-world' Got: 'Hello- World'`` in three rounds and
three tries, the 1.5B model never lower-cased; shown ``assert 2 == 2.5``, the 0.5B model kept
its ``//``.
"""

from __future__ import annotations

from larik.agent.mismatch import explain

from .test_edit_workflow import first_for_test

SLUG = """____________________________________ test_a ____________________________________
tests/test_x.py:3: in test_a
    assert slugify("Hello, World!") == "hello-world"
E   AssertionError: assert 'Hello- World' == 'hello-world'
E     - hello-world
E     + Hello- World
"""
DOCTEST = """014     >>> slugify("Hello, World!")
Expected:
    'hello-world'
Got:
    'Hello- World'

/tmp/t/textutils.py:14: DocTestFailure
"""
SAID = (
    "The result 'Hello- World' differs from the expected 'hello-world': it has an extra ' ' after "
    "'Hello-'; it has upper-case letters where the expected value has lower-case ('H', 'W')."
)


def test_a_string_s_extra_characters_and_its_letter_case_are_named():
    assert explain(SLUG) == "\n\n" + SAID
    assert explain(DOCTEST) == "\n\n" + SAID  # a doctest names Expected and Got the other way
    assert explain(SLUG + DOCTEST) == "\n\n" + SAID  # the same pair is said once
    assert explain("E   assert 'Foo' == 'foo'") == (
        "\n\nThe result 'Foo' differs from the expected 'foo' only in letter case: it has "
        "upper-case letters where the expected value has lower-case ('F')."
    )
    assert "it has no '-c' at its end." in explain("E   assert 'a-b' == 'a-b-c'")
    assert "it has no '-' at its start." in explain("E   assert 'ab' == '-ab'")
    assert "it has 'x' after 'a' where the expected value has 'y'." in explain(
        "E   assert 'axb' == 'ayb'"
    )
    # measured: the 1.5B model's next slugify, told "it has '-', ...; it has '-', ..."
    assert explain("E   assert 'hello--world-' == 'hello-world'").endswith(
        ": it has an extra '-' after 'hello-' and an extra '-' at its end."
    )


def test_a_whole_number_that_is_the_expected_one_rounded_down_names_integer_division():
    said = explain("E       assert 2 == 2.5\n")
    assert said == (
        "\n\nThe result 2 is the expected 2.5 rounded down to a whole number: what integer "
        "division (`//`) gives, where `/` keeps the fraction."
    )
    assert explain("E   assert 3 == 2.5") == ""  # rounded up: not integer division
    assert explain("E   assert 2.0 == 2") == ""


def test_a_none_where_a_value_is_expected_says_where_a_none_comes_from():
    """Measured: told only ``assert None == 'a'`` for ``rb.peek()`` (it read
    ``self._items[self._start - 1]``, an empty slot), the 1.5B model rewrote peek's index
    wrongly three rounds running in two runs of this session's three."""
    assert explain("E   AssertionError: assert None == 'a'") == (
        "\n\nThe result is None where 'a' is expected: the code returned nothing, or read a "
        "place (an index, a key, an attribute) that holds None."
    )


def test_what_it_cannot_say_plainly_it_does_not_say():
    for output in (
        "E   assert [1] == [2]",  # not a string or a number
        "E   assert 'a' == None",  # a value where None is expected: nothing to say
        "E   assert f(x) == 'a'",  # not a literal: nothing is evaluated
        "E   assert __import__('os').system('true') == 0",
        f"E   assert {'a' * 200!r} == {'b' * 200!r}",  # too long
        "E   assert 'abcdefgh' == 'a1c2e3g4'",  # too many differences
        "E   assert True == 1",
        "assert 'a' == 'b'",  # not pytest's E line: source, not a result
        "E   assert 'same' == 'same'",
    ):
        assert explain(output) == "", output
    many = "".join(f"E   assert '{c}' == '{c.upper()}'\n" for c in "abc")
    assert explain(many).count("The result") == 2  # at most PAIRS


async def test_the_failure_the_model_is_shown_says_what_differs(make_agent, project):
    (project / "calc.py").write_text("def mean(v):\n    return sum(v) // len(v)\n")
    text = await first_for_test(
        make_agent,
        project,
        "from calc import mean\n\n\ndef test_mean():\n    assert mean([1, 2, 3, 4]) == 2.5\n",
    )
    said = "The result 2 is the expected 2.5 rounded down to a whole number"
    assert said in text and text.index(said) > text.index("The tests fail now")
