"""What the code saw: the values behind a failed comparison, from a run of the failing tests.

Told that ``peek`` returned None where ``'a'`` was expected, and shown ``peek``'s source, the
1.5B model rewrote its index three rounds running and never to the right one; told that ``mean``
gives 2 where 2.5 is expected, the 0.5B model gave ``//`` back every time. What neither was shown
is what a debugger would show: the values the return expression was made of. After a failing
run whose traceback names no source line (:func:`.edit_point.pointer` then names the functions
the failing tests call), :func:`observe` runs those tests once more under
:mod:`.values_probe` — a ``bash`` call like the check's own, so the same permission question and
sandbox — and :func:`words` says, for a function whose return is the value a failed comparison
compared:

    What the code saw: in test_peek_returns_the_oldest_without_removing_it, RingBuffer.peek
    returned None at ringbuffer.py line 36, `return self._items[self._start - 1]`, where
    `self._items` is ['a', 'b', None], `self._start - 1` is -1 and `self._start` is 0.
    `self._items[self._start]` there is 'a', the expected value.

The last sentence is a one-token change of the return expression (an operator, a constant, a
``- 1``, a slice) that evaluates, in the same frame, to what the test expected. The probe only
reads values (no call but a few pure builtins); its report is the last ``LARIK-SEEN`` line of the
run's output, read as data and checked field by field: a project that prints such a line itself
only says what its own output could say anyway.
"""

from __future__ import annotations

import itertools
import re
import shlex
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..llm.others_parse import json_value, literal
from ..llm.types import Block
from .edit_files import Denied
from .edit_point import Suspect, failed_tests, suspects
from .events import AgentEvent
from .mismatch import compared

__all__ = ["MARK", "PROBE", "Saw", "command", "observe", "words"]

PROBE = Path(__file__).with_name("values_probe.py")
MARK = "LARIK-SEEN "
MAX_TESTS = 5  # failing tests run again
MAX_SAID = 2  # functions described
_PYTHON = re.compile(r"^\s*(\S*python[\d.]*)\s+-m\s+pytest\b")
_ids = itertools.count(1)


@dataclass(frozen=True)
class Saw:
    """What the model is told of one function's return, and where that return is."""

    text: str
    path: str
    line: int
    source: str  # the return statement, as the probe unparsed it
    fix: str  # a one-token change of its expression that gives the expected value ("": none)
    want: str = ""  # that value
    kind: str = ""  # what the change is: "index" (inside a subscript), "operator", "other"
    detail: str = ""  # the subscripted container's source, or the operator replaced
    at: str = ""  # "index": the one index of the container that holds the expected value


class Host(Protocol):
    """What :func:`observe` uses of the workflow's host (:class:`.edit_turn.EditHost`)."""

    @property
    def root(self) -> Path: ...
    @property
    def denies_read(self) -> Denied: ...
    def run_calls(
        self, calls: list[Block], ends: dict[str, AgentEvent]
    ) -> AsyncIterator[AgentEvent]: ...


def command(
    check: str, found: list[Suspect], tests: list[str], pairs: list[tuple[str, str]]
) -> str:
    """The probe's command line: the check's Python (``python`` unless it names one)."""
    m = _PYTHON.match(check)
    argv = [m.group(1) if m else "python", str(PROBE)]
    for s in found:
        argv += ["--func", f"{s.path}:{s.name}:{s.line}"]
    for got, want in pairs:
        argv += ["--pair", got, want]
    return shlex.join([*argv, "--", *tests])


async def observe(
    host: Host, shown: list[str], check: str, output: str, out: list[Saw]
) -> AsyncIterator[AgentEvent]:
    """Run the probe on ``output``'s failing tests (``check``'s output) and put what it saw
    into ``out`` (nothing when there is nothing to say: no compared values, no function)."""
    pairs = compared(output)
    tests = [f"{path}::{test}" for path, test in failed_tests(output)][:MAX_TESTS]
    found = suspects(output, host.root, shown, host.denies_read)
    if not pairs or not tests or not found:
        return
    call = Block.tool_use(
        f"seen_{next(_ids)}", "bash", {"command": command(check, found, tests, pairs)}
    )
    ends: dict[str, AgentEvent] = {}
    async for ev in host.run_calls([call], ends):
        yield ev
    end = ends.get(call.id)
    if end is not None and not end.data.get("denied"):
        out += saw(end.text, found)


