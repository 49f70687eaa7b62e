"""The edit workflow's repairs of a small model's whole-file reply (:mod:`.edit_turn`).

A 1.5B model writing a whole file leaves out what it was not thinking about: the definitions
beside the one it wrote (:func:`keep_left_out`), and the docstring whose examples are the
edit's own check (:func:`keep_examples`). Both put back what was lost, and say what.
"""

from __future__ import annotations

import ast
import builtins
import re
import textwrap
from collections.abc import Callable
from typing import Any

from ..words import count
from .examples import DOCTEST_LINE
from .pysyntax import parse

__all__ = [
    "CHANGE_EXAMPLES",
    "fragment",
    "KEEP_TESTS",
    "hidden_methods",
    "keep_examples",
    "keep_left_out",
    "keep_renamed",
    "methods_into",
    "keeps_tests",
    "said_anew",
]


def keep_left_out(old: str, new: str, request: str) -> tuple[str, list[str]]:
    """``new`` with the top-level functions and classes of ``old`` that it left out appended
    (their source as it was), and their names. A small model writing a whole file drops the
    definitions it was not thinking about (``word_count`` beside the ``slugify`` it wrote),
    which breaks every import of them; a name the request mentions (a rename, a removal) is
    meant to go and is not kept. Nothing is kept unless both texts parse."""
    before, after = parse(old), parse(new)
    if before is None or after is None:
        return new, []
    words = set(re.findall(r"\w+", request))
    have = {n.name for n in after.body if isinstance(n, _DEFS)}
    lines = old.splitlines()
    kept: list[str] = []
    parts: list[str] = []
    for node in before.body:
        if not isinstance(node, _DEFS) or node.name in have or node.name in words:
            continue
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        parts.append("\n".join(lines[start - 1 : node.end_lineno]))
        kept.append(node.name)
    if parts:
        new = new.rstrip("\n") + "\n\n\n" + "\n\n\n".join(parts) + "\n"
    return _keep_imports(before, lines, new, words, kept)


def fragment(old: str, new: str) -> str:
    """Why a whole file ``new`` is a piece of ``old``, not all of it ("" when it is not): it
    defines nothing where ``old`` defines functions or classes, and is less than half its
    length (the 1.5B model's "whole file" was the one line it changed,
    ``text = re.sub(…).lower()``, and ``slugify`` would have gone)."""
    before, after = parse(old), parse(new)
    if before is None or after is None or any(isinstance(n, _DEFS) for n in after.body):
        return ""
    names = [n.name for n in before.body if isinstance(n, _DEFS)]
    lines = [x for x in new.splitlines() if x.strip()]
    if not names or 2 * len(lines) >= len([x for x in old.splitlines() if x.strip()]):
        return ""
    return (
        f"a piece of the file, not all of it ({count(len(lines), 'line')}, where the file defines "
        f"{', '.join(names)}): write the whole file, or a search/replace block for those lines"
    )


#: "Rename the function `calc_total` in billing.py to `compute_total`": the old and new names
RENAME = re.compile(
    r"\brenam\w*\s+(?:the\s+)?(?:function|method|class)?\s*`(?P<old>\w+)`[^`\n]*?\bto\s+"
    r"`(?P<new>\w+)`",
    re.I,
)
#: words that ask for more than a rename (and its callers' update)
_MORE = re.compile(
    r"\b(?:fix|implement|add|change|make|refactor|remove|write|extend|handle|support|replace|"
    r"correct|repair|convert|move|simplif|improv|optimi)\w*",
    re.I,
)


