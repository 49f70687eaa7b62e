"""The edit workflow: a turn a small model can follow (``[models."p/m"] workflow = "edit"``).

A tool loop asks a model to find files, read them, edit them with exact strings and run the
tests, one call at a time; a 1.5B model gets lost in it (issue 24). Here the harness does the
finding and the running, and the model does the one thing it is good at — writing code:

1. **finding** (:mod:`.edit_context`): the files the request names, the modules a named test
   imports and, when the project fits the budget, every text file go into the first message
   (a harness message after the user's prompt), which ends with the request again and the
   reply format (:func:`.edit_reply.format_rules`);
2. **the test command** runs first when there is one (the request's, pytest on a named test
   file, or pytest on the project), so a failing test's output is in that message too;
3. **the model replies** with no tools offered: the whole new file, or search/replace blocks
   (:func:`.edit_reply.parse_reply`);
4. **the harness applies it** (:mod:`.edit_apply`) as ``write_file`` calls through the tool
   runner, exactly as the model's own calls would run: the permission policy (a protected file
   is asked, or denied with nobody to ask; a path it cannot place — outside the project, ``~``,
   absolute, ``..`` — never gets that far), the checkpoint before the first change,
   PreToolUse/PostToolUse hooks, the events a face shows. Every file the harness reads for the
   model is read by read_file's rules, and nothing else here touches a file
   (:mod:`.edit_files`). A reply cut off at the output limit applies nothing, nor does a block that never
   ends, a whole file with an elision, a search that does not match, or a Python file that
   would no longer parse — each is said to the model instead;
5. **the test command runs** (``bash``, sandboxed, the same rules), then the request's own
   examples (:mod:`.examples`: the doctests of a file it names, a command with the value it
   should print), up to the first that fails; all passing ends the turn, a failure goes back to the model for at most ``rounds`` replies in all. A reply that gives
   the file back as it is (a 1.5B model, asked to fix ``//`` for ``/``, copied the file: a
   round spent, and at a low temperature the next reply is the same copy) is told so with the
   failure again, and the next reply is asked for hotter (:data:`HOTTER`), not begun for it,
   and to say first which line is wrong. A failure whose traceback ends in another source
   file than the one written (a rename: ``report.py:3: from billing import calc_total``) names
   that file, and the next reply is begun with it (:func:`blamed`): the 1.5B model, begun with
   ``billing.py`` every time, never wrote the caller. An edit that drops a docstring holding
   examples gets it back (:func:`.edit_repair.keep_examples`): they are its check.

6. **a review when the tests cannot tell** (``[models] review = true``): when the tests passed
   before the edit too, they do not check the request (a stub whose tests test something
   else), and passing them says nothing. The model is asked once to check its code against the
   request point by point and give the file again only if something is missing; a file given
   back as it is, or no edit, ends the turn on the reviewed edit. (The 1.5B model's edits
   passed such tests with half the docstring unhandled: docs/bench.md.)

A reply with no edit in it is the answer (a question, say) and ends the turn — to a request for
a change, only the second such reply (:data:`NO_EDIT`). The messages the
harness writes are marked in the transcript (``"harness": true``): they are not the user's
prompts, so /undo and /rewind count turns as before.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..llm.errors import LarikError
from ..llm.types import Block, Message, StopReason
from . import edit_line, own_tests
from .edit_apply import apply_reply, write_own
from .edit_context import Found, check_command, gather
from .edit_feedback import Applied, feedback, summary
from .edit_files import read_shown
from .edit_messages import Ran, cut_off, first_message, now_reply, put_out, review
from .edit_point import blamed, pointer
from .edit_reply import Format, parse_reply
from .events import AgentEvent, AgentEventType
from .examples import Check, doctest_files, example_checks
from .profile import Profile
from .seen import Saw, observe
from .skips import Skip, left_out
from .turn import Reply, TurnOver

if TYPE_CHECKING:
    from .agent import Agent

__all__ = ["EDIT_ROUNDS", "SYSTEM", "EditHost", "run_edit_turn"]

E = AgentEventType
EDIT_ROUNDS = 3  # model replies per turn, the first included
WHOLE_MAX_LINES = 250  # a longer file is changed with search/replace blocks
CHARS_PER_TOKEN = 3  # code is dense: fewer characters per token than prose
DEFAULT_WINDOW = 8_192
MAX_BUDGET = 200_000  # characters of files in the first message, whatever the window
HOTTER = 0.7  # the least temperature of the reply after one that gave the file back unchanged

SYSTEM = """You are Larik, a coding assistant working on the user's project. The user's \
message holds the project's files and the request. You change files by writing edits in the \
format the message describes; Larik applies them and runs the tests, and tells you the result. \
When the request is a question, answer it in plain text."""

