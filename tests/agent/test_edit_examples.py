"""The request's own examples as checks (issue 24): a docstring's ``>>>`` lines and a command
with the value it should print are run after an edit, beside the project's tests, which on a
stub's task pass before any change and cannot tell a right edit from a wrong one. Scripted
model, real files, real bash (sandboxed) and real pytest."""

from __future__ import annotations

from pathlib import Path

import pytest

from larik.agent.edit_repair import keep_examples
from larik.agent.examples import Check, accounts_for, doctest_files, example_checks, missing, off_by
from larik.config import Config
from larik.config.providers import ModelOverride
from larik.llm.types import StopReason

from .conftest import E, of, run, script

STUB = '''"""Text helpers."""


def slugify(text):
    """A URL slug.

    >>> slugify("Hello, World!")
    'hello-world'
    """
    raise NotImplementedError


def word_count(text):
    return len(text.split())
'''
# what a 1.5B model wrote: the project's tests (of word_count) pass, the docstring's example not
HALF = "Done.\n\ntextutils.py\n```python\ndef slugify(text):\n    return text.replace(' ', '-')\n\n\ndef word_count(text):\n    return len(text.split())\n```\n"
RIGHT = (
    "Lower-case and join the words.\n\ntextutils.py\n```python\nimport re\n\n\n"
    "def slugify(text):\n    return '-'.join(re.findall('[a-z0-9]+', text.lower()))\n\n\n"
    "def word_count(text):\n    return len(text.split())\n```\n"
)
COUNT_TEST = (
    "from textutils import word_count\n\n\ndef test_count():\n    assert word_count('a b') == 2\n"
)


def edit_config() -> Config:
    return Config(models={"scripted/m": ModelOverride(workflow="edit")})


@pytest.mark.parametrize(
    ("request_text", "checks"),
    [
        (  # the bench's trace-bug task: the value is in the same sentence, in parentheses
            "`python -m shop data/stock.csv` should print the total stock value, but it prints a "
            "wrong number (the file's items are worth 173.50 in all). Find the cause and fix it.",
            [Check("python -m shop data/stock.csv", ("173.50",))],
        ),
        (
            'Running `python report.py` must print "total: 3 items" and 2.5.',
            [Check("python report.py", ("2.5", "total: 3 items"))],
        ),
        # no "should"/"must"/"expected": a value that is not said to be the output
        ("`python -m shop data.csv` printed 12.25 yesterday.", []),
        # a whole number is an option or a count, not an output
        ("`python wordfreq.py --top 10 words.txt` should print the first 10 lines.", []),
        # the value is in another sentence than the command
        ("Run `python app.py`. It must print 3.25.", []),
        # not a Python command of the project: never run, whatever it claims to print
        ("`rm -rf ~` should print 1.5.", []),
        ('`python -c "import os"` should print 1.5.', []),
        ("`python app.py; curl evil.example` should print 1.5.", []),
        ("`python app.py $(id)` should print 1.5.", []),
        # a test command is the test command's business (edit_context.check_command)
        ("`python -m pytest -q` should print 1.5 passed.", []),
    ],
)
def test_a_request_s_command_and_the_value_it_should_print_make_a_check(request_text, checks):
    assert example_checks(request_text) == checks


def test_an_example_s_input_is_the_files_its_command_reads_not_its_code():
    assert Check("python -m shop.cli ./data/a.csv --out x.txt b.py", ("1.5",)).inputs() == [
        "data/a.csv",
        "x.txt",
    ]
    assert Check("python tools/run.py in.json", ("1.5",)).inputs() == ["in.json"]
    assert Check("python -m pytest --doctest-modules a.txt").inputs() == []  # no value: no input


def test_an_expected_number_is_met_as_a_number_and_a_string_as_text():
    assert missing(("173.50",), "Total: 173.5\n") == []
    assert missing(("173.50",), "Total: 1173.50 173.51\n") == ["173.50"]
    assert missing(("total: 3 items", "2.5"), "total: 3 items\n2.50") == []
    assert missing(("total: 3 items",), "Total: 3 items") == ["total: 3 items"]
    check = Check("python app.py", ("2.5",))
    assert check.passed(0, "2.5") and not check.passed(1, "2.5") and not check.passed(0, "2.4")


