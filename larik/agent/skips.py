"""The line that leaves an item out (issue 24): from a wrong total to the loop that skips a row.

Told that ``python -m shop data/stock.csv`` printed 148.50 where 173.50 was expected, that the
difference is what the file's first row comes to, "as if the code leaves that line out", the
1.5B model still never found ``for item in in_stock(items)[1:]:`` — in three repeats it edited
the data, dropped ``in_stock``, or gave the files back. When the row left out is the first (or
the last) of its file's rows, the code that leaves it out is most often a loop over a slice or
a range that starts one late (or stops one early): ``xs[1:]``, ``range(1, n)``; ``xs[:-1]``,
``range(len(xs) - 1)``. :func:`left_out` finds such loops — the iterable of a ``for`` or a
comprehension, in the project's Python source — and names one when it is the only one, so
the model is pointed at a line and, when a reply leaves it as it was, asked for that line
alone (:mod:`.edit_line`). ``sys.argv[1:]`` is not an item list (it is never a loop's iterable
in practice, and is left out by name).

Only read, never run: the candidates are found by parsing the files as they are now, and a
project with two such loops gets no sentence (which one it is is not known).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass

from .edit_context import is_test_file
from .examples import difference, line_of
from .pysyntax import parse

__all__ = ["Skip", "left_out"]


@dataclass(frozen=True)
class Skip:
    """A loop that leaves the first (or last) item out, and what the model is told of it."""

    path: str
    line: int  # 1-based
    text: str  # the line as it is now
    place: str  # "first" or "last"
    part: str  # the expression that skips it: "in_stock(items)[1:]"
    whole: str = ""  # the same without the skip: "in_stock(items)"

    @property
    def words(self) -> str:
        return (
            f"Line {self.line} of {self.path}, `{self.text.strip()}`, leaves out the "
            f"{self.place} item: {self.how}."
        )

    @property
    def how(self) -> str:
        """``in_stock(items)[1:]`` starts from the second item, where ``in_stock(items)``
        has them all."""
        how = "starts from the second item" if self.place == "first" else "stops before the last"
        return f"`{self.part}` {how}" + (
            f", where `{self.whole}` has them all" if self.whole else ""
        )


def left_out(
    missing: list[str],
    output: str,
    given: Iterable[tuple[str, str]],
    sources: Iterable[tuple[str, str]],
) -> Skip | None:
    """The one loop in ``sources`` (path, text) that leaves out the row of ``given`` a printed
    total lacks (``missing``: the values the output did not show); None when the total is not
    short by exactly the first or last row, or when there is not exactly one such loop."""
    off = difference(missing, output)
    if off is None or float(off[0]) >= float(off[1]):
        return None  # not a number short of the one expected
    row = line_of(abs(float(off[1]) - float(off[0])), given)
    if row is None or not row.place:
        return None
    found: list[Skip] = []
    for path, text in sources:
        if not path.endswith(".py") or is_test_file(path):
            continue
        tree = parse(text)
        if tree is None:
            continue
        lines = text.splitlines()
        for node in ast.walk(tree):
            iters = (
                [node.iter]
                if isinstance(node, ast.For | ast.AsyncFor)
                else [g.iter for g in node.generators]
                if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp)
                else []
            )
            for it in iters:
                got = _skipping(it, row.place, text)
                if got is not None and 0 < it.lineno <= len(lines):
                    line = lines[it.lineno - 1]
                    found.append(Skip(path, it.lineno, line, row.place, *got))
    return found[0] if len(found) == 1 else None


def _skipping(node: ast.expr, place: str, text: str) -> tuple[str, str] | None:
    """The source of the part of a loop's iterable that leaves out its ``place`` item, and
    of that part without the skip, if any: a slice ``[1:]`` (``[:-1]``) of it, or of the
    sequence handed to ``enumerate`` or ``reversed``; ``range(1, …)`` (``range(len(…) - 1)``).
    The sources are the file's own text (``text``), one line of at most :data:`_PART`
    characters, else the loop is none: never :func:`ast.unparse`, which recurses as deep as the
    expression (a hostile file's 500-term sum in a slice raised ``RecursionError``)."""

    def src(n: ast.AST) -> str | None:
        seg = ast.get_source_segment(text, n)
        return seg if seg and len(seg) <= _PART and "\n" not in seg else None

    def both(part: ast.AST, whole: str | None) -> tuple[str, str] | None:
        got = src(part)
        return (got, whole) if got and whole else None

    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id in ("enumerate", "reversed", "list", "sorted") and node.args:
            return _skipping(node.args[0], place, text)
        if node.func.id == "range" and not node.keywords:
            args = node.args
            if place == "first" and len(args) == 2 and _const(args[0], 1):
                stop_src = src(args[1])
                return both(node, f"range({stop_src})" if stop_src else None)
            stop = args[0] if len(args) == 1 else args[1] if len(args) == 2 else None
            if place == "last" and isinstance(stop, ast.BinOp) and _less_one(stop):
                if len(args) == 1 or _const(args[0], 0):
                    left = src(stop.left)
                    return both(node, f"range({left})" if left else None)
        return None
    if not isinstance(node, ast.Subscript) or not isinstance(node.slice, ast.Slice):
        return None
    s = node.slice
    if s.step is not None or _argv(node.value):
        return None
    if place == "first" and _const(s.lower, 1) and s.upper is None:
        return both(node, src(node.value))
    if place == "last" and (s.lower is None or _const(s.lower, 0)) and _const(s.upper, -1):
        return both(node, src(node.value))
    return None


_PART = 120  # characters of a loop's iterable said to the model


def _const(node: ast.expr | None, value: int) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _const(node.operand, -value)
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == value


def _less_one(node: ast.expr) -> bool:
    """``len(…) - 1``."""
    return (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Sub)
        and _const(node.right, 1)
        and isinstance(node.left, ast.Call)
        and isinstance(node.left.func, ast.Name)
        and node.left.func.id == "len"
    )


def _argv(node: ast.expr) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "argv") or (
        isinstance(node, ast.Name) and node.id == "argv"
    )