def words(output: str, found: list[Suspect]) -> str:
    """What the probe's report in ``output`` says, for the functions of ``found`` whose return
    was the compared value; "" when it says nothing usable."""
    return "\n\n".join(s.text for s in saw(output, found))


def saw(output: str, found: list[Suspect]) -> list[Saw]:
    """:func:`words`, each with where its return is."""
    report = _report(output)
    where = {s.name: s.path for s in found}
    out: list[Saw] = []
    for test, functions in report.items():
        for name, seen in functions.items():
            if name not in where or not seen.get("matched"):
                continue
            fixes = seen.get("fixes", [])
            text = _sentence(test, name, where[name], seen)
            fix = fixes[0] if fixes else ["", "", "", ""]
            fixed, want, kind, detail = fix[:4]
            at = _index_of(seen.get("parts", []), detail, want) if kind == "index" else ""
            out.append(
                Saw(text, where[name], seen["line"], seen["source"], fixed, want, kind, detail, at)
            )
            if len(out) == MAX_SAID:
                return out
    return out


def _index_of(parts: list[list[str]], container: str, want: str) -> str:
    """The one index of the list or tuple ``container`` (its source; its value among
    ``parts``) that holds ``want``, as text; "" when it is not one (asked which index of
    ['a', 'b', None] holds 'a', the 1.5B model said 2, three times running)."""
    values = [v for t, v in parts if t == container]
    try:
        seq, wanted = literal(values[0]), literal(want)
    except (IndexError, ValueError):
        return ""
    if not isinstance(seq, list | tuple):
        return ""
    hits = [i for i, x in enumerate(seq) if type(x) is type(wanted) and x == wanted]
    return str(hits[0]) if len(hits) == 1 else ""


def _report(output: str) -> dict[str, dict[str, dict[str, Any]]]:
    """The last report line, its fields checked; {} for none or one that does not read."""
    lines = [line for line in output.splitlines() if line.startswith(MARK)]
    if not lines:
        return {}
    try:
        data = json_value(lines[-1][len(MARK) :])
    except ValueError:
        return {}
    tests = data.get("tests") if isinstance(data, dict) else None
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for test, functions in (tests or {}).items() if isinstance(tests, dict) else ():
        if not isinstance(functions, dict):
            continue
        for name, seen in functions.items():
            if _valid(seen):
                out.setdefault(str(test), {})[str(name)] = seen
    return out


def _valid(seen: object) -> bool:
    if not isinstance(seen, dict):
        return False
    texts = (seen.get("source"), seen.get("returned"))
    if not _lists(seen):
        return False
    rows = [(p, 2) for p in seen.get("parts", ())] + [(f, 4) for f in seen.get("fixes", ())]
    return (
        isinstance(seen.get("line"), int)
        and all(isinstance(t, str) for t in texts)
        and all(
            isinstance(p, list) and len(p) == n and all(isinstance(x, str) for x in p)
            for p, n in rows
        )
    )


def _lists(seen: dict[str, Any]) -> bool:
    return isinstance(seen.get("parts", []), list) and isinstance(seen.get("fixes", []), list)


def _sentence(test: str, name: str, path: str, seen: dict[str, Any]) -> str:
    short = test.rsplit("::", 1)[-1]
    head = (
        f"What the code saw: in {short}, {name} returned {seen['returned']} at {path} line "
        f"{seen['line']}, `{seen['source']}`"
    )
    parts = [f"`{text}` is {value}" for text, value in seen.get("parts", [])]
    if parts:
        listed = ", ".join(parts[:-1]) + f" and {parts[-1]}" if len(parts) > 1 else parts[0]
        head += f", where {listed}"
    said = [head + "."]
    for text, value, _, _ in seen.get("fixes", [])[:1]:
        said.append(f"`{text}` there is {value}, the expected value.")
    return " ".join(said)
