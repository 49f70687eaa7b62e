"""Finding ``old_string`` when the model's copy drifted a little from the file.

A model quoting a file often gets the bytes slightly wrong: trailing spaces dropped, the block
indented differently, ``'`` for ``"`` or curly quotes, ``\\n`` for ``\\r\\n``. :func:`relaxed_match`
tries these relaxations in order, each looser than the one before (after OpenCode's replacer
chain in packages/opencode/src/tool/edit.ts and Aider's whitespace fallback in its search/replace
coder):

1. ``trailing whitespace`` — lines compared without trailing spaces and tabs;
2. ``indentation`` — and the block may be indented differently, as a whole (relative
   indentation inside it must match); the new text is re-indented to the file's;
3. ``quotes`` — and ``'``, ``"``, and curly quotes count as the same; the new text gets the
   file's quote style where the old text's differed;
4. ``line endings`` — ``\\r\\n``, ``\\r`` and ``\\n`` count as the same.

Stages 1-3 compare whole lines (and ignore line endings); a quote difference inside one line is
also found within a line. The first stage that finds anything decides: exactly one place is
edited, and the caller says which relaxation matched; two or more places is an error naming the
count — never a guess. The new text always gets the file's line ending.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Ambiguous", "Relaxed", "RELAXATIONS", "relaxed_match"]

RELAXATIONS = ("trailing whitespace", "indentation", "quotes", "line endings")

_QUOTES = str.maketrans({c: "'" for c in '"\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f`'})
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|$)")


@dataclass(frozen=True)
class Relaxed:
    """One place found: ``content[start:end]`` becomes ``replacement``."""

    start: int
    end: int
    replacement: str
    relaxation: str

    def apply(self, content: str) -> str:
        return content[: self.start] + self.replacement + content[self.end :]


class Ambiguous(Exception):
    def __init__(self, relaxation: str, count: int) -> None:
        super().__init__(relaxation, count)
        self.relaxation, self.count = relaxation, count


def relaxed_match(content: str, old: str, new: str) -> Relaxed | None:
    """The one place ``old`` matches under the first relaxation that finds any; ``None`` when
    none does; raises :class:`Ambiguous` when that relaxation finds more than one place."""
    if not old.strip():
        return None
    lines = _lines(content)
    ending = _ending(content)
    stages: list[tuple[str, Callable[[], list[Relaxed]]]] = [
        ("trailing whitespace", lambda: _by_lines(lines, old, new, ending, 1)),
        ("indentation", lambda: _by_lines(lines, old, new, ending, 2)),
        ("quotes", lambda: _quotes(content, lines, old, new, ending)),
        ("line endings", lambda: _endings(content, old, new, ending)),
    ]
    for name, find in stages:
        found = _distinct(find())
        if len(found) > 1:
            raise Ambiguous(name, len(found))
        if found:
            f = found[0]
            return Relaxed(f.start, f.end, f.replacement, name)
    return None


# -- lines ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Line:
    start: int
    text: str  # without its ending
    ending: str


def _lines(content: str) -> list[_Line]:
    out = []
    for m in _LINE.finditer(content):
        raw = m.group()
        if not raw and m.start() == len(content):
            break
        body = raw.rstrip("\r\n")
        out.append(_Line(m.start(), body, raw[len(body) :]))
    return out


def _ending(content: str) -> str:
    crlf = content.count("\r\n")
    lf = content.count("\n") - crlf
    return "\r\n" if crlf > lf else "\n"


def _indent(text: str) -> str:
    return text[: len(text) - len(text.lstrip(" \t"))]


def _base_indent(texts: list[str]) -> str:
    indents = [_indent(t) for t in texts if t.strip()]
    return min(indents, key=len) if indents else ""


def _norm(texts: list[str], level: int) -> list[str]:
    """Lines as compared at ``level``: 1 trailing whitespace, 2 + indentation, 3 + quotes."""
    out = [t.rstrip(" \t") for t in texts]
    if level >= 2:
        base = len(_base_indent(out))
        out = [t[base:] if t.strip() else "" for t in out]
    if level >= 3:
        out = [t.translate(_QUOTES) for t in out]
    return out


def _by_lines(lines: list[_Line], old: str, new: str, ending: str, level: int) -> list[Relaxed]:
    want = [ln.text for ln in _lines(old)]
    if not any(t.strip() for t in want):
        return []
    target = _norm(want, level)
    key = _key(want[0], level)
    n = len(want)
    out = []
    for i in range(len(lines) - n + 1):
        if _key(lines[i].text, level) != key:  # cheap: the first line must agree
            continue
        window = lines[i : i + n]
        texts = [ln.text for ln in window]
        if _norm(texts, level) != target:
            continue
        last = window[-1]
        end = last.start + len(last.text)
        if old.endswith(("\n", "\r")):
            end += len(last.ending)  # old_string took its last line's ending
        new_text = new
        if level >= 2:
            new_text = _reindent(new_text, _base_indent(want), _base_indent(texts))
        if level >= 3:
            new_text = _requote(new_text, want, texts)
        out.append(Relaxed(window[0].start, end, _with_ending(new_text, ending), ""))
    return out


def _key(text: str, level: int) -> str:
    stripped = text.strip(" \t") if level >= 2 else text.rstrip(" \t")
    return stripped.translate(_QUOTES) if level >= 3 else stripped


def _reindent(new: str, old_base: str, file_base: str) -> str:
    if old_base == file_base:
        return new
    out = []
    for line in new.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        if not body.strip():
            out.append(line)
        elif body.startswith(old_base):
            out.append(file_base + line[len(old_base) :])
        else:
            out.append(file_base + line.lstrip(" \t"))
    return "".join(out)


def _requote(new: str, old_lines: list[str], file_lines: list[str]) -> str:
    """Give ``new`` the file's quotes where the old text used others (a consistent swap only)."""
    swap: dict[str, str] = {}
    for o, f in zip(old_lines, file_lines, strict=True):
        o, f = o.strip(), f.strip()
        if len(o) != len(f):
            continue
        for a, b in zip(o, f, strict=True):
            if a != b:
                if swap.get(a, b) != b:
                    return new  # not one consistent swap: leave the new text as written
                swap[a] = b
    table: dict[str, str | int | None] = dict(swap)
    return new.translate(str.maketrans(table)) if swap else new


