"""The /mcp screen: servers, states, stderr tail of a failed one, on/off and reconnect."""

from __future__ import annotations

from textual.app import App
from textual.widgets import OptionList, Static

from larik.mcp.config import McpConfig
from larik.mcp.manager import McpManager
from larik.mcp.server import State
from larik.tui.screens.mcp import McpScreen
from tests.mcp.conftest import stdio_config


class Host(App[None]):
    def __init__(self, manager: McpManager) -> None:
        super().__init__()
        self.manager = manager

    def on_mount(self) -> None:
        self.push_screen(McpScreen(self.manager))


async def test_the_mcp_screen_lists_servers_and_switches_them(tmp_path):
    manager = McpManager(
        McpConfig(servers={"good": stdio_config(), "bad": stdio_config("exit")}), tmp_path
    )
    manager.start_all()
    await manager.wait_settled()
    app = Host(manager)
    try:
        async with app.run_test(size=(100, 40)) as pilot:
            await pilot.pause()
            screen = app.screen
            ol = screen.query_one("#mcp-list", OptionList)
            rows = [str(ol.get_option_at_index(i).prompt) for i in range(ol.option_count)]
            assert rows[0].startswith("good  ready") and "tools" in rows[0]
            assert rows[1].startswith("bad  failed")
            await pilot.press("down")
            detail = str(screen.query_one("#mcp-detail-text", Static).render())
            assert "fatal: missing GITHUB_TOKEN" in detail
            await pilot.press("up", "space")  # turn "good" off
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert manager.servers["good"].state is State.DISABLED
            assert "disabled" in str(ol.get_option_at_index(0).prompt)
            assert manager.names() == []
            await pilot.press("space")  # and on again
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert manager.servers["good"].state is State.READY
            await pilot.press("escape")
    finally:
        await manager.close()
