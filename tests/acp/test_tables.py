"""The tables larik acp reads, walked: every tool has its ACP kind, every advertised command
is a built-in with a handler, the early handshake is the SDK's, the wire's error codes are the
spec's; and the editor's MCP servers as they join the user's."""

from __future__ import annotations

import typing
from dataclasses import replace

import acp
from acp.schema import (
    EnvVariable,
    HttpHeader,
    HttpMcpServer,
    InitializeResponse,
    McpServerStdio,
    SseMcpServer,
    ToolKind,
)

from larik.acp import handshake, updates
from larik.acp.agent import client_servers
from larik.acp.commands import COMMANDS, HANDLERS
from larik.config import load_config
from larik.mcp.config import McpServerConfig
from larik.session.commands import BUILTINS
from larik.session.port import SessionStatus
from larik.tool_names import ALL_TOOLS


def test_every_built_in_tool_has_an_acp_kind_and_a_title():
    kinds = set(typing.get_args(ToolKind))
    assert set(updates.KINDS) == set(ALL_TOOLS) == set(updates.TITLES)
    assert {updates.KINDS[t] for t in ALL_TOOLS} <= kinds - {"other"}
    assert updates.kind("mcp__files__read") == "other"


def test_every_advertised_command_is_a_built_in_with_a_handler():
    names = {b.name for b in BUILTINS}
    assert [c.name for c in COMMANDS] == list(HANDLERS) and set(HANDLERS) <= names


def test_the_early_handshake_is_what_the_sdk_makes_of_it():
    assert handshake.PROTOCOL_VERSION == acp.PROTOCOL_VERSION
    for asked in (0, 1, 2, 65535):
        raw = handshake.initialize_result(asked)
        model = InitializeResponse.model_validate(raw)
        dumped = model.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_unset=True)
        assert dumped == raw  # as the SDK sends a result
        assert raw["protocolVersion"] == 1


def test_the_wires_error_codes_are_the_specs():
    assert acp.RequestError.parse_error().code == -32700
    assert acp.RequestError.invalid_request().code == -32600


def test_the_editors_mcp_servers_join_the_users_and_yours_keep_their_name(tmp_path):
    config = load_config(tmp_path)
    config.mcp.servers = {"mine": McpServerConfig(command="my-server")}
    said = client_servers(
        config,
        [
            McpServerStdio(name="files", command="/bin/files", args=["--x"], env=[EnvVariable(name="A", value="1")]),
            HttpMcpServer(type="http", name="web", url="http://127.0.0.1:9/mcp", headers=[HttpHeader(name="X", value="y")]),
            McpServerStdio(name="mine", command="/bin/theirs", args=[], env=[]),
            HttpMcpServer(type="http", name="far", url="http://example.com/mcp", headers=[]),
            SseMcpServer(type="sse", name="old", url="https://example.com/sse", headers=[]),
            McpServerStdio(name="bad__name", command="/bin/x", args=[], env=[]),
        ],
    )  # fmt: skip
    servers = config.mcp.servers
    assert set(servers) == {"mine", "files", "web"}
    assert servers["mine"].command == "my-server"  # the user's keeps its name
    assert servers["files"].env == {"A": "1"} and servers["files"].user
    assert servers["web"].headers == {"X": "y"}
    text = "\n".join(said)
    assert "'mine': your config has one" in text and "'far'" in text
    assert "sse is not supported" in text and "not a usable name" in text


def test_no_auth_method_is_listed_when_a_providers_key_is_in_the_environment(monkeypatch):
    names = [
        v["name"] for m in handshake.initialize_result(1)["authMethods"] for v in m.get("vars", [])
    ]
    assert "ANTHROPIC_API_KEY" in names  # the hermetic environment has none
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # a provider a session starts on
    assert handshake.initialize_result(1)["authMethods"] == []  # (tests/acp/test_auth.py: all)


def test_every_stop_reason_larik_maps_is_one_the_schema_has():
    from acp.schema import StopReason

    from larik.acp.conversation import STOP_REASONS

    assert set(STOP_REASONS.values()) <= set(typing.get_args(StopReason))
    assert STOP_REASONS["budget"] == "max_turn_requests"  # the closest: a limit on requests


async def test_slash_cost_over_acp_shows_a_signed_in_plans_windows():
    """The session's plan figures reach the editor too (issue 27: every face)."""
    from types import SimpleNamespace

    from larik.acp.commands import HANDLERS
    from larik.agent.usage import Accounting
    from larik.llm.signin import quota as quotas
    from larik.llm.types import Usage

    usage = Accounting()
    usage.add("gpt-5.5", "main", Usage(input=10, output=2), 0.0, "chatgpt")
    found = quotas.from_headers(
        {"x-codex-primary-used-percent": "37", "x-codex-primary-window-minutes": "300"}
    )
    assert found is not None
    session = SimpleNamespace(status=SessionStatus(ready=True, usage=usage))
    session.status = replace(session.status, plan_usage={"chatgpt": found})
    text = await HANDLERS["cost"](SimpleNamespace(session=session), "")
    assert "| chatgpt | 5h | 37% |" in text
    session.status = replace(session.status, plan_usage={})
    assert "| plan |" not in await HANDLERS["cost"](SimpleNamespace(session=session), "")