_ids = itertools.count(1)
#: after a reply with no file in it, to a request for a change (the 1.5B model answered "Change
#: shop/inventory.py line 24 from … to …" and the turn ended with nothing changed)
NO_EDIT = "Your reply has no file in it, so nothing was changed. "
#: a request that asks for a change (not a question): the reply may be begun as a file
CHANGE = re.compile(
    r"\b(fix|implement|add|rename|change|make|update|refactor|remove|write|extend|handle|"
    r"support|replace|correct|repair|convert|move)\b|\bfail",
    re.IGNORECASE,
)


@dataclass
class EditHost:
    """What the workflow uses of the agent (:meth:`larik.agent.agent.Agent._edit_host`)."""

    root: Path
    window: int  # the model's context window in tokens (0: not known)
    profile: Profile  # the model's: its tools, output limit and edit format
    rounds: int
    denies_read: Callable[[Path], bool]
    mark_read: Callable[[Path], None]  # the file counts as read (it is in the message)
    call_model: Callable[[Reply, float | None], AsyncIterator[AgentEvent]]  # (reply, temp)
    messages: Callable[[], list[Message]]  # the conversation as it is sent
    append: Callable[[Message, bool], None]  # (message, written by the harness)
    run_calls: Callable[[list[Block], dict[str, AgentEvent]], AsyncIterator[AgentEvent]]
    #: the user let edits go without a question ("edits", "yolo"): the harness may write its
    #: own scratch file (the request's tests, :mod:`.own_tests`), which no question covers
    writes_unasked: bool = False
    unusable: str = ""  # the model cannot answer at all (probe.py): said before anything runs

    @classmethod
    def of(cls, agent: Agent) -> EditHost:
        """The agent's pieces the workflow runs on (its friend, as :mod:`.create` is)."""
        return cls(
            root=agent.root,
            window=agent.context_window,
            profile=agent._profile,
            rounds=min(EDIT_ROUNDS, agent.max_turns),
            denies_read=lambda path: agent.path_denied("read_file", path),
            mark_read=agent._ctx.seen.record,
            call_model=agent._call_model,
            messages=lambda: agent.messages,
            append=agent._append,
            run_calls=lambda calls, ends: agent._run_calls(calls, {}, ends=ends),
            writes_unasked=agent.permission_mode.writes_unasked,
            unusable=agent._caps.unusable,
        )

    @property
    def max_output(self) -> int:
        """The reply's token limit (0: the provider's)."""
        return int(self.profile.request_options().get("max_tokens") or 0)

    def can_run(self, tool: str) -> bool:
        """Whether ``tool`` is this model's (bash for the tests, write_file for the edits)."""
        return tool in self.profile.tools


async def run_edit_turn(host: EditHost, request: str) -> AsyncIterator[AgentEvent]:
    """The turn after the user's ``request`` was appended; raises TurnOver at its end. The
    request's tests the model wrote first (:mod:`.own_tests`) go when it ends, however. A model
    that cannot answer at all ends it first, in one line (its tests ran, and were refused, before)."""
    if host.unusable:
        raise LarikError(host.unusable)
    mine: list[Ran] = []  # their run on the unchanged code, while their file is in place
    try:
        async for ev in _edit_turn(host, request, mine):
            yield ev
    finally:
        if mine:
            own_tests.remove(host.root)