def keep_renamed(old: str, new: str, request: str) -> tuple[str, str]:
    """``new`` with the definition a rename-only request renames as it was in ``old``, under
    its new name, and that name ("" when nothing was put back). Measured: asked to rename
    ``calc_total`` to ``compute_total`` and update its callers, the 1.5B model wrote
    ``compute_total(items)``, its ``tax_rate`` parameter gone, and the project's tests (which
    do not pass a rate) passed. A request that asks for anything more than the rename
    ("rename it and add a parameter") is left to the model, as is a definition that did not
    change but for its name."""
    m = RENAME.search(request)
    if m is None or _MORE.search(RENAME.sub(" ", request)):
        return new, ""
    was, now = m.group("old"), m.group("new")
    before, after = parse(old), parse(new)
    if before is None or after is None:
        return new, ""
    theirs = [n for n in before.body if isinstance(n, _DEFS) and n.name == was]
    mine = [n for n in after.body if isinstance(n, _DEFS) and n.name == now]
    if (
        len(theirs) != 1
        or len(mine) != 1
        or any(
            isinstance(n, _DEFS) and n.name in (was, now) for n in before.body if n is not theirs[0]
        )
    ):
        return new, ""
    source = _source(old, theirs[0])
    renamed = re.sub(rf"\b{re.escape(was)}\b", now, source)
    was_tree, now_tree = parse(renamed), parse(_source(new, mine[0]))
    if was_tree is None or now_tree is None or ast.dump(was_tree) == ast.dump(now_tree):
        return new, ""  # only the name changed: as asked
    lines = new.splitlines(keepends=True)
    node = mine[0]
    start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    lines[start - 1 : node.end_lineno] = [renamed + "\n"]
    return "".join(lines), now


def _source(text: str, node: ast.stmt) -> str:
    """A top-level definition's lines, its decorators included."""
    assert isinstance(node, _DEFS)
    start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return "".join(text.splitlines(keepends=True)[start - 1 : node.end_lineno]).rstrip("\n")


def methods_into(old: str, new: str) -> str | None:
    """``old`` with ``new``'s methods in place of theirs, when ``new`` is methods alone: it does
    not parse as it is (indented), does once dedented, and is only functions, all of them
    methods of one class of ``old``. Measured: asked for one line of ``RingBuffer.peek``, the
    1.5B model wrote the whole method, indented as in the class, which as a file does not
    parse. None when ``new`` is not such a reply."""
    if parse(new) is not None or (before := parse(old)) is None:
        return None
    tree = parse(textwrap.dedent(new))
    if tree is None or not tree.body or not all(isinstance(n, _FUNCS) for n in tree.body):
        return None
    names = [n.name for n in tree.body if isinstance(n, _FUNCS)]
    if len(set(names)) != len(names):
        return None
    homes = []
    for cls in before.body:
        if isinstance(cls, ast.ClassDef):
            have = {n.name: n for n in cls.body if isinstance(n, _FUNCS)}
            if all(name in have for name in names):
                homes.append(have)
    if len(homes) != 1:
        return None
    lines = old.splitlines(keepends=True)
    mine = textwrap.dedent(new).splitlines(keepends=True)
    spans = []
    for node in tree.body:
        assert isinstance(node, _FUNCS)
        theirs = homes[0][node.name]
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        text = "".join(mine[start - 1 : node.end_lineno])
        at = min([theirs.lineno, *(d.lineno for d in theirs.decorator_list)])
        spans.append((at, theirs.end_lineno or at, textwrap.indent(text, " " * theirs.col_offset)))
    for at, end, text in sorted(spans, reverse=True):
        lines[at - 1 : end] = [text if text.endswith("\n") else text + "\n"]
    return "".join(lines)


