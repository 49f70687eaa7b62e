"""Conformance kit for the Gemini adapter: canned streamGenerateContent SSE (CRLF, as Google
sends it) and Google-style error bodies."""

from __future__ import annotations

import base64
import json
from typing import Any

from larik.llm.providers.gemini import GeminiProvider
from larik.llm.types import StopReason, Usage
from tests.llm.providers.conformance import events_of, kit_endpoint
from tests.loopback import Reply

_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}


def chunk(
    parts: list[dict[str, Any]], finish: str = "", usage: dict[str, int] | None = None
) -> dict[str, Any]:
    cand: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
    if finish:
        cand["finishReason"] = finish
    out: dict[str, Any] = {"candidates": [cand], "modelVersion": "gemini-2.5-flash"}
    if usage is not None:
        out["usageMetadata"] = usage
    return out


def usage_json(u: Usage) -> dict[str, int]:
    out = {
        "promptTokenCount": u.input + u.cache_read,
        "candidatesTokenCount": u.output,
        "totalTokenCount": u.input + u.cache_read + u.output,
    }
    if u.cache_read:
        out["cachedContentTokenCount"] = u.cache_read
    return out


def sse(*chunks: dict[str, Any]) -> Reply:
    return Reply(body="".join(f"data: {json.dumps(c)}\r\n\r\n" for c in chunks))


def signature_wire(signature: str) -> str:
    """Gemini's thoughtSignature is bytes: the kit sends the signature's bytes in base64."""
    return base64.b64encode(signature.encode()).decode()


class GeminiKit:
    name = "gemini"
    model = "gemini-2.5-flash"
    env_var = "GEMINI_API_KEY"

    def make(self, base_url: str) -> GeminiProvider:
        return GeminiProvider(kit_endpoint("gemini", base_url))

    def text_reply(self, pieces: list[str], usage: Usage) -> Reply:
        chunks = [chunk([{"text": p}]) for p in pieces]
        chunks[-1] = chunk([{"text": pieces[-1]}], "STOP", usage_json(usage))
        return sse(*chunks)

    def thinking_reply(self, thinking: str, signature: str, text: str) -> Reply:
        return sse(
            chunk([{"text": thinking, "thought": True}]),
            chunk(
                [{"text": text, "thoughtSignature": signature_wire(signature)}],
                "STOP",
                usage_json(Usage(input=5, output=9)),
            ),
        )

    def replay_token(self, signature: str) -> str | None:
        # The same bytes go back; the SDK writes bytes fields in URL-safe base64.
        return base64.urlsafe_b64encode(signature.encode()).decode()

    def tool_call_reply(self, call_id: str, name: str, arg_pieces: list[str]) -> Reply:
        # Gemini sends a function call whole, with its arguments as a JSON object.
        call = {"id": call_id, "name": name, "args": json.loads("".join(arg_pieces))}
        return sse(chunk([{"functionCall": call}], "STOP", usage_json(Usage(input=5, output=7))))

    def stop_replies(self) -> dict[StopReason, Reply]:
        u = usage_json(Usage(input=3, output=2))
        call = {"functionCall": {"name": "read_file", "args": {"path": "a"}}}
        return {
            StopReason.END_TURN: sse(chunk([{"text": "done"}], "STOP", u)),
            StopReason.MAX_TOKENS: sse(chunk([{"text": "cut"}], "MAX_TOKENS", u)),
            StopReason.REFUSAL: sse(chunk([{"text": ""}], "SAFETY", u)),
            StopReason.TOOL_USE: sse(chunk([call], "STOP", u)),
            StopReason.ERROR: sse(chunk([{"text": ""}], "MALFORMED_FUNCTION_CALL", u)),
        }

    def in_stream_error_reply(self) -> Reply | None:
        error = {"error": {"code": 500, "message": "Internal error", "status": "INTERNAL"}}
        return sse(chunk([{"text": "partial "}]), error)

    def unended(self, reply: Reply) -> tuple[bytes, bytes]:
        """Every chunk kept, without its ``finishReason`` (Gemini sends it with the last
        content); left out: the last chunk as it was."""
        events = events_of(b"".join(reply.chunks()))
        kept = []
        for event in events:
            data = json.loads(event.split(b"data:", 1)[1])
            for cand in data.get("candidates") or ():
                cand.pop("finishReason", None)
            kept.append(f"data: {json.dumps(data)}\r\n\r\n".encode())
        return b"".join(kept), events[-1] if events else b""

    def error_body(self, status: int, message: str) -> Reply:
        body = {"error": {"code": status, "message": message, "status": _STATUS.get(status, "")}}
        return Reply(status=status, body=json.dumps(body), content_type="application/json")


KIT = GeminiKit()