def test_a_printed_number_s_distance_from_the_expected_one_is_said():
    assert off_by(["173.50"], "148.50\n[exit code 0]") == "\n\n148.50 is 25.00 less than 173.50."
    assert off_by(["2.5"], "total 3.75") == "\n\n3.75 is 1.25 more than 2.5."
    assert off_by(["2.5"], "1 and 2") == ""  # which number is the total: not said
    assert off_by(["2.5", "3.5"], "1") == "" and off_by(["ok"], "1") == ""


def test_the_one_line_of_the_input_a_difference_comes_to_is_named():
    csv = "sku,name,unit_price,quantity\nA1,widget,2.50,10\nB2,gadget,12.00,3\nD4,x,5.00,0\n"
    given = [("data/stock.csv", csv)]
    assert off_by(["173.50"], "148.50", given).endswith(
        " 25.00 is what line 2 of data/stock.csv comes to (2.50 × 10): `A1,widget,2.50,10` — as "
        "if the code leaves that line out."
    )  # "A1" is a name, not the number 1
    assert off_by(["173.50"], "209.50", given).endswith("as if the code counts that line twice.")
    assert accounts_for(36.0, "36.00", given) != ""  # 12.00 × 3
    assert accounts_for(5.0, "5.00", given) != ""  # a number of the line
    assert accounts_for(30.0, "30.00", [("a.csv", "10,3\n5,6\n")]) == ""  # two lines: not said
    assert accounts_for(7.0, "7.00", given) == accounts_for(0.0, "0", given) == ""
    assert off_by(["173.50"], "170.00", given) == "\n\n170.00 is 3.50 less than 173.50."


def test_only_a_docstring_s_example_makes_a_doctest_check():
    texts = {
        "textutils.py": STUB,
        "strings.py": 'PROMPT = """\n>>> not a docstring\n"""\n',  # pytest would collect nothing
        "tests/test_textutils.py": '"""\n>>> 1\n1\n"""\n',  # a test file: its own tests run
        "broken.py": 'def f(:\n    """>>> 1"""\n',
        "notes.md": ">>> 1\n1\n",
    }
    assert doctest_files(list(texts), texts) == ["textutils.py"]
    assert example_checks("implement it", ["textutils.py"]) == [
        Check("python -m pytest -q --tb=short --doctest-modules textutils.py")
    ]


async def test_a_stub_s_docstring_example_checks_the_edit_the_project_s_tests_cannot(
    make_agent, project: Path
):
    """The project's tests (of ``word_count``) pass before and after a wrong ``slugify``; the
    docstring's example fails on it, the model is told, and its next reply is checked again."""
    (project / "calc.py").unlink()
    (project / "textutils.py").write_text(STUB)
    (project / "tests").mkdir()
    (project / "tests" / "test_textutils.py").write_text(COUNT_TEST)
    p = script({"text": HALF}, {"text": RIGHT})
    agent = await make_agent(p, config=edit_config())
    events = await run(agent, "`textutils.slugify` is a stub. Implement it as its docstring says.")
    first = p.requests[0].messages[-1].blocks[-1].text
    assert "--doctest-modules textutils.py" in first and "NotImplementedError" in first
    assert len(p.requests) == 2  # the half edit passed the project's tests and was not the end
    told = p.requests[1].messages[-1].blocks[-1].text
    assert "--doctest-modules textutils.py" in told
    assert "Expected:" in told and "'hello-world'" in told and "'Hello,-World!'" in told
    # the reply dropped the docstring, and with it the check: it was put back
    assert "textutils.py: kept the docstring of slugify as it was (its examples check" in told
    assert "The error is in" not in told  # the example's line in the docstring is not the error
    assert "'-'.join" in (project / "textutils.py").read_text()
    [end] = of(events, E.TURN_END)
    assert end.stop_reason is StopReason.END_TURN
    assert end.data["verify"]["passed"] is True
    assert "--doctest-modules" in end.data["verify"]["command"]


SHOP = "import sys\n\nrows = open(sys.argv[1]).read().split()\nprint(sum(float(r) for r in rows[1:]))\n"
SHOP_FIXED = (
    "Every row counts.\n\nshop.py\n```python\nimport sys\n\n"
    "rows = open(sys.argv[1]).read().split()\nprint(sum(float(r) for r in rows))\n```\n"
)
SHOP_WRONG = (
    "Round it.\n\nshop.py\n```python\nimport sys\n\n"
    "rows = open(sys.argv[1]).read().split()\nprint(round(sum(float(r) for r in rows[1:])))\n```\n"
    # and what the 1.5B model did on the bench's task: change the data until the total is right
    "\nstock.txt\n```\n1.25\n2.25\n4.25\n```\n"
)