def _with_ending(text: str, ending: str) -> str:
    return re.sub(r"\r\n|\r|\n", ending, text) if ending != "\n" else re.sub(r"\r\n?", "\n", text)


# -- within a line, and line endings --------------------------------------------------------


def _quotes(content: str, lines: list[_Line], old: str, new: str, ending: str) -> list[Relaxed]:
    """Quote-insensitive: inside a line (the normalisation keeps lengths, so positions carry
    over), then whole lines with trailing whitespace and indentation relaxed too. Only places
    whose quotes really differ count (an exact match is not this stage's to find)."""
    folded = content.translate(_QUOTES)
    for orig in dict.fromkeys((old, _with_ending(old, ending))):
        want = orig.translate(_QUOTES)
        spans = [s for s in _find_all(folded, want) if content[s : s + len(want)] != orig]
        if spans:
            return [
                Relaxed(
                    s,
                    s + len(want),
                    _with_ending(_requote(new, [orig], [content[s : s + len(want)]]), ending),
                    "",
                )
                for s in spans
            ]
    return _by_lines(lines, old, new, ending, 3)


def _endings(content: str, old: str, new: str, ending: str) -> list[Relaxed]:
    """``old`` with any line endings against the file with any: positions mapped back."""
    flat, index = [], []
    i = 0
    while i < len(content):
        c = content[i]
        if c == "\r":
            flat.append("\n")
            index.append(i)
            i += 2 if content.startswith("\r\n", i) else 1
        else:
            flat.append(c)
            index.append(i)
            i += 1
    index.append(len(content))
    text = "".join(flat)
    want = re.sub(r"\r\n?", "\n", old)
    return [
        Relaxed(index[s], index[s + len(want)], _with_ending(new, ending), "")
        for s in _find_all(text, want)
    ]


def _find_all(text: str, sub: str) -> list[int]:
    out, at = [], text.find(sub)
    while at != -1:
        out.append(at)
        at = text.find(sub, at + 1)
    return out


def _distinct(found: list[Relaxed]) -> list[Relaxed]:
    seen: dict[tuple[int, int], Relaxed] = {}
    for f in found:
        seen.setdefault((f.start, f.end), f)
    return list(seen.values())
