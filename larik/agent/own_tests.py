"""The request's tests, written first by the model (``[models] own_tests``; issue 24).

On seven of the bench's eleven tasks the project's tests pass before any change: they do not
check the request, so a small model's first edit "passes" and the turn ends, right or wrong
(an LRU that still evicts on ``>``, a ``--top`` with no positive check). Where a check did
fail — ``make-suite-pass``'s two failing tests, with where to look — the 1.5B model fixed both
bugs in three runs of three. So when nothing fails before the change, the model is first asked
for tests of what the request asks, in :data:`FILE` at the project's root; the harness runs
them on the code as it is:

* some fail: they check the change. They are kept as a check after the project's own tests,
  their failure goes with the request for the edit, and the rounds go on as for any failing
  test;
* all pass: asked for once more, as tests of what the code does not do yet (the 1.5B model's
  first tests of an LRU put and got one key, which the broken cache did right); then as below;
* all pass again, none ran, or they do not run (a syntax error, an import that fails to collect):
  they check nothing of the change, and are dropped; the model is told so in a line, and asked
  for the edit as without them.

The file is the harness's, not the project's: written only where no file of that name is (not
over a user's file, not through a link), and as the model's own write_file call would be, through
the tool runner: a ``write_file`` deny rule or a question holds, hooks see it, the checkpoint
comes first (:func:`.edit_turn._write_own`). It is never edited by the model's replies (refused
with the reason), and removed when the turn ends however it ends. Its name is not pytest's ``test_*.py``,
so the project's own ``pytest`` never collects it; it runs by name, sandboxed like any test.
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

from .edit_context import OWN_TESTS as FILE
from .edit_files import remove_own
from .pysyntax import parse

__all__ = [
    "AGAIN",
    "ASK",
    "COMMAND",
    "FILE",
    "START",
    "broken",
    "code_of",
    "free",
    "mistake",
    "remove",
    "verdict",
    "without",
]

COMMAND = f"python -m pytest -q --tb=short -p no:cacheprovider {FILE}"
START = f"{FILE}\n```python\n"
ASK = (
    f"Before any change: write pytest tests of what the request asks, in {FILE} (it is run "
    "from the project's root, so import the project's modules by name). Each test calls the "
    "code as the request describes and asserts the result the request asks for; they must "
    "fail on the code as it is now. The file stands alone: import or define every name it "
    "uses. Reply with "
    f"{FILE} alone on a line, then a fenced code block (```python) holding the file."
)
AGAIN = (
    "Your tests pass on the code as it is now, so they do not check the change. The request "
    "asks for behaviour the code does not have yet: write tests of that behaviour (the calls "
    f"the request describes, with the results it asks for), in {FILE} again, the whole file."
)
_FENCED = re.compile(r"```[\w+-]*\n(.*?)(?:\n```|\Z)", re.S)
_TEST = re.compile(r"^\s*(?:async\s+)?def test_\w*\(", re.M)


def code_of(text: str) -> str | None:
    """The test file a reply holds: its first fenced block (the reply begun with
    :data:`START` included), when it parses and defines a test; else None."""
    m = _FENCED.search(text)
    code = m.group(1) if m else ""
    if not _TEST.search(code) or parse(code) is None:
        return None
    return code if code.endswith("\n") else code + "\n"


def free(root: Path, code: str | None) -> str:
    """Why ``code`` cannot become :data:`FILE` at ``root`` ("" when it can): no code, or a
    file (or a link) of that name the project has. The write itself is a write_file call
    through the tool runner (:mod:`.edit_turn`), as the model's own would be."""
    if code is None:
        return "your reply held no test file that Python can parse"
    if os.path.lexists(root / FILE):
        return f"the project already has a {FILE}, which is not the harness's to replace"
    return ""


def verdict(exit_code: int | None) -> str:
    """Whether tests that ran with ``exit_code`` on the unchanged code check the change: ""
    when some failed (pytest's 1), else why they are dropped."""
    if exit_code == 1:
        return ""
    if exit_code == 0:
        return "they pass on the code as it is now, so they do not check the change"
    if exit_code is None:
        return "they could not be run"
    return f"they did not run (pytest's exit code {exit_code}: an error before any test ran)"


def remove(root: Path) -> None:
    """Take :data:`FILE` away (the link itself, were a command to have made it one)."""
    remove_own(root, FILE)


_SECTION = re.compile(r"^_{3,} (?:ERROR at setup of )?(\S+) _{3,}$", re.M)
_FRAME = re.compile(r"^(\S+?\.py):\d+: in ", re.M)
_ERROR = re.compile(r"^E\s+(\w+)(?::|$)", re.M)


def broken(output: str) -> list[str]:
    """The tests of ``output`` that failed on their own mistake, not on the code: a name the
    test file uses and never defines (a ``NameError`` raised in :data:`FILE` itself: the 1.5B
    model called the project's test helper ``run`` without importing it), or an error while
    setting the test up (a fixture that does not exist)."""
    heads = list(_SECTION.finditer(output))
    out: list[str] = []
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(output)
        body = output[head.end() : end]
        frames = _FRAME.findall(body)
        error = _ERROR.search(body)
        setup = "ERROR at setup of" in head.group(0)
        own = error is not None and error.group(1) == "NameError" and frames[-1:] == [FILE]
        if setup or own:
            out.append(head.group(1))
    return out


def without(code: str, names: list[str]) -> str | None:
    """``code`` without its top-level test functions ``names``; None when no test is left."""
    tree = parse(code)
    if tree is None:
        return None
    lines = code.splitlines(keepends=True)
    defs = (ast.FunctionDef, ast.AsyncFunctionDef)
    drop = [n for n in tree.body if isinstance(n, defs) and n.name in names]
    for node in reversed(drop):
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1
        del lines[first : node.end_lineno]
    left = "".join(lines)
    return left if drop and _TEST.search(left) else None


def mistake(output: str) -> str:
    """Why tests that all failed on their own mistakes are dropped."""
    error = next((line for line in output.splitlines() if line.startswith("E ")), "")
    said = f" ({error[1:].strip()})" if error else ""
    return f"they fail on their own mistakes{said}, not on the code"