_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _keep_imports(
    before: ast.Module, lines: list[str], new: str, words: set[str], kept: list[str]
) -> tuple[str, list[str]]:
    """``new`` with the top-level imports of the old file (``before``, ``lines``) that it left
    out and still uses put back at its top (the 1.5B model rewrote ``shop/parser.py`` without
    ``from dataclasses import dataclass`` above the ``@dataclass`` it kept, and no test could
    import the module); ``kept`` with ``the import of NAME`` added."""
    after = parse(new)
    if after is None:
        return new, kept
    bound = set(dir(builtins))
    for node in after.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, _DEFS):
            bound.add(node.name)
        else:
            targets = [t for n in ast.walk(node) if isinstance(n, ast.Assign) for t in n.targets]
            bound |= {t.id for t in targets if isinstance(t, ast.Name)}
    used = {
        n.id for n in ast.walk(after) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    }
    back: list[str] = []
    names: list[str] = []
    for node in before.body:
        if not isinstance(node, ast.Import | ast.ImportFrom) or (
            isinstance(node, ast.ImportFrom) and node.module == "__future__"
        ):
            continue
        binds = [(a.asname or a.name).split(".")[0] for a in node.names]
        need = [b for b in binds if b in used and b not in bound and b not in words and b != "*"]
        if need:
            back.append("\n".join(lines[node.lineno - 1 : node.end_lineno]))
            names += [f"the import of {b}" for b in need]
    if not back:
        return new, kept
    top = [n for n in after.body if _preamble(n, after)]  # the docstring, __future__
    cut = top[-1].end_lineno or 0 if top else 0
    new_lines = new.splitlines(keepends=True)
    head, rest = "".join(new_lines[:cut]).rstrip("\n"), "".join(new_lines[cut:]).lstrip("\n")
    text = (
        (head + "\n\n" if head else "") + "\n".join(back) + "\n" + ("\n\n" + rest if rest else "")
    )
    return text, names + kept


def _preamble(node: ast.stmt, tree: ast.Module) -> bool:
    """A module docstring, or a ``from __future__`` import: what stays above the imports."""
    if node is tree.body[0] and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
        return isinstance(node.value.value, str)
    return isinstance(node, ast.ImportFrom) and node.module == "__future__"


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def keep_examples(old: str, new: str, request: str = "") -> tuple[str, list[str]]:
    """``new`` with the docstrings of ``old`` that hold examples (``>>>``) put back where a
    definition of the same name lost its docstring or changed its examples, and those names.
    The examples are the edit's own check (:mod:`.examples`): a 1.5B model rewriting
    ``slugify`` drops its docstring, and with it the one thing that could tell its edit is
    wrong — and a model that may rewrite an example's expected value can make any edit pass.
    The prose around the examples is the model's to change; a request that asks to change the
    examples (:data:`CHANGE_EXAMPLES`) lets it. Nothing is kept unless both texts parse (and
    the result)."""
    before, after = parse(old), parse(new)
    if before is None or after is None:
        return new, []
    examples = {name: n for name, n in _defined(before) if DOCTEST_LINE.search(_doc(n) or "")}
    if not examples:
        return new, []
    free = bool(CHANGE_EXAMPLES.search(request))
    old_lines, new_lines = old.splitlines(), new.splitlines()
    edits: list[tuple[int, int, list[str]]] = []  # new_lines[start:end] = lines
    names: list[str] = []
    for name, node in _defined(after):
        was = examples.get(name)
        if was is None or not node.body:
            continue
        doc = was.body[0]
        text = old_lines[doc.lineno - 1 : doc.end_lineno]
        first = node.body[0]
        if _doc(node) is None:
            if first.lineno == node.lineno:  # def f(): return 1 — no line to put it before
                continue
            start = end = first.lineno - 1
        elif free or _examples_of(_doc(node)) == _examples_of(_doc(was)):
            continue
        elif len(node.body) > 1 and node.body[1].lineno <= first.end_lineno:  # type: ignore[operator]
            continue  # """doc"""; x = 1 — not lines of its own
        else:
            start, end = first.lineno - 1, first.end_lineno or first.lineno
        pad = " " * first.col_offset
        lines = [pad + line[doc.col_offset :] if line.strip() else "" for line in text]
        edits.append((start, end, lines))
        names.append(name)
    if not edits:
        return new, []
    for start, end, lines in sorted(edits, reverse=True):
        new_lines[start:end] = lines
    out = "\n".join(new_lines) + ("\n" if new.endswith("\n") else "")
    if parse(out) is None:
        return new, []
    return out, names


#: a request that asks for a docstring's examples to change: they are then not kept
CHANGE_EXAMPLES = re.compile(
    r"\b(?:fix|change|update|correct|rewrite|edit|replace|remove|delete|add)\w*\s+"
    r"(?:\w+\s+){0,3}?(?:docstrings?|doctests?|examples?)\b",
    re.I,
)


