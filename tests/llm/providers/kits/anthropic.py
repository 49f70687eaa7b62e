"""Conformance kit for the Anthropic adapter: canned Messages API SSE bodies.

Events end in CRLF, except ``message_start``, which ends in LF (SSE allows mixed line ends).
So a body split on CRLF event boundaries, as the cancellation scenario does, sends
``message_start`` together with the first ``content_block_start`` in one network chunk (as the
real API usually does), and the first text delta arrives in the second chunk.
"""

from __future__ import annotations

import json
from typing import Any

from larik.llm.providers.anthropic import AnthropicProvider
from larik.llm.types import StopReason, Usage
from tests.llm.providers.conformance import kit_endpoint, split_before
from tests.loopback import Reply

MODEL = "claude-sonnet-4-6"
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def event(data: dict[str, Any], eol: str = "\r\n") -> str:
    return f"event: {data['type']}{eol}data: {json.dumps(data)}{eol}{eol}"


def message_start(usage: Usage | None = None, model: str = MODEL) -> str:
    u = usage or Usage(input=10, output=1)
    return event(
        {
            "type": "message_start",
            "message": {
                "id": "msg_test",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {
                    "input_tokens": u.input,
                    "cache_creation_input_tokens": u.cache_write,
                    "cache_read_input_tokens": u.cache_read,
                    "output_tokens": 1,
                },
            },
        },
        eol="\n",
    )


def block_start(index: int, block: dict[str, Any]) -> str:
    return event({"type": "content_block_start", "index": index, "content_block": block})


def delta(index: int, d: dict[str, Any]) -> str:
    return event({"type": "content_block_delta", "index": index, "delta": d})


def block_stop(index: int) -> str:
    return event({"type": "content_block_stop", "index": index})


def message_end(stop_reason: str, output_tokens: int = 5) -> str:
    return event(
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": output_tokens},
        }
    ) + event({"type": "message_stop"})


def text_block(index: int, pieces: list[str]) -> str:
    out = block_start(index, {"type": "text", "text": ""})
    out += "".join(delta(index, {"type": "text_delta", "text": p}) for p in pieces)
    return out + block_stop(index)


def sse(*parts: str) -> Reply:
    return Reply(body="".join(parts), content_type="text/event-stream; charset=utf-8")


class AnthropicKit:
    name = "anthropic"
    model = MODEL
    env_var = "ANTHROPIC_API_KEY"

    def make(self, base_url: str) -> AnthropicProvider:
        return AnthropicProvider(kit_endpoint("anthropic", base_url))

    def text_reply(self, pieces: list[str], usage: Usage) -> Reply:
        return sse(
            message_start(usage),
            text_block(0, pieces),
            message_end("end_turn", usage.output),
        )

    def thinking_reply(self, thinking: str, signature: str, text: str) -> Reply:
        half = len(thinking) // 2
        return sse(
            message_start(),
            block_start(0, {"type": "thinking", "thinking": "", "signature": ""}),
            delta(0, {"type": "thinking_delta", "thinking": thinking[:half]}),
            delta(0, {"type": "thinking_delta", "thinking": thinking[half:]}),
            delta(0, {"type": "signature_delta", "signature": signature}),
            block_stop(0),
            text_block(1, [text]),
            message_end("end_turn"),
        )

    def replay_token(self, signature: str) -> str | None:
        return signature

    def tool_call_reply(self, call_id: str, name: str, arg_pieces: list[str]) -> Reply:
        parts = [block_start(0, {"type": "tool_use", "id": call_id, "name": name, "input": {}})]
        parts += [delta(0, {"type": "input_json_delta", "partial_json": p}) for p in arg_pieces]
        return sse(message_start(), *parts, block_stop(0), message_end("tool_use"))

    def stop_replies(self) -> dict[StopReason, Reply]:
        return {
            stop: sse(message_start(), text_block(0, ["some text"]), message_end(stop.value))
            for stop in (
                StopReason.END_TURN,
                StopReason.MAX_TOKENS,
                StopReason.STOP_SEQUENCE,
                StopReason.REFUSAL,
                StopReason.PAUSE_TURN,
            )
        }

    def in_stream_error_reply(self) -> Reply | None:
        error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
        return sse(
            message_start(),
            block_start(0, {"type": "text", "text": ""}),
            delta(0, {"type": "text_delta", "text": "partial"}),
            event(error),
        )

    def unended(self, reply: Reply) -> tuple[bytes, bytes]:
        return split_before(reply, lambda e: b'"type": "message_stop"' in e)

    def error_body(self, status: int, message: str) -> Reply:
        body = {
            "type": "error",
            "error": {"type": _ERROR_TYPES.get(status, "api_error"), "message": message},
            "request_id": "req_test",
        }
        return Reply(status=status, body=json.dumps(body), content_type="application/json")


KIT = AnthropicKit()
