"""The edit workflow's applying step (:mod:`.edit_turn`): a reply's edits, checked, written.

Each file a reply changes is placed in the project (:func:`.edit_files.place`: a path it
cannot place is refused, never taken for another), read as read_file would read it
(:func:`.edit_files.current`: a file a deny rule covers, a FIFO or one over the size bound is
refused, not read), given its new text (the whole file, or the search/replace blocks applied
exactly, else by :func:`.tools._match.relaxed_match`), checked (a Python file that would no
longer parse, a fragment for a whole file, a test the request keeps, the input of an example),
kept from the harness's repairs (:mod:`.edit_repair`), and written as a write_file call through
the tool runner, as the model's own call would be. The model's own tests (:mod:`.own_tests`)
are written the same way (:func:`write_own`).
"""

from __future__ import annotations

import ast
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from ..llm.types import Block
from . import own_tests
from .edit_context import is_test_file
from .edit_feedback import GIVEN_BACK, Applied
from .edit_files import current, place, write_call
from .edit_repair import (
    fragment,
    hidden_methods,
    keep_examples,
    keep_left_out,
    keep_renamed,
    keeps_tests,
    methods_into,
)
from .edit_reply import FileEdit, Parsed, Problem
from .events import AgentEvent
from .pysyntax import UNPARSABLE, parse
from .unbound import unbound_reads

if TYPE_CHECKING:
    from .edit_turn import EditHost

__all__ = ["UNCHANGED", "apply_reply", "write_own"]

UNCHANGED = "the edit changes nothing"


async def apply_reply(
    host: EditHost,
    parsed: Parsed,
    out: Applied,
    request: str,
    inputs: dict[str, str] | None = None,
) -> AsyncIterator[AgentEvent]:
    """Each file's new text, checked, then written with write_file through the tool runner.
    ``inputs``: the files an example's command reads (path -> the command), never changed."""
    out.problems += parsed.problems
    calls: list[Block] = []
    same: list[str] = []
    hiding: dict[str, list[str]] = {}  # path -> mistakes of the new text the old did not have
    for edit in parsed.edits:
        rel, why = place(host.root, edit.path)  # a path it cannot place is refused
        now = current(host.root, rel, host.denies_read) if rel else None
        if now is None or now.why:  # read as read_file would, or refused and not read
            out.problems.append(Problem(rel or edit.path, now.why if now else why))
            continue
        py = rel.endswith(".py")
        new, old, why = _new_text(now.text, py, edit)
        if why == UNCHANGED:  # a file given back as it is (a test file, an input): not an edit
            same.append(rel)
            continue
        if inputs and rel in inputs:
            why = f"the input of `{inputs[rel]}`: change the code, not the data it reads"
            if rel == own_tests.FILE:
                why = "your tests of the request, the check of this change: change the code"
            out.problems.append(Problem(rel, why))
            continue
        if not why and edit.whole is not None and old is not None and py:
            why = fragment(old, new or "")
        if not why and is_test_file(rel) and keeps_tests(request, rel):
            why = "a test the request says to keep: change the code so it passes, not the test"
        if why:
            out.problems.append(Problem(rel, why))
            if old is not None:
                out.refused[rel] = old
            continue
        assert new is not None
        kept_before = list(out.kept)
        if edit.whole is not None and old is not None and py:
            new, kept = keep_left_out(old, new, request)
            if kept:
                out.kept.append(f"{rel}: kept {', '.join(kept)}, which your file left out")
            new, renamed = keep_renamed(old, new, request)
            if renamed:
                out.kept.append(
                    f"{rel}: kept {renamed} as it was but for its name (the request asks "
                    "for a rename only)"
                )
        if old is not None and py:
            new, docs = keep_examples(old, new, request)
            if docs:
                out.kept.append(
                    f"{rel}: kept the docstring of {', '.join(docs)} as it was (its "
                    "examples check your code: change the code, not them)"
                )
        if new == old:  # the last reply again, less what the harness kept: given back
            out.kept = kept_before
            same.append(rel)
            continue
        if py:
            hiding[rel] = hidden_methods(new, old) + unbound_reads(new, old)
        calls.append(write_call(rel, new))
    if not calls:
        if same and not out.problems:
            out.problems.append(Problem(", ".join(same), GIVEN_BACK))
        out.same += same
        return
    if not host.can_run("write_file"):
        for c in calls:
            out.problems.append(
                Problem(c.input_dict()["path"], "write_file is not this model's tool")
            )
        return
    ends: dict[str, AgentEvent] = {}
    async for ev in host.run_calls(calls, ends):
        yield ev
    for c in calls:
        path = c.input_dict()["path"]
        end = ends.get(c.id)
        if end is not None and not end.is_error:
            out.written.append(path)
            out.mistakes += [f"{path}, {m}" for m in hiding.get(path, [])]
            out.diagnostics += (end.data or {}).get("diagnostics") or []  # larik.lsp, if on
        else:
            out.problems.append(Problem(path, end.text if end is not None else "not run"))


