"""A function that reads one of its own variables before anything sets it.

Measured (qwen2.5-coder-1.5b, cli-add-flags): rewriting ``main``, the model dropped
``text = fh.read()`` and kept ``text = text.lower()``; the tool crashed with an
UnboundLocalError in a subprocess the test ran, and all the test showed was an empty stdout
(``assert [] == ['2 b', …]``). Three rounds went by with the model looking at the assertion.
:func:`unbound_reads` finds such a read in the edit itself, so the edit workflow can say it
with the line, as it says a method hidden by an attribute (:func:`.edit_repair.hidden_methods`).

The check is deliberately optimistic, to say only what is certain to fail when that line runs:
a name counts as a variable of the function only where the function itself assigns it (a name
it never assigns is a global, a builtin or a closure's, and is not judged); a name set in either
branch of an ``if`` or ``try`` counts as set after it; every name a loop's body sets counts as
set throughout the loop (an earlier iteration may have set it); comprehensions and lambdas are
not looked into; an expression with ``:=`` is not judged for the names it binds.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from .edit_repair import said_anew
from .pysyntax import parse

__all__ = ["unbound_reads"]

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_COMPS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda)


def unbound_reads(text: str, before: str | None = None) -> list[str]:
    """One line per function and variable it reads before setting, for the model; [] when the
    text does not parse. ``before``: the file as it was — what it already did is not said."""
    if before is not None:
        return said_anew(unbound_reads, text, before)
    tree = parse(text)
    if tree is None:
        return []
    said: list[str] = []
    for fn in (n for n in ast.walk(tree) if isinstance(n, _FUNCS)):
        nested = {n for d in ast.walk(fn) if isinstance(d, ast.Nonlocal) for n in d.names}
        local = _assigned(fn.body) - _declared(fn.body) - nested  # a closure may set those
        params = fn.args
        bound = {
            a.arg
            for a in [*params.posonlyargs, *params.args, *params.kwonlyargs]
            + [x for x in (params.vararg, params.kwarg) if x is not None]
        }
        found: dict[str, int] = {}
        _flow(fn.body, bound, local, found)
        for name, line in found.items():
            said.append(
                f"line {line}: {fn.name}() reads `{name}` before anything sets it (an "
                f"UnboundLocalError when that line runs): set `{name}` before it"
            )
    return said


def _flow(body: list[ast.stmt], bound: set[str], local: set[str], found: dict[str, int]) -> None:
    """Walk ``body`` in the order it runs, adding to ``bound`` what it sets; the first read of
    a local variable not yet bound goes into ``found`` (name -> line)."""
    for st in body:
        if isinstance(st, ast.Assign):
            _reads(st.value, bound, local, found)
            for t in st.targets:
                _target(t, bound, local, found)
        elif isinstance(st, ast.AugAssign):
            _reads(st.value, bound, local, found)
            if isinstance(st.target, ast.Name):
                _check(st.target.id, st.target.lineno, bound, local, found)
            _target(st.target, bound, local, found)
        elif isinstance(st, ast.AnnAssign):
            if st.value is not None:
                _reads(st.value, bound, local, found)
                _target(st.target, bound, local, found)
        elif isinstance(st, ast.For | ast.AsyncFor):
            _reads(st.iter, bound, local, found)
            inside = bound | _assigned([st]) & local
            _flow(st.body, inside, local, found)
            _flow(st.orelse, inside, local, found)
            bound |= inside
        elif isinstance(st, ast.While):
            _reads(st.test, bound, local, found)
            inside = bound | _assigned(st.body) & local
            _flow(st.body, inside, local, found)
            _flow(st.orelse, inside, local, found)
            bound |= inside
        elif isinstance(st, ast.If):
            _reads(st.test, bound, local, found)
            yes, no = set(bound), set(bound)
            _flow(st.body, yes, local, found)
            _flow(st.orelse, no, local, found)
            bound |= yes | no
        elif isinstance(st, ast.With | ast.AsyncWith):
            for item in st.items:
                _reads(item.context_expr, bound, local, found)
                if item.optional_vars is not None:
                    _target(item.optional_vars, bound, local, found)
            _flow(st.body, bound, local, found)
        elif isinstance(st, ast.Try | ast.TryStar):
            tried = set(bound)
            _flow(st.body, tried, local, found)
            after = set(tried)
            for h in st.handlers:
                inner = bound | (_assigned(st.body) & local)
                if h.name:
                    inner.add(h.name)
                _flow(h.body, inner, local, found)
                after |= inner
            _flow(st.orelse, tried, local, found)
            after |= tried
            _flow(st.finalbody, after, local, found)
            bound |= after
        elif isinstance(st, _DEFS):
            for d in st.decorator_list:
                _reads(d, bound, local, found)
            bound.add(st.name)
        elif isinstance(st, ast.Import | ast.ImportFrom):
            for a in st.names:
                bound.add((a.asname or a.name).split(".")[0])
        elif isinstance(st, ast.Match):
            _reads(st.subject, bound, local, found)
            bound |= _assigned([st]) & local  # the captures and what the cases set: not judged
            for case in st.cases:
                _flow(case.body, set(bound), local, found)
        elif isinstance(st, ast.Global | ast.Nonlocal | ast.Pass | ast.Break | ast.Continue):
            continue
        else:  # Expr, Return, Raise, Assert, Delete: reads only
            _reads(st, bound, local, found)


def _reads(node: ast.AST, bound: set[str], local: set[str], found: dict[str, int]) -> None:
    names = list(_walk(node))
    walrus = {n.id for n in names if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    for n in names:  # a := target is set once the expression has run, and not judged in it
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in walrus:
            _check(n.id, n.lineno, bound, local, found)
    bound.update(walrus)


def _target(node: ast.AST, bound: set[str], local: set[str], found: dict[str, int]) -> None:
    """An assignment's target: the names it sets, after the reads inside it (``a[i] = …``)."""
    for n in _walk(node):
        if isinstance(n, ast.Name):
            if isinstance(n.ctx, ast.Load):
                _check(n.id, n.lineno, bound, local, found)
            else:
                bound.add(n.id)


