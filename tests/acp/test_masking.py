"""What ``larik acp`` writes to the editor is masked as print mode's stdout is: a key Larik
knows (here: a provider's ``api_key`` in the user's config) never reaches the client in the
model's text, a tool call's input or its result — but the file the client is asked to write
keeps its content as the model wrote it (``***`` there would change the file)."""

from __future__ import annotations

import json
from pathlib import Path

import acp

from .client import Recorder, env, larik_acp, script

KEY = "Qx7vT1mR4pW2zK9d"  # no pattern knows this shape: only masking by value finds it


def _user_config_with_key() -> None:
    home = Path(env()["LARIK_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        '[providers.box]\ntype = "openai-compatible"\nbase_url = "http://127.0.0.1:9/v1"\n'
        f'api_key = "{KEY}"\n'
    )


async def test_a_known_key_reaches_the_client_only_inside_the_file_it_writes(project, tmp_path):
    _user_config_with_key()
    target = project / "notes.txt"
    model = script(
        tmp_path / "m.json",
        {"tool_calls": [{"name": "bash", "input": {"command": f"echo {KEY}"}}]},
        {"tool_calls": [{"name": "write_file", "input": {"path": "notes.txt", "content": KEY}}]},
        {"text": f"the key is {KEY}."},
    )
    rec = Recorder(files={}, answers=["allow_once", "allow_once"])
    raw: list[str] = []
    rec.on_update = lambda update: raw.append(json.dumps(update.model_dump(mode="json")))
    async with larik_acp(project, rec, "-m", model) as (conn, _):
        await conn.initialize(protocol_version=1, client_capabilities=rec.capabilities())
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        out = await conn.prompt(session_id=sid, prompt=[acp.text_block("go")])
    assert out.stop_reason == "end_turn"
    assert rec.text() == "the key is ***."
    assert raw and not any(KEY in line for line in raw), [x for x in raw if KEY in x][:1]
    assert any("***" in line for line in raw if '"tool_call' in line)  # the echo, masked
    assert not any(KEY in a.title for a in rec.asked)
    assert rec.writes == [(str(target), KEY)]  # what the editor writes is what the model wrote
