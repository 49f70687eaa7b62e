"""Others' text, bounded everywhere by one rule (issue 42 items 5 and 14).

Every channel that brings another party's text to the model or the screen gives it on as
:func:`larik.others_text.bounded` makes it: at most its bound, with no escape sequence, no bidi
control, no NUL and no lone surrogate. :data:`CHANNELS` is the table of them, each fed 7 MB of
hostile text through its own code; the real processes (a command, a language server, an MCP
server, a hook, a loopback model) are in the tests below and beside their channels
(tests/lsp, tests/mcp, tests/hooks)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest
from acp import RequestError

from larik.acp.editor import MAX_WHY, ClientEditor
from larik.agent.runner import settled
from larik.agent.tools import ToolError, ToolResult
from larik.agent.tools.bash import MAX_OUTPUT
from larik.agent.tools.web_fetch import MAX_CHARS
from larik.agent.transcript import load_transcript
from larik.hooks.runner import MAX_CONTEXT, MAX_REASON, Outcome, _Reader
from larik.llm.others_parse import Unreadable, json_value, literal, unparse
from larik.llm.providers.openai_compat import OpenAICompatProvider
from larik.llm.types import Block, StreamEvent
from larik.lsp.session import MAX_CODE, MAX_MESSAGE, format_line
from larik.mcp.content import MAX_NAME, MAX_TEXT, clip, described_text, result_parts, short
from larik.mcp.manager import MAX_INSTRUCTIONS, instructions_text
from larik.mcp.offer import MAX_DESCRIPTION
from larik.mcp.server import State
from larik.others_text import MAX_RESULT, bounded, clean, encodable_json
from tests.llm.helpers import endpoint
from tests.llm.providers.kits.openai_compat import chunk, reply
from tests.loopback import Reply

from .conftest import E, Roles, of, run, script

BAD = "\x1b]52;c;cHduZWQ=\x07\u202e\x00\udcff\x1b[31mred\x1b[0m\u200b"
HUGE = BAD * (7_000_000 // len(BAD))  # 7 MB, as the language server sent
NOTE = 120  # room for the note that says what was cut


def assert_clean(text: str) -> None:
    """Nothing that acts on a terminal or hides from a reader; nothing unencodable."""
    for c in ("\x1b", "\x07", "\x00", "\u202e", "\u200b", "\r"):
        assert c not in text, repr(c)
    text.encode("utf-8")  # no lone surrogate


def _diagnostic(h: str) -> str:
    start = SimpleNamespace(line=0, character=0)
    d = SimpleNamespace(code=h, message=h, severity=1, source=h, range=SimpleNamespace(start=start))
    return format_line("a.py", d)


def _mcp_result(h: str) -> str:
    text = SimpleNamespace(type="text", text=h)
    resource = SimpleNamespace(type="resource", resource=SimpleNamespace(text=h, uri=h))
    link = SimpleNamespace(type="resource_link", uri=h, name=h)
    result = SimpleNamespace(content=[text, resource, link], is_error=False)
    return result_parts(result).text


def _mcp_instructions(h: str) -> str:
    server = SimpleNamespace(state=State.READY, instructions=h, name="s", mask=lambda t: t)
    return instructions_text([server])  # type: ignore[list-item]


def _hook(event: str, data: dict) -> Outcome:
    out = Outcome()
    _Reader(event, "a hook", out).answer(data)
    return out


def _hook_reason(h: str) -> str:
    return _hook("PostToolUse", {"decision": "block", "reason": h}).block


def _hook_context(h: str) -> str:
    specific = {"additionalContext": h}
    return "".join(_hook("UserPromptSubmit", {"hookSpecificOutput": specific}).context)


def _hook_message(h: str) -> str:
    return "".join(n.text for n in _hook("Stop", {"systemMessage": h}).notices)


def _hook_stop(h: str) -> str:
    return _hook("Stop", {"continue": False, "stopReason": h}).stop or ""


def _editor_error(h: str) -> str:
    async def fails() -> None:
        raise RequestError(-32000, h)

    try:
        editor = ClientEditor(SimpleNamespace(fs=None, terminal=False), [])
        asyncio.run(editor._ask("read a.py", fails()))
    except ToolError as e:
        return str(e)
    raise AssertionError("no error")


#: (channel, what it gives on of hostile text, its bound)
CHANNELS: list[tuple[str, Callable[[str], str], int]] = [
    (
        "any tool's result (bash, jobs, MCP, web_fetch, task)",
        lambda h: settled(ToolResult(h)).content,
        MAX_RESULT,
    ),  # fmt: skip
    (
        "a file's own text (read_file, grep)",
        lambda h: settled(ToolResult(h, exact=True)).content,
        MAX_RESULT,
    ),  # fmt: skip
    (
        "a command's output kept (bash, a job, an editor's terminal)",
        lambda h: bounded(h, MAX_OUTPUT, "tail"),
        MAX_OUTPUT,
    ),  # fmt: skip
    ("a fetched page", lambda h: bounded(h, MAX_CHARS), MAX_CHARS),
    ("a language server's diagnostic", _diagnostic, MAX_CODE + MAX_MESSAGE + 40),
    ("an MCP result: text, resource text, link", _mcp_result, MAX_TEXT),
    ("an MCP error", clip, MAX_TEXT),
    ("an MCP name or title", short, MAX_NAME),
    ("an MCP tool's description", lambda h: described_text(h, MAX_DESCRIPTION), MAX_DESCRIPTION),
    ("an MCP server's instructions", _mcp_instructions, MAX_INSTRUCTIONS + 2_000),
    ("a hook's block reason", _hook_reason, MAX_REASON),
    ("a hook's additionalContext", _hook_context, MAX_CONTEXT),
    ("a hook's systemMessage", _hook_message, 600),
    ("a hook's stopReason", _hook_stop, 600),
    ("an editor's error (ACP)", _editor_error, MAX_WHY + 60),
]


@pytest.mark.parametrize(("channel", "give", "bound"), CHANNELS, ids=[c[0] for c in CHANNELS])
def test_every_channel_of_others_text_is_bounded_and_clean(channel, give, bound):
    out = give(HUGE)
    assert len(out) <= bound + NOTE, len(out)
    if channel.startswith("a file's own text"):  # kept for an edit to quote: only encodable
        out.encode("utf-8")
        assert "\u202e" in out
    else:
        assert_clean(out)
    assert out  # something of it is said, never silently nothing


def test_the_rule_cuts_before_it_cleans_and_says_what_it_cut():
    out = bounded("a" * 50 + "\u202e" * 50, 60)
    assert len(out) < 60 + NOTE and "100 characters in all" in out
    assert bounded("short", 60) == "short"  # nothing cut: no note
    assert bounded("x" * 100, 10, "tail").startswith("[… cut: 100 characters in all; the last")
    assert clean(clean(BAD)) == clean(BAD)  # once is enough: the TUI may clean again
    assert "red" in clean(BAD) and "\\u202e" in clean(BAD)  # colours dropped, bidi named


def test_json_lines_with_a_lone_surrogate_are_written_and_read_back():
    line = encodable_json(json.dumps({"text": "a\udcffb"}, ensure_ascii=False))
    line.encode("utf-8")
    assert json.loads(line) == {"text": "a\\udcffb"}


# -- item 14: parsers of others' text are bounded ------------------------------------------------


@pytest.mark.parametrize(
    "text", ["[" * 5000 + "]" * 5000, '{"a":' * 5000 + "1" + "}" * 5000, "x" * 20_000_000]
)
def test_json_of_others_is_unreadable_never_a_crash(text):
    with pytest.raises(Unreadable):
        json_value(text)
    with pytest.raises(ValueError):  # what every caller already catches
        json_value(text)


def test_literals_and_unparse_of_others_are_bounded():
    for text in ("(" * 5000 + ")" * 5000, "-" * 100_000 + "1", "1" + "+1" * 60_000, "a\x00"):
        with pytest.raises(Unreadable):
            literal(text)
    import ast

    deep = ast.parse("x = " + "+".join(["1"] * 900))
    assert unparse(deep) == ""  # ast.unparse raises RecursionError


def test_a_tool_call_nested_too_deep_is_a_bad_call_not_a_crash():
    call = Block.tool_use("c1", "bash", '{"command": ' + "[" * 5000 + "]" * 5000 + "}")
    with pytest.raises(ValueError):
        call.input_dict()


def test_a_lone_surrogate_in_a_reply_is_kept_as_its_escape():
    assert Block.text_block("a\udcffb").text == "a\\xffb"
    assert StreamEvent.text_delta("\ud800").text == "\\ud800"
    Block.text_block("a\udcffb").model_dump_json()  # never an exception


# -- real processes --------------------------------------------------------------------------------


async def test_a_commands_hostile_output_reaches_the_model_bounded_and_clean(make_agent, project):
    (project / "h.txt").write_bytes(HUGE.encode("utf-8", "surrogateescape"))
    agent = await make_agent(script())
    result = await agent.tool_runner.run_tool("bash", {"command": "cat h.txt"})
    assert len(result.content) <= MAX_OUTPUT + 2 * NOTE
    assert_clean(result.content)
    job = await agent.tool_runner.run_tool("bash", {"command": "cat h.txt", "background": True})
    assert_clean(job.content)
    assert len(job.content) <= MAX_OUTPUT + 4 * NOTE


async def test_a_lone_surrogate_in_a_real_stream_is_kept_and_written(make_agent, project, loopback):
    """A model's reply holding a JSON-escaped lone surrogate (``\\udcff``) over a real
    OpenAI-compatible stream: the turn ended with "internal error" and the reply was lost
    (the transcript could not encode it); now it is kept as its escape and written."""
    for probe in ("/props", "/v1/models", "/api/v0/models/m"):
        loopback.route(probe, Reply(status=404, body="{}", content_type="application/json"))
    body = reply(
        [
            chunk({"role": "assistant", "content": "kept "}),
            chunk({"content": "X"}),
            chunk(finish="stop"),
        ]
    )
    assert isinstance(body.body, str)
    body.body = body.body.replace('"X"', '"\\udcff and the rest"')
    loopback.add(body)
    provider = OpenAICompatProvider(endpoint("openai-compatible", f"{loopback.url}/v1"))
    agent = await make_agent(provider, resolver=Roles(provider))
    events = await run(agent)
    assert not of(events, E.ERROR)
    assert of(events, E.TURN_END)[0].text == "kept \\xff and the rest"
    loaded = load_transcript(Path(agent.transcript_path))
    assert loaded.messages[-1].text() == "kept \\xff and the rest"