async def _edit_turn(host: EditHost, request: str, mine: list[Ran]) -> AsyncIterator[AgentEvent]:
    budget = _budget(host)
    found = gather(host.root, request, budget, host.denies_read)
    for path in found.paths:
        host.mark_read(host.root / path)
    checks = _checks(request, found) if host.can_run("bash") else []
    inputs = {path: c.command for c in checks for path in c.inputs()}
    command = checks[0].command if checks else ""
    fmt = host.profile.edit_format or _format_for(found)
    before: Ran | None = None
    if checks:
        ran: list[Ran] = []
        async for ev in _run_tests(host, checks, ran, every=True):
            yield ev
        checks = [c for c, t in zip(checks, ran, strict=True) if t.exit_code is not None]
        # could not run (denied): the rounds go on without that check
        before = next((t for t in ran if t.exit_code is not None and not t.passed), None)
        before = before or next((t for t in ran if t.exit_code is not None), None)
    at_first = blamed(before.output, host.root, found) if before is not None else None
    point = "" if at_first else _point(host, found, before)
    said, saw = [point], list[Saw]()
    async for ev in _seen(host, found, before if point else None, said, saw):
        yield ev
    skip = _skip(host, found, before)  # the loop that leaves a row out (:mod:`.skips`)
    # the one line asked for alone (:mod:`.edit_line`): that loop's, at once (asked for the
    # whole file, the 1.5B model kept the `[1:]` three times in three; asked for the line, it
    # wrote `for item in in_stock(items):` two times in three)
    line = edit_line.for_skip(skip, skip) if CHANGE.search(request) else None
    said += [skip.words] if skip and not line else []
    point = "\n\n".join(x for x in said if x)
    own = bool(
        host.profile.own_tests
        and host.writes_unasked
        and before is not None
        and before.passed
        and CHANGE.search(request)
    )
    ask = own_tests.ASK if own else edit_line.message(line) if line else ""
    first = Message.user(first_message(request, found, fmt, before, point, ask))
    host.append(first, True)
    yield AgentEvent(E.MESSAGE, message=first)
    text = ""
    failing = before if before is not None and not before.passed else None  # the last failure
    again = False  # the last reply gave the file back as it is
    told = False  # a reply with no edit was asked for one
    vacuous = before is not None and before.passed  # the tests passed before any change
    if own:
        async for ev in _own_tests(host, found, fmt, mine):
            yield ev
        if mine:  # they fail on the code as it is: the change's check, after the project's
            checks.append(Check(own_tests.COMMAND))
            inputs[own_tests.FILE] = own_tests.COMMAND
            failing, vacuous = mine[0], False
    reviewing = ""  # the summary of the edit under review, while its review round runs
    for round_ in range(1, host.rounds + 1):
        reply = Reply()
        at = blamed(failing.output, host.root, found) if failing is not None else None
        start = "" if again else _start(host, found, fmt, request, at[0] if at else "")
        start = "" if line else start  # the line alone: the reasoning first, not begun
        async for ev in _ask(host, reply, start, _hotter(host.profile) if again else None):
            yield ev
        msg = reply.message
        if msg.blocks:
            host.append(msg, False)
            yield AgentEvent(E.MESSAGE, message=msg)
        text = msg.text()
        last = round_ >= host.rounds
        if reply.stop is StopReason.MAX_TOKENS:
            back_text = cut_off(host.max_output)
            fmt = "diff"
            yield AgentEvent(
                E.NOTICE, text="the reply was cut off at the output limit; none of it was applied"
            )
            if last:
                raise TurnOver(StopReason.MAX_TOKENS, text)
        else:
            parsed = line and edit_line.parsed(host.root, line, text, host.denies_read)
            parsed = parsed or parse_reply(text, found.focus(), found.paths, _texts(host, found))
            if parsed.empty:  # no edit: the answer — unless a change was asked for (once)
                if told or last or reviewing or not CHANGE.search(request):
                    raise TurnOver(StopReason.END_TURN, reviewing or text)
                told = True
                put_out(host.messages(), msg)
                back = Message.user(NO_EDIT + now_reply(found, fmt))
                host.append(back, True)
                yield AgentEvent(E.MESSAGE, message=back)
                continue
            applied = Applied()
            async for ev in apply_reply(host, parsed, applied, request, inputs):
                yield ev
            if reviewing and applied.unchanged:  # the review found nothing to add
                raise TurnOver(StopReason.END_TURN, reviewing)
            tests: Ran | None = None
            if checks and applied.written:
                ran = []
                async for ev in _run_tests(host, checks, ran):
                    yield ev
                tests = ran[-1]
                if tests.exit_code is not None and not tests.passed:
                    failing = tests
                elif tests.passed:
                    failing = None
            done = not applied.problems and (tests is None or tests.passed)
            if done and vacuous and host.profile.review and applied.written and not last:
                vacuous = False  # one review per turn
                reviewing = summary(text, applied, tests)
                back = Message.user(review(request, applied.written, command))
                host.append(back, True)
                yield AgentEvent(E.MESSAGE, message=back)
                continue
            reviewing = ""
            if done or (tests is not None and tests.passed and last):
                raise TurnOver(StopReason.END_TURN, summary(text, applied, tests))
            if last:
                raise TurnOver(
                    StopReason.END_TURN,
                    summary(text, applied, tests, f"stopped after {host.rounds} replies"),
                    {"edit_rounds": host.rounds},
                )
            again = applied.unchanged
            if again:
                put_out(host.messages(), msg)
            where = blamed(failing.output, host.root, found) if failing is not None else None
            point = "" if where else _point(host, found, failing)  # where: the line is said
            said, earlier = [point], list(saw)
            async for ev in _seen(host, found, failing if point else None, said, saw):
                yield ev
            skipped, skip = skip, _skip(host, found, failing)
            line = None  # after a reply refused for what it is, not for its line
            if again or applied.written:
                line = edit_line.ask_for(host.root, saw, earlier, host.denies_read)
                line = line or edit_line.for_skip(skip, skipped)
            said += [skip.words] if skip and not (line and line.kind == "skip") else []
            point = "\n\n".join(x for x in said if x)
            back_text = feedback(
                applied, tests, fmt, command, failing if again else None, where, point
            )
            if line:  # the line the wrong value comes from, left as it was: that line alone
                back_text = back_text.rsplit("\n\n", 1)[0] + "\n\n" + edit_line.message(line)
        back = Message.user(back_text)
        host.append(back, True)
        yield AgentEvent(E.MESSAGE, message=back)
    raise TurnOver(StopReason.END_TURN, text)  # rounds < 1


