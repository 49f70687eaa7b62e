"""The language-server tests' own settings."""

from __future__ import annotations

import pytest

from tests.patience import WAIT


@pytest.fixture(autouse=True)
def _snapshots_never_too_slow(monkeypatch: pytest.MonkeyPatch) -> None:
    """A session stops looking for the files a command changed once the project's snapshot
    took longer than ``SLOW_SNAPSHOT`` (2 s): on a loaded machine a test's small project
    crossed it, and the command's files went unchecked. Here it is the suite's ceiling; the
    rule itself is a product bound no test here times."""
    from larik.lsp import session

    monkeypatch.setattr(session, "SLOW_SNAPSHOT", WAIT)
