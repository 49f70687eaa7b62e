"""Stuck detection: notice a model going round in circles, tell it once, then end the turn.

Small models loop: the same ``write_file`` fifty times, ``read_file`` / ``edit_file`` failing in
turn, the same sentence every reply. The agent feeds every model reply and every tool result of a
user turn to a :class:`StuckDetector`; it looks for five patterns (after OpenHands'
``StuckDetector``, openhands/controller/stuck.py, adapted to a loop where a reply without tool
calls already ends the turn):

``repeat``
    the same call (tool + normalised arguments) with the same result, ``repeats`` times in a row;
``same_call``
    the same call ``same_calls`` times in a row whatever its results (an edit that appends the
    same line each time, a command printing the time: each result differs, nothing moves);
    :data:`POLLING` tools, whose point is to be called again (``job_output``), are left out;
``alternate``
    two different calls, each with its same result, taking turns ``alternations`` times each
    (A B A B A B);
``text``
    the same non-empty reply text ``text_repeats`` times in a row (replies that also call tools:
    one without calls ends the turn anyway);
``errors``
    ``tool_errors`` errors in a row from one tool (a success of that tool resets its count;
    calls to other tools do not, so read / failed edit / read / failed edit counts).

The counts come from ``[stuck]`` in the config (:class:`~larik.config.StuckConfig`); 0 turns a
pattern off. The first ``warnings`` detections in a turn are nudges: the
:class:`Verdict` carries a message for the model saying what it repeats and what to do instead,
which the agent appends to the tool result. A detection after that — in a later reply, so the
model has seen the nudge — is a stop: the agent ends the turn with stop reason ``stuck``.

Results are compared after masking what changes on every run without meaning progress
(durations such as ``0.03s``, memory addresses).

Before any of that, a model whose profile asks for it (a small one: ``have_it``) gets a note on
the *first* repeat of a call — the same call with the same result as earlier in the turn,
anywhere — saying it already has that result and should answer if it holds what was asked: a
small model that found the answer in its first grep calls the same grep again and again. The
note counts as no warning: the detections above keep their own count.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..config import StuckConfig
from ..llm.others_parse import json_value
from ..llm.types import Block, Message
from ..tool_names import ANSWER

__all__ = ["HAVE_IT", "Pattern", "StuckDetector", "Verdict", "call_key", "have_it"]

Pattern = Literal["repeat", "same_call", "alternate", "text", "errors"]

#: Tools called again and again on purpose (reading a job's new output): no ``same_call``.
POLLING = ("job_output",)

#: what a nudge tells the model to do instead, by pattern
_INSTEAD: dict[str, str] = {
    "repeat": (
        "Repeating it will not give a different result. Do something else: read the file or "
        "the error again, change the arguments, try another tool — or, if the job is done, "
        "stop calling tools and give your final answer."
    ),
    "same_call": (
        "Each result differs, but calling it again with the same arguments is not getting you "
        "closer. Check whether the job is already done (read the file, run the tests); if it "
        "is, stop calling tools and give your final answer, otherwise take a different step."
    ),
    "alternate": (
        "Going back and forth changes nothing. Decide what is missing, then take one different "
        "step — or, if the job is done, stop calling tools and give your final answer."
    ),
    "text": (
        "Say something new: if the job is done, give your final answer without calling tools; "
        "otherwise take a different step than before."
    ),
    "errors": (
        "Stop and read the error messages: fix the arguments they complain about, read the "
        "file again before editing it, or use a different tool."
    ),
}

#: the note on the first repeat of a call with its earlier result, by how the model answers
HAVE_IT = {
    True: (
        "[larik: you already made this call and got this same result earlier: you have it. "
        "If it holds what the task asks for, call answer now with your answer.]"
    ),
    False: (
        "[larik: you already made this call and got this same result earlier: you have it. "
        "If it holds what the task asks for, give your final answer now, without a tool call.]"
    ),
}


def have_it(tools: tuple[str, ...]) -> str:
    """The first-repeat note for a model offered ``tools``."""
    return HAVE_IT[ANSWER in tools]


_MASKS = (
    (re.compile(r"\b\d+(?:\.\d+)?\s?(?:ms|s|sec|seconds)\b"), "<time>"),
    (re.compile(r"\b0x[0-9a-fA-F]{6,}\b"), "<addr>"),
)
_SHOWN = 80  # characters of a call or a text quoted in a message


@dataclass(frozen=True)
class Verdict:
    pattern: Pattern
    count: int
    stop: bool
    what: str  # what is being repeated, for people: "read_file {"path": "a.py"} 3 times"
    message: str  # for the model (a nudge) or the turn's end notice (a stop)

    @property
    def data(self) -> dict[str, Any]:
        """The ``turn_end`` event's data when the turn ends stuck."""
        return {"stuck": self.pattern, "repeats": self.count}

    @property
    def notice(self) -> str:
        """For the user."""
        return (
            self.message
            if self.stop
            else f"the model is repeating itself ({self.what}); told it so"
        )


