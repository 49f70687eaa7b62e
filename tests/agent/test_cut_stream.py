"""A reply whose stream stops before its end runs none of its tool calls (issue 42 item 6).

Through the agent, for every adapter kind (each kit's real wire bodies on a loopback server)
and every way a body can end early (a close-delimited body, a chunked body ended cleanly, a
reset mid-chunk): a ``write_file`` in the cut reply writes nothing, the turn ends with an
error that says the reply was cut, and the conversation stays valid. Print mode, as a real
process on an OpenAI-compatible stream (the issue's reproduction: ``echo RAN > ran.txt`` ran
from a reply with no ``finish_reason`` and no ``[DONE]``), exits 1 with one line on stderr,
and a cut before any output is sent again.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from larik.agent.transcript import load_transcript
from larik.llm.retry import RetryingProvider
from larik.llm.types import Usage
from tests.llm.providers import test_conformance as suite
from tests.llm.providers.conformance import cut
from tests.llm.providers.kits import openai_compat as compat
from tests.loopback import ENDS, LoopbackServer, Reply

from .conftest import E, Roles, of, run, valid_conversation

KIND_NAMES, kit_for = suite.KIND_NAMES, suite.kit_for
kind = suite.kind  # the fixture: a kind only a kit knows (azure-like) registered while it runs
WAIT = 120.0  # seconds a print-mode run may take on a loaded machine (retries wait up to ~7 s)


async def _no_wait(_: float) -> None:
    pass


def _retrying(provider: Any) -> RetryingProvider:
    """The retry layer every built provider has (larik/routing/build.py), without its waits."""
    return RetryingProvider(provider, sleep=_no_wait)


def _quiet_probes(server: LoopbackServer, model: str) -> None:
    """A local server's probes answered with nothing, so they never take a queued reply
    (``m`` is the model the agent asks for in these tests)."""
    paths = ("/props", "/v1/models", f"/api/v0/models/{model}", "/api/v0/models/m", "/api/show")
    for path in paths:
        server.route(path, Reply(status=404, body="{}", content_type="application/json"))


@pytest.mark.parametrize("kind", KIND_NAMES, indirect=True)
@pytest.mark.parametrize("end", ENDS)
async def test_a_tool_call_in_a_cut_reply_never_runs(kind, end, make_agent, project, loopback):
    kit = kit_for(kind)
    _quiet_probes(loopback, kit.model)
    args = json.dumps({"path": "ran.txt", "content": "RAN\n"})
    call = kit.tool_call_reply("call_cut", "write_file", [args[:12], args[12:]])
    after = kit.text_reply(["sent again"], Usage(input=1, output=1))  # if nothing was shown
    loopback.add(cut(kit, call, end), after)
    provider = _retrying(kit.make(loopback.url))
    agent = await make_agent(provider, resolver=Roles(provider))
    events = await run(agent)
    assert not (project / "ran.txt").exists()
    errors = [e.text for e in of(events, E.ERROR)]
    if end != "reset" or errors:  # a reset may take the call with it: nothing shown, sent again
        assert len(errors) == 1 and "the reply was cut off" in errors[0], errors
        assert "\n" not in errors[0]
    assert not of(events, E.TOOL_START)
    valid_conversation(agent.messages)
    valid_conversation(load_transcript(agent.transcript_path).messages)


@pytest.mark.parametrize("kind", KIND_NAMES, indirect=True)
async def test_the_text_of_a_cut_reply_is_kept_marked_as_cut(kind, make_agent, loopback):
    kit = kit_for(kind)
    _quiet_probes(loopback, kit.model)
    reply = kit.text_reply(["Half ", "a reply"], Usage(input=1, output=1))
    loopback.add(cut(kit, reply, "chunked"))
    provider = _retrying(kit.make(loopback.url))
    agent = await make_agent(provider, resolver=Roles(provider))
    events = await run(agent)
    assert "the reply was cut off" in of(events, E.ERROR)[0].text
    kept = agent.messages[-1]
    assert kept.role == "assistant" and kept.interrupted and kept.text().startswith("Half")
    assert not kept.tool_uses()
    stored = load_transcript(agent.transcript_path).messages
    assert stored[-1].interrupted and stored[-1].text() == kept.text()


# -- print mode, a real process -----------------------------------------------------------


def _print_mode(home: Path, project: Path, server: LoopbackServer) -> subprocess.CompletedProcess:
    config = home / "config.toml"
    config.write_text(
        "[providers.fake]\n"
        'type = "openai-compatible"\n'
        f'base_url = "{server.url}/v1"\n'
        'api_key = "dummy-key"\n'
    )
    _quiet_probes(server, compat.MODEL)
    argv = ["-p", "make ran.txt", "-m", f"fake/{compat.MODEL}", "--permission-mode", "yolo"]
    return subprocess.run(
        [sys.executable, "-m", "larik.cli", *argv],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=WAIT,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "LARIK_HOME": str(home)},
    )


def _bash_call(command: str) -> Reply:
    """A reply calling bash (its arguments in two pieces), as an OpenAI-compatible server
    streams it."""
    args = json.dumps({"command": command})
    first = {"index": 0, "id": "call_1", "type": "function"}
    first["function"] = {"name": "bash", "arguments": args[:10]}
    more = {"index": 0, "function": {"arguments": args[10:]}}
    chunks = [
        compat.chunk({"role": "assistant", "content": "Writing it. "}),
        compat.chunk({"tool_calls": [first]}),
        compat.chunk({"tool_calls": [more]}),
        compat.chunk(finish="tool_calls"),
    ]
    return compat.reply(chunks)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return Path(os.environ.get("LARIK_HOME") or tmp_path / "home")


@pytest.mark.parametrize("end", ENDS)
def test_print_mode_ends_a_cut_reply_with_one_line_and_runs_none_of_it(
    end, home, project, loopback
):
    reply = cut(compat.KIT, _bash_call("echo RAN > ran.txt"), end)
    loopback.add(*[reply] * 4)  # every try cut (a reset may come before anything is shown)
    done = _print_mode(home, project, loopback)
    assert not (project / "ran.txt").exists()
    assert done.returncode == 1, done.stderr
    lines = [line for line in done.stderr.splitlines() if "cut off" in line]
    assert len(lines) == 1 and "the reply was cut off" in lines[0], done.stderr
    assert "Traceback" not in done.stderr


def test_print_mode_sends_a_reply_cut_before_any_output_again(home, project, loopback):
    whole = compat.KIT.text_reply(["Hello", " again"], Usage(input=1, output=1))
    first = cut(compat.KIT, compat.KIT.text_reply(["Hello"], Usage()), "close", b"Hello")
    loopback.add(first, whole)
    done = _print_mode(home, project, loopback)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Hello again\n"
    assert "the reply was cut off" in done.stderr  # the retry's notice
    chats = [r for r in loopback.requests if r.path.endswith("/chat/completions")]
    assert len(chats) == 2
