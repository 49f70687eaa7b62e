"""/undo, /rewind and /fork in the TUI, on the real Agent with a scripted model, real git and
real files; the project is a git repository whose own state must not change."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from larik.agent import Agent
from larik.config import Config
from larik.llm.providers.scripted import ScriptedProvider
from larik.routing import Resolved
from larik.tui.app import LarikApp
from larik.tui.screens.rewind import ConflictScreen, RewindChoiceScreen, TurnPickerScreen
from larik.tui.widgets.notice import Notice

from ..agent.test_checkpoints import git, tree_digest
from .conftest import ready, screen_text, send, turn_done, wait_for

ORIGINAL = "def add(a, b):\n    return a - b\n"


class Undoable:
    """Apps on the real Agent in yolo mode, in a git project."""

    def __init__(self, root: Path) -> None:
        self.cwd = root / "project"
        self.cwd.mkdir()
        (self.cwd / "calc.py").write_text(ORIGINAL)
        (self.cwd / "keep.txt").write_text("keep me\n")
        git(self.cwd, "init", "-q", "-b", "main")
        git(self.cwd, "add", "-A")
        git(self.cwd, "commit", "-qm", "init")
        git(self.cwd, "branch", "side")
        git(self.cwd, "stash", "list")
        self.git_state = tree_digest(self.cwd / ".git")
        self.provider: ScriptedProvider | None = None
        self.agents: list[Any] = []

    def resolve(self, spec: str) -> Resolved:
        assert self.provider is not None
        return Resolved(self.provider, "model-a", "scripted", None, "scripted/model-a")

    def app(self, turns: list[dict[str, Any]]) -> LarikApp:
        self.provider = ScriptedProvider(turns)
        config = Config()

        async def factory(*, approver: Any, model: str = "", resume: str | None = None) -> Any:
            agent = await Agent.create(
                cwd=self.cwd,
                config=config,
                model=model,
                approver=approver,
                resume=resume,
                resolver=self.resolve,
                permission_mode="yolo",
            )
            self.agents.append(agent)
            return agent

        async def no_local(config: Any = None) -> list:
            return []

        return LarikApp(factory, cwd=self.cwd, config=config, discover_local=no_local)

    def git_untouched(self) -> bool:
        return tree_digest(self.cwd / ".git") == self.git_state


@pytest.fixture
def proj(tmp_path: Path) -> Undoable:
    return Undoable(tmp_path)


def call(name: str, i: int = 1, **args: Any) -> dict:
    return {"tool_calls": [{"name": name, "input": args, "id": f"c{i}"}]}


def reply(text: str = "done") -> dict:
    return {"text": text}


FOUR = [
    call("write_file", 1, path="new.txt", content="new\n"),
    reply("one"),
    call("read_file", 5, path="calc.py"),  # no blind overwrite: the file is read first
    call("write_file", 2, path="calc.py", content="overwritten\n"),
    reply("two"),
    call("edit_file", 3, path="calc.py", old_string="over", new_string="re"),
    reply("three"),
    call("bash", 4, command="rm keep.txt && echo made > made.txt"),
    reply("four"),
]


async def four_turns(pilot: Any) -> None:
    for prompt in ("make new", "overwrite calc", "edit calc", "clean up"):
        await send(pilot, prompt)
        await turn_done(pilot)


async def command(pilot: Any, text: str, cond: Any = None) -> None:
    app = pilot.app
    await send(pilot, text)
    await wait_for(pilot, cond or (lambda: not _undo_running(app)))
    await pilot.pause()


def notices(app: Any) -> list[str]:
    return [str(n.text) for n in app.query(Notice)]


def _undo_running(app: Any) -> bool:
    return any(w.group == "undo" and w.is_running for w in app.chat.workers)


async def test_slash_undo_walks_back_bash_edit_overwrite_and_new_file(proj):
    app = proj.app(FOUR)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await four_turns(pilot)
        cwd = proj.cwd
        assert (cwd / "calc.py").read_text() == "rewritten\n" and (cwd / "made.txt").exists()
        await command(pilot, "/undo")
        assert "took back turn 4: restored keep.txt, made.txt" in screen_text(app)
        assert (cwd / "keep.txt").read_text() == "keep me\n" and not (cwd / "made.txt").exists()
        await command(pilot, "/undo")
        assert (cwd / "calc.py").read_text() == "overwritten\n"
        await command(pilot, "/undo")
        assert (cwd / "calc.py").read_text() == ORIGINAL
        await command(pilot, "/undo")
        assert not (cwd / "new.txt").exists()
        await command(pilot, "/undo")
        assert "nothing to undo" in screen_text(app)
        assert proj.git_untouched()
        assert git(cwd, "status", "--porcelain") == ""


async def test_slash_undo_asks_before_overwriting_a_file_the_user_changed(proj):
    app = proj.app(
        [
            call("read_file", 9, path="calc.py"),
            {
                "tool_calls": [
                    {
                        "name": "write_file",
                        "input": {"path": "calc.py", "content": "a\n"},
                        "id": "1",
                    },
                    {"name": "write_file", "input": {"path": "b.txt", "content": "b\n"}, "id": "2"},
                ]
            },
            reply(),
        ]
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "two files")
        await turn_done(pilot)
        (proj.cwd / "calc.py").write_text("my fix\n")
        await send(pilot, "/undo")
        await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen))
        await wait_for(pilot, lambda: "Keep my changes" in screen_text(app))  # drawn
        assert "calc.py" in screen_text(app)
        await pilot.press("enter")  # the focused choice keeps the user's file
        await wait_for(pilot, lambda: not _undo_running(app))
        assert (proj.cwd / "calc.py").read_text() == "my fix\n"
        assert not (proj.cwd / "b.txt").exists()
        assert "kept your changes to calc.py" in screen_text(app)


async def test_slash_undo_overwrites_only_when_told_to(proj):
    app = proj.app(
        [
            call("read_file", 9, path="calc.py"),
            call("write_file", path="calc.py", content="agent\n"),
            reply(),
        ]
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "change calc")
        await turn_done(pilot)
        (proj.cwd / "calc.py").write_text("my fix\n")
        await send(pilot, "/undo")
        await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: not _undo_running(app))
        assert (proj.cwd / "calc.py").read_text() == "my fix\n"
        assert "nothing was changed" in screen_text(app)
        await send(pilot, "/undo")
        await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen))
        await pilot.press("o")
        await wait_for(pilot, lambda: not _undo_running(app))
        assert (proj.cwd / "calc.py").read_text() == ORIGINAL


async def test_slash_rewind_lists_the_turns_and_restores_the_code_only(proj):
    app = proj.app(FOUR)
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await four_turns(pilot)
        session = app.chat.session.agent.session_id
        await send(pilot, "/rewind")
        await wait_for(pilot, lambda: isinstance(app.screen, TurnPickerScreen))
        await wait_for(pilot, lambda: "make new" in screen_text(app))  # drawn
        shown = screen_text(app)
        assert "clean up" in shown and "keep.txt, made.txt" in shown
        await pilot.press("down", "down", "enter")  # newest first: turn 2
        await wait_for(pilot, lambda: isinstance(app.screen, RewindChoiceScreen))
        await wait_for(pilot, lambda: "before turn 2" in screen_text(app))
        await pilot.press("o")
        await wait_for(pilot, lambda: not _undo_running(app))
        assert (proj.cwd / "calc.py").read_text() == ORIGINAL
        assert (proj.cwd / "new.txt").exists()  # turn 1 stays
        assert (proj.cwd / "keep.txt").exists() and not (proj.cwd / "made.txt").exists()
        assert app.chat.session.agent.session_id == session
        assert proj.git_untouched()


async def test_slash_rewind_conversation_only_forks_and_puts_the_prompt_back(proj):
    app = proj.app(FOUR)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await four_turns(pilot)
        old = app.chat.session.agent
        original = old.transcript_path.read_bytes()
        files = tree_digest(proj.cwd)
        await send(pilot, "/rewind 3")
        await wait_for(pilot, lambda: isinstance(app.screen, RewindChoiceScreen))
        await pilot.press("c")
        await wait_for(pilot, lambda: app.chat.session.agent is not old and not _undo_running(app))
        new = app.chat.session.agent
        assert new.session_id != old.session_id
        assert [t.prompt for t in new.checkpoints.turns] == ["make new", "overwrite calc"]
        assert app.chat.prompt.text == "edit calc"
        assert any("conversation rewound to before turn 3" in n for n in notices(app))
        assert not any("resumed session" in n for n in notices(app))  # issue 25 item 20
        assert old.transcript_path.read_bytes() == original
        assert tree_digest(proj.cwd) == files


async def test_slash_rewind_both_restores_code_and_conversation(proj):
    app = proj.app([*FOUR, reply("again")])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await four_turns(pilot)
        old = app.chat.session.agent
        await send(pilot, "/rewind 2")
        await wait_for(pilot, lambda: isinstance(app.screen, RewindChoiceScreen))
        await pilot.press("b")
        await wait_for(pilot, lambda: app.chat.session.agent is not old and not _undo_running(app))
        assert (proj.cwd / "calc.py").read_text() == ORIGINAL and (proj.cwd / "new.txt").exists()
        assert len(app.chat.session.agent.messages) == 4  # turn 1: prompt, call, result, reply
        await send(pilot, "overwrite calc, differently")
        await turn_done(pilot)
        assert [t.n for t in app.chat.session.agent.checkpoints.turns] == [1, 2]
        assert proj.git_untouched()


async def test_slash_fork_goes_on_in_a_copy_and_the_original_is_byte_identical(proj):
    app = proj.app([call("write_file", path="a.txt", content="a"), reply("one"), reply("two")])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "first")
        await turn_done(pilot)
        old = app.chat.session.agent
        original = old.transcript_path.read_bytes()
        await send(pilot, "/fork")
        await wait_for(pilot, lambda: app.chat.session.agent is not old and not _undo_running(app))
        assert any("forked: now in session" in n for n in notices(app))
        assert not any("resumed session" in n for n in notices(app))  # issue 25 item 20
        await send(pilot, "second")
        await turn_done(pilot)
        assert old.transcript_path.read_bytes() == original
        assert [t.prompt for t in app.chat.session.agent.checkpoints.turns] == ["first", "second"]
        await command(pilot, "/undo")  # the fork kept turn 1's checkpoint
        assert not (proj.cwd / "a.txt").exists()


async def test_slash_undo_that_restores_nothing_does_not_say_it_took_the_turn_back(proj):
    """issue 25 item 29: keeping the user's changes to the turn's only file said "took back
    turn 1"."""
    app = proj.app(
        [
            call("read_file", 1, path="calc.py"),
            call("write_file", 2, path="calc.py", content="a\n"),
            reply(),
        ]
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "one file")
        await turn_done(pilot)
        (proj.cwd / "calc.py").write_text("my fix\n")
        await send(pilot, "/undo")
        await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen))
        await wait_for(pilot, lambda: "Keep my changes" in screen_text(app))
        await pilot.press("enter")  # keep
        await wait_for(pilot, lambda: any("turn 1" in n for n in notices(app)))
        said = [n for n in notices(app) if "turn 1" in n]
        assert said == ["turn 1: nothing was restored: kept your changes to calc.py"], said
        assert (proj.cwd / "calc.py").read_text() == "my fix\n"