async def test_a_command_that_should_print_a_value_checks_the_edit(make_agent, project: Path):
    (project / "calc.py").unlink()
    (project / "shop.py").write_text(SHOP)
    (project / "stock.txt").write_text("1.25\n2.25\n3.00\n")
    p = script({"text": SHOP_WRONG}, {"text": SHOP_FIXED})
    agent = await make_agent(p, config=edit_config())
    request = "`python shop.py stock.txt` should print the total, but it is wrong (6.50 in all)."
    events = await run(agent, request)
    first = p.requests[0].messages[-1].blocks[-1].text
    assert (
        "`python shop.py stock.txt` does not print what the request says it should (6.50)" in first
    )
    assert "5.25" in first  # what it printed
    # the one line of the input that the difference is: the 1.5B model never found the [1:]
    assert (
        "5.25 is 1.25 less than 6.50. 1.25 is what line 1 of stock.txt comes to (1.25): `1.25` "
        "— as if the code leaves that line out." in first
    )
    told = p.requests[1].messages[-1].blocks[-1].text
    assert "does not print what the request says it should (6.50)" in told and "\n5\n" in told
    assert "5 is 1.50 less than 6.50." in told  # a difference is easier to read than two totals
    assert (
        "stock.txt: the input of `python shop.py stock.txt`: change the code, not the data" in told
    )
    assert (project / "stock.txt").read_text() == "1.25\n2.25\n3.00\n"
    assert "for r in rows)" in (project / "shop.py").read_text()
    [end] = of(events, E.TURN_END)
    assert end.stop_reason is StopReason.END_TURN
    assert "`python shop.py stock.txt` prints, as the request says, 6.50." in end.text


def test_an_edit_that_drops_a_docstring_s_examples_gets_them_back():
    old = (
        'class Box:\n    def size(self):\n        """How big.\n\n        >>> Box().size()\n'
        '        2\n        """\n        return 1\n\n\ndef plain():\n    """No example."""\n'
    )
    new = "class Box:\n    def size(self):\n        return 2\n\n\ndef plain():\n    return 0\n"
    out, kept = keep_examples(old, new)
    assert kept == ["Box.size"]  # plain's docstring had no example: the model's choice stands
    assert out == (
        'class Box:\n    def size(self):\n        """How big.\n\n        >>> Box().size()\n'
        '        2\n        """\n        return 2\n\n\ndef plain():\n    return 0\n'
    )
    # an example whose expected value the edit changed is put back: else any edit could pass
    changed = (
        'class Box:\n    def size(self):\n        """How big, in boxes.\n\n'
        '        >>> Box().size()\n        1\n        """\n        return 1\n'
    )
    out, kept = keep_examples(old, changed)
    assert kept == ["Box.size"] and "        >>> Box().size()\n        2\n" in out
    assert out.endswith('        """\n        return 1\n') and "in boxes" not in out
    # unless the request asks for the examples to change; the prose is the model's anyway
    asked = "The example in `Box.size`'s docstring is wrong: fix the docstring's example."
    assert keep_examples(old, changed, asked) == (changed, [])
    reworded = changed.replace("        1\n", "        2\n")
    assert keep_examples(old, reworded) == (reworded, [])
    # a one-line def has no line to put a docstring before
    assert keep_examples(old, "class Box:\n    def size(self): return 2\n")[1] == []
    assert keep_examples(old, "def broken(:\n") == ("def broken(:\n", [])


async def test_an_input_given_back_as_it_is_is_not_refused(make_agent, project: Path):
    """Measured: the 1.5B model gave data/stock.csv back exactly as it was beside its code, and
    was told it may not change the data; a file given back unchanged is no edit at all."""
    (project / "calc.py").unlink()
    (project / "shop.py").write_text(SHOP)
    (project / "stock.txt").write_text("1.25\n2.25\n3.00\n")
    same = SHOP_WRONG.replace("4.25", "3.00")
    p = script({"text": same}, {"text": SHOP_FIXED})
    agent = await make_agent(p, config=edit_config())
    await run(agent, "`python shop.py stock.txt` should print the total (6.50 in all).")
    told = p.requests[1].messages[-1].blocks[-1].text
    assert told.startswith("Applied: shop.py.") and "the input of" not in told
