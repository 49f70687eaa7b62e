"""Context cost: tool schemas go with every request; when they would take too much of the window
they are deferred behind tool_search, which loads the matching ones."""

from __future__ import annotations

from pathlib import Path

from larik.agent import Agent
from larik.config import Config
from larik.llm.providers.scripted import ScriptedProvider
from larik.mcp.config import McpConfig
from larik.mcp.manager import McpManager, spec_tokens
from larik.mcp.server import State
from larik.routing import Resolved
from tests.mcp.conftest import stdio_config


def resolver_for(provider: ScriptedProvider):
    def resolve(spec: str) -> Resolved:
        return Resolved(
            provider=provider, model="m", provider_name="scripted", role=None, spec="scripted/m"
        )

    return resolve


async def agent_with(tmp_path: Path, provider, manager, window: int) -> Agent:
    cfg = Config(models={"scripted/m": {"context_window": window}})
    return await Agent.create(
        cwd=tmp_path,
        config=cfg,
        resolver=resolver_for(provider),
        tool_source=manager,
        permission_mode="yolo",
    )


async def many_tools_manager(tmp_path: Path, **cfg) -> McpManager:
    manager = McpManager(
        McpConfig(servers={"big": stdio_config("many"), "t": stdio_config()}, **cfg), tmp_path
    )
    manager.start_all()
    await manager.wait_settled()
    assert all(s.state is State.READY for s in manager.servers.values())
    return manager


async def test_schemas_within_the_share_are_all_sent(tmp_path):
    manager = await many_tools_manager(tmp_path)
    try:
        provider = ScriptedProvider([{"text": "ok"}])
        agent = await agent_with(tmp_path, provider, manager, window=1_000_000)
        async for _ in agent.run_turn("hi"):
            pass
        names = [t.name for t in provider.requests[0].tools]
        assert "read_file" in names and "mcp__t__echo" in names
        assert len([n for n in names if n.startswith("mcp__big__")]) == 120
        assert "tool_search" not in names
        await agent.close()
    finally:
        await manager.close()


async def test_too_many_schemas_are_deferred_and_found_by_tool_search(tmp_path):
    manager = await many_tools_manager(tmp_path)
    try:
        all_tokens = spec_tokens(manager.all_specs())
        window = 100_000
        assert all_tokens > 0.1 * window  # ~120 tools with long descriptions
        provider = ScriptedProvider(
            [
                {"tool_calls": [{"name": "tool_search", "input": {"query": "echo text back"}}]},
                {"tool_calls": [{"name": "mcp__t__echo", "input": {"text": "found"}}]},
                {"text": "done"},
            ]
        )
        agent = await agent_with(tmp_path, provider, manager, window=window)
        events = [ev async for ev in agent.run_turn("hi")]
        first, second, third = (r.tools for r in provider.requests)
        first_mcp = [t for t in first if t.name.startswith("mcp__") or t.name == "tool_search"]
        assert [t.name for t in first_mcp] == ["tool_search"]
        assert "big: 120 tools" in first_mcp[0].description
        assert "mcp__t__echo" in [t.name for t in second]  # loaded by the search
        ends = [ev for ev in events if ev.type == "tool_end"]
        assert "mcp__t__echo" in ends[0].text
        assert ends[1].text == "echo: found"
        deferred = spec_tokens([t for t in first if t.name not in ("read_file",)])
        # measured: what the MCP part of a request costs before and after deferring
        after = spec_tokens(first_mcp)
        assert after < all_tokens / 20, (all_tokens, after, deferred)
        await agent.close()
    finally:
        await manager.close()


async def test_a_deferred_tool_named_exactly_still_runs(tmp_path):
    manager = await many_tools_manager(tmp_path)
    try:
        provider = ScriptedProvider(
            [
                {"tool_calls": [{"name": "mcp__big__op_007_delta", "input": {"query": "q"}}]},
                {"text": "ok"},
            ]
        )
        agent = await agent_with(tmp_path, provider, manager, window=50_000)
        ends = [ev async for ev in agent.run_turn("hi") if ev.type == "tool_end"]
        assert ends[0].text == "result 7 for q" and not ends[0].is_error
        await agent.close()
    finally:
        await manager.close()


async def test_defer_share_zero_never_defers(tmp_path):
    manager = await many_tools_manager(tmp_path, defer_share=0)
    try:
        assert not manager.deferring(10_000)
        assert len(manager.specs(10_000)) == len(manager.all_specs())
    finally:
        await manager.close()


async def test_subagents_get_no_mcp_tools(tmp_path):
    manager = await many_tools_manager(tmp_path)
    try:
        provider = ScriptedProvider([{"text": "ok"}])
        agent = await agent_with(tmp_path, provider, manager, window=1_000_000)
        sub = agent.spawn("explore")
        assert sub._settings.tool_source is None
        await agent.close()
    finally:
        await manager.close()
