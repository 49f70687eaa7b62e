"""The scripted provider: plays a script of model replies with no network.

Used by the tests, the docs and bug reproductions, and by ``--model scripted/PATH.json``.
File format (docs/scripted.md)::

    {"turns": [TURN, ...]}

One TURN per model reply, in order (a tool call's input streams as ``tool_input_delta``
pieces, as a real adapter's does). Every key is optional::

    {"thinking": "...", "text": "...",
     "tool_calls": [{"name": "write_file", "input": {...}, "id": "call_1"}],
     "stop_reason": "end_turn", "delay": 0.01, "hold": 2,
     "usage": {"input": 10, "output": 5}}

or an error turn ``{"error": {"status": 429, "message": "...", "retry_after": 1}}``
(``"status": "overflow"`` raises ContextOverflow). Deltas stream in small pieces; ``delay`` is
the pause between pieces. ``hold: N`` stops the reply after its N-th piece until the turn is
cancelled (it never ends by itself): a test that acts while a turn runs (Esc, cancel, a signal,
a second prompt) holds the turn there rather than racing a ``delay`` a busy machine outruns.
Running past the last turn is an error that says so. Every request
received is recorded in ``requests``, with the blocks it may replay (``replay.messages_for``),
as a real adapter would send it — and, when the script's ``"record"`` names a file (beside the
script), appended to it as one JSON line, so a test can read what a Larik process sent.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .. import jsontext
from ..errors import APIError, ConfigError, ContextOverflow
from ..replay import messages_for
from ..types import Block, Message, Request, StopReason, StreamEvent, Usage

__all__ = ["Script", "ScriptedProvider", "ScriptTurn", "load_script", "read_script"]

PIECE = 8  # characters per streamed delta


class ScriptToolCall(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    input: dict[str, Any] | str = Field(default_factory=dict)
    id: str = ""


class ScriptError(BaseModel):
    model_config = ConfigDict(extra="forbid")
    status: int | str = 500
    message: str = "scripted error"
    retry_after: float | None = None


class ScriptTurn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    thinking: str = ""
    signature: str = ""
    text: str = ""
    tool_calls: list[ScriptToolCall] = Field(default_factory=list)
    stop_reason: StopReason | None = None
    delay: float = 0.0
    hold: int | None = None  # after this many pieces, wait until cancelled
    usage: Usage | None = None
    error: ScriptError | None = None


class Script(BaseModel):
    model_config = ConfigDict(extra="forbid")
    turns: list[ScriptTurn]
    record: str = ""  # a file (beside the script) each request is appended to, one JSON line


def load_script(path: str | Path) -> list[ScriptTurn]:
    return read_script(path).turns


def read_script(path: str | Path) -> Script:
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
        return Script.model_validate(data)
    except FileNotFoundError:
        raise ConfigError(f"{p}: scripted model file not found") from None
    except IsADirectoryError:
        raise ConfigError(f"{p}: is a folder, not a scripted model file") from None
    except OSError as e:
        raise ConfigError(f"{p}: cannot read the scripted model file: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{p}: not a scripted model file (not UTF-8 text)") from None
    except RecursionError:
        raise ConfigError(f"{p}: not a scripted model file (nested too deeply)") from None
    except json.JSONDecodeError as e:
        raise ConfigError(f"{p}:{e.lineno}: not valid JSON: {e.msg}") from None
    except ValidationError as e:
        err = e.errors()[0]
        loc = ".".join(str(x) for x in err["loc"])
        raise ConfigError(f"{p}: {loc}: {err['msg']}") from None


class ScriptedProvider:
    """Plays ``turns`` in order, one per ``stream`` call, across every model it is asked for."""

    def __init__(
        self,
        turns: list[ScriptTurn] | list[dict[str, Any]],
        name: str = "scripted",
        *,
        record: Path | None = None,
    ) -> None:
        self.name = name
        self.record = record  # where each request is appended as a JSON line (None: nowhere)
        self.turns = [
            t if isinstance(t, ScriptTurn) else ScriptTurn.model_validate(t) for t in turns
        ]
        self.requests: list[Request] = []
        self._next = 0
        self._ids = 0

    @classmethod
    def from_file(cls, path: str | Path) -> ScriptedProvider:
        script = read_script(path)
        record = Path(path).parent / script.record if script.record else None
        return cls(script.turns, record=record)

    def effort_applies(self, model: str) -> bool:
        """A script takes any effort: its requests keep it, for a test to read."""
        return True

    @property
    def remaining(self) -> int:
        return len(self.turns) - self._next

    def assert_complete(self) -> None:
        if self.remaining:
            raise AssertionError(f"{self.remaining} scripted turn(s) were never played")

    async def stream(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        # recorded as an adapter would send it: only what this provider may replay
        seen = request.model_copy(update={"messages": messages_for(request, self.name)})
        self.requests.append(seen.model_copy(deep=True))
        if self.record is not None:  # another process's requests, for a test to read
            with open(self.record, "a", encoding="utf-8") as fh:
                fh.write(seen.model_dump_json() + "\n")
        if self._next >= len(self.turns):
            raise APIError(
                0,
                f"the script has no turn {self._next + 1} (it has {len(self.turns)})",
                retryable=False,
                provider=self.name,
            )
        turn = self.turns[self._next]
        self._next += 1
        if turn.error is not None:
            await asyncio.sleep(turn.delay)
            raise _error(turn.error, self.name)

        pause = _Pause(turn)
        blocks: list[Block] = []
        if turn.thinking:
            for piece in _pieces(turn.thinking):
                await pause()
                yield StreamEvent.thinking_delta(piece)
            blocks.append(
                Block.thinking_block(
                    turn.thinking, signature=turn.signature or "scripted-sig", provider=self.name
                )
            )
        if turn.text:
            for piece in _pieces(turn.text):
                await pause()
                yield StreamEvent.text_delta(piece)
            blocks.append(Block.text_block(turn.text))
        for call in turn.tool_calls:
            self._ids += 1
            call_id = call.id or f"call_{self._ids}"
            await pause()
            yield StreamEvent.tool_use_start(call.name, call_id)
            raw = call.input if isinstance(call.input, str) else jsontext.dumps(call.input)
            for piece in _pieces(raw):
                await pause()
                yield StreamEvent.tool_input_delta(piece, call_id)
            blocks.append(Block.tool_use(call_id, call.name, call.input))
        stop = turn.stop_reason or (StopReason.TOOL_USE if turn.tool_calls else StopReason.END_TURN)
        usage = turn.usage or Usage(
            input=sum(len(m.model_dump_json()) for m in request.messages) // 4 + 1,
            output=(len(turn.text) + len(turn.thinking)) // 4 + 1,
        )
        message = Message(role="assistant", blocks=blocks, model=request.model)
        await pause.held()  # a hold past the last piece holds the reply's end
        yield StreamEvent.done(message, usage, stop)


class _Pause:
    """The wait before each piece: the turn's ``delay``, and forever once ``hold`` pieces went."""

    def __init__(self, turn: ScriptTurn) -> None:
        self.delay, self.hold, self.pieces = turn.delay, turn.hold, 0

    async def __call__(self) -> None:
        await self.held()
        self.pieces += 1
        await asyncio.sleep(self.delay)

    async def held(self) -> None:
        """Wait until the turn is cancelled once ``hold`` pieces went; else go on at once."""
        if self.hold is not None and self.pieces >= self.hold:
            await asyncio.Event().wait()


def _pieces(text: str) -> list[str]:
    return [text[i : i + PIECE] for i in range(0, len(text), PIECE)]


def _error(spec: ScriptError, provider: str) -> APIError:
    if spec.status == "overflow":
        return ContextOverflow(spec.message, provider=provider)
    try:
        status = int(spec.status)
    except ValueError:
        status = 500
    return APIError(status, spec.message, retry_after=spec.retry_after, provider=provider)
