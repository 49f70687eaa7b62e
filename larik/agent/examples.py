"""The request's own examples, as checks (issue 24): what the project's tests do not check.

On seven of the bench's eleven tasks the project's tests pass before any change: they do not
check the request, and a small model's edit that passes them (a ``slugify`` that does not even
lower-case its docstring's example) ends the turn as done. But a request often carries its own
examples, and the harness can run them:

* **doctests** in a Python file the request names: a ``>>>`` line in a docstring of
  ``textutils.py`` (named as ``textutils.slugify``) becomes
  ``python -m pytest -q --tb=short --doctest-modules textutils.py``, whose exit status decides;
* **a command and the value it should print**: a backticked Python command in a sentence that
  says what it should do, with a value in that sentence — a number with a decimal point or a
  double-quoted string — is run, and passes when its exit status is 0 and every value is in its
  output (a number equal as a number: ``173.50`` is met by ``Total: 173.5``)::

    `python -m shop data/stock.csv` should print the total stock value, but it prints a wrong
    number (the file's items are worth 173.50 in all).

  A sentence with no "should", "must", "expected" or "supposed" states no expectation, and
  whole numbers are not taken (``--top 10`` is an option, not an output). The files the
  command names (``data/stock.csv``) are its input: the edit workflow refuses an edit to them
  (:meth:`Check.inputs`), or the check would pass on changed data.

A check runs as a ``bash`` call through the tool runner, as the tests do: the same permission
policy and sandbox. The edit workflow (:mod:`.edit_turn`) runs these after its test command;
``--attempts`` (:mod:`larik.session.attempts`) adds them to a try's check, so that tries can
differ in the only thing the user can see.
"""

from __future__ import annotations

import ast
import itertools
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass

from .pysyntax import UNPARSABLE
from .verify import TEST_COMMAND

__all__ = [
    "Check",
    "Row",
    "accounts_for",
    "difference",
    "doctest_files",
    "example_checks",
    "line_of",
    "missing",
    "off_by",
]

_BACKTICKED = re.compile(r"`([^`\n]{1,200})`")
#: a command the harness may run for its output: Python, running the project's code
_RUNNABLE = re.compile(r"^python3?\s+(?:-m\s+[\w.]+|[\w./-]+\.py)(?:\s+[^;&|<>$`\\]*)?$")
_EXPECTS = re.compile(r"\b(?:should|must|expected|supposed)\b", re.I)
_DECIMAL = re.compile(r"(?<![\w.])-?\d+\.\d+(?!\w|\.\d)")
_QUOTED = re.compile(r'"([^"\n]{1,80})"|“([^”\n]{1,80})”')
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_SENTENCE_END = re.compile(r"(?<=[.!?])[)\"']?\s+(?=[A-Z(`\"])|\n\s*\n")
#: a doctest example's first line
DOCTEST_LINE = re.compile(r"^\s*>>> ", re.M)
_PYTEST = "python -m pytest -q --tb=short"
_FILE_ARG = re.compile(r"(?:\./)?[\w.-]+(?:/[\w.-]+)*\.\w+")


@dataclass(frozen=True)
class Check:
    """A command that checks an edit, and the values its output must show (none: its exit
    status alone decides)."""

    command: str
    expect: tuple[str, ...] = ()

    def passed(self, exit_code: int | None, output: str) -> bool:
        return exit_code == 0 and not missing(self.expect, output)

    def inputs(self) -> list[str]:
        """The command's arguments that look like files (``data/stock.csv``): the example's
        input, which an edit must not change to make the output come out right (the 1.5B
        model, told the total was wrong, set a quantity in the data to 1)."""
        if not self.expect:
            return []
        try:
            words = shlex.split(self.command)
        except ValueError:
            return []
        args = words[3:] if words[1:2] == ["-m"] else words[2:]  # after the module or script
        return [w.removeprefix("./") for w in args if _FILE_ARG.fullmatch(w) and w[-3:] != ".py"]


def missing(expect: Iterable[str], output: str) -> list[str]:
    """The expected values that ``output`` does not show."""
    numbers = [float(n) for n in _NUMBER.findall(output)]
    out = []
    for value in expect:
        if _DECIMAL.fullmatch(value):
            if not any(abs(n - float(value)) < 1e-9 for n in numbers):
                out.append(value)
        elif value not in output:
            out.append(value)
    return out


def off_by(missing: list[str], output: str, given: Iterable[tuple[str, str]] = ()) -> str:
    """How far a printed number is from the one expected (``"\n\n148.50 is 25.00 less than
    173.50."``), when both are single numbers: a small model reads a difference (the first
    row's 2.50 × 10) more easily than two totals; "" otherwise. ``given``: the command's
    input files (path, text), where one line that comes to the difference is named
    (:func:`accounts_for`)."""
    off = difference(missing, output)
    if off is None:
        return ""
    got, want, diff = off
    more = "more" if float(got) > float(want) else "less"
    line = accounts_for(abs(float(got) - float(want)), diff, given, twice=more == "more")
    return f"\n\n{got} is {diff} {more} than {want}.{line}"