def _check(name: str, line: int, bound: set[str], local: set[str], found: dict[str, int]) -> None:
    if name in local and name not in bound and name not in found:
        found[name] = line


def _walk(node: ast.AST) -> Iterator[ast.AST]:
    """``ast.walk`` that does not enter comprehensions, lambdas or nested definitions."""
    todo = [] if isinstance(node, _COMPS + _SCOPES) else [node]
    while todo:
        n = todo.pop()
        yield n
        todo += [c for c in ast.iter_child_nodes(n) if not isinstance(c, _COMPS + _SCOPES)]


def _assigned(body: list[ast.stmt]) -> set[str]:
    """Every name the statements set in their own scope (not in nested functions)."""
    out: set[str] = set()
    todo: list[ast.AST] = list(body)
    while todo:
        n = todo.pop()
        if isinstance(n, _DEFS):
            out.add(n.name)
            continue
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store | ast.Del):
            out.add(n.id)
        elif isinstance(n, ast.alias):
            out.add((n.asname or n.name).split(".")[0])
        elif isinstance(n, ast.ExceptHandler) and n.name:
            out.add(n.name)
        elif isinstance(n, ast.MatchAs | ast.MatchStar) and n.name:
            out.add(n.name)
        elif isinstance(n, ast.MatchMapping) and n.rest:
            out.add(n.rest)
        if isinstance(n, _COMPS):
            continue
        todo += list(ast.iter_child_nodes(n))
    return out


def _declared(body: list[ast.stmt]) -> set[str]:
    """Names the function declares ``global`` or ``nonlocal`` (not its variables)."""
    out: set[str] = set()
    todo: list[ast.AST] = list(body)
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Global | ast.Nonlocal):
            out |= set(n.names)
        if not isinstance(n, _SCOPES):
            todo += list(ast.iter_child_nodes(n))
    return out
