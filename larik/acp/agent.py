"""Larik as an ACP agent: the SDK's ``Agent`` interface, each method on a Larik Session.

The SDK (``agent-client-protocol``) reads and writes the JSON-RPC; this class answers its
calls. ``session/new`` builds a :class:`~larik.session.Session` in the client's ``cwd`` with
the client's MCP servers added to the user's (:func:`client_servers`; a project's own stay
behind trust, as everywhere) and answers with its modes and config options; ``session/load``
reopens a Larik session of that project and replays its conversation first
(:func:`larik.acp.updates.replay`); ``session/resume`` reopens one without the replay;
``session/list`` lists the project's sessions; ``session/close`` ends one. A prompt, a cancel,
a mode or a setting go to that session's :class:`~larik.acp.conversation.Conversation`.

A ``cwd`` far wider than a project (``/``, the home folder, a folder holding it:
:func:`larik.paths.wide_root`) opens no session — new, load, resume or fork — unless
``larik acp --trust-project`` was started: the answer is "Invalid params" whose message is
print mode's line and says how to work there all the same.

Errors are the ones the protocol names: an unknown session is "Invalid params" (-32602), a
session id with no transcript "Resource not found" (-32002), no model to talk to
"Authentication required" (-32000, naming the variables to set), anything else Larik refuses
an "Internal error" (-32603) whose message is Larik's one line.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from acp import RequestError
from acp.schema import (
    AuthenticateResponse,
    ClientCapabilities,
    CloseSessionResponse,
    ForkSessionResponse,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    ResumeSessionResponse,
    SessionInfo,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
)

from ..llm.errors import LarikError
from ..session import Session, SessionOptions
from . import handshake, options, updates
from .conversation import Conversation
from .editor import ClientEditor
from .settings import AcpOptions

__all__ = ["AcpOptions", "LarikAgent", "client_servers"]

log = logging.getLogger("larik.acp")
PAGE = 50  # sessions per session/list page


class LarikAgent:
    def __init__(self, opts: AcpOptions | None = None, early: dict[str, Any] | None = None) -> None:
        """``early``: the ``initialize`` params answered before the SDK was imported."""
        self.opts = opts or AcpOptions()
        self.client: Any = None
        self.caps = ClientCapabilities()
        self.conversations: dict[str, Conversation] = {}
        if early is not None:
            self._client_caps(early.get("clientCapabilities"))

    def on_connect(self, conn: Any) -> None:
        self.client = conn

    def _client_caps(self, raw: Any) -> None:
        try:
            self.caps = ClientCapabilities.model_validate(raw or {})
        except ValueError as e:
            log.warning("larik acp: the client's capabilities are unreadable (%s)", e)

    # -- the handshake ------------------------------------------------------------------------
    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Any = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        self.caps = client_capabilities or ClientCapabilities()
        result = handshake.initialize_result(protocol_version, self.opts.model or "")
        return InitializeResponse.model_validate(result)

    async def authenticate(self, method_id: str, **kwargs: Any) -> AuthenticateResponse:
        """Larik's configuration is the only method: it holds when a model can be reached."""
        from ..config import load_config
        from ..routing import target

        try:
            target(self.opts.model, await asyncio.to_thread(load_config, Path.cwd()))
        except LarikError as e:
            raise RequestError.auth_required({"details": str(e)}) from None
        return AuthenticateResponse()

    # -- sessions -------------------------------------------------------------------------------
    async def new_session(
        self, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> NewSessionResponse:
        conv = await self._open(cwd, mcp_servers or [], None)
        return NewSessionResponse(
            session_id=conv.id,
            modes=options.modes(conv.session.permission_mode),
            config_options=conv.config_options(),
        )

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> LoadSessionResponse:
        conv = await self._reopen(cwd, session_id, mcp_servers or [])
        from ..agent.plan import NOTE

        for update in updates.replay(conv.root, conv.session.store.messages, skip=(NOTE,)):
            await conv.send(update)
        return LoadSessionResponse(
            modes=options.modes(conv.session.permission_mode),
            config_options=conv.config_options(),
        )

    async def resume_session(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> ResumeSessionResponse:
        conv = await self._reopen(cwd, session_id, mcp_servers or [])
        return ResumeSessionResponse(
            modes=options.modes(conv.session.permission_mode),
            config_options=conv.config_options(),
        )

    async def fork_session(
        self, session_id: str, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> ForkSessionResponse:
        """A new session going on from a copy of ``session_id``'s conversation (unstable in
        ACP; Larik's ``/fork``): the original is kept as it was, and stays open when it is.
        Not while the original runs a turn (its last call may not have its result yet)."""
        from ..session.store import fork_saved

        root = _directory(cwd)
        self._refuse_wide(root)
        source = self._transcript(root, session_id)
        old = self.conversations.get(session_id)
        if old is not None and old.session.busy:
            raise RequestError.invalid_request(
                {"sessionId": session_id, "details": "a turn is running: fork when it ends"}
            )
        new_id = await asyncio.to_thread(fork_saved, root, source)
        conv = await self._open(cwd, mcp_servers or [], new_id)
        if old is not None:  # the copy goes on as the original was set
            conv.session.settings.set_mode(old.session.permission_mode)
        return ForkSessionResponse(
            session_id=conv.id,
            modes=options.modes(conv.session.permission_mode),
            config_options=conv.config_options(),
        )

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        from ..session.store import list_sessions

        root = _directory(cwd) if cwd else Path.cwd()
        found = await asyncio.to_thread(list_sessions, root)
        start = int(cursor) if cursor and cursor.isdigit() else 0
        page = found[start : start + PAGE]
        infos = [
            SessionInfo(
                session_id=s.id,
                cwd=str(root),
                title=s.first_prompt[:200] or None,
                updated_at=datetime.fromtimestamp(s.updated, UTC).isoformat()
                if s.updated
                else None,
            )
            for s in page
        ]
        more = str(start + PAGE) if start + PAGE < len(found) else None
        return ListSessionsResponse(sessions=infos, next_cursor=more)

    async def close_session(self, session_id: str, **kwargs: Any) -> CloseSessionResponse:
        conv = self.conversations.pop(session_id, None)
        if conv is None:
            raise _unknown(session_id)
        await conv.close("other")
        return CloseSessionResponse()

    @staticmethod
    def _transcript(root: Path, session_id: str) -> Path:
        """Session ``session_id``'s transcript in project ``root``; the JSON-RPC error the
        spec names when the id is malformed (invalid params) or no such session is saved
        (resource not found)."""
        from ..session.store import TranscriptError, check_session_id, transcript_of

        try:
            check_session_id(session_id)
        except TranscriptError as e:
            raise RequestError.invalid_params(
                {"sessionId": session_id, "details": str(e)}
            ) from None
        path = transcript_of(root, session_id)
        if not path.is_file():
            raise RequestError.resource_not_found(session_id)
        return path

    def _refuse_wide(self, root: Path) -> None:
        """A folder far wider than a project (``/``, the home folder, one holding it) is
        refused as print mode refuses it, with the same line and how to work there all the
        same: ``larik acp --trust-project`` (the editor's agent settings)."""
        from ..paths import wide_root, wide_root_line

        what = "" if self.opts.trust_project else wide_root(root)
        if what:
            line = f"larik: {wide_root_line(root, what)} (or start `larik acp --trust-project`)"
            raise RequestError(-32602, line, {"cwd": str(root), "details": line})

    async def _reopen(self, cwd: str, session_id: str, servers: list[Any]) -> Conversation:
        root = _directory(cwd)
        self._refuse_wide(root)
        self._transcript(root, session_id)
        old = self.conversations.pop(session_id, None)
        if old is not None:  # the client opens it again: this process lets go of it first
            await old.close("resume")
        return await self._open(cwd, servers, session_id)

    async def _open(self, cwd: str, servers: list[Any], resume: str | None) -> Conversation:
        root = _directory(cwd)
        self._refuse_wide(root)
        config = await self._config(root)
        said = client_servers(config, servers)
        box: list[Conversation] = []
        conv = Conversation(self, await self._session(root, config, resume, box))
        box.append(conv)
        conv.servers = servers
        self.conversations[conv.id] = conv
        conv.models = await asyncio.to_thread(options.model_choices, config)
        conv.start_pump()
        pt = config.project_trust
        if pt is not None and not pt.trusted:
            if pt.declined:
                said.append(pt.ignored_line().removeprefix("larik: "))
            else:  # asked at the first prompt: a question needs a session the client knows
                conv.trust = pt
        conv.later(_greet(conv, said))
        return conv

    async def rebuild(self, conv: Conversation) -> None:
        """``conv``'s session again, on the config loaded anew (the project just trusted),
        under the same id: reopened if its transcript exists by now, else new with that id."""
        from ..session.store import transcript_of

        config = await self._config(conv.root)
        for text in client_servers(config, conv.servers):
            await conv.send(updates.notice(text, "warning"))
        old = conv.session
        mode = old.permission_mode
        chosen = mode != (self.opts.permission_mode or old.config.permissions.mode)
        await old.close("other")  # the transcript unlocked before it is reopened
        there = transcript_of(conv.root, conv.id).is_file()
        session = await self._session(
            conv.root, config, conv.id if there else None, [conv], session_id=conv.id
        )
        if chosen:  # the client's choice of mode holds
            session.settings.set_mode(mode)
        await conv.replace(session)
        conv.models = await asyncio.to_thread(options.model_choices, config)
        await conv.send_settings(mode=True)
        await conv.send_commands()

    async def _config(self, root: Path) -> Any:
        from ..config import load_config

        try:
            return await asyncio.to_thread(
                load_config, root, trust_project=self.opts.trust_project, remembered=True
            )
        except LarikError as e:
            raise _failed(e) from None

    async def _session(
        self,
        root: Path,
        config: Any,
        resume: str | None,
        box: list[Conversation],
        *,
        session_id: str = "",
    ) -> Session:
        """A started session for the conversation in ``box`` (put there once made): its
        permission questions and its editor are the client's."""
        from ..routing.no_model import NoModelError, explain

        editor = ClientEditor(self.caps, box)
        session = Session(
            root,
            config,
            SessionOptions(
                model=self.opts.model,
                permission_mode=self.opts.permission_mode,
                resume=resume,
                editor=editor if editor.offers else None,
                session_id=session_id,
            ),
            approver=lambda req: box[0].approve(req),
        )
        try:
            await session.start()
        except NoModelError as e:
            await session.servers.close()
            said = await explain(e, config, "larik acp -m {spec}")
            raise RequestError.auth_required({"details": said}) from None
        except LarikError as e:
            await session.servers.close()
            raise _failed(e) from None
        return session

    def conversation(self, session_id: str) -> Conversation:
        conv = self.conversations.get(session_id)
        if conv is None:
            raise _unknown(session_id)
        return conv

    # -- a session's turns and settings ---------------------------------------------------------
    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        return await self.conversation(session_id).prompt(prompt)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        conv = self.conversations.get(session_id)
        if conv is not None:  # a notification: nobody to tell about an unknown session
            conv.cancel()

    async def set_session_mode(
        self, mode_id: str, session_id: str, **kwargs: Any
    ) -> SetSessionModeResponse:
        conv = self.conversation(session_id)
        _setting(conv.session.settings.set_mode, mode_id)
        return SetSessionModeResponse()

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse:
        conv = self.conversation(session_id)
        s = conv.session.settings
        if config_id == options.MODE:
            _setting(s.set_mode, str(value))
        elif config_id == options.EFFORT:
            _setting(s.set_effort, str(value))
        elif config_id == options.MODEL:
            try:
                await s.switch_model(str(value))
            except LarikError as e:
                raise RequestError.invalid_params({"value": value, "details": str(e)}) from None
        else:
            raise RequestError.invalid_params({"configId": config_id, "details": "no such option"})
        return SetSessionConfigOptionResponse(config_options=conv.config_options())

    async def close_all(self) -> None:
        """The connection is over: every session closed (its transcript saved, its commands
        killed, its MCP servers stopped)."""
        conversations, self.conversations = list(self.conversations.values()), {}
        for conv in conversations:
            try:
                await asyncio.wait_for(conv.close("other"), 10)
            except Exception as e:  # one that cannot close must not keep the others open
                log.warning("larik acp: session %s did not close cleanly: %s", conv.id, e)


async def _greet(conv: Conversation, said: list[str]) -> None:
    """After session/new or load is answered: the commands, and what was left out."""
    await conv.send_commands()
    for text in said:
        await conv.send(updates.notice(text, "warning"))


def client_servers(config: Any, servers: list[Any]) -> list[str]:
    """Add the client's MCP servers (stdio and HTTP; the editor's own, as trusted as the
    user's config) to ``config``; a name the user's config has already keeps the user's. The
    notices: what was left out and why."""
    from ..mcp.config import McpServerConfig, valid_server_name

    said: list[str] = []
    mine = dict(config.mcp.servers)
    added: dict[str, Any] = {}
    for s in servers:
        name = getattr(s, "name", "")
        kind = getattr(s, "type", None) or "stdio"
        if not valid_server_name(name):
            said.append(f"the editor's MCP server {name[:40]!r}: not a usable name, left out")
            continue
        if name in mine:
            said.append(f"the editor's MCP server {name!r}: your config has one by that name")
            continue
        try:
            if kind == "http":
                cfg = McpServerConfig(url=s.url, headers={h.name: h.value for h in s.headers})
            elif kind == "stdio":
                env = {e.name: e.value for e in s.env}
                cfg = McpServerConfig(command=s.command, args=list(s.args), env=env)
            else:
                said.append(f"the editor's MCP server {name!r}: {kind} is not supported")
                continue
        except ValueError as e:
            said.append(f"the editor's MCP server {name!r}: {str(e).splitlines()[-1]}")
            continue
        cfg.mark_source("the editor (ACP)", user=True)  # yours: run as your config's are
        added[name] = cfg
    if added:
        config.mcp.servers = {**mine, **added}
    return said


def _directory(cwd: str) -> Path:
    path = Path(cwd)
    if not path.is_absolute() or not path.is_dir():
        raise RequestError.invalid_params({"cwd": cwd, "details": "not an absolute directory"})
    return path.resolve()


def _unknown(session_id: str) -> RequestError:
    return RequestError.invalid_params({"sessionId": session_id, "details": "no such session"})


def _failed(e: Exception) -> RequestError:
    return RequestError(-32603, f"larik: {e}", {"details": str(e)})


def _setting(setter: Any, value: str) -> None:
    try:
        setter(value)
    except LarikError as e:
        raise RequestError.invalid_params({"value": value, "details": str(e)}) from None
