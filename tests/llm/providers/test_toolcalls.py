"""Tool-call argument repair and recovery of tool calls written as text (larik.llm.toolcalls)."""

from __future__ import annotations

import json

import pytest

from larik.llm.toolcalls import new_call_id, recover_tool_calls, repair_arguments

TOOLS = ["read_file", "write_file"]


# -- repair_arguments -------------------------------------------------------------------------


@pytest.mark.parametrize("raw", ['{"path": "a.py"}', '{ "a" :1 }', "{}", ""])
def test_valid_or_empty_arguments_are_kept_byte_for_byte(raw):
    assert repair_arguments(raw) == raw


@pytest.mark.parametrize(
    "raw,expected",
    [
        ('{"path": "a.py",}', {"path": "a.py"}),
        ('{"path": "a.py"', {"path": "a.py"}),
        ("{'path': 'a.py'}", {"path": "a.py"}),
        ('```json\n{"path": "a.py"}\n```', {"path": "a.py"}),
    ],
    ids=["trailing-comma", "unclosed", "single-quotes", "fenced"],
)
def test_broken_arguments_are_repaired_into_a_json_object(raw, expected):
    assert json.loads(repair_arguments(raw)) == expected


@pytest.mark.parametrize("raw", ["path=a.py please", "[1, 2]", '"just a string"'])
def test_arguments_that_cannot_become_an_object_are_returned_raw(raw):
    assert repair_arguments(raw) == raw


def test_repaired_text_keeps_non_ascii_characters():
    assert repair_arguments('{"msg": "héllo 😊",}') == '{"msg": "héllo 😊"}'


# -- recover_tool_calls -----------------------------------------------------------------------


def _calls(blocks):
    return [(b.name, json.loads(b.input)) for b in blocks]


def test_hermes_tool_call_tags_are_recovered_and_cut_from_the_text():
    text = (
        "I will read both.\n"
        '<tool_call>\n{"name": "read_file", "arguments": {"path": "a"}}\n</tool_call>\n'
        '<tool_call>{"name": "read_file", "arguments": {"path": "b"}}</tool_call>'
    )
    rest, calls = recover_tool_calls(text, TOOLS)
    assert rest == "I will read both."
    assert _calls(calls) == [("read_file", {"path": "a"}), ("read_file", {"path": "b"})]
    assert all(c.type == "tool_use" and c.id.startswith("call_") for c in calls)
    assert calls[0].id != calls[1].id


def test_an_unclosed_last_hermes_tag_is_accepted():
    rest, calls = recover_tool_calls(
        '<tool_call>{"name": "write_file", "arguments": {"path": "x", "content": "y"}}', TOOLS
    )
    assert rest == "" and _calls(calls) == [("write_file", {"path": "x", "content": "y"})]


def test_mistral_tool_calls_list_is_recovered():
    text = '[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "a"}}]'
    rest, calls = recover_tool_calls(text, TOOLS)
    assert rest == "" and _calls(calls) == [("read_file", {"path": "a"})]


def test_mistral_name_args_format_is_recovered():
    text = (
        'Reading.[TOOL_CALLS]read_file[ARGS]{"path": "a"}[TOOL_CALLS]read_file[ARGS]{"path": "b"}'
    )
    rest, calls = recover_tool_calls(text, TOOLS)
    assert rest == "Reading."
    assert _calls(calls) == [("read_file", {"path": "a"}), ("read_file", {"path": "b"})]


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "read_file", "arguments": {"path": "a"}}',
        '  {"name": "read_file", "parameters": {"path": "a"}}\n',
        '```json\n{"name": "read_file", "arguments": {"path": "a"}}\n```',
        '{"type": "function", "function": {"name": "read_file", "arguments": "{\\"path\\": \\"a\\"}"}}',
        '[{"name": "read_file", "arguments": {"path": "a"}}]',
    ],
    ids=["arguments", "parameters", "fenced", "function-wrapper-string-args", "list"],
)
def test_a_bare_json_call_that_is_the_whole_reply_is_recovered(text):
    rest, calls = recover_tool_calls(text, TOOLS)
    assert rest == "" and _calls(calls) == [("read_file", {"path": "a"})]


def test_a_json_call_inside_prose_is_not_a_bare_call():
    text = 'Call it like {"name": "read_file", "arguments": {"path": "a"}} next time.'
    assert recover_tool_calls(text, TOOLS) == (text, [])


def test_only_names_of_offered_tools_are_accepted():
    text = '<tool_call>{"name": "delete_all", "arguments": {}}</tool_call>'
    assert recover_tool_calls(text, TOOLS) == (text, [])
    mixed = text + '<tool_call>{"name": "read_file", "arguments": {}}</tool_call>'
    rest, calls = recover_tool_calls(mixed, TOOLS)
    assert rest == text, "the unknown call stays in the text"
    assert _calls(calls) == [("read_file", {})]


def test_a_bare_list_with_any_unknown_name_is_left_alone():
    text = '[{"name": "read_file", "arguments": {}}, {"name": "nope", "arguments": {}}]'
    assert recover_tool_calls(text, TOOLS) == (text, [])


@pytest.mark.parametrize("text", ["Just an answer.", "", "{not json at all"])
def test_plain_text_is_not_a_tool_call(text):
    assert recover_tool_calls(text, TOOLS) == (text, [])


def test_nothing_is_recovered_when_no_tools_were_offered():
    text = '{"name": "read_file", "arguments": {}}'
    assert recover_tool_calls(text, []) == (text, [])


def test_missing_arguments_mean_an_empty_object():
    _, calls = recover_tool_calls('{"name": "read_file"}', TOOLS)
    assert calls[0].input == "{}"


def test_new_call_ids_are_unique():
    ids = {new_call_id() for _ in range(100)}
    assert len(ids) == 100 and all(i.startswith("call_") for i in ids)
