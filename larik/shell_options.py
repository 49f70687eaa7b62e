"""How a program reads its options, as GNU ``getopt_long`` reads them — for the permission rules.

Two questions are asked of a command's words, and both are answered here, once:

- **Where does the command a wrapper runs begin?** (``timeout -s KILL 5 rm …``, ``ionice -c2 -n7
  rm …``.) :func:`scan` reads the words with a program's :class:`Options` exactly as getopt does:
  a cluster of short options (``-tn7`` is ``-t -n 7``), a value attached (``-n7``, ``--class=2``)
  or in the next word (``-n 7``, ``--class 2``), an optional value only when attached
  (``-m::``), ``--`` ending the options, and a long option written as any unambiguous prefix of
  its name (``--adj=5`` is ``--adjustment=5``). Without ``+`` options may follow operands (GNU
  permutation). A word it cannot read the way the program would — an option it does not know, an
  ambiguous prefix, a word known only when it runs — makes it answer None: the caller then says
  it cannot tell, which asks.
- **Does a command get a dangerous option?** (``sort --outp=F`` writes F, ``sort
  --compress-prog=sh`` runs sh.) :func:`abbreviates` says whether an option as written may be a
  given long option: any non-empty prefix counts, whether or not it is unambiguous among the
  program's other options — the safe direction, for a table that lists only what must not pass.

Nothing here imports tree-sitter; words come in as values (``None``: known only when it runs).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["Given", "Options", "Scan", "abbreviates", "long_name", "scan"]

Kind = Literal[
    "flag", "value", "attached"
]  # no value; a value (attached or next word); attached only


def abbreviates(written: str, name: str) -> bool:
    """Whether the option word ``written`` (``--outp``, ``--outp=F``) may be the long option
    ``name`` (``--output``): its name is a non-empty prefix of it. GNU getopt and git's
    parse-options both take any unambiguous prefix; this answers yes for ambiguous ones too."""
    given = written.split("=", 1)[0]
    return given.startswith("--") and len(given) > 2 and name.startswith(given)


def long_name(written: str, names: Iterable[str]) -> str | None:
    """The first of ``names`` that ``written`` may be (see :func:`abbreviates`), or None."""
    return next((n for n in names if abbreviates(written, n)), None)


def _kinds(spec: str, *, long: bool) -> dict[str, Kind]:
    out: dict[str, Kind] = {}
    if long:
        for item in spec.split():
            kind: Kind = (
                "value" if item.endswith("=") else "attached" if item.endswith("?") else "flag"
            )
            out["--" + item.rstrip("=?")] = kind
        return out
    i = 0
    while i < len(spec):
        c = spec[i]
        colons = len(spec[i + 1 :]) - len(spec[i + 1 :].lstrip(":"))
        out["-" + c] = "flag" if colons == 0 else "value" if colons == 1 else "attached"
        i += 1 + colons
    return out


@dataclass(frozen=True, slots=True)
class Options:
    """A program's options as getopt_long is given them."""

    short: str = ""
    """getopt's option string: ``"n:c:t"`` (``c:`` takes a value, ``m::`` only an attached one)."""
    long: str = ""
    """The long options: ``"class= ignore mount?"`` (``=`` takes a value, attached with ``=`` or
    in the next word; ``?`` takes one only as ``--mount=x``). ``None`` in :attr:`open_long`."""
    stop: bool = True
    """Options end at the first operand (getopt's ``+``, what a wrapper needs); False: GNU
    permutation, options anywhere before ``--``."""
    numeric: bool = False
    """``-10``, ``--10`` and ``-+10`` are an option (nice's old adjustment)."""
    dash: bool = False
    """A lone ``-`` is an option (env's ``-``, su's login ``-``), not an operand."""
    open_long: bool = False
    """Any ``--name`` or ``--name=value`` is one option word taking no separate value (firejail,
    valgrind); the long list is not needed."""
    shorts: dict[str, Kind] = field(init=False, repr=False, compare=False)
    longs: dict[str, Kind] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "shorts", _kinds(self.short, long=False))
        object.__setattr__(self, "longs", _kinds(self.long, long=True))

    def resolve(self, written: str) -> tuple[str, Kind] | None:
        """A long option word's full name and kind: the exact name, else the one name it is a
        prefix of; None when it is none or several (getopt refuses an ambiguous prefix)."""
        given = written.split("=", 1)[0]
        if self.open_long:
            return given, "attached"
        if given in self.longs:
            return given, self.longs[given]
        found = [n for n in self.longs if n.startswith(given)]
        return (found[0], self.longs[found[0]]) if len(found) == 1 else None


