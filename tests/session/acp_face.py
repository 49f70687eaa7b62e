"""The ACP face of the behaviour suite: ``larik acp``'s server (``larik.acp.server.run``) in this
process, the SDK's own client side (``acp.connect_to_agent``) on the other end of a socket pair
— every message goes as JSON bytes through both SDK halves, and a scripted model's requests
can be read here (the thinking scenario needs them). tests/acp/ drives ``larik acp`` as a real
subprocess; this face runs the same scenarios as the Session API and print mode."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from typing import Any

import acp

from larik.acp.server import run
from larik.acp.settings import AcpOptions
from larik.acp.updates import TITLES
from larik.acp.wire import Frames

from ..acp.client import Recorder
from .faces import WAIT, Face, Outcome, Result

_TOOLS = {head: tool for tool, head in TITLES.items()}


class AcpFace(Face):
    name = "acp"

    def __init__(self, project: Path) -> None:
        super().__init__(project)
        self.rec = Recorder()
        self.conn: Any = None
        self._server: asyncio.Task[None] | None = None
        self._client_writer: Any = None

    async def start(self, model: str, *, mode: str = "ask", resume: str | None = None) -> None:
        ours, theirs = socket.socketpair()
        reader, writer = await asyncio.open_connection(sock=theirs)
        self._server = asyncio.ensure_future(
            run(Frames(reader, writer), AcpOptions(model=model, permission_mode=mode))
        )
        c_reader, self._client_writer = await asyncio.open_connection(sock=ours)
        files = {str(self.project / k): v for k, v in self.buffers.items()}
        self.rec = Recorder(files=files or None)
        self.conn = acp.connect_to_agent(
            self.rec, self._client_writer, c_reader, use_unstable_protocol=True
        )
        await self.conn.initialize(protocol_version=1, client_capabilities=self.rec.capabilities())
        cwd = str(self.project)
        if resume is None:
            self.session_id = (await self.conn.new_session(cwd=cwd, mcp_servers=[])).session_id
        else:
            await self.conn.resume_session(cwd=cwd, session_id=resume, mcp_servers=[])
            self.session_id = resume

    def _answer(self, approve: bool | None) -> None:
        self.rec.answers = [] if approve is None else ["allow_once" if approve else "reject_once"]
        self.rec.asked.clear()
        self.rec.updates.clear()

    def _outcome(self, stop: str) -> Outcome:
        names: dict[str, str] = {}
        results: list[Result] = []
        for u in (u for _, u in self.rec.updates):
            if u.session_update == "tool_call":
                names[u.tool_call_id] = _TOOLS.get(u.title.partition(" ")[0], "")
            elif u.session_update == "tool_call_update" and u.status in ("completed", "failed"):
                text = "".join(
                    getattr(getattr(c, "content", None), "text", "") for c in u.content or []
                )
                results.append(Result(names.get(u.tool_call_id, ""), text, u.status == "failed"))
        return Outcome(
            stop, self.rec.text(), results, [a.title.partition(":")[0] for a in self._calls()]
        )

    def _calls(self) -> list[Any]:
        """The questions about tool calls (not Larik's own: the plan's, the folder's trust)."""
        return [a for a in self.rec.asked if not a.tool_call_id.startswith("larik-")]

    async def prompt(self, text: str, *, approve: bool | None = None) -> Outcome:
        self._answer(approve)
        if approve is None:  # a plan is not carried out unasked: "keep planning"
            self.rec.answers = ["reject_once"]
        out = await asyncio.wait_for(
            self.conn.prompt(session_id=self.session_id, prompt=self._blocks(text)), WAIT
        )
        if approve is None:
            assert self._calls() == [], f"nobody expected a question: {self.rec.asked}"
        return self._outcome(out.stop_reason)

    def _blocks(self, text: str) -> list[Any]:
        """The prompt as an editor sends it: the text, and each ``@file`` it mentions as a
        resource link (Zed's ``@``-mention)."""
        from larik.session.attachments import mentions

        links = [
            acp.resource_link_block(name, (self.project / name).as_uri()) for name in mentions(text)
        ]
        return [acp.text_block(text), *links]

    async def cancel_mid_stream(self, text: str) -> Outcome:
        self._answer(None)
        sid = self.session_id

        def seen(update: Any) -> None:
            if update.session_update == "agent_message_chunk" and self.rec.on_update:
                self.rec.on_update = None
                asyncio.ensure_future(self.conn.cancel(session_id=sid))

        self.rec.on_update = seen
        out = await asyncio.wait_for(
            self.conn.prompt(session_id=sid, prompt=[acp.text_block(text)]), WAIT
        )
        return self._outcome(out.stop_reason)

    async def switch_model(self, spec: str) -> None:
        await self.conn.set_config_option(session_id=self.session_id, config_id="model", value=spec)

    async def set_mode(self, mode: str) -> None:
        await self.conn.set_session_mode(session_id=self.session_id, mode_id=mode)

    async def bad_mode(self, mode: str) -> str:
        try:
            await self.conn.set_session_mode(session_id=self.session_id, mode_id=mode)
        except acp.RequestError as e:
            assert e.code == -32602, e.code  # invalid params
            return f"{e}: {e.data}"
        raise AssertionError(f"mode {mode!r} was taken")

    async def resume(self, session_id: str) -> None:
        await self.conn.resume_session(cwd=str(self.project), session_id=session_id, mcp_servers=[])
        self.session_id = session_id

    async def fork(self) -> None:
        forked = await self.conn.fork_session(
            session_id=self.session_id, cwd=str(self.project), mcp_servers=[]
        )
        self.session_id = forked.session_id

    async def undo(self) -> str:
        out = await self.prompt("/undo")
        return out.text

    async def close(self) -> None:
        if self.conn is None:
            return
        conn, self.conn = self.conn, None
        try:
            await conn.close_session(session_id=self.session_id)
        finally:
            await conn.close()
            self._client_writer.close()
            if self._server is not None:
                await asyncio.wait_for(self._server, WAIT)