@dataclass(frozen=True)
class _Step:
    tool: str
    key: str
    result: str
    error: bool
    shown: str


@dataclass
class StuckDetector:
    limits: StuckConfig = field(default_factory=StuckConfig)
    key: Callable[[Block], str] = lambda call: call_key(call.name, call.input)
    """A tool call as compared (the agent's: validated arguments, defaults filled in)."""
    _steps: list[_Step] = field(default_factory=list)
    _texts: list[str] = field(default_factory=list)
    _errors: dict[str, int] = field(default_factory=dict)
    _reply: int = 0
    _warned: int = 0
    _warned_reply: int = -1
    have_it: str = ""
    """The note for a call repeated with its earlier result ("": none; the profile's)."""
    _results: set[tuple[str, str]] = field(default_factory=set)
    _told: set[str] = field(default_factory=set)

    def start_turn(self) -> None:
        """A new user turn: what came before it no longer counts."""
        self._results.clear()
        self._told.clear()
        self._steps.clear()
        self._texts.clear()
        self._errors.clear()
        self._reply = 0
        self._warned = 0
        self._warned_reply = -1

    def reply(self, text: str) -> Verdict | None:
        """Call once per model reply, before its tool results."""
        self._reply += 1
        norm = " ".join(text.split())
        self._texts.append(norm)
        n = self.limits.text_repeats
        if not norm or not n:
            return None
        run = _run_length(self._texts, lambda a, b: a == b)
        if run < n:
            return None
        return self._verdict("text", run, f"the same reply {run} times in a row: {_clip(norm)!r}")

    def tool(self, name: str, key: str, content: str, is_error: bool) -> Verdict | None:
        """Call once per tool call, in call order, with its result. ``key`` is
        :func:`call_key` of the call."""
        step = _Step(name, key, _fingerprint(content, is_error), is_error, _clip(key))
        self._steps.append(step)
        if len(self._steps) > 64:
            del self._steps[:-32]
        self._errors[name] = self._errors.get(name, 0) + 1 if is_error else 0
        lim = self.limits
        same = lambda a, b: (a.key, a.result) == (b.key, b.result)  # noqa: E731
        run = _run_length(self._steps, same)
        if lim.repeats and run >= lim.repeats:
            what = f"{step.shown} {run} times in a row with the same result"
            return self._verdict("repeat", run, what)
        if lim.same_calls and name not in POLLING:
            calls = _run_length(self._steps, lambda a, b: a.key == b.key)
            if calls >= lim.same_calls:
                what = f"{step.shown} {calls} times in a row"
                return self._verdict("same_call", calls, what)
        if lim.alternations:
            pairs = _alternation(self._steps, same) // 2
            if pairs >= lim.alternations:
                other = self._steps[-2]
                what = f"{other.shown} and {step.shown} in turn, {pairs} times each"
                return self._verdict("alternate", pairs, what)
        errors = self._errors[name]
        if lim.tool_errors and errors >= lim.tool_errors:
            return self._verdict("errors", errors, f"{name} failed {errors} times in a row")
        return None

    def review(
        self, reply: Message, calls: list[Block], results: list[Block]
    ) -> tuple[list[Block], list[Verdict]]:
        """One reply, its tool calls and their results in order. Returns the results with a nudge appended where one was found (a
        repeated text: to the last result) and every verdict, in order."""
        results = list(results)
        found: list[Verdict] = []
        said = self.reply(reply.text())
        for i, (call, result) in enumerate(zip(calls, results, strict=True)):
            key = self.key(call)
            again = self._again(key, result)
            v = self.tool(call.name, key, result.content, result.is_error)
            if v is not None:
                found.append(v)
                if not v.stop:
                    results[i] = _with_note(result, v.message)
            elif again:
                results[i] = _with_note(result, self.have_it)
        if said is not None:
            found.append(said)
            if not said.stop and results:
                results[-1] = _with_note(results[-1], said.message)
        return results, found

    def _again(self, key: str, result: Block) -> bool:
        """Whether this is the first repeat of a call with the result it had before (and a
        note is wanted for it)."""
        if not self.have_it or result.is_error:
            return False
        seen = (key, _fingerprint(result.content, False))
        if seen not in self._results:
            self._results.add(seen)
            return False
        if key in self._told:
            return False
        self._told.add(key)
        return True

    def _verdict(self, pattern: Pattern, count: int, what: str) -> Verdict | None:
        if self._warned_reply == self._reply:
            return None  # already told in this reply: it has not seen the nudge yet
        if self._warned < self.limits.warnings:
            self._warned += 1
            self._warned_reply = self._reply
            message = f"[larik: you are repeating yourself: {what}. {_INSTEAD[pattern]}]"
            return Verdict(pattern, count, False, what, message)
        message = f"stopped: the model is stuck ({what})"
        return Verdict(pattern, count, True, what, message)


