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
* all pass, none ran, or they do not run (a syntax error, an import that fails to collect):
  they check nothing of the change, and are dropped; the model is told so in a line, and asked
  for the edit as without them.

The file is the harness's, not the project's: written only where no file of that name is (not
over a user's file, not through a link), never edited by the model's replies (refused with the
reason), and removed when the turn ends however it ends. Its name is not pytest's ``test_*.py``,
so the project's own ``pytest`` never collects it; it runs by name, sandboxed like any test.
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

from .edit_context import OWN_TESTS as FILE
from .pysyntax import parse

__all__ = ["ASK", "COMMAND", "FILE", "START", "code_of", "place", "remove", "verdict"]

COMMAND = f"python -m pytest -q --tb=short -p no:cacheprovider {FILE}"
START = f"{FILE}\n```python\n"
ASK = (
    f"Before any change: write pytest tests of what the request asks, in {FILE} (it is run "
    "from the project's root, so import the project's modules by name). Each test calls the "
    "code as the request describes and asserts the result the request asks for; they must "
    "fail on the code as it is now. Reply with "
    f"{FILE} alone on a line, then a fenced code block (```python) holding the file."
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


def place(root: Path, code: str | None) -> str:
    """Write ``code`` as :data:`FILE` at ``root``: "" when written, else why not."""
    if code is None:
        return "your reply held no test file that Python can parse"
    path = root / FILE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    except FileExistsError:
        return f"the project already has a {FILE}, which is not the harness's to replace"
    except OSError as e:
        return f"{FILE} could not be written ({e.strerror})"
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(code)
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
    with contextlib.suppress(OSError):
        os.unlink(root / FILE)
