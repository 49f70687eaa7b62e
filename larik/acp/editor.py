"""The client as the tools' editor (``larik/agent/tools/_editor.py``): ``fs/*`` and
``terminal/*``, when it offers them.

With ``fs.readTextFile`` the file tools read through the client — an edit sees the editor's
unsaved buffer; with ``fs.writeTextFile`` they write through it — the editor shows the change
for review; with ``terminal`` bash runs in the client's terminal, which the tool call embeds
(the user watches it live). Larik's rules have been applied before any of this is asked
(the permission check, the project root, the deny rules, the regular-file check, the sandbox's
command line); what the client answers is bounded — a file over
``_editor.MAX_TEXT`` characters, a request not answered within :data:`REQUEST_WAIT`, an error,
are a tool error the model sees; a command's output keeps its end (bash's own bound), and the
command is killed at its timeout or when the turn is cancelled.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from acp import RequestError, helpers

from ..agent.runner import CALL_ID
from ..agent.tools import ToolError
from ..agent.tools._editor import MAX_TEXT, EditorRun
from ..agent.tools.bash import MAX_OUTPUT
from ..others_text import one_line

if TYPE_CHECKING:
    from .conversation import Conversation

__all__ = ["OUTPUT_LIMIT", "REQUEST_WAIT", "ClientEditor"]

log = logging.getLogger("larik.acp")
T = TypeVar("T")

REQUEST_WAIT = 60.0  # seconds the client may take to answer one fs or terminal request
OUTPUT_LIMIT = 4 * MAX_OUTPUT  # bytes of a command's output the client is asked to keep
CLEANUP_WAIT = 5.0
MAX_WHY = 300  # characters of an editor's error message the model gets


class ClientEditor:
    def __init__(self, caps: Any, box: list[Conversation]) -> None:
        """``box``: where the conversation goes once its session exists."""
        fs = caps.fs
        self.reads = bool(fs is not None and fs.read_text_file)
        self.writes = bool(fs is not None and fs.write_text_file)
        self.runs = bool(caps.terminal)
        self._box = box

    @property
    def conv(self) -> Conversation | None:
        return self._box[0] if self._box else None

    @property
    def offers(self) -> bool:
        return self.reads or self.writes or self.runs

    def _shown(self, path: Path) -> str:
        root = self.conv.root if self.conv is not None else None
        if root is not None and path.is_relative_to(root):
            return path.relative_to(root).as_posix()
        return path.as_posix()

    async def _ask(self, what: str, call: Awaitable[T], wait: float = REQUEST_WAIT) -> T:
        try:  # asyncio.timeout, not wait_for: 3.11's wait_for can swallow a cancel
            async with asyncio.timeout(wait):
                return await call
        except TimeoutError:
            raise ToolError(f"the editor did not answer ({what}) within {wait:g} s") from None
        except RequestError as e:
            why = one_line(e, MAX_WHY)  # the editor's text: the one rule (larik.others_text)
            raise ToolError(f"the editor could not {what}: {why}") from None
        except (ConnectionError, OSError):
            raise ToolError(f"the editor is gone ({what})") from None

    def _client(self) -> tuple[Any, str]:
        assert self.conv is not None, "the editor is used once the session exists"
        return self.conv.host.client, self.conv.id

    async def read_text(self, path: Path) -> str:
        client, sid = self._client()
        shown = self._shown(path)
        answer = await self._ask(
            f"read {shown}", client.read_text_file(session_id=sid, path=str(path))
        )
        text = answer.content
        if len(text) > MAX_TEXT:
            raise ToolError(
                f"the editor sent {len(text):,} characters for {shown}; the limit is {MAX_TEXT:,}"
            )
        return text

    async def write_text(self, path: Path, text: str) -> None:
        client, sid = self._client()
        shown = self._shown(path)
        await self._ask(
            f"write {shown}", client.write_text_file(session_id=sid, path=str(path), content=text)
        )

    async def run(self, argv: list[str], cwd: Path, timeout: float) -> EditorRun:
        client, sid = self._client()
        assert self.conv is not None
        start = client.create_terminal(
            session_id=sid, command=argv[0], args=argv[1:], cwd=str(cwd),
            output_byte_limit=OUTPUT_LIMIT,
        )  # fmt: skip
        starting = asyncio.ensure_future(self._ask("start a terminal", start))
        try:
            tid = (await asyncio.shield(starting)).terminal_id
        except asyncio.CancelledError:  # the terminal may exist by now: end it when it does
            self.conv.later(self._end_started(client, sid, starting))
            raise
        ended = False
        try:
            tool_id = CALL_ID.get()
            await self.conv.announced(tool_id)
            embed = [helpers.tool_terminal_ref(tid)]
            await self.conv.send(
                helpers.update_tool_call(tool_id, status="in_progress", content=embed)
            )
            timed_out = False
            try:
                async with asyncio.timeout(timeout):
                    status = await client.wait_for_terminal_exit(session_id=sid, terminal_id=tid)
            except TimeoutError:
                timed_out, status = True, None
                await self._ask(
                    "stop the command", client.kill_terminal(session_id=sid, terminal_id=tid)
                )
            except RequestError as e:
                why = one_line(e, MAX_WHY)
                raise ToolError(f"the editor could not run the command: {why}") from None
            out = await self._ask(
                "send the output", client.terminal_output(session_id=sid, terminal_id=tid)
            )
            done = out.exit_status or status
            output = out.output[-MAX_OUTPUT * 2 :]
            ended = True
            return EditorRun(
                output,
                done.exit_code if done is not None else None,
                (done.signal or "") if done is not None else "",
                bool(out.truncated) or len(out.output) > len(output),
                timed_out,
            )
        finally:  # cancelled (Esc), or the editor failed: kill it; always: let it go
            self.conv.later(self._end(client, sid, tid, kill=not ended))

    async def _end_started(self, client: Any, sid: str, starting: asyncio.Future[Any]) -> None:
        try:
            tid = (await starting).terminal_id
        except ToolError:
            return
        await self._end(client, sid, tid, kill=True)

    async def _end(self, client: Any, sid: str, tid: str, *, kill: bool) -> None:
        try:
            async with asyncio.timeout(CLEANUP_WAIT):
                if kill:
                    await client.kill_terminal(session_id=sid, terminal_id=tid)
                await client.release_terminal(session_id=sid, terminal_id=tid)
        except (TimeoutError, RequestError, ConnectionError, OSError) as e:
            log.debug("larik acp: terminal %s not released: %s", tid, e)