def difference(missing: list[str], output: str) -> tuple[str, str, str] | None:
    """The number printed, the one expected and how far apart they are, as written
    (``("148.50", "173.50", "25.00")``), when each is a single number; None otherwise."""
    wanted = [v for v in missing if _DECIMAL.fullmatch(v)]
    printed = _NUMBER.findall(_EXIT_LINE.sub("", output))
    if len(wanted) != 1 or len(printed) != 1:
        return None
    got, want = float(printed[0]), float(wanted[0])
    places = max(len(wanted[0].partition(".")[2]), len(printed[0].partition(".")[2]))
    return printed[0], wanted[0], f"{abs(got - want):.{places}f}"


_PLAIN_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")


def accounts_for(
    diff: float, said: str, given: Iterable[tuple[str, str]], twice: bool = False
) -> str:
    """`` 25.00 is what line 2 of data/stock.csv comes to (2.50 × 10): …`` when exactly one
    line of the input files holds the difference, as one of its numbers or the product of two
    (a total that leaves out a row, or counts one twice: the 1.5B model, told only the two
    totals, never found the ``[1:]`` that skipped the first item); "" otherwise."""
    hit = line_of(diff, given)
    if hit is None:
        return ""  # none, or no one line to name
    done = "counts that line twice" if twice else "leaves that line out"
    return (
        f" {said} is what line {hit.line} of {hit.path} comes to ({hit.how}): "
        f"`{hit.text.strip()[:120]}` — as if the code {done}."
    )


@dataclass(frozen=True)
class Row:
    """The one line of an input file that comes to a difference (:func:`line_of`)."""

    path: str
    line: int  # 1-based
    text: str
    how: str  # "2.50 × 10", or the number itself
    place: str  # "first" or "last" of the file's lines with numbers, else ""


def line_of(diff: float, given: Iterable[tuple[str, str]]) -> Row | None:
    """The one line of the input files that holds ``diff``, as one of its numbers or the
    product of two; None for none, or for more than one."""
    if diff == 0:
        return None
    hits: list[Row] = []
    for path, text in given:
        lines = text.splitlines()[:_LINES]
        rows = [n for n, line in enumerate(lines, 1) if _PLAIN_NUMBER.search(line)]
        for n, line in enumerate(lines, 1):
            numbers = [float(x) for x in _PLAIN_NUMBER.findall(line)][:_PER_LINE]
            shown = _PLAIN_NUMBER.findall(line)
            how = next((shown[i] for i, x in enumerate(numbers) if _same(x, diff)), "")
            for i, j in itertools.combinations(range(len(numbers)), 2):
                if not how and _same(numbers[i] * numbers[j], diff):
                    how = f"{shown[i]} × {shown[j]}"
            if how:
                place = "first" if n == rows[0] else "last" if n == rows[-1] else ""
                hits.append(Row(path, n, line, how, place if len(rows) > 1 else ""))
    return hits[0] if len(hits) == 1 else None


_LINES = 2_000  # lines of an input file looked at
_PER_LINE = 12  # numbers of a line looked at


def _same(a: float, b: float) -> bool:
    return abs(a - b) < 1e-6 * max(1.0, abs(b))


_EXIT_LINE = re.compile(r"^\[exit code -?\d+\]$", re.M)


def doctest_files(named: Iterable[str], texts: dict[str, str]) -> list[str]:
    """The named Python source files with a doctest in a docstring (a ``>>>`` elsewhere — a
    string, a comment — is not one: pytest would collect nothing and the check never pass)."""
    from .edit_context import is_test_file

    out = []
    for path in named:
        text = texts.get(path)
        if not path.endswith(".py") or is_test_file(path) or not text or ">>> " not in text:
            continue
        try:
            tree = ast.parse(text)
        except UNPARSABLE:
            continue
        nodes = [tree, *(n for n in ast.walk(tree) if isinstance(n, _DOCUMENTED))]
        if any(DOCTEST_LINE.search(ast.get_docstring(n, clean=False) or "") for n in nodes):
            out.append(path)
    return out


_DOCUMENTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def example_checks(request: str, doctests: Iterable[str] = ()) -> list[Check]:
    """The checks the request's own examples make: the doctests of ``doctests`` (paths from
    :func:`doctest_files`), then each command with the values it should print."""
    out = [Check(f"{_PYTEST} --doctest-modules {path}") for path in doctests]
    for sentence in _sentences(request):
        commands = [c.strip() for c in _BACKTICKED.findall(sentence)]
        commands = [c for c in commands if _RUNNABLE.match(c) and not TEST_COMMAND.search(" " + c)]
        if not commands or not _EXPECTS.search(sentence):
            continue
        prose = _BACKTICKED.sub(" ", sentence)
        values = _DECIMAL.findall(prose) + [a or b for a, b in _QUOTED.findall(prose)]
        values = list(dict.fromkeys(v for v in values if v.strip()))
        if values:
            out += [Check(c, tuple(values)) for c in dict.fromkeys(commands)]
    return out


def _sentences(text: str) -> list[str]:
    """``text`` in sentences; a dot inside backticks (``data/stock.csv``) or a number
    (``173.50``) ends none."""
    hidden: list[str] = []

    def hide(m: re.Match[str]) -> str:
        hidden.append(m.group(0))
        return f"\x00{len(hidden) - 1}\x00"

    masked = _BACKTICKED.sub(hide, text)
    parts = _SENTENCE_END.split(masked)
    return [re.sub(r"\x00(\d+)\x00", lambda m: hidden[int(m.group(1))], p) for p in parts]
