"""Conformance kit for the OpenAI Responses adapter: canned SSE in the Responses wire format.

The event shapes follow the recordings in ../shared/wire/openai-responses/. The lifecycle events
before the first delta (``response.created``, ``output_item.added``, ``content_part.added``)
end in LF blank lines and every later event in CRLF ones, so the conformance harness (which
splits a body into one network chunk per CRLF-terminated event when it stalls a stream) sends
them as one chunk, as a server flushing its preamble would; the first delta is the second chunk.
"""

from __future__ import annotations

import json
from typing import Any

from larik.llm.providers.openai_responses import OpenAIResponsesProvider
from larik.llm.types import StopReason, Usage
from tests.llm.providers.conformance import kit_endpoint, split_before
from tests.loopback import Reply

MODEL = "gpt-5"
RESP_ID = "resp_0123456789abcdef"


def event(kind: str, body: dict[str, Any], *, lf: bool = False) -> str:
    data = json.dumps({"type": kind, **body}, separators=(",", ":"))
    return f"event: {kind}\ndata: {data}" + ("\n\n" if lf else "\r\n\r\n")


def response(
    status: str,
    output: list[dict[str, Any]],
    usage: Usage | None = None,
    *,
    incomplete: str | None = None,
    error: dict[str, Any] | None = None,
) -> dict[str, Any]:
    u = usage or Usage()
    return {
        "id": RESP_ID,
        "object": "response",
        "created_at": 1761175204,
        "status": status,
        "model": f"{MODEL}-2025-08-07",
        "output": output,
        "error": error,
        "incomplete_details": {"reason": incomplete} if incomplete else None,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "store": False,
        "usage": None
        if usage is None
        else {
            "input_tokens": u.input + u.cache_read,
            "input_tokens_details": {"cached_tokens": u.cache_read},
            "output_tokens": u.output,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": u.input + u.cache_read + u.output,
        },
    }


