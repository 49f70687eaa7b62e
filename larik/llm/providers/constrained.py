"""Grammar-constrained replies for small models on llama.cpp and vLLM: calls that always parse.

A small model writes tool calls in shapes no parser expects (a bare object, a function that is
not a tool, arguments that are not JSON). llama.cpp (``json_schema_to_grammar``) and vLLM
(structured outputs: xgrammar / guidance) can hold every token of a reply to a JSON schema, and
both take it as OpenAI's ``response_format: {"type": "json_schema", ...}``. The schema here
(:func:`response_format`) allows exactly one of

* ``{"answer": "<text>"}`` — the final answer (the first branch, and named first: a small
  model that has what it needs should find the way out as easy as another call),
* ``{"name": "<one of the request's tools>", "arguments": {<that tool's input schema>}}``,

so the arguments always parse and validate. The tools are still sent (the chat template shows
them to the model); :data:`NOTE` joins the system prompt so the model knows the shape it is held
to. :func:`read_reply` turns the reply back into text and ``tool_use`` blocks, and falls back to
the ordinary text recovery (:func:`larik.llm.toolcalls.recover_tool_calls`) for anything else
(a server that ignored the field, or one that wraps the object as ``{"response": ...}`` or
``{"tool_call": ...}`` the way llama.cpp's generic tool format does).

Who gets it is decided by :func:`wanted` from three switches: the provider option
``constrained_tools`` (``auto`` — the default: when the model's profile asks, which a small model's
does; ``always``; ``never``), the model's ``[models."p/m"] constrained_tools`` (true/false,
carried in ``Request.constrain_tools``), and the server: only a llama.cpp or vLLM server
(:data:`KINDS`, as the prober identified it), and never a hosted vendor's endpoint. A ``grammar``
(GBNF) field is not used: llama.cpp refuses it together with ``tools`` ("Cannot use custom
grammar constraints with tools"). When a server refuses the constrained request anyway, the
adapter sends it once more without the constraint, says so in one notice, and never sends the
constraint to that provider again (:func:`refused`).
"""

from __future__ import annotations

from typing import Any

from ..errors import APIError, ContextOverflow
from ..toolcalls import calls_from, loads_lenient, recover_tool_calls
from ..types import Block, ToolSpec

__all__ = ["KINDS", "MODES", "NOTE", "read_reply", "refused", "response_format", "wanted"]

KINDS = ("llamacpp", "vllm")
"""Server kinds (the prober's names) that hold a reply to a JSON schema in ``response_format``."""
MODES = ("auto", "always", "never")
REFUSED_STATUS = (400, 422, 500, 501)
ANSWER = "answer"
NOTE = (
    "Reply with exactly one JSON object and nothing else: "
    '{"answer": "<your final answer>"} as soon as you have what the task asks for, or '
    '{"name": "<tool name>", "arguments": {...}} to call one tool.'
)


def wanted(mode: str, asked: bool | None, hosted: bool) -> bool:
    """Whether to constrain a request with tools, if the server is one of :data:`KINDS`.
    ``mode``: the provider option; ``asked``: the model's profile (``Request.constrain_tools``,
    None when it has no opinion); ``hosted``: the endpoint is a vendor's, not the user's."""
    if mode == "never" or hosted or asked is False:
        return False
    return bool(asked) or mode == "always"


def refused(exc: APIError) -> bool:
    """Whether an error at request time may be the server refusing the constraint (a bad
    request or a failed grammar build), rather than the conversation or the connection."""
    return not isinstance(exc, ContextOverflow) and exc.status in REFUSED_STATUS


def response_format(tools: list[ToolSpec]) -> dict[str, Any]:
    calls = [
        {
            "type": "object",
            "properties": {"name": {"const": t.name}, "arguments": _arguments(t.input_schema)},
            "required": ["name", "arguments"],
            "additionalProperties": False,
        }
        for t in tools
    ]
    answer = {
        "type": "object",
        "properties": {ANSWER: {"type": "string"}},
        "required": [ANSWER],
        "additionalProperties": False,
    }
    schema = {"anyOf": [answer, *calls]}
    return {"type": "json_schema", "json_schema": {"name": "reply", "schema": schema}}


def _arguments(schema: dict[str, Any]) -> dict[str, Any]:
    """A tool's input schema as the ``arguments`` member: always an object."""
    out = dict(schema) if isinstance(schema, dict) else {}
    out["type"] = "object"
    out.setdefault("properties", {})
    return out


def read_reply(text: str, tool_names: list[str]) -> tuple[str, list[Block]]:
    """A constrained reply's text as ``(answer text, tool_use blocks)``."""
    value = _unwrap(loads_lenient(text.strip()) if text.strip() else None)
    if isinstance(value, dict):
        if set(value) == {ANSWER} and isinstance(value[ANSWER], str):
            return value[ANSWER], []
        calls = calls_from(value, frozenset(tool_names))
        if calls:
            return "", calls
    elif isinstance(value, str):
        return value, []
    return recover_tool_calls(text, tool_names)


def _unwrap(value: Any) -> Any:
    """llama.cpp's generic tool format: ``{"tool_call": {...}}`` / ``{"response": ...}``."""
    if isinstance(value, dict) and len(value) == 1:
        key = next(iter(value))
        if key in ("tool_call", "response"):
            inner = value[key]
            return inner if not isinstance(inner, str) or key == "response" else value
    return value
