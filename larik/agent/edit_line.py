"""One line, asked for alone (issue 24): the edit workflow's narrowest reply.

Told what the code saw (:mod:`.seen`) — ``peek`` returned ``self._items[self._start - 1]``,
``self._start`` is 0, ``self._items[self._start]`` is the expected ``'a'`` — the 1.5B model gave
``ringbuffer.py`` back exactly as it was, 45 lines, and then answered with a sentence; the 0.5B
model gave ``stats.py`` back with its ``//`` after being told ``/`` gives the expected 2.5.
Copying a whole file is what a small model does best. So when the probe found a one-token
change of a return line that gives the expected value, and the model's last reply did not make
that value right (gave the file back, changed something else, or changed the line to another
wrong one: the 1.5B model's first reply turned ``self._start - 1`` into
``(self._start - 1) % self.capacity``), the next message asks for that
one line alone — its number, its text now, a question to work out first, then a reply of only
the corrected line (not begun for the model: the reasoning comes first). The reply replaces that line
and nothing else, and goes through the same checks as any edit (it must parse; the tests run).
The model still writes the line: the harness names the line and what it should evaluate to,
never writes the code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .edit_files import Denied, read_shown
from .edit_reply import FileEdit, Parsed
from .pysyntax import parse
from .seen import Saw
from .skips import Skip

__all__ = ["LineAsk", "ask_for", "for_skip", "message", "parsed"]

_FENCE = re.compile(r"^\s*```")


@dataclass(frozen=True)
class LineAsk:
    path: str
    line: int  # 1-based
    text: str  # the line as it is now, without its newline
    fix: str = ""  # the expression that gives the expected value there
    want: str = ""  # that value
    kind: str = ""  # what the change is (:class:`.seen.Saw`)
    detail: str = ""
    at: str = ""  # the index that holds the expected value (:attr:`.seen.Saw.at`)


def ask_for(root: Path, saw: list[Saw], before: list[Saw], denied: Denied | None) -> LineAsk | None:
    """The line to ask for: the first return of ``saw`` with a one-token fix, in a file whose
    wrong value was seen before the last reply too (``before``: the reply did not make it
    right — left the line alone, or changed it to another wrong one); None for none."""
    earlier = {s.path for s in before}
    for s in saw:
        if not s.fix or s.path not in earlier:
            continue
        text = read_shown(root, s.path, denied)
        lines = text.splitlines() if text is not None else []
        if 0 < s.line <= len(lines) and lines[s.line - 1].lstrip().startswith("return"):
            line = lines[s.line - 1]
            return LineAsk(s.path, s.line, line, s.fix, s.want, s.kind, s.detail, s.at)
    return None


def for_skip(now: Skip | None, before: Skip | None) -> LineAsk | None:
    """The loop that leaves an item out (:mod:`.skips`), when the last reply left it as it was
    (found before the reply and after it, the same line); None otherwise."""
    if now is None or before is None:
        return None
    if (now.path, now.text, now.part) != (before.path, before.text, before.part):
        return None
    return LineAsk(now.path, now.line, now.text, kind="skip", want=now.place, detail=now.how)


def message(ask: LineAsk) -> str:
    """The paragraph that ends the message: the line, what gives the expected value there, a
    question to work out first, and what to reply. The line as it is now is quoted in the
    sentence, not shown as a block (the 0.5B model copies the last block it was shown). Asked
    for the line at once, the 1.5B model wrote peek's line back as it was, even after naming
    the expression that gives 'a'; asked first which index holds the expected value and which
    of the values equals it, it wrote `self._items[self._start]` (two of three samples)."""
    if ask.kind == "skip":  # detail: how (:attr:`.skips.Skip.how`)
        return (
            f"Line {ask.line} of {ask.path}, `{ask.text.strip()}`, is where the {ask.want} item "
            f"is left out: {ask.detail}.\n\nFirst say what that line must loop over "
            f"so that no item is left out. Then reply with line {ask.line} as it should be, in "
            "a ```python block: one line, not the whole file."
        )
    there = f": there `{ask.fix}` is {ask.want}, the expected value" if ask.fix else ""
    if ask.kind == "index" and ask.at:
        first = (
            f"The expected value {ask.want} is `{ask.detail}[{ask.at}]`. First say which "
            f"expression of the ones above equals {ask.at}."
        )
    elif ask.kind == "index":
        first = (
            f"First say which index of `{ask.detail}` holds the expected value {ask.want}, "
            "and which expression of the ones above equals that index."
        )
    elif ask.kind == "operator":
        first = (
            f"First say which operator, in place of `{ask.detail}`, gives the expected value "
            f"{ask.want} from the values above."
        )
    else:
        first = f"First say how the line must change to give the expected value {ask.want}."
    return (
        f"Line {ask.line} of {ask.path}, `{ask.text.strip()}`, is where the wrong value comes "
        f"from{there}.\n\n{first} Then reply with line {ask.line} as it should be, in a "
        "```python block: one line, not the whole file."
    )


def parsed(root: Path, ask: LineAsk, reply: str, denied: Denied | None) -> Parsed | None:
    """The reply as an edit of the whole file with that line replaced; None when the reply is
    not that line (a whole file changed elsewhere, a definition, prose, nothing), a loop's
    header for a line that is none or the other way round, or the file changed meanwhile.
    The line may come with its neighbours as the file has them (the 1.5B model wrote the
    loop's header and its body): the one line of the reply where the file's line is."""
    text = read_shown(root, ask.path, denied)
    if text is None:
        return None
    lines = text.splitlines(keepends=True)
    if not 0 < ask.line <= len(lines) or lines[ask.line - 1].rstrip("\r\n") != ask.text:
        return None
    line = _the_line(_code(reply), [x.rstrip("\r\n") for x in lines], ask.line)
    if line is None or line.lstrip().startswith(("def ", "class ", "@", "import ", "from ")):
        return None
    kind = _statement(line.strip())
    if kind is None or kind != _statement(ask.text.strip()):  # prose; a header for a return
        return None
    end = lines[ask.line - 1][len(ask.text) :]  # its newline, as the file has it
    lines[ask.line - 1] = _indent(ask.text) + line.strip() + end
    return Parsed(edits=[FileEdit(ask.path, whole="".join(lines))])


def _statement(line: str) -> str | None:
    """What a line of code on its own is: "simple" (a statement), "header" (of a compound
    one, ``for x in xs:``, which parses with a body), None for neither (prose)."""
    if parse(line) is not None:
        return "simple"
    if line.startswith(_HEADERS) and parse(line + "\n    pass") is not None:
        return "header"
    return None


_HEADERS = ("for ", "async for ", "if ", "while ", "with ")


def _code(reply: str) -> list[str]:
    """The lines of code in the reply's first fenced block, or its first line, unfenced."""
    lines = reply.splitlines()
    fenced = [i for i, x in enumerate(lines) if _FENCE.match(x)]
    body = lines[fenced[0] + 1 :] if fenced else lines
    code: list[str] = []
    for x in body:
        if _FENCE.match(x):
            break
        if _is_code(x):
            code.append(x)
            if not fenced:
                break
    return code


def _the_line(code: list[str], lines: list[str], at: int) -> str | None:
    """The line of ``code`` that stands where line ``at`` of the file (``lines``) is, when
    the rest of ``code`` is the file's lines around it as they are (blank lines and comments
    aside); None when no one placing fits."""
    idx = [i for i, x in enumerate(lines) if _is_code(x)]
    if not code or at - 1 not in idx:
        return None
    k, n = idx.index(at - 1), len(code)
    hits = {
        code[k - o]
        for o in range(max(0, k - n + 1), min(k, len(idx) - n) + 1)
        if all(code[m].strip() == lines[idx[o + m]].strip() for m in range(n) if m != k - o)
    }
    return hits.pop() if len(hits) == 1 else None


def _is_code(line: str) -> bool:
    return bool(line.strip()) and not line.lstrip().startswith("#")


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]
