"""Tool-call repair and recovery shared by the Chat-Completions-shaped adapters.

Three small things adapters for open models need (openai-compatible, ollama):

``repair_arguments(raw) -> str``
    Tool arguments as the model wrote them, made usable: valid JSON object text is returned
    unchanged (byte-for-byte); text that ``json-repair`` can turn into a JSON object is returned
    repaired (``{"a": 1,}`` -> ``{"a": 1}``); anything else is returned as it came, so
    ``Block.input`` holds the raw text and the agent answers the call with an error tool result
    (``Block.input_dict()`` raises). Never raises.

``recover_tool_calls(text, tool_names) -> (text, calls)``
    A reply that wrote its tool call as *text* instead of structured calls, turned into real
    ``tool_use`` blocks. Call it only when the request had tools and no structured call came
    back. Recognised formats:

    * Hermes / Qwen: ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` (one or more,
      anywhere in the text; an unclosed last tag is accepted);
    * Mistral: ``[TOOL_CALLS][{"name": ..., "arguments": {...}}, ...]`` and the newer
      ``[TOOL_CALLS]name[ARGS]{...}``;
    * a bare JSON object ``{"name": ..., "arguments"|"parameters": {...}}`` (or a list of them,
      or ``{"function": {...}}``) that is the *whole* reply, optionally in a code fence.

    Only names in ``tool_names`` are accepted; a call naming anything else stays in the text.
    Returns the text with the recovered calls cut out (stripped) and the new ``tool_use``
    blocks, or ``(text, [])`` unchanged when nothing was recovered.

``calls_from(value, tool_names)`` / ``loads_lenient(text)``
    The pieces the recoveries share, also used by the grammar-constrained reply reader
    (:mod:`larik.llm.providers.constrained`): tool-use blocks from a parsed call object (or a
    list of them; unknown names skipped), and JSON parsed strictly, then by json-repair.

``new_call_id() -> str``
    A fresh ``call_…`` id for calls a server sent without one.

``TOOL_IMAGES_NOTE``
    The short text that introduces tool-result images in the user message placed after the
    tool messages (APIs whose tool messages can only hold text).
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable
from typing import Any

from . import jsontext
from .others_parse import json_value
from .types import Block

__all__ = [
    "TOOL_IMAGES_NOTE",
    "calls_from",
    "loads_lenient",
    "new_call_id",
    "recover_tool_calls",
    "repair_arguments",
]

TOOL_IMAGES_NOTE = "Images returned by the tool call(s) above:"


def new_call_id() -> str:
    return "call_" + secrets.token_hex(12)


# -- argument repair ------------------------------------------------------------------------


def repair_arguments(raw: str) -> str:
    if not raw.strip():
        return raw
    try:
        if isinstance(json_value(raw), dict):
            return raw
    except ValueError:
        pass
    fixed = _repair_object(raw)
    try:
        return raw if fixed is None else jsontext.dumps(fixed, ensure_ascii=False)
    except jsontext.NotJson:  # repaired into a NaN: left as it came, refused when run
        return raw


def _repair_object(text: str) -> dict[str, Any] | None:
    """``text`` as a JSON object via json-repair, or None when it cannot make one."""
    try:
        from json_repair import repair_json

        value = repair_json(text, return_objects=True)
    except Exception:  # the library's failure modes are not ours to crash on
        return None
    return value if isinstance(value, dict) else None


def loads_lenient(text: str) -> Any:
    """Strict JSON first, json-repair as the fallback; None when neither gives a value."""
    try:
        return json_value(text)
    except ValueError:
        pass
    try:
        from json_repair import repair_json

        value = repair_json(text, return_objects=True)
    except Exception:
        return None
    return value if isinstance(value, (dict, list)) else None


# -- recovery from text ---------------------------------------------------------------------

_HERMES = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|\Z)", re.DOTALL)
_MISTRAL = "[TOOL_CALLS]"
_MISTRAL_ARGS = "[ARGS]"
_FENCE = re.compile(r"\A```(?:json|tool_call|tool_code)?\s*\n?(.*?)\n?```\Z", re.DOTALL)


def recover_tool_calls(text: str, tool_names: Iterable[str]) -> tuple[str, list[Block]]:
    names = frozenset(tool_names)
    if not names or not text.strip():
        return text, []
    for recover in (_recover_hermes, _recover_mistral, _recover_bare_json):
        rest, calls = recover(text, names)
        if calls:
            return rest.strip(), calls
    return text, []


def _recover_hermes(text: str, names: frozenset[str]) -> tuple[str, list[Block]]:
    if "<tool_call>" not in text:
        return text, []
    calls: list[Block] = []
    kept: list[str] = []
    pos = 0
    for m in _HERMES.finditer(text):
        found = calls_from(loads_lenient(m.group(1)), names)
        if found:
            kept.append(text[pos : m.start()])
            pos = m.end()
            calls.extend(found)
    kept.append(text[pos:])
    return "".join(kept), calls


def _recover_mistral(text: str, names: frozenset[str]) -> tuple[str, list[Block]]:
    start = text.find(_MISTRAL)
    if start < 0:
        return text, []
    calls: list[Block] = []
    for part in text[start:].split(_MISTRAL)[1:]:
        part = part.strip()
        if _MISTRAL_ARGS in part:  # name[ARGS]{...}
            name, _, args = part.partition(_MISTRAL_ARGS)
            value = loads_lenient(args)
            found = calls_from({"name": name.strip(), "arguments": value}, names)
        else:  # [{"name": ..., "arguments": ...}]
            found = calls_from(loads_lenient(part), names)
        if not found:
            return text, []
        calls.extend(found)
    return text[:start], calls


def _recover_bare_json(text: str, names: frozenset[str]) -> tuple[str, list[Block]]:
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    if not body.startswith(("{", "[")):
        return text, []
    value = loads_lenient(body)
    items = value if isinstance(value, list) else [value]
    calls = calls_from(value, names)
    return ("", calls) if calls and len(calls) == len(items) else (text, [])


def calls_from(value: Any, names: frozenset[str]) -> list[Block]:
    """Tool-use blocks for a parsed call object or a list of them; unknown names are skipped."""
    items = value if isinstance(value, list) else [value]
    calls: list[Block] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        if isinstance(item.get("function"), dict):
            item = item["function"]
        name = item.get("name")
        if not isinstance(name, str) or name not in names:
            continue
        args = item.get("arguments", item.get("parameters", {}))
        if isinstance(args, str):
            text = repair_arguments(args) if args.strip() else "{}"
        elif isinstance(args, dict):
            text = jsontext.dumps(args, ensure_ascii=False)
        else:
            continue
        calls.append(Block.tool_use(new_call_id(), name, text))
    return calls