def _new_text(old: str | None, py: bool, edit: FileEdit) -> tuple[str | None, str | None, str]:
    """(the file's new text, its current text, why it is not written — "" when it is), from
    its current text (``old``, read by :func:`.edit_files.current`; None: no such file) and
    whether it is Python (``py``)."""
    from .tools._match import Ambiguous, relaxed_match

    if edit.whole is not None:
        new = edit.whole
        if old is not None and py:  # a class's methods alone, indented
            new = methods_into(old, new) or new
    elif old is None:
        if any(s.strip() for s, _ in edit.blocks):
            return None, None, "the file does not exist, so its SEARCH text cannot be found"
        new = "".join(r for _, r in edit.blocks)
    else:
        new = old
        for search, replace in edit.blocks:
            if not search.strip():
                return None, old, "an empty SEARCH part: give the exact lines to replace"
            count = new.count(search)
            if count == 1:
                new = new.replace(search, replace, 1)
                continue
            if count > 1:
                return None, old, f"a SEARCH part occurs {count} times: add lines to make it unique"
            try:
                found = relaxed_match(new, search, replace)
            except Ambiguous as e:
                return None, old, f"a SEARCH part matches {e.count} places: add lines to it"
            if found is None:
                return None, old, "a SEARCH part was not found: copy the lines exactly"
            new = found.apply(new)
    if old is not None and new == old:
        return None, old, UNCHANGED
    if py and (why := _breaks(old, new)):
        return None, old, why
    return new, old, ""


def _breaks(old: str | None, new: str) -> str:
    """Why ``new`` is refused as Python: it does not parse where ``old`` did ("" when fine)."""
    try:
        ast.parse(new)
        return ""
    except UNPARSABLE as e:
        err = e
    if old is not None and parse(old) is None:
        return ""  # it did not parse before either: not made worse
    if isinstance(err, SyntaxError):
        return f"not written: the new file would not parse (line {err.lineno}: {err.msg})"
    return f"not written: the new file would not parse ({type(err).__name__}: nested too deep?)"


async def write_own(
    host: EditHost, code: str, why: list[str], again: bool = False
) -> AsyncIterator[AgentEvent]:
    """Write the model's tests as :data:`.own_tests.FILE` with write_file through the tool
    runner, as the model's own call would be (deny rules, questions, hooks, the checkpoint);
    ``why`` gets the reason when it was not written. ``again``: the harness's own file, cut
    down to the tests that hold (a write it means, though it removes definitions)."""
    if not host.can_run("write_file"):
        why.append("write_file is not this model's tool")
        return
    call = write_call(own_tests.FILE, code, confirm=again)
    ends: dict[str, AgentEvent] = {}
    async for ev in host.run_calls([call], ends):
        yield ev
    end = ends.get(call.id)
    if end is None or end.is_error:
        said = end.text.splitlines()[0] if end is not None and end.text else "not run"
        why.append(f"{own_tests.FILE} could not be written{' again' if again else ''} ({said})")
