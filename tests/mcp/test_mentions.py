"""@server:resource attachments and server prompts as slash commands, against a real server."""

from __future__ import annotations

import pytest

from larik.mcp.config import McpConfig
from larik.mcp.manager import McpManager
from larik.mcp.mentions import (
    attach_resources,
    find_prompt,
    parse_prompt_args,
    prompt_commands,
    resource_mentions,
    run_prompt,
)
from larik.mcp.offer import PromptInfo
from larik.mcp.server import McpCallError
from tests.mcp.conftest import stdio_config


@pytest.fixture
async def manager(tmp_path):
    m = McpManager(McpConfig(servers={"docs": stdio_config()}), tmp_path)
    m.start_all()
    await m.wait_settled()
    yield m
    await m.close()


def test_mentions_name_configured_servers_only():
    text = "see @docs:note://readme, and @src/a.py and @other:x://y and mail@docs:z"
    assert resource_mentions(text, {"docs"}) == [("docs", "note://readme")]


async def test_a_resource_is_attached_like_a_file(manager):
    got = await attach_resources("summarise @docs:note://readme please", manager)
    assert got.names == ["docs:note://readme"] and not got.problems
    [block] = got.blocks
    assert "the readme text" in block.text and block.text.startswith("<resource @docs:note://")


async def test_a_resource_the_server_cannot_read_is_a_one_line_problem(manager):
    got = await attach_resources("@docs:note://missing", manager)
    assert not got.blocks and len(got.problems) == 1
    assert got.problems[0].startswith("@docs:note://missing: ") and "\n" not in got.problems[0]


async def test_prompts_are_slash_commands(manager):
    [cmd] = prompt_commands(manager)
    assert cmd.name == "mcp__docs__review"
    assert cmd.usage == "/mcp__docs__review <path> [focus]"
    assert cmd.summary == "Review a file."
    assert find_prompt(manager, "mcp__docs__review") is cmd.info
    blocks = await run_prompt(manager, cmd.info, "src/app.py security")
    assert blocks[0].text == "Please review src/app.py, looking for security."


def test_prompt_arguments_by_position_name_and_quotes():
    info = PromptInfo("s", "p", "", (("path", True, ""), ("focus", False, "")))
    assert parse_prompt_args(info, "a.py") == {"path": "a.py"}
    assert parse_prompt_args(info, "focus=speed a.py") == {"focus": "speed", "path": "a.py"}
    assert parse_prompt_args(info, "'my file.py' the rest of it") == {
        "path": "my file.py",
        "focus": "the rest of it",
    }
    with pytest.raises(ValueError, match="missing path"):
        parse_prompt_args(info, "")
    with pytest.raises(ValueError, match="cannot read"):
        parse_prompt_args(info, "'unclosed")


async def test_a_prompt_of_a_failed_server_is_a_one_line_error(tmp_path):
    m = McpManager(McpConfig(servers={"bad": stdio_config("exit")}), tmp_path)
    m.start_all()
    await m.wait_settled()
    info = PromptInfo("bad", "review", "", (("path", True, ""),))
    with pytest.raises(McpCallError, match="failed"):
        await run_prompt(m, info, "x")
    await m.close()
