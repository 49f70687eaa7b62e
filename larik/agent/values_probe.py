"""What a function saw when it returned: the edit workflow's probe (issue 24; :mod:`.seen`).

Run as a script in the project's own Python, under the same sandbox and permission rules as
the tests (the harness's ``bash`` call), never imported by Larik itself. It runs the failing
tests once more with :func:`sys.settrace` on the named functions only, and at each one's last
``return`` in each test records the returned value and the values of the return
expression's parts — names, attributes, subscripts, arithmetic, comparisons and calls of a few
pure builtins (``len``, ``sum`` …); no other call is made. Given the values a failed
comparison expected (``--pair GOT WANT``, literals), it also tries the return expression with
one small change — ``/`` for ``//``, ``<=`` for ``<``, a ``- 1`` left out, a constant one
more or less, a slice left out — and names a change that gives the expected value.

It prints pytest's own quiet report, then one line: ``LARIK-SEEN `` and a JSON object. It
writes nothing (no cache, no bytecode). Python 3.8+, the standard library and pytest only.
"""

from __future__ import annotations

import argparse
import ast
import copy
import importlib.util
import inspect
import json
import os
import sys
import types

MARK = "LARIK-SEEN "
_SUSPENDS = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
SAFE_CALLS = frozenset(
    "abs all any bool float int len list max min repr round set sorted str sum tuple".split()
)
MAX_PARTS = 8  # values shown per return
MAX_REPR = 120  # characters of one value
MAX_VARIANTS = 60  # return expressions tried with one change
_SWAP = {
    ast.FloorDiv: (ast.Div,),
    ast.Div: (ast.FloorDiv,),
    ast.Add: (ast.Sub,),
    ast.Sub: (ast.Add,),
    ast.Lt: (ast.LtE,),
    ast.LtE: (ast.Lt,),
    ast.Gt: (ast.GtE,),
    ast.GtE: (ast.Gt,),
    ast.Eq: (ast.NotEq,),
    ast.NotEq: (ast.Eq,),
    ast.In: (ast.NotIn,),
    ast.NotIn: (ast.In,),
    ast.Is: (ast.IsNot,),
    ast.IsNot: (ast.Is,),
}
_OPS = {
    ast.FloorDiv: "//",
    ast.Div: "/",
    ast.Add: "+",
    ast.Sub: "-",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Is: "is",
    ast.IsNot: "is not",
}
_PLAIN = (
    ast.Name,
    ast.Attribute,
    ast.Subscript,
    ast.Slice,
    ast.Constant,
    ast.BinOp,
    ast.UnaryOp,
    ast.BoolOp,
    ast.Compare,
    ast.IfExp,
    ast.Tuple,
    ast.List,
    ast.Load,
    ast.operator,
    ast.unaryop,
    ast.boolop,
    ast.cmpop,
)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="values_probe")
    parser.add_argument("--func", action="append", default=[], help="FILE:NAME:DEFLINE")
    parser.add_argument("--pair", action="append", nargs=2, default=[], metavar=("GOT", "WANT"))
    parser.add_argument("tests", nargs="*")
    args = parser.parse_args(argv)
    targets = [t for t in (_target(spec) for spec in args.func) if t is not None]
    pairs = [p for p in (_pair(got, want) for got, want in args.pair) if p is not None]
    seen: dict[str, dict[str, dict]] = {}  # test → function → its last return
    state = {"test": ""}

    def local(frame, event, arg):  # type: ignore[no-untyped-def]
        if event == "exception":  # a raise: the return event that may follow is not a return
            raising.add(id(frame))
        elif event == "line":
            raising.discard(id(frame))
        elif event == "return":
            if id(frame) in raising:
                raising.discard(id(frame))
                return local
            for target in targets:
                if target.owns(frame.f_code):
                    record = target.record(frame, arg, pairs)
                    if record is not None:
                        seen.setdefault(state["test"], {})[target.label] = record
        return local

    raising: set[int] = set()

    owned: dict[object, bool] = {}

    def tracer(frame, event, arg):  # type: ignore[no-untyped-def]
        code = frame.f_code
        if code not in owned:
            owned[code] = any(t.owns(code) for t in targets)
        return local if event == "call" and owned[code] else None

    import pytest

    class Plugin:
        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_call(self, item):  # type: ignore[no-untyped-def]
            state["test"] = item.nodeid
            sys.settrace(tracer)
            try:
                yield
            finally:
                sys.settrace(None)

    sys.dont_write_bytecode = True
    flags = ["-q", "--tb=no", "-p", "no:cacheprovider", "-p", "no:randomly"]
    if importlib.util.find_spec("xdist") is not None and not os.environ.get(
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD"
    ):  # loaded: the project's `addopts = -n …` would run the tests elsewhere
        flags += ["-n", "0"]  # (not loaded, `-n` is an argument pytest does not know)
    try:
        pytest.main([*flags, *args.tests], plugins=[Plugin()])
    finally:
        sys.stdout.flush()
        print("\n" + MARK + json.dumps({"tests": seen}, allow_nan=True), flush=True)
    return 0


