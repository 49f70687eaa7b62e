"""A custom command's shell line (``!`cmd```) for the arguments it is run with: the arguments
never become its text, only references to shell variables set at its start, quoted for where
bash reads them (:func:`shell_line`); and a line that may do arithmetic is not run with an
argument holding ``[`` (:func:`arithmetic_refusal`). How an argument string splits into words
(:func:`words`) is here too: ``$1``, ``$2``… are those words.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

__all__ = [
    "ARG",
    "ARGS_VAR",
    "ARGV_VAR",
    "ARG_VAR",
    "arithmetic_refusal",
    "shell_line",
    "value",
    "words",
]

#: ``$ARGUMENTS`` and ``$1``, ``$2``…: where a command's arguments go.
ARG = re.compile(r"\$(ARGUMENTS|\d+)")


def words(arguments: str) -> list[str]:
    """The words of ``arguments``, shell-style quoting; plain words when a quote is unclosed."""
    try:
        return shlex.split(arguments)
    except ValueError:  # an unclosed quote: plain words
        return arguments.split()


#: The shell variables a shell line's ``$ARGUMENTS`` (as one string, and as words: an array)
#: and ``$1``, ``$2``… become.
ARGS_VAR, ARGV_VAR, ARG_VAR = "LARIK_ARGUMENTS", "LARIK_ARGV", "LARIK_ARG_{}"
#: Where bash reads a ``${…}`` as text, not as words (no splitting, no globbing).
_QUOTED = frozenset({"string", "heredoc_body"})
#: Where a ``${…}`` stands for a whole command line of its own.
_BOUNDARY = frozenset({"command_substitution", "process_substitution", "subshell"})
#: The places a whole word of ``$ARGUMENTS`` is the user's words, each its own.
_WORDS = frozenset({"command", "command_name", "array", "for_statement"})
#: A line that may do arithmetic: bash evaluates a value there as an expression, and a
#: subscript in it (``a[$(cmd)]``) runs code, whoever quoted it.
_ARITHMETIC = re.compile(
    r"\(\(|\$\[|\b(let|declare|typeset|local)\b|-(eq|ne|lt|le|gt|ge)\b|\$\{[^}]*[\[:]"
)


def shell_line(template: str, arguments: str, args: list[str]) -> str:
    """The command a shell line runs for ``arguments`` (``args``: its words).

    The arguments are never spliced into the line's text: each ``$ARGUMENTS`` and ``$N`` bash
    reads becomes a reference to a shell variable, quoted for where it stands (bash's parse
    tree says: inside double quotes ``${LARIK_ARG_1}``, elsewhere ``"${LARIK_ARG_1}"``, a whole
    word ``$ARGUMENTS`` the words ``"${LARIK_ARGV[@]}"``), and the variables are set at the
    line's start, each value shell-quoted in a plain assignment. What bash does not read as an
    expansion (inside single quotes, a comment) stays as written. What runs — and what the
    permission rules and the user see — is that whole line."""
    matches = list(ARG.finditer(template))
    if not matches:
        return template
    refs, spans, pos = bytearray(), [], 0
    for m in matches:
        refs += template[pos : m.start()].encode()
        ref = f"${{{_var(m.group(1))}}}".encode()
        spans.append((len(refs), len(refs) + len(ref)))
        refs += ref
        pos = m.end()
    refs += template[pos:].encode()
    read = _how_read(bytes(refs), set(spans))
    used: dict[str, str] = {}
    pieces, pos = [], 0
    for m, span in zip(matches, spans, strict=True):
        pieces.append(template[pos : m.start()])
        pos = m.end()
        how = read.get(span)
        name = _var(m.group(1))
        if how is None:
            pieces.append(m.group(0))  # literal to bash: as written
            continue
        if how == "words" and m.group(1) == "ARGUMENTS":
            name = ARGV_VAR
        used[name] = value(m.group(1), arguments, args) if name != ARGV_VAR else ""
        pieces.append(_reference(name, how))
    pieces.append(template[pos:])
    sets = [
        f"{n}=({' '.join(shlex.quote(a) for a in args)})"
        if n == ARGV_VAR
        else f"{n}={shlex.quote(v)}"
        for n, v in used.items()
    ]
    return "; ".join([*sets, "".join(pieces)])


def _reference(name: str, how: str) -> str:
    if how == "quoted":  # inside double quotes already
        return f"${{{name}}}"
    return f'"${{{name}[@]}}"' if name == ARGV_VAR else f'"${{{name}}}"'


def _var(key: str) -> str:
    return ARGS_VAR if key == "ARGUMENTS" else ARG_VAR.format(int(key))


def value(key: str, arguments: str, args: list[str]) -> str:
    """What ``$ARGUMENTS`` (``key``) or ``$N`` stands for: the arguments, or their N-th word."""
    if key == "ARGUMENTS":
        return arguments.strip()
    i = int(key)
    return args[i - 1] if 1 <= i <= len(args) else ""


def _how_read(source: bytes, spans: set[tuple[int, int]]) -> dict[tuple[int, int], str]:
    """For each span that bash reads as an expansion: "quoted" (as text), "words" (a whole
    word where words go) or "word"; spans bash reads otherwise are left out."""
    from .shell import syntax_tree

    out: dict[tuple[int, int], str] = {}
    stack = [syntax_tree(source)]
    while stack:
        node = stack.pop()
        span = (node.start_byte, node.end_byte)
        if node.type == "expansion" and span in spans and span not in out:
            out[span] = _context(node)
        stack.extend(node.children)
    return out


def _context(node: Any) -> str:
    parent = node.parent
    up = parent
    while up is not None and up.type not in _BOUNDARY:
        if up.type in _QUOTED:
            return "quoted"
        up = up.parent
    return "words" if parent is not None and parent.type in _WORDS else "word"


def arithmetic_refusal(template: str, arguments: str) -> str:
    """Why the line may not run with these arguments ("" when it may): one holds ``[`` and the
    line may do arithmetic, where bash would run the ``$(…)`` of a subscript in it."""
    if "[" in arguments and ARG.search(template) and _ARITHMETIC.search(template):
        return (
            "an argument holds '[' and the line may do arithmetic, where bash runs the code in "
            "a subscript (a[$(…)]) of a value"
        )
    return ""
