"""Conformance kit for the openai-compatible adapter: canned Chat Completions SSE bodies."""

from __future__ import annotations

import json
from typing import Any

from larik.llm.providers.openai_compat import OpenAICompatProvider
from larik.llm.types import StopReason, Usage
from tests.llm.providers.conformance import kit_endpoint, split_before
from tests.loopback import Reply

MODEL = "qwen3-coder-30b"
ENV_VAR = "LARIK_COMPAT_KEY"


def chunk(
    delta: dict[str, Any] | None = None,
    finish: str | None = None,
    usage: dict[str, Any] | None = None,
    choices: bool = True,
) -> dict[str, Any]:
    """One ``chat.completion.chunk``; ``choices=False`` gives the usage-only last chunk."""
    body: dict[str, Any] = {
        "id": "chatcmpl-kit",
        "object": "chat.completion.chunk",
        "created": 1766084435,
        "model": MODEL,
        "choices": [],
    }
    if choices:
        body["choices"] = [{"index": 0, "delta": delta or {}, "finish_reason": finish}]
    if usage is not None:
        body["usage"] = usage
    return body


def usage_body(usage: Usage) -> dict[str, Any]:
    return {
        "prompt_tokens": usage.input + usage.cache_read,
        "completion_tokens": usage.output,
        "total_tokens": usage.input + usage.cache_read + usage.output,
        "prompt_tokens_details": {"cached_tokens": usage.cache_read},
    }


def sse(chunks: list[dict[str, Any]], done: bool = True) -> str:
    lines = [f"data: {json.dumps(c)}\n\n" for c in chunks]
    if done:
        lines.append("data: [DONE]\n\n")
    return "".join(lines)


def reply(chunks: list[dict[str, Any]], **kw: Any) -> Reply:
    return Reply(body=sse(chunks), **kw)


class Kit:
    name = "openai-compatible"
    model = MODEL
    env_var = ENV_VAR

    def make(self, base_url: str) -> OpenAICompatProvider:
        return OpenAICompatProvider(
            kit_endpoint("openai-compatible", f"{base_url}/v1", api_key_env=ENV_VAR)
        )

    def text_reply(self, pieces: list[str], usage: Usage) -> Reply:
        chunks = [chunk({"role": "assistant", "content": ""})]
        chunks += [chunk({"content": p}) for p in pieces]
        chunks += [chunk(finish="stop"), chunk(usage=usage_body(usage), choices=False)]
        return reply(chunks)

    def thinking_reply(self, thinking: str, signature: str, text: str) -> Reply:
        half = len(thinking) // 2
        return reply(
            [
                chunk({"role": "assistant", "content": None, "reasoning_content": ""}),
                chunk({"content": None, "reasoning_content": thinking[:half]}),
                chunk({"content": None, "reasoning_content": thinking[half:]}),
                chunk({"content": text, "reasoning_content": None}),
                chunk(finish="stop"),
                chunk(usage=usage_body(Usage(input=5, output=9)), choices=False),
            ]
        )

    def replay_token(self, signature: str) -> str | None:
        return None  # Chat Completions reasoning carries no signature or opaque item

    def tool_call_reply(self, call_id: str, name: str, arg_pieces: list[str]) -> Reply:
        first = {"index": 0, "id": call_id, "type": "function"}
        first["function"] = {"name": name, "arguments": ""}
        chunks = [chunk({"role": "assistant", "content": None, "tool_calls": [first]})]
        chunks += [
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}) for p in arg_pieces
        ]
        chunks += [
            chunk(finish="tool_calls"),
            chunk(usage=usage_body(Usage(input=20, output=12)), choices=False),
        ]
        return reply(chunks)

    def stop_replies(self) -> dict[StopReason, Reply]:
        def ending(finish: str) -> Reply:
            return reply([chunk({"role": "assistant", "content": "x"}), chunk(finish=finish)])

        return {
            StopReason.END_TURN: ending("stop"),
            StopReason.MAX_TOKENS: ending("length"),
            StopReason.REFUSAL: ending("content_filter"),
            StopReason.TOOL_USE: self.tool_call_reply("call_1", "read_file", ['{"path": "a"}']),
        }

    def in_stream_error_reply(self) -> Reply | None:
        error = chunk({"content": ""})
        error["error"] = {"code": 502, "message": "Upstream provider failed"}
        return reply([chunk({"role": "assistant", "content": "partial "}), error])

    def unended(self, reply: Reply) -> tuple[bytes, bytes]:
        return split_before(reply, lambda e: b'"finish_reason": "' in e or b"[DONE]" in e)

    def error_body(self, status: int, message: str) -> Reply:
        body = {"error": {"message": message, "type": "invalid_request_error", "code": None}}
        return Reply(status=status, body=json.dumps(body), content_type="application/json")


KIT = Kit()