class _Target:
    def __init__(self, path: str, name: str, line: int, func: ast.AST) -> None:
        self.path, self.name, self.line, self.func = path, name, line, func
        self.label = name
        self.first = min([line, *(d.lineno for d in getattr(func, "decorator_list", []))])
        self.returns = [n for n in _own_nodes(func) if isinstance(n, ast.Return) and n.value]

    def owns(self, code) -> bool:  # type: ignore[no-untyped-def]
        return (
            not code.co_flags & _SUSPENDS  # a yield or an await is a return event too
            and code.co_name == self.name.rsplit(".", 1)[-1]
            and self.first <= code.co_firstlineno <= self.line
            and os.path.realpath(code.co_filename) == self.path
        )

    def record(self, frame, value, pairs):  # type: ignore[no-untyped-def]
        node = next(
            (r for r in self.returns if r.lineno <= frame.f_lineno <= (r.end_lineno or r.lineno)),
            None,
        )
        if node is None or node.value is None:
            return None
        scope = dict(frame.f_globals)
        scope.update(frame.f_locals)
        parts = []
        for part in _parts(node.value, scope):
            try:
                got = _eval(part, scope)
            except Exception:
                continue
            shown = _repr(got)
            if isinstance(got, types.ModuleType) or callable(got) or " at 0x" in shown:
                continue  # a module, a function, an object shown as its address: no value
            text = ast.unparse(part)
            if all(text != t for t, _ in parts):
                parts.append((text, shown))
            if len(parts) == MAX_PARTS:
                break
        fixes = []
        matched = False
        for got, want in pairs:
            if not _same(value, got):
                continue
            matched = True
            for variant, kind, detail in _variants(node.value):
                try:
                    if _same(_eval(variant, scope), want):
                        fixes.append((ast.unparse(variant), _repr(want), kind, detail))
                except Exception:
                    continue
                if len(fixes) == 2:
                    break
            break
        return {
            "line": node.lineno,
            "source": ast.unparse(node),
            "returned": _repr(value),
            "parts": parts,
            "fixes": fixes,
            "matched": matched,  # the value a failed comparison compared
        }


