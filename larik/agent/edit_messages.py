"""What the edit workflow says to the model (:mod:`.edit_turn`): the first message with the
project's files, a test run's output as the model reads it, a cut-off reply, the review round.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..llm.types import Message
from .edit_context import Found
from .edit_reply import Format, format_rules
from .examples import missing, off_by
from .mismatch import explain

TEST_OUTPUT = 3_000  # characters of a test run's output the model is given (the end of it)


@dataclass
class Ran:
    """A check that ran, and what the model is told of it."""

    command: str
    exit_code: int | None = None  # None: it did not run (denied, failed to start)
    output: str = ""
    expect: tuple[str, ...] = ()  # what the output must show (the request's example)
    given: tuple[tuple[str, str], ...] = ()  # its input files (path, text), as they are

    @property
    def passed(self) -> bool:
        return self.exit_code == 0 and not self.missing

    @property
    def missing(self) -> list[str]:
        return missing(self.expect, self.output) if self.exit_code == 0 else []

    def failure(self, when: str = "") -> str:
        """What the model is told about this failing check (``when``: "now", "still")."""
        fail = {"now": "fail now", "still": "still fail"}.get(when, "fail")
        if self.missing:
            said = ", ".join(self.missing)
            does = {"still": "still does not"}.get(when, "does not")
            return (
                f"`{self.command}` {does} print what the request says it should ({said}); "
                f"it printed:\n```\n{tail(self.output)}\n```{off_by(self.missing, self.output, self.given)}"
            )
        return (
            f"The tests {fail} (`{self.command}`, exit code {self.exit_code}):\n"
            f"```\n{tail(self.output)}\n```{explain(self.output)}"
        )


def first_message(
    request: str, found: Found, fmt: Format, before: Ran | None, point: str = "", ask: str = ""
) -> str:
    """The files, the tests' state before any change, the reply's rules and the request; it
    ends asking for the edit, or with ``ask`` (the request's tests first: :mod:`.own_tests`)."""
    parts = ["Here are the files of the project."]
    for path, text in found.files:
        parts.append(shown_file(path, text))
    if found.omitted:
        parts.append(
            "Other files (not shown, too long for this message): " + ", ".join(found.omitted)
        )
    if before is not None and before.exit_code is not None:
        if before.passed:
            parts.append(f"The tests pass now (`{before.command}`).")
        else:
            parts.append(before.failure("now"))
            if point:
                parts.append(point)
    parts.append(format_rules(fmt))
    parts.append(f"The request:\n{request.strip()}")
    parts.append(ask or now_reply(found, fmt))  # what a small model reads last
    return "\n\n".join(parts)


def now_reply(found: Found, fmt: Format) -> str:
    """The last line of a message asking for the edit."""
    focus = found.focus()
    what = f"{focus} (or the file to change) with its" if focus else "each file to change with its"
    how = "complete new content" if fmt == "whole" else "search/replace blocks"
    return f"Now reply: one sentence, then {what} {how}."


def shown_file(path: str, text: str) -> str:
    lang = "python" if path.endswith(".py") else ""
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"{path}\n```{lang}\n{body}```"


#: pytest pads its progress lines to the terminal's width: ``FF.      [100%]``
_PADDING = re.compile(r" {3,}(\[ *\d+%\])$", re.M)


def tail(text: str) -> str:
    """The end of a test run's output, its padding squeezed (pytest pads its progress lines to
    the terminal's width: tokens a slow model would read for nothing) and nothing else: the
    spaces inside an assertion are what the model must write (``"a   | 1"``)."""
    text = _PADDING.sub(r"  \1", text.strip())
    text = "\n".join(line.rstrip() for line in text.splitlines())
    return text if len(text) <= TEST_OUTPUT else "…\n" + text[-TEST_OUTPUT:]


def cut_off(limit: int) -> str:
    at = f" ({limit} tokens)" if limit else ""
    return (
        f"Your reply was cut off at the output limit{at} before it ended, so none of it was "
        "applied. Reply again with search/replace blocks (a few lines each) instead of whole "
        "files:\n\n" + format_rules("diff")
    )


def prose(text: str) -> str:
    out, inside = [], False
    for line in text.splitlines():
        if line.strip().startswith(("```", "~~~")):
            inside = not inside
            continue
        if not inside:
            out.append(line)
    return "\n".join(out).strip()


def review(request: str, written: list[str], command: str) -> str:
    """The review round's message: the tests passed before the edit too, so they cannot say
    whether it does what was asked."""
    files = ", ".join(written)
    ran = f" (`{command}`)" if command else ""
    return (
        f"Applied: {files}. The tests{ran} pass, but they passed before your change too: they "
        "do not check this request.\n\n"
        f"The request:\n{request.strip()}\n\n"
        "Check your code against the request and every rule its docstrings and comments "
        "state, one by one (inputs at the edges too: empty, too long, unusual characters). "
        f"If something is not handled, give {files} again, complete, with it handled. If "
        "everything is handled, give the file back exactly as it is."
    )


def put_out(said: list[Message], reply: Message) -> None:
    """Leave ``reply`` out of what the model is sent from now on: a reply that changed
    nothing, which a small model otherwise writes again word for word. It stays in the list
    with no blocks (so no index moves), and a request drops it (``merge_adjacent``); the
    transcript keeps it. Not a note in its place: told "[this reply is left out: …]", the 1.5B
    model wrote that note as its next reply. A reply with a tool call stays (its result must
    follow a call)."""
    if any(b.type != "text" for b in reply.blocks):
        return
    for i in range(len(said) - 1, -1, -1):
        if said[i] is reply:
            said[i] = reply.model_copy(update={"blocks": []})
            return
