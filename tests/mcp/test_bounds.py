"""A lying MCP server (``server_script.py hostile``): every string it supplies is megabytes
long, and none reaches the model or the screen whole (issue 22 item 11)."""

from __future__ import annotations

import pytest
import pytest_asyncio

from larik.agent.tools import ToolError
from larik.mcp.config import McpConfig
from larik.mcp.content import MAX_IMAGES, MAX_NAME, MAX_TEXT, result_parts
from larik.mcp.manager import McpManager
from larik.mcp.mentions import attach_resources, prompt_commands, run_prompt
from larik.mcp.offer import MAX_ARGUMENTS
from larik.mcp.server import McpCallError, State
from larik.mcp.tools import McpArgs
from tests.mcp.conftest import stdio_config
from tests.patience import WAIT

HUGE = 3 * 1024 * 1024
NOTE = 300  # room for the note that says what was cut


#: The tests only read from the hostile server: it is started once for the module (each start
#: cost 3-4 s), on the module's event loop.
pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def manager(module_hermetic):
    m = McpManager(McpConfig(servers={"h": stdio_config("hostile", timeout=WAIT)}), module_hermetic)
    m.start_all()
    await m.wait_settled()
    server = m.servers["h"]
    assert server.state is State.READY, server.error
    yield m
    await m.close()


async def test_a_3_mb_json_rpc_error_is_cut_like_a_result(manager):
    server = manager.servers["h"]
    with pytest.raises(McpCallError) as caught:
        await server.call_tool("rpc_error", {})
    text = str(caught.value)
    assert len(text) < MAX_TEXT + NOTE and f"{HUGE + 1:,}" not in text
    assert "characters" in text and text.startswith("MCP server 'h': EEE")
    # through the tool the model calls: the same bound
    with pytest.raises(ToolError) as through_tool:
        await manager.get("mcp__h__rpc_error").run(McpArgs(), None)
    assert len(str(through_tool.value)) < MAX_TEXT + NOTE
    assert server.state is State.READY  # the connection survives it


async def test_a_3_mb_is_error_result_is_cut(manager):
    parts = result_parts(await manager.servers["h"].call_tool("tool_error", {}))
    assert parts.is_error and len(parts.text) < MAX_TEXT + NOTE


async def test_images_in_a_result_are_bounded_in_size_and_number(manager):
    parts = result_parts(await manager.servers["h"].call_tool("pictures", {}))
    assert len(parts.images) == MAX_IMAGES
    assert "not passed on" in parts.text


async def test_tool_names_titles_and_descriptions_are_bounded(manager):
    tools = manager.servers["h"].tools
    assert len(tools) == 7
    for t in tools:
        assert len(t.name) <= 64 and len(t.title) <= MAX_NAME
        assert len(t.description) <= 2000 + NOTE
    for spec in manager.all_specs():  # what the model is sent
        assert len(spec.description) <= 2000 + NOTE, spec.name


async def test_prompt_descriptions_and_arguments_are_bounded(manager):
    [info] = manager.servers["h"].prompts
    assert len(info.description) <= MAX_NAME
    assert len(info.arguments) <= MAX_ARGUMENTS
    assert all(len(name) <= MAX_NAME and len(d) <= MAX_NAME for name, _, d in info.arguments)
    [cmd] = prompt_commands(manager)  # a slash command's line in the TUI's completions
    assert len(cmd.usage) <= 2 * MAX_NAME and len(cmd.summary) <= 120
    assert (await run_prompt(manager, info, ""))[0].text == "the prompt text"


async def test_a_resource_listing_and_a_6_mb_image_resource_are_bounded(manager):
    [res] = manager.servers["h"].resources
    assert len(res.name) <= MAX_NAME and len(res.description) <= MAX_NAME
    got = await attach_resources("look at @h:pic://big", manager)
    assert not got.problems
    assert [b.type for b in got.blocks] == ["text"]  # the image is not passed on
    assert "not passed on" in got.blocks[0].text and len(got.blocks[0].text) < NOTE


def _clean(text: str) -> bool:
    return not any(c in text for c in ("\x1b", "\x07", "\x00", "\u202e"))


async def test_a_poisoned_result_error_and_description_reach_the_model_clean(manager):
    """Escape sequences (``ESC]52`` sets the clipboard), a bidi override and NULs in what a
    real server sends — a result's text, an embedded resource's text, an error, a tool's
    description — are bounded and cleaned by the one rule of others' text (issue 42 item 5)."""
    result = await manager.get("mcp__h__poison").run(McpArgs(), None)
    assert len(result.content) < MAX_TEXT + NOTE and _clean(result.content)
    assert "\\u202e" in result.content  # named, not obeyed
    error = await manager.get("mcp__h__poison_error").run(McpArgs(), None)
    assert error.is_error and _clean(error.content) and len(error.content) < MAX_TEXT + NOTE
    [info] = [t for t in manager.servers["h"].tools if t.remote == "poison"]
    assert _clean(info.description) and "Poisoned text." in info.description