async def _own_tests(
    host: EditHost, found: Found, fmt: Format, mine: list[Ran]
) -> AsyncIterator[AgentEvent]:
    """The model's reply to the first message is the request's tests: placed and run on the
    code as it is, kept in ``mine`` when some fail, else dropped; either way the next message
    asks for the edit."""
    for last in (False, True):  # tests that pass on the code as it is: asked for once more
        reply = Reply()
        async for ev in _ask(host, reply, own_tests.START if host.profile.prefill else ""):
            yield ev
        if reply.message.blocks:
            host.append(reply.message, False)
            yield AgentEvent(E.MESSAGE, message=reply.message)
        cut = reply.stop is StopReason.MAX_TOKENS
        code = None if cut else own_tests.code_of(reply.message.text())
        why = (
            "your reply was cut off at the output limit" if cut else own_tests.free(host.root, code)
        )
        ran: list[Ran] = []
        if not why and code is not None:
            wrote: list[str] = []
            async for ev in write_own(host, code, wrote):
                yield ev
            why = wrote[0] if wrote else ""
            if why:  # not written, or refused after it was (a hook): none of it stays
                own_tests.remove(host.root)
        if not why and code is not None:
            mine[:] = [Ran(own_tests.COMMAND)]  # in place: removed at the turn's end
            async for ev in _run_tests(host, [Check(own_tests.COMMAND)], ran):
                yield ev
            if ran[-1].exit_code == 1 and (bad := own_tests.broken(ran[-1].output)):
                left = own_tests.without(code, bad)  # those failing on their own mistakes go
                wrote = [] if left else [own_tests.mistake(ran[-1].output)]
                if left:
                    async for ev in write_own(host, left, wrote, again=True):
                        yield ev
                why = wrote[0] if wrote else ""
                if not why:
                    async for ev in _run_tests(host, [Check(own_tests.COMMAND)], ran):
                        yield ev
            mine[0] = ran[-1]
            why = why or own_tests.verdict(ran[-1].exit_code)
            if why:
                own_tests.remove(host.root)
                mine.clear()
        if last or not ran or ran[-1].exit_code != 0:
            break
        again = Message.user(own_tests.AGAIN)
        host.append(again, True)
        yield AgentEvent(E.MESSAGE, message=again)
    if why:
        said = f"Your tests are not used: {why}.\n\n{now_reply(found, fmt)}"
    else:
        where = blamed(ran[-1].output, host.root, found)
        point = "" if where else _point(host, found, ran[-1], [own_tests.FILE])
        blame = f"The error is in {where[0]}, line {where[1]}." if where else point
        parts = [
            "Your tests check the change: they fail on the code as it is now.",
            ran[-1].failure("now"),
        ]
        parts += [blame] if blame else []
        parts.append(
            "Make the change so that your tests pass and the project's tests still pass. "
            + now_reply(found, fmt)
        )
        said = "\n\n".join(parts)
    back = Message.user(said)
    host.append(back, True)
    yield AgentEvent(E.MESSAGE, message=back)


