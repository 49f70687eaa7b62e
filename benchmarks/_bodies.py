"""Streaming bodies for benchmarks/stream.py, shaped like the real APIs' (../shared/wire).

Each function takes the text deltas and returns the events of one reply (SSE events or NDJSON
lines, as bytes); benchmarks/_common.py frames each event as one HTTP chunk.
"""

from __future__ import annotations

import json
from typing import Any

_WORDS = (
    "The quick brown fox jumps over the lazy dog, and then it writes `code` in "
    "a fenced block:\n\n```python\ndef main():\n    return 42\n```\n\nAfter that, "
    "it explains why the answer is forty-two, with **bold** text and a [link](x). "
).split(" ")


def pieces(n: int) -> list[str]:
    """n text deltas of about a word each, like a model's tokens (markdown and code included)."""
    out = []
    for i in range(n):
        w = _WORDS[i % len(_WORDS)]
        out.append(w if i % len(_WORDS) == 0 else " " + w)
    return out


def _sse(data: dict[str, Any], event: str | None = None, eol: str = "\n") -> bytes:
    head = f"event: {event}{eol}" if event else ""
    return f"{head}data: {json.dumps(data, separators=(',', ':'))}{eol}{eol}".encode()


def anthropic_body(texts: list[str]) -> list[bytes]:
    def ev(d: dict[str, Any]) -> bytes:
        return _sse(d, d["type"])

    usage = {
        "input_tokens": 17,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
        "output_tokens": 1,
        "service_tier": "standard",
    }
    message = {
        "model": "claude-sonnet-4-6",
        "id": "msg_018bk6q16LtrDpGDm6TyXTgn",
        "type": "message",
        "role": "assistant",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    out = [ev({"type": "message_start", "message": message})]
    out.append(
        ev(
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            }
        )
    )
    out += [
        ev({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": t}})
        for t in texts
    ]
    out.append(ev({"type": "content_block_stop", "index": 0}))
    out.append(
        ev(
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {**usage, "output_tokens": len(texts)},
            }
        )
    )
    out.append(ev({"type": "message_stop"}))
    return out


def responses_body(texts: list[str]) -> list[bytes]:
    rid = "resp_0360bd45725b0a010068f966a4c4a881959717ba17b93477ef"
    mid = "msg_0360bd45725b0a010068f966a601b081958e95c4085b086532"
    full = "".join(texts)
    seq = iter(range(10**9))

    def ev(d: dict[str, Any]) -> bytes:
        d = {"type": d["type"], "sequence_number": next(seq), **d}
        return _sse(d, d["type"])

    def response(status: str, output: list[Any], usage: Any) -> dict[str, Any]:
        return {
            "id": rid,
            "object": "response",
            "created_at": 1761175204,
            "status": status,
            "background": False,
            "error": None,
            "incomplete_details": None,
            "instructions": None,
            "max_output_tokens": None,
            "max_tool_calls": None,
            "model": "gpt-5-2025-08-07",
            "output": output,
            "parallel_tool_calls": True,
            "previous_response_id": None,
            "prompt_cache_key": None,
            "reasoning": {"effort": None, "summary": None},
            "safety_identifier": None,
            "service_tier": "auto",
            "store": True,
            "temperature": 1.0,
            "text": {"format": {"type": "text"}, "verbosity": "medium"},
            "tool_choice": "auto",
            "tools": [],
            "top_logprobs": 0,
            "top_p": 1.0,
            "truncation": "disabled",
            "usage": usage,
            "user": None,
            "metadata": {},
        }

    part = {"type": "output_text", "annotations": [], "logprobs": [], "text": full}
    item = {
        "id": mid,
        "type": "message",
        "status": "completed",
        "content": [part],
        "role": "assistant",
    }
    where = {"item_id": mid, "output_index": 0, "content_index": 0}
    out = [
        ev({"type": "response.created", "response": response("in_progress", [], None)}),
        ev({"type": "response.in_progress", "response": response("in_progress", [], None)}),
        ev(
            {
                "type": "response.output_item.added",
                "output_index": 0,
                "item": {**item, "status": "in_progress", "content": []},
            }
        ),
        ev({"type": "response.content_part.added", **where, "part": {**part, "text": ""}}),
    ]
    out += [
        ev(
            {
                "type": "response.output_text.delta",
                **where,
                "delta": t,
                "logprobs": [],
                "obfuscation": "2WtQmJ0dTisGL"[: max(1, 13 - len(t))],
            }
        )
        for t in texts
    ]
    usage = {
        "input_tokens": 16,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": len(texts),
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 16 + len(texts),
    }
    out += [
        ev({"type": "response.output_text.done", **where, "text": full, "logprobs": []}),
        ev({"type": "response.content_part.done", **where, "part": part}),
        ev({"type": "response.output_item.done", "output_index": 0, "item": item}),
        ev({"type": "response.completed", "response": response("completed", [item], usage)}),
    ]
    return out


def chat_body(texts: list[str]) -> list[bytes]:
    def chunk(delta: dict[str, Any], finish: str | None = None, usage: Any = None, choices=True):
        return _sse(
            {
                "id": "chatcmpl-CoDWl5rS0pF10P0W0TDVgY3NA26dk",
                "object": "chat.completion.chunk",
                "created": 1766084435,
                "model": "gpt-4o-2024-08-06",
                "service_tier": "default",
                "system_fingerprint": "fp_deacdd5f6f",
                "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
                if choices
                else [],
                "usage": usage,
                "obfuscation": "I7vgPNTGnEaEu",
            }
        )

    out = [chunk({"role": "assistant", "content": "", "refusal": None})]
    out += [chunk({"content": t}) for t in texts]
    out.append(chunk({}, "stop"))
    usage = {"prompt_tokens": 16, "completion_tokens": len(texts), "total_tokens": 16 + len(texts)}
    out.append(chunk({}, usage=usage, choices=False))
    out.append(b"data: [DONE]\n\n")
    return out


def gemini_body(texts: list[str]) -> list[bytes]:
    out = []
    for i, t in enumerate(texts):
        cand: dict[str, Any] = {"content": {"parts": [{"text": t}], "role": "model"}, "index": 0}
        if i == len(texts) - 1:
            cand["finishReason"] = "STOP"
        usage = {
            "promptTokenCount": 13,
            "candidatesTokenCount": i + 1,
            "totalTokenCount": 14 + i,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 13}],
        }
        data = {
            "candidates": [cand],
            "usageMetadata": usage,
            "modelVersion": "gemini-2.5-flash",
            "responseId": "VJfyaP7eE_6zmtkP4qLV6Ao",
        }
        out.append(_sse(data, eol="\r\n"))
    return out


def ollama_body(texts: list[str]) -> list[bytes]:
    def line(d: dict[str, Any]) -> bytes:
        return (json.dumps(d, separators=(",", ":")) + "\n").encode()

    out = [
        line(
            {
                "model": "llama3",
                "created_at": "2024-05-24T20:26:46.294874Z",
                "message": {"role": "assistant", "content": t},
                "done": False,
            }
        )
        for t in texts
    ]
    out.append(
        line(
            {
                "model": "llama3",
                "created_at": "2024-05-24T20:26:47.872905Z",
                "message": {"role": "assistant", "content": ""},
                "done_reason": "stop",
                "done": True,
                "total_duration": 1897385625,
                "load_duration": 1631208,
                "prompt_eval_count": 17,
                "prompt_eval_duration": 313560000,
                "eval_count": len(texts),
                "eval_duration": 1577990000,
            }
        )
    )
    return out
