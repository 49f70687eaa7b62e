"""Where to look: the project's functions a failing test calls (the edit workflow's pointer).

A failing assertion's traceback ends in the test, not in the code (``assert rb.peek() == "a"``
→ ``assert None == 'a'``), so :func:`blamed` has no source file to name, and a
small model is left to find the wrong function in the whole file: the 1.5B model, told that
``peek`` returned None, fixed ``pop`` and then rewrote ``peek``'s index three times without
looking at what the test asked. :func:`pointer` names the functions and methods of the
project's (shown, non-test) Python files that the failing tests call — the calls on the
failing line first — and shows each one's current source, so the reply starts from the
right place.

It reads pytest's own report: the ``FAILED path::test`` summary lines, the failing line (``>``
in the long traceback, the test file's frame in ``--tb=short``), and the test function's body
in its file. Only files the model was shown are read, as they are now on disk; a test or
source it cannot parse points at nothing.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from .edit_context import Found, is_test_file
from .edit_files import Denied, read_shown
from .pysyntax import parse

__all__ = ["MAX_SUSPECTS", "Suspect", "blamed", "failed_tests", "pointer", "suspects"]

MAX_SUSPECTS = 3  # functions shown; more is a listing, not a pointer
MAX_LINES = 40  # a longer function is named, not shown
_FAILED = re.compile(r"^FAILED (\S+?\.py)::(\S+?)(?: - .*)?$", re.M)
_LONG_LINE = re.compile(r"^>\s+(.+)$", re.M)  # the failing line of a long traceback
_SHORT_FRAME = re.compile(r"^(\S+?\.py):(\d+): in (\w+)\n\s+(.+)$", re.M)


_FRAME = re.compile(r'^\s*([\w./\\-]+\.py):(\d+):|File "([^"\n]+\.py)", line (\d+)', re.M)


def blamed(output: str, root: Path, found: Found) -> tuple[str, int] | None:
    """The source file (not a test) of the project that a test run's traceback ends in, and
    the line: the innermost frame pytest or Python shows in a file the model was shown."""
    shown = {p for p in found.paths if not is_test_file(p)}
    base = root.resolve()
    last: tuple[str, int] | None = None
    for m in _FRAME.finditer(output):
        rest = output[m.end() : output.find("\n", m.end()) % (len(output) + 1)]
        if "DocTestFailure" in rest or "UnexpectedException" in rest:
            continue  # the example's line in the docstring: the wrong line is in the code
        raw, line = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        path = Path(raw)
        if path.is_absolute():
            try:
                rel = path.resolve().relative_to(base).as_posix()
            except (ValueError, OSError):
                continue
        else:
            rel = path.as_posix()
        if rel in shown:
            last = (rel, int(line))
    return last


@dataclass(frozen=True)
class Suspect:
    path: str
    name: str  # "peek" or "RingBuffer.peek"
    line: int
    source: str  # the definition as it is now ("" when too long to show)


def suspects(
    output: str, root: Path, shown: list[str], denied: Denied | None = None
) -> list[Suspect]:
    """The project's functions the failing tests in ``output`` call, the failing line's first.
    Only ``shown`` files are read, and only while they are what a ``read_file`` could show:
    a regular file inside the project after symlinks, not ``denied`` (a test run may have
    replaced one with a link to a file outside, or to one a deny rule covers)."""
    sources = [p for p in shown if p.endswith(".py") and not is_test_file(p)]
    defs = _definitions(root, sources, denied)
    if not defs:
        return []
    wanted: list[str] = []
    for line in _failing_lines(output):
        wanted += [n for n in _calls(line) if n not in wanted]
    for path, test in failed_tests(output):
        if path in shown and is_test_file(path):
            for n in _test_calls(read_shown(root, path, denied), test):
                if n not in wanted:
                    wanted.append(n)
    out: list[Suspect] = []
    for name in wanted:
        for s in defs.get(name, []):
            if s not in out:
                out.append(s)
    return out[:MAX_SUSPECTS]


def pointer(output: str, root: Path, shown: list[str], denied: Denied | None = None) -> str:
    """What the model is told of :func:`suspects` ("" when there are none)."""
    found = suspects(output, root, shown, denied)
    if not found:
        return ""
    names = ", ".join(f"{s.name} ({s.path}, line {s.line})" for s in found)
    parts = [
        f"Where to look: the failing tests call {names}. Check what the test expects "
        "against what the code does, line by line."
    ]
    for s in found:
        if s.source:
            parts.append(f"{s.path}, {s.name}:\n```python\n{s.source}\n```")
    return "\n\n".join(parts)


def failed_tests(output: str) -> list[tuple[str, str]]:
    """The failing tests of pytest's summary in ``output`` (``FAILED path::test``), as (path,
    test), each once, in order."""
    return list(dict.fromkeys(_FAILED.findall(output)))


def _failing_lines(output: str) -> list[str]:
    lines = [m.group(1) for m in _LONG_LINE.finditer(output)]
    lines += [m.group(4) for m in _SHORT_FRAME.finditer(output) if is_test_file(m.group(1))]
    return lines


def _calls(line: str) -> list[str]:
    """The names a source line calls: ``f(x)`` → f, ``obj.m(x)`` → m."""
    text = line.strip()
    for attempt in (text, text + " pass"):  # a failing `with pytest.raises(…):` line
        if (tree := parse(attempt)) is not None:
            return _called(tree)
    return []


def _called(tree: ast.AST) -> list[str]:
    """The called names, in the order the source writes them."""
    calls = sorted(
        (n for n in ast.walk(tree) if isinstance(n, ast.Call)),
        key=lambda n: (n.lineno, n.col_offset),
    )
    out: list[str] = []
    for node in calls:
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        if name and name not in out:
            out.append(name)
    return out


def _test_calls(text: str | None, test: str) -> list[str]:
    """The names the test function ``test`` (``Class::test`` too) calls in its body."""
    tree = parse(text) if text is not None else None
    if tree is None:
        return []
    name = test.split("::")[-1].split("[")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            return _called(node)
    return []


def _definitions(root: Path, sources: list[str], denied: Denied | None) -> dict[str, list[Suspect]]:
    """Function and method name → where it is defined, among ``sources`` (as they are now)."""
    out: dict[str, list[Suspect]] = {}
    for rel in sources:
        text = read_shown(root, rel, denied)
        tree = parse(text) if text is not None else None
        if text is None or tree is None:
            continue
        lines = text.splitlines()
        for node, owner in _functions(tree):
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            body = lines[start - 1 : node.end_lineno or node.lineno]
            source = "\n".join(body) if len(body) <= MAX_LINES else ""
            label = f"{owner}.{node.name}" if owner else node.name
            out.setdefault(node.name, []).append(Suspect(rel, label, node.lineno, source))
    return out


def _functions(tree: ast.Module) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str]]:
    """Top-level functions, and classes' methods by name (a constructor call points nowhere)."""
    out: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str]] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            out.append((node, ""))
        elif isinstance(node, ast.ClassDef):
            out += [
                (item, node.name)
                for item in node.body
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                and not item.name.startswith("__")
            ]
    return out