async def test_slash_rewind_puts_the_prompt_back_with_the_cursor_at_its_end(proj):
    """Issue 25 item 7: the restored prompt had the cursor at its start, so what was typed
    next went in front of it."""
    app = proj.app(FOUR)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await four_turns(pilot)
        old = app.chat.session.agent
        await pilot.press(*"/rewind", "enter")  # typed, and the turn picked from the list
        await wait_for(pilot, lambda: isinstance(app.screen, TurnPickerScreen))
        await pilot.press("down", "enter")  # newest first: turn 4, then turn 3
        await wait_for(pilot, lambda: isinstance(app.screen, RewindChoiceScreen))
        await pilot.press("c")
        await wait_for(pilot, lambda: app.chat.session.agent is not old and not _undo_running(app))
        await wait_for(pilot, lambda: app.chat.prompt.text == "edit calc")
        await pilot.pause()
        prompt = app.chat.prompt
        assert prompt.cursor_location == prompt.document.end
        await pilot.press(*" now")
        await pilot.pause()
        assert prompt.text == "edit calc now"


async def test_at_80x24_every_rewind_choice_is_on_the_screen(proj):
    """Tryout A4: four buttons in a row were wider than the dialog at 80 columns, and two of
    them were cut off the screen (their keys worked; nothing said they were there)."""
    from larik.tui.screens.rewind import CHOICES

    app = proj.app(FOUR)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await four_turns(pilot)
        await send(pilot, "/rewind 3")
        await wait_for(pilot, lambda: isinstance(app.screen, RewindChoiceScreen))
        await wait_for(pilot, lambda: "before turn 3" in screen_text(app))
        shown = screen_text(app)
        for label in [*CHOICES.values(), "Never mind (Esc)"]:
            assert label in shown, (label, shown)
        assert "Restoring the conversation starts a new session" in " ".join(shown.split())