class Stream:
    """Builds one Responses SSE body item by item, numbering events as the API does."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.output: list[dict[str, Any]] = []
        self.seq = 0

    def emit(self, kind: str, lf: bool = False, **body: Any) -> Stream:
        self.parts.append(event(kind, {"sequence_number": self.seq, **body}, lf=lf))
        self.seq += 1
        return self

    def created(self) -> Stream:
        return self.emit("response.created", lf=True, response=response("in_progress", []))

    def message(
        self, pieces: list[str], *, refusal: bool = False, phase: str | None = None
    ) -> Stream:
        idx, item_id = len(self.output), f"msg_{len(self.output)}"
        item: dict[str, Any] = {
            "id": item_id,
            "type": "message",
            "status": "in_progress",
            "content": [],
            "role": "assistant",
        }
        if phase:
            item["phase"] = phase
        self.emit("response.output_item.added", lf=True, output_index=idx, item=item)
        text = "".join(pieces)
        part = (
            {"type": "refusal", "refusal": ""}
            if refusal
            else {"type": "output_text", "annotations": [], "text": ""}
        )
        where = {"item_id": item_id, "output_index": idx, "content_index": 0}
        self.emit("response.content_part.added", lf=True, part=part, **where)
        delta = "response.refusal.delta" if refusal else "response.output_text.delta"
        for piece in pieces:
            self.emit(delta, delta=piece, **where)
        if refusal:
            done_part = {"type": "refusal", "refusal": text}
            self.emit("response.refusal.done", refusal=text, **where)
        else:
            done_part = {"type": "output_text", "annotations": [], "text": text}
            self.emit("response.output_text.done", text=text, **where)
        self.emit("response.content_part.done", part=done_part, **where)
        done = {**item, "status": "completed", "content": [done_part]}
        self.emit("response.output_item.done", output_index=idx, item=done)
        self.output.append(done)
        return self

    def reasoning(self, summary: list[str], encrypted: str | None) -> Stream:
        idx, item_id = len(self.output), f"rs_{len(self.output)}abc"
        item: dict[str, Any] = {"id": item_id, "type": "reasoning", "summary": []}
        if encrypted is not None:
            item["encrypted_content"] = encrypted
        self.emit("response.output_item.added", lf=True, output_index=idx, item=item)
        where = {"item_id": item_id, "output_index": idx}
        for n, text in enumerate(summary):
            empty = {"type": "summary_text", "text": ""}
            self.emit("response.reasoning_summary_part.added", summary_index=n, part=empty, **where)
            half = max(len(text) // 2, 1)
            for piece in (text[:half], text[half:]):
                if piece:
                    self.emit(
                        "response.reasoning_summary_text.delta",
                        summary_index=n,
                        delta=piece,
                        **where,
                    )
            full = {"type": "summary_text", "text": text}
            self.emit("response.reasoning_summary_text.done", summary_index=n, text=text, **where)
            self.emit("response.reasoning_summary_part.done", summary_index=n, part=full, **where)
        done = {**item, "summary": [{"type": "summary_text", "text": t} for t in summary]}
        self.emit("response.output_item.done", output_index=idx, item=done)
        self.output.append(done)
        return self

    def call(self, call_id: str, name: str, pieces: list[str]) -> Stream:
        idx, item_id = len(self.output), f"fc_{len(self.output)}"
        item = {
            "id": item_id,
            "type": "function_call",
            "status": "in_progress",
            "arguments": "",
            "call_id": call_id,
            "name": name,
        }
        self.emit("response.output_item.added", output_index=idx, item=item)
        for piece in pieces:
            self.emit(
                "response.function_call_arguments.delta",
                item_id=item_id,
                output_index=idx,
                delta=piece,
            )
        args = "".join(pieces)
        self.emit(
            "response.function_call_arguments.done",
            item_id=item_id,
            output_index=idx,
            arguments=args,
        )
        done = {**item, "status": "completed", "arguments": args}
        self.emit("response.output_item.done", output_index=idx, item=done)
        self.output.append(done)
        return self

    def completed(self, usage: Usage | None = None) -> Reply:
        return self._end("response.completed", response("completed", self.output, usage))

    def incomplete(self, reason: str, usage: Usage | None = None) -> Reply:
        body = response("incomplete", self.output, usage, incomplete=reason)
        return self._end("response.incomplete", body)

    def failed(self, code: str | None, message: str) -> Reply:
        body = response("failed", self.output, error={"code": code, "message": message})
        return self._end("response.failed", body)

    def error_event(self, code: str | None, message: str) -> Reply:
        self.emit("error", code=code, message=message, param=None)
        return self.reply()

    def _end(self, kind: str, body: dict[str, Any]) -> Reply:
        self.emit(kind, response=body)
        return self.reply()

    def reply(self) -> Reply:
        return Reply(body="".join(self.parts), content_type="text/event-stream; charset=utf-8")


def error_reply(status: int, message: str, code: str | None = None) -> Reply:
    kind = {
        401: "invalid_request_error",
        429: "requests",
        500: "server_error",
    }.get(status, "invalid_request_error")
    if code is None and status == 401:
        code = "invalid_api_key"
    body = {"error": {"message": message, "type": kind, "param": None, "code": code}}
    return Reply(status=status, body=json.dumps(body), content_type="application/json")


class OpenAIResponsesKit:
    name = "openai"
    model = MODEL
    env_var = "OPENAI_API_KEY"

    def make(self, base_url: str) -> OpenAIResponsesProvider:
        return OpenAIResponsesProvider(kit_endpoint("openai", f"{base_url}/v1"))

    def text_reply(self, pieces: list[str], usage: Usage) -> Reply:
        return Stream().created().message(pieces).completed(usage)

    def thinking_reply(self, thinking: str, signature: str, text: str) -> Reply:
        s = Stream().created().reasoning([thinking], encrypted=signature)
        return s.message([text]).completed(Usage(input=5, output=9))

    def replay_token(self, signature: str) -> str | None:
        return signature  # the reasoning item's encrypted_content

    def tool_call_reply(self, call_id: str, name: str, arg_pieces: list[str]) -> Reply:
        return (
            Stream().created().call(call_id, name, arg_pieces).completed(Usage(input=3, output=4))
        )

    def stop_replies(self) -> dict[StopReason, Reply]:
        usage = Usage(input=2, output=2)
        return {
            StopReason.END_TURN: Stream().created().message(["done"]).completed(usage),
            StopReason.MAX_TOKENS: Stream()
            .created()
            .message(["cut sh"])
            .incomplete("max_output_tokens", usage),
            StopReason.REFUSAL: Stream().created().incomplete("content_filter", usage),
            StopReason.TOOL_USE: Stream()
            .created()
            .call("call_9", "read_file", ['{"path":"a"}'])
            .completed(usage),
        }

    def in_stream_error_reply(self) -> Reply | None:
        s = Stream().created().message(["partial "])
        return s.failed("server_error", "The model produced invalid content.")

    def error_body(self, status: int, message: str) -> Reply:
        return error_reply(status, message)

    def unended(self, reply: Reply) -> tuple[bytes, bytes]:
        ends = (
            b"event: response.completed",
            b"event: response.incomplete",
            b"event: response.failed",
        )
        return split_before(reply, lambda e: e.startswith(ends))


KIT = OpenAIResponsesKit()
