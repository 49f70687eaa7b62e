"""MCP in the TUI, on the real Agent and real servers (tests/mcp/server_script.py): servers start
after the first frame and never hold up a turn, a failure is a notice with the server's stderr,
/mcp, tools in a turn, prompts as slash commands, @server:URI, and no server left on quit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from larik.agent import Agent
from larik.config import Config
from larik.llm.providers.scripted import ScriptedProvider
from larik.mcp.manager import McpManager
from larik.mcp.server import State
from larik.routing import Resolved
from larik.tui import slash
from larik.tui.app import LarikApp
from larik.tui.screens.mcp import McpScreen
from larik.tui.widgets.notice import Notice
from tests.mcp.conftest import stdio_config

from .conftest import ready, screen_text, send, turn_done, wait_for


class WithServers:
    def __init__(self, root: Path) -> None:
        self.cwd = root / "project"
        self.cwd.mkdir()
        self.provider: ScriptedProvider | None = None

    def resolve(self, spec: str) -> Resolved:
        assert self.provider is not None
        return Resolved(self.provider, "m", "scripted", None, "scripted/m")

    def app(self, turns: list[dict[str, Any]], servers: dict[str, Any]) -> LarikApp:
        self.provider = ScriptedProvider(turns)
        config = Config(mcp={"servers": servers})

        async def factory(*, approver: Any, model: str = "", resume: str | None = None) -> Any:
            return await Agent.create(  # as run_tui's factory: the chat screen's servers
                cwd=self.cwd,
                config=config,
                approver=approver,
                resolver=self.resolve,
                tool_source=app.chat.mcp,
            )

        async def no_local(config: Any = None) -> list:
            return []

        app = LarikApp(factory, cwd=self.cwd, config=config, discover_local=no_local)
        return app


@pytest.fixture
def tui(tmp_path: Path) -> WithServers:
    return WithServers(tmp_path)


def notices(app: Any) -> list[str]:
    return [n.text for n in app.query(Notice)]


async def settled(pilot: Any) -> None:
    manager = pilot.app.chat.mcp
    await wait_for(
        pilot,
        lambda: all(s.state in (State.READY, State.FAILED) for s in manager.servers.values()),
    )


async def test_slash_mcp_lists_the_servers_and_a_failure_is_a_notice_with_stderr(tui):
    app = tui.app([], {"t": stdio_config(), "bad": stdio_config("exit")})
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await settled(pilot)
        await pilot.pause()
        failed = [n for n in notices(app) if "MCP server 'bad' failed" in n]
        assert failed and "fatal: missing GITHUB_TOKEN" in failed[0]
        await send(pilot, "/mcp")
        await wait_for(pilot, lambda: isinstance(app.screen, McpScreen))
        await pilot.press("escape")
        await app.quit_app()


async def test_servers_start_after_the_first_frame_and_never_hold_up_a_turn(tui, monkeypatch):
    seen: list[bool] = []
    real_start = McpManager.start_all

    def start_all(self: McpManager) -> None:
        seen.append(app.first_paint_done)
        real_start(self)

    monkeypatch.setattr(McpManager, "start_all", start_all)
    slow = stdio_config("hang", startup_timeout=600)  # the most allowed: not given up meanwhile
    app = tui.app([{"text": "answered at once"}], {"slow": slow})
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: seen)
        assert seen == [True]
        await send(pilot, "hello")
        await turn_done(pilot)
        # still starting (or not yet started): the turn did not wait for it
        assert app.chat.mcp.servers["slow"].state in (State.STOPPED, State.STARTING)
        assert tui.provider.requests[0].messages[-1].text() == "hello"
        await app.quit_app()


async def test_a_turn_calls_a_servers_tool(tui):
    turns = [
        {"tool_calls": [{"name": "mcp__t__echo", "input": {"text": "from the tui"}}]},
        {"text": "done"},
    ]
    app = tui.app(turns, {"t": stdio_config()})
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await settled(pilot)
        await send(pilot, "use the tool")
        await turn_done(pilot)
        sent = tui.provider.requests
        assert "mcp__t__echo" in [t.name for t in sent[0].tools]
        results = [b for b in sent[1].messages[-1].blocks if b.type == "tool_result"]
        assert results[0].content == "echo: from the tui"  # read-only: no question in ask mode
        await app.quit_app()


async def test_a_server_prompt_is_a_slash_command_and_a_resource_is_attached(tui):
    app = tui.app([{"text": "reviewed"}, {"text": "read"}], {"t": stdio_config()})
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await settled(pilot)
        assert [c.name for c in slash.complete("mcp__", app.chat.session)] == ["mcp__t__review"]
        assert "/mcp__t__review <path> [focus]" in slash.help_markdown(app.chat.session)
        await send(pilot, "/mcp__t__review src/app.py")
        await turn_done(pilot)
        assert tui.provider.requests[0].messages[-1].text() == (
            "Please review src/app.py, looking for bugs."
        )
        await send(pilot, "/mcp__t__review")
        await pilot.pause()
        assert any("missing path" in n for n in notices(app))
        await send(pilot, "what does @t:note://readme say")
        await turn_done(pilot)
        text = tui.provider.requests[1].messages[-1].text()
        assert "the readme text" in text and "<resource @t:note://readme>" in text
        assert not any("not attached" in n or "no such" in n for n in notices(app))
        shown = screen_text(app)  # the turn lists it once, with one @ (it had "+ @@t:…")
        assert "+ @t:note://readme" in shown and "@@" not in shown
        await app.quit_app()


async def test_quitting_stops_every_server(tui, mark):
    from tests.procs import MARK_VARIABLE, carrying

    # the servers run in the OS sandbox: the project is writable, and the pids they write are
    # their pid namespace's, so their processes are found by the mark in their environment
    pidfile = tui.cwd / "pids"
    env = {"MCP_TEST_PIDFILE": str(pidfile), "MCP_TEST_CHILD": "1", MARK_VARIABLE: mark}
    app = tui.app([], {"a": stdio_config(env=env), "b": stdio_config(env=env)})
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await settled(pilot)
        assert len(pidfile.read_text().split()) == 4 and carrying(mark)  # servers, children
        await send(pilot, "/exit")
        await wait_for(pilot, lambda: not carrying(mark))
        await wait_for(pilot, lambda: app.return_code is not None)  # the closing is over


async def test_an_oauth_login_is_a_notice_with_the_address_and_the_server_becomes_ready(
    tui, tmp_path
):
    from larik.mcp.config import McpServerConfig
    from tests.mcp.conftest import Browser, auth_servers

    with auth_servers(tmp_path) as start:
        srv = start()
        app = tui.app([], {"docs": McpServerConfig(url=srv.url, auth="oauth")})
        browser = Browser()
        async with app.run_test(size=(100, 40)) as pilot:
            await ready(pilot)
            shown = lambda: [n for n in notices(app) if "asks you to log in" in n]  # noqa: E731
            await wait_for(pilot, shown)
            url = shown()[0].rsplit("\n", 1)[-1]
            assert url.startswith(srv.url.removesuffix("/mcp") + "/authorize?")
            assert app.chat.mcp.servers["docs"].login_url == url
            await send(pilot, "/mcp")  # /mcp shows the address while the login waits
            await wait_for(pilot, lambda: isinstance(app.screen, McpScreen))
            await pilot.press("escape")
            browser(app.chat.mcp.servers["docs"], url)  # the user opens it and says yes
            await settled(pilot)
            assert app.chat.mcp.servers["docs"].state is State.READY
            await wait_for(pilot, lambda: any("'docs' ready" in n for n in notices(app)))
            await app.quit_app()
        assert srv.events() == ["register", "code"]


async def test_a_server_with_one_tool_says_1_tool_not_1_tools(tui):
    """issue 25 item 16: the notice and /mcp said "1 tools"."""
    app = tui.app([], {"t": stdio_config(tools=["echo"])})
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await settled(pilot)
        await wait_for(pilot, lambda: any("ready" in n for n in notices(app)))
        assert "MCP server 't' ready: 1 tool" in notices(app)
        await send(pilot, "/mcp")
        await wait_for(pilot, lambda: isinstance(app.screen, McpScreen))
        await wait_for(pilot, lambda: "1 tool " in screen_text(app))
        assert "1 tools" not in screen_text(app)
        await pilot.press("escape")
        await app.quit_app()


async def test_slash_mcp_says_each_blocked_server_of_an_untrusted_project(harness):
    """Issue 25 item 5: /mcp said "no MCP servers configured" for .mcp.json's servers."""
    import json

    from larik.config import load_config
    from larik.tui.widgets.notice import Notice

    (harness.cwd / ".git").mkdir()
    (harness.cwd / ".mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "toy": {"command": "toy-server"},
                    "web": {"url": "https://x.example/mcp"},
                }
            }
        )
    )
    app = harness.app([], config=load_config(harness.cwd))  # not trusted
    async with app.run_test(size=(140, 35)) as pilot:
        await ready(pilot)
        await send(pilot, "/mcp")
        await wait_for(pilot, lambda: any("toy" in n.text for n in app.query(Notice)))
        text = [n.text for n in app.query(Notice) if "toy" in n.text][-1]
        assert "no MCP servers configured" not in text
        assert "toy: blocked: untrusted project (.mcp.json: toy-server" in text
        assert "web: blocked: untrusted project (.mcp.json: https://x.example/mcp" in text
