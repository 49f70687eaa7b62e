"""Conformance kit for the Ollama adapter: canned ``/api/chat`` NDJSON bodies.

Ollama has no thinking signatures or opaque reasoning items (its thinking is replayed as plain
text, tested in test_ollama.py), so ``replay_token`` is None. ``num_ctx`` is configured so that
no ``/api/show`` probe takes a queued reply.
"""

from __future__ import annotations

import json
from typing import Any

from larik.llm.providers.ollama import OllamaProvider
from larik.llm.types import StopReason, Usage
from tests.llm.providers.conformance import kit_endpoint, split_before
from tests.loopback import Reply

MODEL = "qwen3:8b"
NDJSON = "application/x-ndjson"


def chunk(content: str = "", *, thinking: str = "", tool_calls: list[Any] | None = None) -> str:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if thinking:
        message["thinking"] = thinking
    if tool_calls:
        message["tool_calls"] = tool_calls
    obj = {"model": MODEL, "created_at": "2025-06-01T10:00:00Z", "message": message, "done": False}
    return json.dumps(obj) + "\n"


def final(reason: str = "stop", prompt: int = 10, output: int = 5) -> str:
    obj = {
        "model": MODEL,
        "created_at": "2025-06-01T10:00:01Z",
        "message": {"role": "assistant", "content": ""},
        "done_reason": reason,
        "done": True,
        "total_duration": 1000,
        "prompt_eval_count": prompt,
        "eval_count": output,
    }
    return json.dumps(obj) + "\n"


def ndjson(*lines: str) -> Reply:
    return Reply(body="".join(lines), content_type=NDJSON)


class OllamaKit:
    name = "ollama"
    model = MODEL
    env_var = ""

    def make(self, base_url: str) -> OllamaProvider:
        return OllamaProvider(kit_endpoint("ollama", base_url), num_ctx=8192)

    def text_reply(self, pieces: list[str], usage: Usage) -> Reply:
        return ndjson(*(chunk(p) for p in pieces), final("stop", usage.input, usage.output))

    def thinking_reply(self, thinking: str, signature: str, text: str) -> Reply:
        half = len(thinking) // 2
        return ndjson(
            chunk(thinking=thinking[:half]),
            chunk(thinking=thinking[half:]),
            chunk(text),
            final(),
        )

    def replay_token(self, signature: str) -> str | None:
        return None

    def tool_call_reply(self, call_id: str, name: str, arg_pieces: list[str]) -> Reply:
        args = json.loads("".join(arg_pieces))
        call = {"id": call_id, "function": {"index": 0, "name": name, "arguments": args}}
        return ndjson(chunk(tool_calls=[call]), final())

    def stop_replies(self) -> dict[StopReason, Reply]:
        call = {"function": {"name": "read_file", "arguments": {"path": "a.py"}}}
        return {
            StopReason.END_TURN: ndjson(chunk("done"), final("stop")),
            StopReason.MAX_TOKENS: ndjson(chunk("cut"), final("length")),
            StopReason.TOOL_USE: ndjson(chunk(tool_calls=[call]), final("stop")),
        }

    def in_stream_error_reply(self) -> Reply | None:
        error = json.dumps({"error": "an error was encountered while running the model"})
        return ndjson(chunk("partial "), error + "\n")

    def unended(self, reply: Reply) -> tuple[bytes, bytes]:
        return split_before(reply, lambda e: b'"done": true' in e)

    def error_body(self, status: int, message: str) -> Reply:
        return Reply(
            status=status,
            body=json.dumps({"error": message}),
            content_type="application/json; charset=utf-8",
        )


KIT = OllamaKit()
