"""The edit workflow's finding step: the files a small model gets in its first message.

A small model lost in a tool loop never finds the file it needs (issue 24); here the harness
finds them. :func:`gather` picks, in this order of importance:

1. the files the request names — a path (``app/settings.py``), a file name (``cache.py``), a
   module (``textutils.slugify``, ``app.errors.SettingsError``, ``python -m shop``), or a name it
   puts in backticks that a file defines (```LRUCache``` → the file with ``class LRUCache``);
2. the project's modules that a named test file imports (``from stats import mean``);
3. when the project is small enough to fit the budget, every other text file.

Only what a ``read_file`` call could show is read: regular files inside the project after
symlinks (:func:`.edit_files.project_files`), not covered by a deny rule, UTF-8 text of at
most :data:`~.edit_files.MAX_BYTES`, each read through :func:`.edit_files.read_shown`. A
request that names ``/etc/passwd`` or ``../secrets.txt`` gets nothing read: a name only ever
matches a file of the project's own listing.

It also picks the command that checks an edit (:func:`check_command`): one the request names in
backticks (```python -m pytest```), else pytest on a test file the request names, else pytest on
the whole project when it has test files, else none.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

from .edit_files import Denied, project_files, read_shown
from .pysyntax import UNPARSABLE
from .verify import TEST_COMMAND

__all__ = [
    "Found",
    "check_command",
    "gather",
    "is_test_file",
]

_TOKEN = re.compile(r"[\w./\\-]+")
_BACKTICKED = re.compile(r"`([^`\n]{1,200})`")
_MODULE_RUN = re.compile(r"python3?\s+-m\s+([\w.]+)")
_IDENT = re.compile(r"[A-Za-z_]\w*")
PYTEST = "python -m pytest -q --tb=short"


@dataclass
class Found:
    files: list[tuple[str, str]] = field(default_factory=list)  # (path, text), in message order
    named: list[str] = field(default_factory=list)  # what the request names (and test imports)
    omitted: list[str] = field(default_factory=list)  # text files that did not fit
    listing: list[str] = field(default_factory=list)  # every file of the project

    @property
    def paths(self) -> list[str]:
        return [p for p, _ in self.files]

    def focus(self) -> str:
        """The one file a block without a path means: the one source file the request names,
        else the project's one source file; "" when that is not clear."""
        named = [p for p in self.named if not is_test_file(p)]
        if len(named) == 1:
            return named[0]
        sources = [p for p in self.paths if p.endswith(".py") and not is_test_file(p)]
        sources = [p for p in sources if not p.endswith("__init__.py")]
        return sources[0] if len(sources) == 1 else ""


#: the file of the request's tests the model writes first (:mod:`.own_tests`): a test file
#: here, though pytest's own patterns do not collect it
OWN_TESTS = "larik_request_check.py"


def is_test_file(path: str) -> bool:
    name = path.rpartition("/")[2]
    return (
        name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
        or path == OWN_TESTS
    )


def gather(root: Path, request: str, budget_chars: int, denied: Denied | None = None) -> Found:
    """The files for the first message, within ``budget_chars`` characters of file text."""
    base = root.resolve()
    listing = project_files(base, denied)
    texts: dict[str, str] = {}
    for rel in listing:
        text = read_shown(base, rel, denied)
        if text is not None:
            texts[rel] = text
    named = _named(request, listing, texts)
    for test in [p for p in named if is_test_file(p)]:
        for dep in _imports(test, texts.get(test, ""), texts):
            if dep not in named:
                named.append(dep)
    found = Found(named=named, listing=listing)
    order = [p for p in texts if p not in named] + [p for p in named if p in texts]
    used = sum(len(texts[p]) for p in named if p in texts)
    keep = set(named)
    for p in order:  # the rest, smallest first, while they fit
        if p in keep:
            continue
        if used + len(texts[p]) <= budget_chars:
            keep.add(p)
            used += len(texts[p])
        else:
            found.omitted.append(p)
    found.files = [(p, texts[p]) for p in order if p in keep and p in texts]
    return found


def check_command(request: str, found: Found) -> str:
    """The command that checks an edit ("" when there is none to run)."""
    for quoted in _BACKTICKED.findall(request):
        if TEST_COMMAND.search(" " + quoted):
            return quoted.strip()
    tests = [p for p in found.named if is_test_file(p) and p.endswith(".py")]
    if tests:
        return f"{PYTEST} {' '.join(tests)}"
    if any(is_test_file(p) and p.endswith(".py") for p in found.listing):
        return PYTEST
    return ""


def _named(request: str, listing: list[str], texts: dict[str, str]) -> list[str]:
    """The project's files the request names, in the order it names them."""
    by_name: dict[str, list[str]] = {}
    for rel in listing:
        by_name.setdefault(rel.rpartition("/")[2], []).append(rel)
    modules = _module_files(listing)
    out: list[str] = []

    def add(rel: str | None) -> None:
        if rel is not None and rel not in out:
            out.append(rel)

    for raw in _TOKEN.findall(request):
        token = raw.strip("./\\-").replace("\\", "/")
        if not token:
            continue
        if token in listing:
            add(token)
            continue
        same = by_name.get(token, [])
        if len(same) == 1:
            add(same[0])
            continue
        parts = token.split(".")
        for n in range(len(parts), 0, -1):  # textutils.slugify -> textutils
            hit = modules.get(".".join(parts[:n]))
            if hit is not None:
                add(hit)
                break
    for mod in _MODULE_RUN.findall(request):  # python -m shop: its __main__ too
        main = modules.get(f"{mod}.__main__")
        add(main)
    for quoted in _BACKTICKED.findall(request):
        for ident in _IDENT.findall(quoted):
            pattern = re.compile(rf"^\s*(?:async\s+)?(?:def|class)\s+{re.escape(ident)}\b", re.M)
            hits = [p for p, t in texts.items() if p.endswith(".py") and pattern.search(t)]
            if len(hits) == 1:
                add(hits[0])
    return out


def _module_files(listing: list[str]) -> dict[str, str]:
    """``a.b`` -> ``a/b.py`` (or ``a/b/__init__.py``) for the project's Python files."""
    out: dict[str, str] = {}
    for rel in listing:
        if not rel.endswith(".py"):
            continue
        mod = rel[:-3].replace("/", ".")
        if mod.endswith(".__init__"):
            out.setdefault(mod[: -len(".__init__")], rel)
        else:
            out[mod] = rel
    return out


def _imports(test: str, source: str, texts: dict[str, str]) -> list[str]:
    """The project's files that ``test`` imports (its source already read)."""
    try:
        tree = ast.parse(source)
    except UNPARSABLE:
        return []
    modules = _module_files(list(texts))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module)
            names += [f"{node.module}.{a.name}" for a in node.names]
    out: list[str] = []
    for name in names:
        parts = name.split(".")
        for n in range(len(parts), 0, -1):
            hit = modules.get(".".join(parts[:n]))
            if hit is not None and hit != test:
                if hit not in out:
                    out.append(hit)
                break
    return out
