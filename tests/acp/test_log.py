"""``larik acp``'s log on stderr (the editor keeps it in its own log) masks every key Larik
knows, as what goes to the client does: an exception's text may carry one."""

from __future__ import annotations

import io
import logging
import sys

import pytest

from larik.acp import server
from larik.llm import secrets

KEY = "Qx7vT1mR4pW2zK9d"


@pytest.fixture
def root_logger():
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:], root.level = handlers, level


@pytest.mark.parametrize("debug", ["", "1"])
def test_a_logged_error_carrying_a_key_is_masked(root_logger, monkeypatch, debug):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)  # in the test: capture resets it between phases
    monkeypatch.setenv(server.DEBUG_ENV, debug)
    secrets.remember(KEY)
    server._logging()
    try:
        raise RuntimeError(f"GET https://api.example/v1?key={KEY} failed")
    except RuntimeError as e:
        logging.getLogger("larik.acp").error("internal error", exc_info=e)
    said = err.getvalue()
    assert "internal error" in said and "RuntimeError" in said
    assert KEY not in said and "key=***" in said
