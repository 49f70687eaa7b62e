"""What the edit workflow tells the model after a reply, and the turn's closing text
(:mod:`.edit_turn`): what was applied, kept or refused, and how the tests went.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .edit_messages import Ran, prose, shown_file
from .edit_reply import Format, Problem

__all__ = ["GIVEN_BACK", "Applied", "feedback", "summary"]

GIVEN_BACK = "given back unchanged: nothing changed"


@dataclass
class Applied:
    """What became of a reply: what was written, kept, refused, given back, found wrong."""

    written: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)  # path -> the current text, to resend
    kept: list[str] = field(default_factory=list)  # definitions a whole file left out, kept
    same: list[str] = field(default_factory=list)  # files given back exactly as they are
    diagnostics: list[str] = field(default_factory=list)  # what the language servers found
    mistakes: list[str] = field(default_factory=list)  # what the harness itself sees wrong

    @property
    def unchanged(self) -> bool:
        """Only files given back as they are: nothing written, nothing else wrong."""
        return (
            bool(self.same) and not self.written and all(p.why == GIVEN_BACK for p in self.problems)
        )


def feedback(
    applied: Applied,
    tests: Ran | None,
    fmt: Format,
    command: str,
    failing: Ran | None = None,
    where: tuple[str, int] | None = None,
    point: str = "",
) -> str:
    """What the model is told after a reply. ``failing``: the reply only gave files back as
    they are while these tests fail — said plainly, with the failure again. ``where``: the
    source file and line the failure's traceback ends in. ``point``: else the functions the
    failing tests call (:func:`.edit_point.pointer`)."""
    blame = f"The error is in {where[0]}, line {where[1]}: change {where[0]}." if where else ""
    if applied.unchanged:
        files = ", ".join(applied.same)
        said = [f"Your reply gave {files} back exactly as it is: nothing changed."]
        if failing is not None:
            said.append(failing.failure("still"))
        if blame or point:
            said.append(blame or point)
        how = "the whole corrected file" if fmt == "whole" else "search/replace blocks"
        what = "which line is wrong and why" if failing is not None else "what must change"
        said.append(f"First say in one sentence {what}, then write {how} with the change.")
        return "\n\n".join(said)
    parts: list[str] = []
    if applied.written:
        parts.append("Applied: " + ", ".join(applied.written) + ".")
    if applied.kept:
        parts.append("Kept: " + "; ".join(applied.kept) + ".")
    if applied.diagnostics:  # a NameError the tests only show as an empty output, say
        found = "\n".join(applied.diagnostics)
        parts.append(f"The language server found errors in your edit:\n```\n{found}\n```")
    if applied.mistakes:
        parts.append("A mistake in your edit:\n" + "\n".join(f"- {m}" for m in applied.mistakes))
    if applied.problems:
        lines = [f"- {p.path or '(no file)'}: {p.why}" for p in applied.problems]
        parts.append("Not applied:\n" + "\n".join(lines))
    for path, text in applied.refused.items():
        parts.append("The current content of " + shown_file(path, text))
    if tests is not None and tests.exit_code is not None and not tests.passed:
        parts.append(tests.failure())
        if blame or point:
            parts.append(blame or point)
    elif tests is None and command and not applied.written:
        parts.append("Nothing was changed, so the tests were not run again.")
    how = "the whole file" if fmt == "whole" else "search/replace blocks"
    parts.append(f"Fix it: reply with {how} for each file you change, in the same format.")
    return "\n\n".join(parts)


def summary(text: str, applied: Applied, tests: Ran | None, end: str = "") -> str:
    """The turn's final text: what the model said outside its code blocks, and what happened."""
    said = prose(text)
    lines = [said] if said else []
    if applied.written:
        lines.append("Changed: " + ", ".join(applied.written) + ".")
    if applied.kept:
        lines.append("Kept: " + "; ".join(applied.kept) + ".")
    if applied.problems:
        lines.append("Not applied: " + "; ".join(f"{p.path}: {p.why}" for p in applied.problems))
    if tests is not None and tests.exit_code is not None:
        if tests.expect:
            shown = ", ".join(tests.missing or tests.expect)
            said = "does not print" if tests.missing else "prints, as the request says,"
            lines.append(f"`{tests.command}` {said} {shown}.")
        else:
            verdict = "pass" if tests.passed else f"fail (exit code {tests.exit_code})"
            lines.append(f"The tests {verdict}: `{tests.command}`.")
    if end:
        lines.append(end)
    return "\n".join(lines)