def _target(spec: str) -> _Target | None:
    path, _, rest = spec.rpartition(":")
    path, _, name = path.rpartition(":")
    try:
        line = int(rest)
        real = os.path.realpath(path)
        with open(real, encoding="utf-8") as f:
            tree = ast.parse(f.read())
    except (OSError, ValueError, SyntaxError, RecursionError, MemoryError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno == line:
            return _Target(real, name, line, node)
    return None


def _pair(got: str, want: str):  # type: ignore[no-untyped-def]
    try:
        return ast.literal_eval(got), ast.literal_eval(want)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def _own_nodes(func: ast.AST) -> list[ast.AST]:
    """The nodes of ``func``'s body, not those of functions or classes defined in it."""
    out: list[ast.AST] = []
    todo = list(ast.iter_child_nodes(func))
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        out.append(node)
        todo += list(ast.iter_child_nodes(node))
    return out


def _plain(node: ast.AST, scope: dict) -> bool:
    """Whether evaluating ``node`` runs nothing but the project's own attribute and item reads:
    no call but a pure builtin's (not shadowed), no comprehension, lambda or walrus."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            f = sub.func
            if not (isinstance(f, ast.Name) and f.id in SAFE_CALLS and f.id not in scope):
                return False
            if sub.keywords:
                return False
        elif not isinstance(sub, _PLAIN):
            return False
    return True


def _parts(expr: ast.AST, scope: dict) -> list[ast.expr]:
    """The parts of ``expr`` worth a value, in source order: not constants, not callees."""
    callees = {id(n.func) for n in ast.walk(expr) if isinstance(n, ast.Call)}
    nodes: list[ast.expr] = [
        n
        for n in ast.walk(expr)
        if isinstance(n, (ast.Name, ast.Attribute, ast.Subscript, ast.BinOp, ast.Call, ast.Compare))
        and id(n) not in callees
        and n is not expr
        and _plain(n, scope)
    ]
    return sorted(nodes, key=lambda n: (n.lineno, n.col_offset, -(n.end_col_offset or 0)))


def _eval(node: ast.AST, scope: dict):  # type: ignore[no-untyped-def]
    expr = ast.Expression(body=copy.deepcopy(node))  # type: ignore[arg-type]
    ast.fix_missing_locations(expr)
    return eval(compile(expr, "<probe>", "eval"), {"__builtins__": __builtins__}, scope)


def _variants(expr: ast.AST) -> list[tuple[ast.AST, str, str]]:
    """``expr`` with one small change each, the smallest first, and what the change is:
    ``("index", CONTAINER)`` for a change inside a subscript's index (``self._items``),
    ``("operator", OLD)`` for another operator in place of ``OLD``, ``("other", "")``."""
    if not _plain(expr, {}):
        return []
    inside: dict[int, str] = {}  # a node in a subscript's index → the container's source
    for sub in ast.walk(expr):
        if isinstance(sub, ast.Subscript) and not isinstance(sub.slice, ast.Slice):
            for n in ast.walk(sub.slice):
                inside[id(n)] = ast.unparse(sub.value)
    out: list[tuple[ast.AST, str, str]] = []

    def add(index: int, node: ast.AST, change, kind: str = "other", detail: str = "") -> None:  # type: ignore[no-untyped-def]
        if id(node) in inside:
            kind, detail = "index", inside[id(node)]
        out.append((_replace(expr, index, change), kind, detail))

    for index, node in enumerate(ast.walk(expr)):
        if isinstance(node, ast.BinOp):
            for op in _SWAP.get(type(node.op), ()):
                add(
                    index, node, lambda n, op=op: _with(n, op=op()), "operator", _OPS[type(node.op)]
                )
            if isinstance(node.right, ast.Constant) and type(node.right.value) is int:
                add(index, node, lambda n: n.left)
        elif isinstance(node, ast.Compare) and len(node.ops) == 1:
            for op in _SWAP.get(type(node.ops[0]), ()):
                add(
                    index,
                    node,
                    lambda n, op=op: _with(n, ops=[op()]),
                    "operator",
                    _OPS[type(node.ops[0])],
                )
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            for step in (1, -1):
                value = node.value + step
                add(index, node, lambda n, v=value: ast.Constant(value=v))
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            add(index, node, lambda n: n.value)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            add(index, node, lambda n: n.operand)
        if len(out) >= MAX_VARIANTS:
            break
    return out[:MAX_VARIANTS]


def _with(node: ast.AST, **fields: object) -> ast.AST:
    new = copy.copy(node)
    for key, value in fields.items():
        setattr(new, key, value)
    return new


def _replace(expr: ast.AST, index: int, change) -> ast.AST:  # type: ignore[no-untyped-def]
    """A copy of ``expr`` with its ``index``-th node (in :func:`ast.walk` order) changed."""
    new = copy.deepcopy(expr)
    nodes = list(ast.walk(new))
    target = nodes[index]
    replacement = change(target)
    if target is new:
        return replacement
    for parent in nodes:
        for field, value in ast.iter_fields(parent):
            if value is target:
                setattr(parent, field, replacement)
                return new
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if item is target:
                        value[i] = replacement
                        return new
    return new


def _same(a: object, b: object) -> bool:
    """Equal, and both numbers or of one type (``1 == True`` is not a match)."""
    numbers = (int, float)
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, numbers) and isinstance(b, numbers):
        return a == b
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


def _repr(value: object) -> str:
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    return text if len(text) <= MAX_REPR else text[: MAX_REPR - 1] + "…"


if __name__ == "__main__":
    # as `python -m pytest` runs: the project's folder first, never this script's (Larik's
    # own modules there would shadow the project's)
    sys.path[0] = os.getcwd()
    sys.exit(main(sys.argv[1:]))