def call_key(name: str, args: Mapping[str, Any] | str) -> str:
    """A call as ``tool {json}`` with its arguments normalised: keys sorted, nulls dropped,
    strings stripped; arguments that are not a JSON object as their whitespace-collapsed text.
    Pass the validated arguments (defaults filled in) when there are any."""
    if isinstance(args, str):
        try:
            parsed = json_value(args)
        except ValueError:
            return f"{name} {' '.join(args.split())}"
        if not isinstance(parsed, dict):
            return f"{name} {' '.join(args.split())}"
        args = parsed
    clean = {k: _norm(v) for k, v in args.items() if v is not None}
    return f"{name} {json.dumps(clean, sort_keys=True, ensure_ascii=False, default=str, allow_nan=True)}"


def _with_note(result: Block, note: str) -> Block:
    return result.model_copy(update={"content": f"{result.content}\n\n{note}"})


def _norm(value: Any) -> Any:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, dict):
        return {k: _norm(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_norm(v) for v in value]
    return value


def _fingerprint(content: str, is_error: bool) -> str:
    for pattern, repl in _MASKS:
        content = pattern.sub(repl, content)
    return ("E:" if is_error else "") + content


def _run_length(items: list[Any], same: Any) -> int:
    """How many items at the end equal the last one."""
    if not items:
        return 0
    n = 1
    while n < len(items) and same(items[-1 - n], items[-1]):
        n += 1
    return n


def _alternation(items: list[Any], same: Any) -> int:
    """How many items at the end follow A B A B … with A and B different."""
    if len(items) < 2 or same(items[-1], items[-2]):
        return 0
    n = 2
    while n < len(items) and same(items[-1 - n], items[-1 - n + 2]):
        n += 1
    return n


def _clip(text: str) -> str:
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"
