"""Reading one wrapper's words with its entry in :data:`.shell_wrappers.WRAPPERS`: the command
it runs, the shell lines and programs its options name, the variables it sets.

:func:`unwrap` answers None for what it cannot read as the program would (an unknown option, an
ambiguous prefix, ``$X`` where an option or an operand may stand): the caller cannot tell which
command runs, which asks when a deny rule is in force. :func:`option_commands` finds what a
program that is not a wrapper runs because of an option (:data:`.shell_wrappers.OPTION_COMMANDS`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .shell_options import Scan, long_name, scan
from .shell_words import Word, assignment_name
from .shell_wrappers import OPTION_COMMANDS, CommandWrapper

__all__ = ["Unwrapped", "option_commands", "unwrap"]


@dataclass(slots=True)
class Unwrapped:
    """What one wrapper runs, as its words say."""

    command: list[Word] = field(default_factory=list)  # the argv it runs ([]: none)
    lines: list[str] = field(default_factory=list)  # shell command lines it runs
    programs: list[Word] = field(default_factory=list)  # programs its options name
    sets: list[str] = field(default_factory=list)  # environment variables it sets
    doubts: list[str] = field(default_factory=list)  # what cannot be told
    changes_dir: bool = False
    writes: bool = False
    fed: bool = False


_ENV_SPLIT_PLAIN = re.compile(r"[^\\'\"$#]*")


def _split(words: list[Word], w: CommandWrapper) -> list[Word] | None:
    """env -S: the words with each -S value split into words in its place, as env does before
    it reads on (None: quoting, escapes or ``${VAR}`` in it, which only env reads)."""
    for _ in range(8):
        got = scan([x.value for x in words], w.options)
        at = next((g for g in got.options if g.name in w.splits), None) if got else None
        if at is None:
            return words
        if at.value is None or not at.alone or not _ENV_SPLIT_PLAIN.fullmatch(at.value):
            return None
        pieces = [Word(p, p) for p in at.value.split()]
        words = [*words[: at.first], *pieces, *words[at.last + 1 :]]
    return None


def _joined(words: list[Word]) -> str | None:
    values = [w.value for w in words]
    return None if any(v is None for v in values) else " ".join(v for v in values if v is not None)


def unwrap(name: str, w: CommandWrapper, words: list[Word]) -> Unwrapped | None:
    """What the wrapper ``words[0]`` (named ``name``) runs; None when it cannot be told."""
    if w.opaque:
        return Unwrapped(doubts=[w.opaque])
    if w.splits:
        split = _split(words, w)
        if split is None:
            return None
        words = split
    lead = 0
    while lead < w.lead and 1 + lead < len(words):
        v = words[1 + lead].value
        if v is None:
            return None
        if v.startswith("-"):
            break
        lead += 1
    got = scan([x.value for x in words], w.options, 1 + lead)
    if got is None:
        return None
    out = Unwrapped()
    if not _options(got, w, out):
        return None
    if got.given(w.queries):
        return out
    rest = [words[i] for i in got.operands]
    after = [] if got.dashdash is None else words[got.dashdash + 1 :]
    return _command(name, w, got, rest, after, out)


def _options(got: Scan, w: CommandWrapper, out: Unwrapped) -> bool:
    """The side effects of the options given: shell lines, programs, variables, directory."""
    for value in got.given(w.strings):
        if value is None:
            return False
        out.lines.append(value)
    for value in got.given(w.programs):
        if value is None:
            return False
        out.programs.append(Word(value, value))
    for value in got.given(w.sets):
        if value is None:
            return False
        out.sets.append(value.split("=", 1)[0])
    out.changes_dir = w.moves or bool(got.given(w.chdir))
    out.writes = bool(got.given(w.writes))
    out.fed = w.fed
    return True


def _command(
    name: str,
    w: CommandWrapper,
    got: Scan,
    rest: list[Word],
    after: list[Word],
    out: Unwrapped,
) -> Unwrapped | None:
    if w.shape == "script":
        if after:
            line = _joined(after)
            if line is None:
                return None
            out.lines.append(line)
        elif not out.lines and w.bare_shell:
            out.doubts.append(f"{name} with no command runs a shell that reads its input")
        return out
    if w.shape == "user" and not got.given(w.argv):
        rest = rest[1:]  # the user
        if not out.lines:
            if rest:
                out.command = [Word("sh", "sh"), *rest]  # the user's shell, given the rest
            elif w.bare_shell:
                out.doubts.append(f"{name} with no command runs a shell that reads its input")
        return out
    operands = 0 if got.given(w.no_operands) else w.operands
    if w.number_operand and len(rest) > 1 and (rest[0].value or "").isdigit():
        operands = 1
    if any(x.value is None for x in rest[:operands]):
        return None  # known only when it runs: it may be several words
    if len(rest) < operands:
        return out  # no command (flock FD), or a usage error: nothing runs
    rest = rest[operands:]
    if rest and w.strings and rest[0].value in w.strings:  # flock FILE -c LINE, sg GROUP -c LINE
        if len(rest) < 2 or rest[1].value is None:
            return None
        out.lines.append(rest[1].value)
        return out
    if w.assignments:
        while rest and (var := assignment_name(rest[0].value or "")):
            out.sets.append(var)
            rest = rest[1:]
    if w.ends:
        end = next((k for k, x in enumerate(rest) if x.value in w.ends), len(rest))
        rest = rest[:end]
    if not rest:
        if w.bare_shell and not out.lines:
            out.doubts.append(f"{name} with no command runs a shell that reads its input")
        return out
    if w.shape == "line" and not got.given(w.argv):
        line = _joined(rest)
        if line is None:
            return None
        out.lines.append(line)
        return out
    out.command = rest
    return out


def option_commands(name: str, words: list[Word]) -> list[tuple[str, str | None]]:
    """What a program that is not a wrapper runs because of its options: each as (``line`` or
    ``program``, its text — None when known only when it runs). A long option counts in any
    abbreviation, a short one anywhere in a cluster (the safe direction)."""
    table = OPTION_COMMANDS.get(name)
    if not table:
        return []
    longs = [o for o in table if o.startswith("--")]
    shorts = {o[1]: o for o in table if not o.startswith("--")}
    found: list[tuple[str, str | None]] = []
    for k in range(1, len(words)):
        v = words[k].value
        nxt = words[k + 1].value if k + 1 < len(words) else None
        if v is None:
            continue
        if v == "--":
            break
        opt: str | None = None
        value: str | None = None
        if v.startswith("--"):
            opt = long_name(v, longs)
            value = v.split("=", 1)[1] if "=" in v else nxt
        elif v.startswith("-") and len(v) > 1:
            at = next((j for j in range(1, len(v)) if v[j] in shorts), None)
            if at is not None:
                opt = shorts[v[at]]
                value = v[at + 1 :] or nxt
        if opt is None:
            continue
        kind = table[opt]
        if kind == "exec":
            if value is None:
                found.append(("line", None))
            elif value.startswith("exec="):
                found.append(("line", value[5:]))
            continue
        found.append((kind, value))
    return found