@dataclass(frozen=True, slots=True)
class Given:
    """One option as given: its full name, its value, and the words it took (``first`` to
    ``last``); ``alone`` when its word held no other option before it (not ``-iS``)."""

    name: str
    value: str | None
    first: int
    last: int
    alone: bool = True


@dataclass(frozen=True, slots=True)
class Scan:
    """What :func:`scan` read: each option given, the indices of the operands (for a program
    that stops at its first operand, everything from there on), and where the ``--`` that
    ended the options stood (None: none did)."""

    options: tuple[Given, ...]
    operands: tuple[int, ...]
    dashdash: int | None = None

    def given(self, names: frozenset[str]) -> list[str | None]:
        """The values of the options among ``names`` that were given, in order."""
        return [g.value for g in self.options if g.name in names]


def _numeric(v: str) -> bool:
    body = v[1:]
    if body[:1] in ("-", "+"):
        body = body[1:]
    return body[:1].isdigit()


def scan(values: Sequence[str | None], o: Options, start: int = 1) -> Scan | None:
    """Read ``values[start:]`` as the program would (see the module); None when it cannot be
    told how. A value of None (a word known only when it runs) where an option or an option's
    value may stand is such a case: it could be one, or split into several."""
    options: list[Given] = []
    operands: list[int] = []
    dashdash: int | None = None
    i = start
    while i < len(values):
        v = values[i]
        if v is None:
            return None
        if v == "--":
            dashdash = i
            operands.extend(range(i + 1, len(values)))
            break
        if v == "-" and o.dash:
            options.append(Given("-", None, i, i))
            i += 1
            continue
        if not v.startswith("-") or v == "-":
            if o.stop:
                operands.extend(range(i, len(values)))
                break
            operands.append(i)
            i += 1
            continue
        if o.numeric and _numeric(v):
            options.append(Given("-#", v.lstrip("-+"), i, i))
            i += 1
            continue
        if v.startswith("--"):
            got = o.resolve(v)
            if got is None:
                return None
            name, kind = got
            _, eq, value = v.partition("=")
            if kind == "flag" and eq:
                return None  # getopt refuses a value for a flag: it runs nothing
            if kind == "value" and not eq:
                nxt = values[i + 1] if i + 1 < len(values) else None
                if nxt is None:  # missing, or known only when it runs (it may split in words)
                    return None
                options.append(Given(name, nxt, i, i + 1))
                i += 2
                continue
            options.append(Given(name, value if eq else None, i, i))
            i += 1
            continue
        j = 1
        while j < len(v):
            name = "-" + v[j]
            kind_ = o.shorts.get(name)
            if kind_ is None:
                return None
            if kind_ == "flag":
                options.append(Given(name, None, i, i, j == 1))
                j += 1
                continue
            rest = v[j + 1 :]
            if kind_ == "value" and not rest:
                nxt = values[i + 1] if i + 1 < len(values) else None
                if nxt is None:
                    return None
                options.append(Given(name, nxt, i, i + 1, j == 1))
                i += 1
            else:
                options.append(Given(name, rest or None, i, i, j == 1))
            break
        i += 1
    return Scan(tuple(options), tuple(operands), dashdash)