#: a request that says the tests stay as they are ("Do not change the tests", "Keep the existing
#: tests passing", "without editing the tests"): its test files are the check, not the edit's
KEEP_TESTS = re.compile(
    r"\b(?:(?:do\s+not|don'?t|never|without)\s+(?:\w+\s+){0,2}?"
    r"(?:chang|edit|modif|touch|rewrit|alter|updat)\w*\s+"
    r"(?:(?!but\b|except\b|only\b|other\b)\w+\s+){0,3}?tests?\b"  # not "anything but the tests"
    r"|(?:keep|leave)\s+(?:the\s+)?(?:existing\s+|current\s+)?tests?\b)",
    re.I,
)


def keeps_tests(request: str, path: str) -> bool:
    """Whether the request keeps the test file ``path`` as it is: it says the tests stay, or it
    names that file as the one that must pass ("so that tests/test_x.py passes")."""
    if KEEP_TESTS.search(request):
        return True
    name = re.escape(path.rpartition("/")[2])
    return bool(re.search(rf"(?<![\w/.-])(?:[\w.-]+/)*{name}`?\s+(?:still\s+)?pass", request))


def hidden_methods(text: str, before: str | None = None) -> list[str]:
    """Where a class's code sets ``self.NAME`` for a method ``NAME`` of the same class: the
    instance attribute hides the method, and the tests only show the symptom (``'list' object
    is not callable``). Measured: the 1.5B model's ``IntervalSet.__init__`` set
    ``self.intervals`` (its parameter's name) in every round, hiding ``intervals()``. One line
    each, for the model; [] when the text does not parse. ``before``: the file as it was — what
    it already did is the project's choice (a method meant to be replaced per instance), not
    the edit's mistake, and is not said."""
    if before is not None:
        return said_anew(hidden_methods, text, before)
    tree = parse(text)
    if tree is None:
        return []
    said: list[str] = []
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        methods = {
            n.name for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        }
        for fn in (n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
            for node in ast.walk(fn):
                targets = node.targets if isinstance(node, ast.Assign) else []
                if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                    targets = [node.target]
                for t in targets:
                    if (
                        isinstance(t, ast.Attribute)
                        and isinstance(t.value, ast.Name)
                        and t.value.id == "self"
                        and t.attr in methods
                    ):
                        said.append(
                            f"line {t.lineno}: {cls.name}.{fn.name} sets self.{t.attr}, which "
                            f"hides the method {cls.name}.{t.attr}(): name the attribute "
                            f"differently (self._{t.attr})"
                        )
    return list(dict.fromkeys(said))


def said_anew(check: Callable[[str], list[str]], text: str, before: str) -> list[str]:
    """What ``check`` says of ``text`` ("line N: …" each) that it did not say of ``before``:
    what the file already did is the project's, not the edit's mistake; the same mistake on
    another line (the edit moved it) is not new either."""
    had = {m.split(": ", 1)[1] for m in check(before)}
    return [m for m in check(text) if m.split(": ", 1)[1] not in had]


def _examples_of(doc: str | None) -> list[tuple[str, str]]:
    """A docstring's examples, as doctest reads them: (source, expected output)."""
    import doctest

    try:
        found = doctest.DocTestParser().get_examples(doc or "")
    except ValueError:  # inconsistent indentation: compared as text
        return [(doc or "", "")]
    return [(e.source.strip(), e.want.strip()) for e in found]


def _doc(node: ast.AST) -> str | None:
    return ast.get_docstring(node, clean=False)  # type: ignore[arg-type]


def _defined(tree: ast.Module) -> list[tuple[str, Any]]:
    """The top-level functions and classes, and the classes' methods (``Class.method``)."""
    out: list[tuple[str, Any]] = []
    for node in tree.body:
        if isinstance(node, _DEFS):
            out.append((node.name, node))
            if isinstance(node, ast.ClassDef):
                out += [
                    (f"{node.name}.{n.name}", n)
                    for n in node.body
                    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                ]
    return out