def _start(host: EditHost, found: Found, fmt: Format, request: str, blame: str = "") -> str:
    """How the reply starts, written for the model (a small model's profile, a request for a
    change to a file it is about: never for a question); "" for none. Whole files: the one
    Python file's path and the opening fence — Python only: a reply that is not code then does
    not parse, and is not written. Search/replace blocks: the path, the fence and the first
    ``<<<<<<< SEARCH`` line, for any file (a block whose search is not in the file applies
    nothing); the 0.5B model, not begun, wrote back the reply instruction instead of blocks.
    ``blame``: the file the last failure points at, if any (it comes before the request's own
    file)."""
    focus = blame or found.focus()
    if not host.profile.prefill or not focus or not CHANGE.search(request):
        return ""
    fence = f"{focus}\n```{'python' if focus.endswith('.py') else ''}\n"
    if fmt == "diff":
        return fence + "<<<<<<< SEARCH\n"
    return fence if focus.endswith(".py") else ""


def _hotter(profile: Profile) -> float:
    """The temperature after a reply that changed nothing: at least :data:`HOTTER`."""
    return max(profile.sampling.temperature or 0.0, HOTTER)


async def _ask(
    host: EditHost, reply: Reply, start: str, temp: float | None = None
) -> AsyncIterator[AgentEvent]:
    """One model call (``temp``: its temperature, None for the profile's); with ``start``,
    the reply is begun for the model (an assistant message it continues), and ``reply``
    holds the whole of it, ``start`` included."""
    if not start:
        async for ev in host.call_model(reply, temp):
            yield ev
        return
    seed = Message(role="assistant", blocks=[Block.text_block(start)])
    host.messages().append(seed)
    try:
        async for ev in host.call_model(reply, temp):
            yield ev
    finally:
        said = host.messages()
        for i in range(len(said) - 1, -1, -1):
            if said[i] is seed:
                del said[i]
                break
    text = reply.message.text()
    if not text.lstrip().startswith(start.strip()):  # a server that returns only the rest
        rest = [b for b in reply.message.blocks if b.type != "text"]
        blocks = [Block.text_block(start + text), *rest]
        reply.message = reply.message.model_copy(update={"blocks": blocks})


