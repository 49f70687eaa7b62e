"""A turn's end as the prompt's answer (the real stop reason, or the JSON-RPC error), the
roles in the model selector, and the editor's own MCP server used by the model."""

from __future__ import annotations

import sys
from pathlib import Path

import acp
import pytest
from acp.schema import McpServerStdio

from .client import Recorder, env, larik_acp, script, until

ECHO = {"tool_calls": [{"name": "bash", "input": {"command": "echo hi"}}]}
SERVER = Path(__file__).resolve().parents[1] / "mcp" / "server_script.py"


def _config(text: str) -> None:
    home = Path(env()["LARIK_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(text)


async def _open(conn, rec: Recorder, project: Path, servers: list | None = None):
    await conn.initialize(protocol_version=1, client_capabilities=rec.capabilities())
    return await conn.new_session(cwd=str(project), mcp_servers=servers or [])


@pytest.mark.parametrize(
    ("turns", "stop"),
    [
        ([{"text": "cut", "stop_reason": "max_tokens"}], "max_tokens"),
        ([{"text": "no", "stop_reason": "refusal"}], "refusal"),
        ([ECHO, {"text": "never"}], "max_turn_requests"),
    ],
    ids=["max_tokens", "refusal", "max_turns"],
)
async def test_the_prompt_answers_the_turns_real_stop_reason(project, tmp_path, turns, stop):
    _config("max_turns = 1\n")
    model = script(tmp_path / "m.json", *turns)
    rec = Recorder()
    async with larik_acp(project, rec, "-m", model, "--permission-mode", "yolo") as (conn, _):
        sid = (await _open(conn, rec, project)).session_id
        out = await conn.prompt(session_id=sid, prompt=[acp.text_block("go")])
    assert out.stop_reason == stop


async def test_a_turn_that_fails_is_a_json_rpc_error_with_larik_s_one_line(project, tmp_path):
    model = script(
        tmp_path / "m.json",
        {"error": {"status": 400, "message": "bad request body"}},
        {"text": "ok"},
    )
    rec = Recorder()
    async with larik_acp(project, rec, "-m", model) as (conn, proc):
        sid = (await _open(conn, rec, project)).session_id
        with pytest.raises(acp.RequestError) as failed:
            await conn.prompt(session_id=sid, prompt=[acp.text_block("go")])
        again = await conn.prompt(session_id=sid, prompt=[acp.text_block("again")])
    assert failed.value.code == -32603 and "bad request body" in str(failed.value)
    assert "\n" not in str(failed.value)
    assert again.stop_reason == "end_turn"  # the session goes on


async def test_the_model_selector_offers_the_roles_your_routing_sets(project, tmp_path):
    smart = script(tmp_path / "smart.json", {"text": "the smart one"})
    main = script(tmp_path / "m.json", {"text": "main"})
    _config(f'[roles]\nsmart = "{smart}"\n')
    rec = Recorder()
    async with larik_acp(project, rec, "-m", main) as (conn, _):
        new = await _open(conn, rec, project)
        [model] = [o for o in new.config_options if o.id == "model"]
        roles = [g for g in model.options if g.name == "Roles"]
        assert roles and roles[0].options[0].value == "smart"
        await conn.set_config_option(session_id=new.session_id, config_id="model", value="smart")
        await conn.prompt(session_id=new.session_id, prompt=[acp.text_block("go")])
    assert rec.text().endswith("the smart one")


async def test_the_editors_mcp_server_is_started_and_its_tools_used(project, tmp_path):
    call = {"tool_calls": [{"name": "mcp__files__echo", "input": {"text": "from the editor"}}]}
    model = script(tmp_path / "m.json", call, {"text": "done"})
    server = McpServerStdio(name="files", command=sys.executable, args=[str(SERVER)], env=[])
    rec = Recorder()
    async with larik_acp(project, rec, "-m", model, "--permission-mode", "yolo") as (conn, _):
        sid = (await _open(conn, rec, project, [server])).session_id
        await until(lambda: "MCP server 'files' ready" in rec.text(), "the server to start")
        out = await conn.prompt(session_id=sid, prompt=[acp.text_block("echo")])
    assert out.stop_reason == "end_turn"
    [start] = [u for u in rec.of("tool_call") if "echo" in u.title]
    assert start.kind == "other"
    done = [u for u in rec.of("tool_call_update") if u.status == "completed"]
    assert "echo: from the editor" in done[-1].content[0].content.text
