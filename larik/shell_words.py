"""Words and text of a bash parse tree, as bash reads them: quote removal, ANSI-C strings,
what expands (a variable, a glob, a brace expansion), backticks left as text, and the
backslash-newlines bash joins. The tree itself is walked in :mod:`.shell_reader`; these helpers
see one node or one piece of text at a time, and import nothing heavy (tree-sitter nodes come in
as ``Any``).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

__all__ = [
    "NAME",
    "Word",
    "assignment_name",
    "backtick_spans",
    "descendants",
    "joined_lines",
    "plain_number",
    "node_text",
    "short",
    "unescaped",
    "word",
]


@dataclass(frozen=True, slots=True)
class Word:
    raw: str  # as written
    value: str | None  # after quote removal; None when bash expands it further ($x, globs, …)

    @property
    def text(self) -> str:
        """The word as rules see it: the value, quoted where needed, or as written."""
        return self.raw if self.value is None else shlex.quote(self.value)


def node_text(node: Any) -> str:
    return node.text.decode("utf-8", "replace")


# -- words -----------------------------------------------------------------------------------
_DQ_ESCAPES = '$`"\\\n'
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"[0-9][0-9A-Za-z#@_]*")
_ANSI = re.compile(
    r"\\(?:([abeEfnrtv\\'\"?])|([0-7]{1,3})|x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{1,4})"
    r"|U([0-9A-Fa-f]{1,8})|c(.))",
    re.S,
)
_ANSI_SIMPLE = dict(zip("abeEfnrtv\\'\"?", "\a\b\x1b\x1b\f\n\r\t\v\\'\"?", strict=True))


def _ansi_c(body: str) -> str:
    def one(m: re.Match[str]) -> str:
        simple, octal, hx, u4, u8, ctrl = m.groups()
        if simple:
            return _ANSI_SIMPLE[simple]
        if ctrl:
            return chr(ord(ctrl.upper()) ^ 0x40) if ctrl != "?" else "\x7f"
        code = int(octal, 8) & 0xFF if octal else int(hx or u4 or u8, 16)
        return chr(code) if code <= 0x10FFFF else "\ufffd"

    return _ANSI.sub(one, body)


def _unquoted_word(raw: str) -> list[tuple[str, bool]]:
    """An unquoted word's characters after backslash removal, each with whether it was quoted."""
    out: list[tuple[str, bool]] = []
    i = 0
    while i < len(raw):
        if raw[i] == "\\" and i + 1 < len(raw):
            if raw[i + 1] != "\n":
                out.append((raw[i + 1], True))
            i += 2
            continue
        out.append((raw[i], False))
        i += 1
    return out


def _pieces(node: Any) -> list[tuple[str, bool]] | None:
    """What a word node stands for, character by character with whether it was quoted; None
    when bash expands part of it (a variable, a substitution, arithmetic)."""
    t = node.type
    raw = node_text(node)
    if t in ("word", "number"):
        return _unquoted_word(raw)
    if t == "raw_string":
        return [(c, True) for c in raw[1:-1]]
    if t == "ansi_c_string":
        return [(c, True) for c in _ansi_c(raw[2:-1])]
    if t in ("string", "translated_string"):
        out: list[tuple[str, bool]] = []
        for child in node.named_children:
            if child.type == "string":  # $"…" holds a string
                inner = _pieces(child)
                if inner is None:
                    return None
                out += inner
            elif child.type == "string_content":
                s, i = node_text(child), 0
                while i < len(s):
                    if s[i] == "\\" and i + 1 < len(s) and s[i + 1] in _DQ_ESCAPES:
                        if s[i + 1] != "\n":
                            out.append((s[i + 1], True))
                        i += 2
                        continue
                    out.append((s[i], True))
                    i += 1
            else:
                return None
        return out
    if t == "concatenation":
        out = []
        for child in node.named_children:
            inner = _pieces(child)
            if inner is None:
                return None
            out += inner
        return out
    return None


def _expands(masked: str) -> bool:
    """Whether unquoted text (quoted characters masked) is a glob or a brace expansion: ``*``,
    ``?``, ``[…]``, or ``{…,…}``/``{a..b}``. Linear, whatever the text (no regex backtracking)."""
    if "*" in masked or "?" in masked:
        return True
    bracket = masked.find("[")
    if bracket >= 0 and "]" in masked[bracket + 1 :]:
        return True
    depth_start = -1
    for i, c in enumerate(masked):
        if c == "{":
            depth_start = i
        elif c == "}" and depth_start >= 0:
            inner = masked[depth_start + 1 : i]
            if "," in inner or ".." in inner:
                return True
            depth_start = -1
    return False


def word(node: Any) -> Word:
    """A word as bash passes it to the program, when no expansion is left to do."""
    pieces = _pieces(node)
    if pieces is None:
        return Word(node_text(node), None)
    masked = "".join("_" if quoted else c for c, quoted in pieces)
    if _expands(masked):  # a glob or brace expansion: bash would rewrite it
        return Word(node_text(node), None)
    return Word(node_text(node), "".join(c for c, _ in pieces))


def unescaped(text: str, needles: tuple[str, ...]) -> bool:
    """Whether one of ``needles`` occurs in ``text`` not preceded by a backslash escape."""
    i = 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text.startswith(needles, i):
            return True
        i += 1
    return False


def backtick_spans(text: str) -> list[str] | None:
    """The commands between unescaped backticks, unescaped as bash does (None: one is open)."""
    spans: list[str] = []
    i, start = 0, -1
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "`":
            if start < 0:
                start = i + 1
            else:
                spans.append(re.sub(r"\\([`$\\])", r"\1", text[start:i]))
                start = -1
        i += 1
    return None if start >= 0 else spans


_BLANK_OR_OPERATOR = frozenset(b" \t\r\n;&|()<>")


def joined_lines(root: Any, data: bytes) -> bool:
    """Whether a backslash-newline between two word characters fell between tokens of the tree.
    Bash removes the pair and joins the word (`tou\\<newline>ch` is `touch`); the grammar
    reads two words there."""
    i = data.find(b"\\\n")
    while i >= 0:
        j = i
        while j > 0 and data[j - 1] == 0x5C:  # backslashes before it: an even count escapes none
            j -= 1
        if (i - j) % 2 == 0 and 0 < i and i + 2 < len(data):
            node = root.descendant_for_byte_range(i, i + 2)
            if (
                node is not None
                and node.child_count
                and (
                    data[i - 1] not in _BLANK_OR_OPERATOR and data[i + 2] not in _BLANK_OR_OPERATOR
                )
            ):
                return True
        i = data.find(b"\\\n", i + 2)
    return False


def assignment_name(value: str) -> str | None:
    m = re.match(r"([A-Za-z_][A-Za-z0-9_]*)=", value)
    return m.group(1) if m else None


def plain_number(node: Any) -> bool:
    if node.type == "number":
        return True
    return node.type == "word" and (
        bool(_NUMBER.fullmatch(node_text(node))) or node_text(node) in ("@", "*")
    )


def descendants(node: Any) -> Iterator[Any]:
    stack = list(node.children)
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.children)


def short(text: str, limit: int = 160) -> str:
    """A piece of a command for a message: one line, at most ``limit`` characters."""
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"
