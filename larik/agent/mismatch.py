"""What the two sides of a failed comparison differ in, said in words (issue 24).

A check's output shows ``assert 'Hello- World' == 'hello-world'`` or a doctest's
``Expected: 'hello-world' Got: 'Hello- World'``, and a small model reads the two values as
"wrong" without seeing how: the 1.5B model, shown that doctest failure in three rounds and three
tries, never lower-cased; the 0.5B model, shown ``assert 2 == 2.5``, kept its ``//`` every time.
:func:`explain` reads the first few such pairs from the output and says what differs — letter
case, the characters one side has and the other lacks, a number that is the other rounded down,
a None where a value was expected —
the way :func:`.examples.off_by` says how far a printed number is from the one expected.

Only literals are read (:func:`ast.literal_eval`: no code runs); a pair it cannot describe
plainly (long strings, many differences, other types) gives nothing. In pytest's ``assert A == B``
``A`` is the result and ``B`` what was expected (pytest's own diff marks them ``+`` and ``-``);
a doctest names both.
"""

from __future__ import annotations

import math
import re
from difflib import SequenceMatcher

from ..llm.others_parse import literal

__all__ = ["compared", "explain"]

_ASSERT = re.compile(r"^E\s+(?:AssertionError: )?assert (.{1,200}) == (.{1,200})$", re.M)
_DOCTEST = re.compile(r"^Expected:\n[ \t]+(.{1,200})\nGot:\n[ \t]+(.{1,200})$", re.M)
#: the most pairs described, and the most differences in one pair of strings
PAIRS = 2
CHANGES = 3


def explain(output: str) -> str:
    """``"\\n\\n"`` and a sentence per described pair of ``output``'s failed comparisons (result
    first), or ""."""
    said: list[str] = []
    for got, want in compared(output):
        line = _describe(got, want)
        if line and line not in said:
            said.append(line)
        if len(said) == PAIRS:
            break
    return "".join(f"\n\n{line}" for line in said)


def compared(output: str) -> list[tuple[str, str]]:
    """The failed comparisons ``output`` shows, as (result, expected) source texts."""
    pairs = [(got.strip(), want.strip()) for got, want in _ASSERT.findall(output)]
    return pairs + [(got.strip(), want.strip()) for want, got in _DOCTEST.findall(output)]


def _describe(got_text: str, want_text: str) -> str:
    try:
        got, want = literal(got_text), literal(want_text)
    except ValueError:  # Unreadable: not a literal, too long, too deep
        return ""
    if got is None and want is not None:
        return (
            f"The result is None where {want_text} is expected: the code returned nothing, or "
            "read a place (an index, a key, an attribute) that holds None."
        )
    if isinstance(got, str) and isinstance(want, str):
        how = _strings(got, want)
        only = " only in letter case" if got != want and got.lower() == want.lower() else ""
        return (
            f"The result {got_text} differs from the expected {want_text}{only}: {how}."
            if how
            else ""
        )
    if _number(got) and _number(want):
        return _numbers(got_text, got, want_text, want)
    return ""


def _number(v: object) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _numbers(got_text: str, got: float, want_text: str, want: float) -> str:
    if float(got).is_integer() and not float(want).is_integer() and got == math.floor(want):
        return (
            f"The result {got_text} is the expected {want_text} rounded down to a whole number: "
            f"what integer division (`//`) gives, where `/` keeps the fraction."
        )
    return ""


def _strings(got: str, want: str) -> str:
    if got == want or max(len(got), len(want)) > 120:
        return ""
    case = _case(got, want)
    if got.lower() == want.lower():
        return case
    ops = [op for op in SequenceMatcher(None, got.lower(), want.lower()).get_opcodes()]
    changes = [op for op in ops if op[0] != "equal"]
    if len(changes) > CHANGES:
        return ""
    parts = []
    for tag, i1, i2, j1, j2 in changes:
        has, lacks, where = got[i1:i2], want[j1:j2], _where(got, i1, i2)
        if tag == "delete":
            parts.append(f"an extra {has!r} {where}")
        elif tag == "insert":
            parts.append(f"no {lacks!r} {where}")
        else:
            parts.append(f"{has!r} {where} where the expected value has {lacks!r}")
    parts = [
        f"it has {', '.join(parts[:-1])} and {parts[-1]}"
        if len(parts) > 1
        else f"it has {parts[0]}"
    ]
    if case:
        parts.append(case)
    return "; ".join(parts)


def _where(got: str, i1: int, i2: int) -> str:
    """Where ``got[i1:i2]`` is: at its start, at its end, or after the few characters before."""
    if i1 == 0:
        return "at its start"
    if i2 == len(got):
        return "at its end"
    return f"after {got[max(0, i1 - 8) : i1]!r}"


def _case(got: str, want: str) -> str:
    """Where the two agree but for letter case: which letters, said as "upper-case where the
    expected value has lower-case ('H', 'W')" when they all go one way."""
    pairs: list[tuple[str, str]] = []
    matcher = SequenceMatcher(None, got.lower(), want.lower())
    for tag, i1, i2, j1, _ in matcher.get_opcodes():
        if tag == "equal":
            pairs += [
                (a, b) for a, b in zip(got[i1:i2], want[j1 : j1 + i2 - i1], strict=True) if a != b
            ]
    if not pairs:
        return ""
    letters = ", ".join(dict.fromkeys(repr(a) for a, _ in pairs[:4]))
    if all(a.isupper() for a, _ in pairs):
        return f"it has upper-case letters where the expected value has lower-case ({letters})"
    if all(a.islower() for a, _ in pairs):
        return f"it has lower-case letters where the expected value has upper-case ({letters})"
    return f"the letter case differs ({letters})"
