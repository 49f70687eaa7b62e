"""The model's bash commands show their output as it comes (issue 17 item 1): on the real agent
with a scripted model, real processes. The card shows the output before the command exits, Esc
stops the command (its whole process group) and ends the turn interrupted with a valid
transcript, 10 MB of output leaves the card showing the tail and the result bounded, and escape
sequences, binary bytes or output without newlines do not break the card or the TUI."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from larik.agent import Agent
from larik.agent.tools.bash import MAX_OUTPUT
from larik.agent.transcript import load_transcript
from larik.config import Config
from larik.llm.providers.scripted import ScriptedProvider
from larik.routing import Resolved
from larik.tui.app import LarikApp
from larik.tui.widgets.tool_card import LIVE_LINE_CHARS, LIVE_LINES, ToolCard

from ..procs import carrying, dead
from .conftest import ready, screen_text, send, turn_done, wait_for

TEN_MB = 10 * 1024 * 1024


class Yolo:
    """Apps on the real Agent in yolo mode (no permission modal), a scripted model."""

    def __init__(self, root: Path) -> None:
        self.cwd = root / "project"
        self.cwd.mkdir()
        self.agents: list[Agent] = []

    def app(self, *commands: str) -> LarikApp:
        turns: list[dict[str, Any]] = [
            {"tool_calls": [{"name": "bash", "input": {"command": c}, "id": f"b{i}"}]}
            for i, c in enumerate(commands)
        ]
        provider = ScriptedProvider([*turns, {"text": "all done"}, {"text": "and again"}])
        config = Config()

        def resolve(spec: str) -> Resolved:
            return Resolved(provider, "m", "scripted", None, "scripted/m")

        async def factory(*, approver: Any, model: str = "", resume: str | None = None) -> Any:
            agent = await Agent.create(
                cwd=self.cwd,
                config=config,
                approver=approver,
                resolver=resolve,
                permission_mode="yolo",
            )
            self.agents.append(agent)
            return agent

        async def no_local(config: Any = None) -> list:
            return []

        return LarikApp(factory, cwd=self.cwd, config=config, discover_local=no_local)


@pytest.fixture
def yolo(tmp_path: Path) -> Yolo:
    return Yolo(tmp_path)


def card_of(app: Any) -> ToolCard:
    return list(app.query(ToolCard))[-1]


async def test_the_card_shows_a_commands_output_before_it_exits(yolo):
    app = yolo.app("echo compiling; while [ ! -e go ]; do sleep 0.01; done; echo linked")
    async with app.run_test(size=(90, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "build it")
        # the card's header shows the command (its "echo compiling" too): wait for the output
        await wait_for(
            pilot, lambda: app.query(ToolCard) and "compiling\n" in card_of(app).live_text
        )
        card = card_of(app)
        await wait_for(pilot, lambda: card.expanded)  # shown while it runs (drawn at once)
        assert card.status == "running" and screen_text(app).count("compiling") >= 2
        (yolo.cwd / "go").touch()
        await turn_done(pilot)
        # done: the card folds back to its one line, as a resumed session shows it
        assert card.status == "ok" and not card.expanded and "linked" in card.result
        card.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert "linked" in screen_text(app)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
async def test_escape_stops_the_command_and_its_children_not_the_app(yolo, mark):
    app = yolo.app("sleep 300 & echo waiting; wait")
    async with app.run_test(size=(90, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "wait for it")
        await wait_for(pilot, lambda: app.query(ToolCard) and "waiting" in card_of(app).live_text)
        # the sandbox's pids are its own namespace's: the host's sleep is found by its mark
        assert [p for p in carrying(mark) if not dead(p)]
        await pilot.press("escape")
        await turn_done(pilot)
        # the background child too: the whole group
        await wait_for(pilot, lambda: all(dead(p) for p in carrying(mark)))
        card = card_of(app)
        assert app.is_running and card.status == "interrupted"
        assert card.expanded and "waiting" in screen_text(app)  # where it stopped
        agent = yolo.agents[0]
        loaded = load_transcript(agent.transcript_path)
        assert not loaded.problems
        last = loaded.messages[-1]  # the call answered: the conversation can go on
        assert last.role == "user" and last.interrupted and last.blocks[0].is_error
        assert last.blocks[0].id == "b0"


async def test_ten_megabytes_leave_the_card_on_the_tail_and_the_result_bounded(yolo):
    command = f"seq 1 2000000 | head -c {TEN_MB}; echo; echo THE-END"
    app = yolo.app(command)
    async with app.run_test(size=(90, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "flood")
        await turn_done(pilot)
        card = card_of(app)
        assert card.status == "ok"
        assert len(card.result) < MAX_OUTPUT + 500  # what the model got: bounded
        assert card.result.rstrip().splitlines()[-2:] == ["THE-END", "[exit code 0]"]
        assert card.live_text.endswith("THE-END\n")  # the live view reached the tail
        assert len(card.live_text) <= 2 * 64 * 1024  # and kept only a bounded part
        assert "THE-END" in screen_text(app)


HOSTILE = {
    "ansi": r"printf '\033[2J\033[H\033]0;pwned\007\033[31mred\033[0m\033[?1049h\033P+q\033\\ok\n'",
    "binary": "head -c 300000 /dev/urandom",
    "no newlines": f"head -c {TEN_MB} /dev/zero | tr '\\0' x",
    "progress bar": r"for i in 1 2 3; do printf '\r%d%%' $((i*33)); done; printf '\rdone\n'",
}


@pytest.mark.parametrize("name", list(HOSTILE))
async def test_hostile_output_does_not_break_the_card_or_the_tui(yolo, name):
    go = "while [ ! -e go ]; do sleep 0.01; done"
    app = yolo.app(f"{HOSTILE[name]}; echo; echo MARK; {go}")
    async with app.run_test(size=(90, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "print it")
        await wait_for(pilot, lambda: app.query(ToolCard) and "MARK" in screen_text(app))
        card = card_of(app)
        running = card.plain_lines()
        assert len(running) <= 1 + LIVE_LINES * (LIVE_LINE_CHARS // 80 + 2)  # a few rows
        (yolo.cwd / "go").touch()
        await turn_done(pilot)
        card.focus()
        await pilot.press("enter")  # the result, drawn safe too
        await pilot.pause()
        assert card.expanded
        if name == "no newlines":  # the 30,000-character line shows its end: a few rows …
            assert len(card.plain_lines()) < 40
            await pilot.press("enter")  # … and Enter shows all of it
            await pilot.pause()
            assert card.whole and len(card.plain_lines()) > 300
        await send(pilot, "x")  # the TUI still takes keys and the next turn
        await turn_done(pilot)
        for lines in (running, card.plain_lines(), screen_text(app).splitlines()):
            text = "\n".join(lines)
            assert not [c for c in text if (ord(c) < 32 and c != "\n") or 0x7F <= ord(c) < 0xA0]
        if name == "ansi":
            assert "redok" in "".join(card.plain_lines()).replace(" ", "")
        if name == "progress bar":
            assert "done" in screen_text(app) and "33%" not in screen_text(app)
        assert os.path.exists(yolo.agents[0].transcript_path)


def test_terminal_safe_removes_escapes_keeps_a_progress_bars_last_state_and_cuts_long_lines():
    from larik.tui.render import terminal_safe

    raw = "\x1b[31mred\x1b[0m \x1b]0;title\x07\x1b]52;c;aGk=\x1b\\ok\x00\n10%\r55%\rdone\n"
    assert terminal_safe(raw) == "red ok\ufffd\ndone\n"
    assert terminal_safe("x" * 10 + "END", 5) == "…" + "xEND"  # a command's: its end
    assert terminal_safe("START" + "x" * 10, 5, keep_start=True) == "STAR…"  # a file's: its start


async def test_a_timed_out_command_says_so_on_its_card_not_exit_minus_nine(tmp_path):
    """The card read `✗ bash … · exit -9`: the kill's signal, not anything the command did."""
    from larik.config import PermissionsConfig

    from .test_real_agent import Real

    real = Real(tmp_path)
    real.config = Config(permissions=PermissionsConfig(mode="yolo"))
    call = {"name": "bash", "input": {"command": "echo start; sleep 30", "timeout": 1}}
    app = real.app([{"tool_calls": [call]}, {"text": "it hung"}])
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "test")
        await turn_done(pilot)
        head = " ".join(card_of(app)._header_text().plain.split())
    assert head.startswith("✗ bash echo start; sleep 30 · timed out · "), head