def _point(
    host: EditHost, found: Found, tests: Ran | None, more: tuple[str, ...] | list[str] = ()
) -> str:
    """Where to look when a check fails and its traceback names no source line (the callers
    ask :func:`.edit_point.blamed` first): the functions the failing tests call, as they are
    now (:mod:`.edit_point`); "" otherwise."""
    if tests is None or tests.exit_code in (None, 0) or tests.missing:
        return ""
    return pointer(tests.output, host.root, [*found.paths, *more], host.denies_read)


def _texts(host: EditHost, found: Found) -> dict[str, str]:
    """The shown files' text as it is now."""
    texts = ((p, read_shown(host.root, p, host.denies_read)) for p in found.paths)
    return {p: t for p, t in texts if t is not None}


def _skip(host: EditHost, found: Found, tests: Ran | None) -> Skip | None:
    """The loop that leaves out the row a printed total lacks (:mod:`.skips`), in the
    project's files as they are now; None when ``tests`` is not such a failure."""
    if tests is None or not tests.missing:
        return None
    return left_out(tests.missing, tests.output, tests.given, _texts(host, found).items())


async def _seen(
    host: EditHost, found: Found, tests: Ran | None, said: list[str], saw: list[Saw]
) -> AsyncIterator[AgentEvent]:
    """What the code saw when ``tests`` failed (:mod:`.seen`): into ``saw``, and its words
    added to ``said``."""
    saw.clear()
    if tests is not None:
        async for ev in observe(host, found.paths, tests.command, tests.output, saw):
            yield ev
    said += [s.text for s in saw]


def _budget(host: EditHost) -> int:
    window = host.window or DEFAULT_WINDOW
    reply = host.max_output or 4_096
    tokens = window - reply - 1_000  # the system prompt, the rules, the request, the test output
    return max(2_000, min(MAX_BUDGET, tokens * CHARS_PER_TOKEN))


def _format_for(found: Found) -> Format:
    """Whole files while every file the request is about is short, else search/replace."""
    focus = [t for p, t in found.files if p in found.named] or [t for _, t in found.files]
    longest = max((t.count("\n") for t in focus), default=0)
    return "whole" if longest <= WHOLE_MAX_LINES else "diff"


def _checks(request: str, found: Found) -> list[Check]:
    """The test command, then the request's own examples (:mod:`.examples`)."""
    command = check_command(request, found)
    out = [Check(command)] if command else []
    doctests = doctest_files(found.named, dict(found.files))
    return out + [c for c in example_checks(request, doctests) if c.command != command]


async def _run_tests(
    host: EditHost, checks: list[Check], ran: list[Ran], every: bool = False
) -> AsyncIterator[AgentEvent]:
    """Each check in turn into ``ran``, up to the first that fails (``every``: all of them)."""
    for check in checks:
        given = ((p, read_shown(host.root, p, host.denies_read)) for p in check.inputs())
        tests = Ran(check.command, expect=check.expect, given=tuple((p, t) for p, t in given if t))
        async for ev in _run_one(host, tests):
            yield ev
        ran.append(tests)
        if not every and not tests.passed:
            return


async def _run_one(host: EditHost, tests: Ran) -> AsyncIterator[AgentEvent]:
    call = Block.tool_use(f"test_{next(_ids)}", "bash", {"command": tests.command})
    ends: dict[str, AgentEvent] = {}
    async for ev in host.run_calls([call], ends):
        yield ev
    end = ends.get(call.id)
    if end is None:
        return
    code: Any = end.data.get("exit_code")
    if isinstance(code, int) and not end.data.get("denied"):
        tests.exit_code, tests.output = code, end.text
    else:
        yield AgentEvent(
            E.NOTICE,
            text=f"the tests could not be run: {end.text.splitlines()[0] if end.text else ''}",
        )
