"""A folded tool card's one line says what the call came to: an edit's lines added and removed
(``+1 −1``), a refusal's reason — on the real Agent with real tools, live and from the archive."""

from __future__ import annotations

from pathlib import Path

import pytest

from larik.config import Config
from larik.tui.widgets.tool_card import ToolCard, denial_reason, diff_counts, outcome

from .conftest import ready, screen_text, send, turn_done, wait_for
from .test_real_agent import Real


@pytest.fixture
def real(tmp_path: Path) -> Real:
    return Real(tmp_path)


EDIT = {
    "name": "edit_file",
    "input": {"path": "app.py", "old_string": "x = 1", "new_string": "x = 2"},
    "id": "e1",
}
READ = {"name": "read_file", "input": {"path": "app.py"}, "id": "r1"}
WRITE = {"name": "write_file", "input": {"path": "secret.txt", "content": "hi\n"}, "id": "w1"}


async def test_a_folded_edit_card_shows_the_lines_it_added_and_removed(real: Real):
    (real.cwd / "app.py").write_text("x = 1\ny = 3\n")
    real.config = Config.model_validate({"permissions": {"mode": "edits"}})
    app = real.app([{"tool_calls": [READ]}, {"tool_calls": [EDIT]}, {"text": "Changed x."}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "set x to 2")
        await turn_done(pilot)
        card = app.query(ToolCard).last()
        assert card.tool_name == "edit_file" and card.status == "ok" and card.collapsed
        await wait_for(pilot, lambda: "+1 −1" in screen_text(app), timeout=60)
        header = card.header_of(card.tool_name, card.summary, card.status, card.data)
        assert "+1 −1" in header.plain


async def test_a_folded_denied_card_shows_why_it_was_refused(real: Real):
    real.config = Config.model_validate({"permissions": {"deny": ["write_file: secret.txt"]}})
    app = real.app([{"tool_calls": [WRITE]}, {"text": "Understood."}])
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "write secret.txt")
        await turn_done(pilot)
        card = app.query_one(ToolCard)
        assert card.status == "denied" and card.collapsed
        assert denial_reason(card.result).startswith("denied by the rule 'write_file: secret.txt'")
        line = "denied: by the rule 'write_file: secret.txt'"
        assert line in card.header_of(card.tool_name, card.summary, card.status, card.data).plain
        await wait_for(pilot, lambda: line in screen_text(app), timeout=60)


def test_a_resumed_denied_call_keeps_its_reason_and_a_long_one_is_cut():
    status, data = outcome(
        "permission denied: the user declined this bash call: " + "x" * 200, True
    )
    assert status == "denied" and data["reason"].startswith("the user declined this bash call")
    assert len(data["reason"]) == 80 and data["reason"].endswith("…")


def test_diff_counts_leave_out_the_file_headers():
    diff = "--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n-x = 1\n+x = 2\n+z = 0\n y = 3\n"
    assert diff_counts(diff) == (2, 1)


async def test_a_folded_failed_card_shows_why_the_tool_refused(real: Real):
    (real.cwd / "app.py").write_text("x = 1\n")
    write = {"name": "write_file", "input": {"path": "app.py", "content": "x = 2\n"}, "id": "w2"}
    real.config = Config.model_validate({"permissions": {"mode": "edits"}})
    app = real.app([{"tool_calls": [write]}, {"text": "I will read it first."}])
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "set x to 2")
        await turn_done(pilot)
        card = app.query_one(ToolCard)
        assert card.status == "error" and card.collapsed
        line = card.header_of(card.tool_name, card.summary, card.status, card.data).plain
        assert "app.py has not been read in this session" in line
        assert "write_file: app.py has not" not in line  # the tool's name is said once
        await wait_for(pilot, lambda: "has not been read" in screen_text(app), timeout=60)


def test_a_failure_with_an_exit_code_says_the_code_not_a_reason():
    status, data = outcome("boom\n[exit code 2]", True, {"exit_code": 2})
    assert status == "error" and "reason" not in data


def test_a_failure_that_starts_with_a_file_name_keeps_it():
    _, data = outcome("app.py: line 3 is not valid Python", True)
    assert data["reason"] == "app.py: line 3 is not valid Python"
    _, data = outcome("write_file: app.py has not been read in this session", True)
    assert data["reason"] == "app.py has not been read in this session"
