"""A refused call's remedy in the TUI's words (issue 44 item 5): the permission policy says
which mode would allow it, and the card says the command and the key that switch to it — not
print mode's flag. The real Agent on a scripted model, in plan mode."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from larik.agent import Agent
from larik.config import Config
from larik.llm.providers.scripted import ScriptedProvider
from larik.routing import Resolved
from larik.tui.app import LarikApp
from larik.tui.widgets.tool_card import ToolCard

from .conftest import ready, send, turn_done


def _app(tmp_path: Path, turns: list[dict[str, Any]]) -> LarikApp:
    cwd = tmp_path / "project"
    cwd.mkdir()
    (cwd / "calc.py").write_text("a - b\n")
    config = Config.model_validate({"permissions": {"mode": "plan"}})
    provider = ScriptedProvider(turns)

    def resolve(spec: str) -> Resolved:
        return Resolved(provider, "m", "scripted", None, "scripted/m")

    async def factory(*, approver: Any, model: str = "", resume: str | None = None) -> Any:
        return await Agent.create(
            cwd=cwd, config=config, model=model, approver=approver, resume=resume, resolver=resolve
        )

    async def no_local(config: Any = None) -> list:
        return []

    return LarikApp(factory, cwd=cwd, config=config, discover_local=no_local)


async def test_a_refused_edit_says_the_command_and_the_key_that_would_allow_it(tmp_path):
    edit = {"path": "calc.py", "old_string": "a - b", "new_string": "a + b"}
    app = _app(tmp_path, [{"tool_calls": [{"name": "edit_file", "input": edit}]}, {"text": "1."}])
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "fix it")
        await turn_done(pilot)
        card = app.query(ToolCard).last()
        assert card.status == "denied"
        assert card.result.endswith(
            "To allow file changes, switch with /permissions edits or Shift+Tab."
        ), card.result
        assert "--permission-mode" not in card.result
        sent = app.chat.session.agent.messages[2].blocks[0].content  # the model's: no face's words
        assert "the user can switch to the edits permission mode" in sent
