"""One MCP server: start it, keep the connection, call it, stop it. The only module that talks
to the ``mcp`` SDK (imported when a server starts, never before).

A connection lives in one asyncio task (:meth:`McpServer._own`), because the SDK's transports are
context managers that must be entered and left by the same task: it starts the server (a process
for stdio, an HTTP session for a URL), lists its tools, resources and prompts, marks the server
ready and sleeps until :meth:`stop` cancels its scope; the SDK then closes stdin, waits, and kills
the process group (``stdio_client``'s shutdown), so no server outlives Larik's exit.

States: ``disabled`` (``enabled = false``), ``stopped`` (not started yet, or stopped), ``starting``,
``ready``, ``failed``. A failure keeps a one-line reason and the last lines the server wrote on
stderr (:attr:`stderr_tail`), both masked of the server's secrets. A server that exits while
ready is seen at once (its stderr closes) and marked failed; a call to a failed server that had
been ready reconnects once (:meth:`ensure`), and ``/mcp`` can reconnect any.
"""

from __future__ import annotations

import asyncio
import fnmatch
import json
import logging
import math
import os
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import host_programs
from ..llm.errors import LarikError
from ..llm.schema import tool_schema
from ..processes import end_group
from ..sandbox import REFUSAL
from .config import ExpandedServer, McpServerConfig, expand
from .content import MAX_NAME, clip, described_text, short
from .names import exposed_name

if TYPE_CHECKING:
    from ..sandbox import Sandbox

__all__ = [
    "MAX_ARGUMENTS",
    "MAX_DESCRIPTION",
    "McpCallError",
    "McpServer",
    "PromptInfo",
    "ResourceInfo",
    "State",
    "ToolInfo",
]

STDERR_LINES = 20
STDERR_BYTES = 8192
MAX_LISTED = 1000  # tools, resources or prompts kept per server (a lying server may send more)
MAX_SCHEMA = 16_000  # characters of JSON: a larger input schema is not sent with every request
MAX_DESCRIPTION = 2000  # characters of a tool's description (sent with every request)
MAX_ARGUMENTS = 20  # arguments of one prompt kept
MAX_ERROR = 500  # characters of a failed server's one-line reason
_MASK = "***"


class State(StrEnum):
    DISABLED = "disabled"
    STOPPED = "stopped"
    STARTING = "starting"
    READY = "ready"
    FAILED = "failed"


class McpCallError(LarikError):
    """A call that did not reach a result: the server is not ready, timed out, or went away."""


@dataclass(frozen=True)
class ToolInfo:
    server: str
    remote: str  # the server's own name for it
    name: str  # what the model calls it: mcp__SERVER__TOOL
    description: str
    schema: dict[str, Any]
    read_only: bool
    title: str = ""


@dataclass(frozen=True)
class ResourceInfo:
    server: str
    uri: str
    name: str
    description: str = ""
    mime_type: str = ""


@dataclass(frozen=True)
class PromptInfo:
    server: str
    name: str
    description: str = ""
    arguments: tuple[tuple[str, bool, str], ...] = ()  # (name, required, description)


@dataclass
class _Tail:
    """The last lines a server wrote to stderr (bounded in lines and bytes)."""

    lines: deque[str] = field(default_factory=lambda: deque(maxlen=STDERR_LINES))
    partial: str = ""

    def feed(self, data: bytes) -> None:
        text = self.partial + data.decode("utf-8", "replace")
        *done, self.partial = text.split("\n")
        self.partial = self.partial[-STDERR_BYTES:]
        for line in done[-STDERR_LINES:]:
            self.lines.append(line[:500])

    def text(self) -> str:
        lines = [*self.lines, *([self.partial] if self.partial else [])]
        return "\n".join(line for line in lines if line.strip())[-STDERR_BYTES:]


class _StderrReader(asyncio.Protocol):
    def __init__(self, tail: _Tail, on_eof: Callable[[], None]) -> None:
        self.tail, self.on_eof = tail, on_eof

    def data_received(self, data: bytes) -> None:
        self.tail.feed(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self.on_eof()


class McpServer:
    """A configured server and, once started, its connection. Use from one event loop."""

    def __init__(
        self,
        name: str,
        config: McpServerConfig,
        root: Path,
        on_change: Callable[[McpServer], None] | None = None,
        sandbox: Sandbox | None = None,
    ) -> None:
        self.name = name
        self.config = config
        self.root = root
        self.on_change = on_change
        self.sandbox = sandbox  # the session's; a stdio server runs in it (larik.sandbox.programs)
        self.sandboxed = False  # whether the running (or last) process is in the sandbox
        self.state = State.STOPPED if config.enabled else State.DISABLED
        self.error = ""
        self.tools: list[ToolInfo] = []
        self.resources: list[ResourceInfo] = []
        self.prompts: list[PromptInfo] = []
        self.instructions = ""
        self.hidden_tools = 0  # tools the server has that the `tools` allow list leaves out
        self._secrets: tuple[str, ...] = ()
        self._tail = _Tail()
        self._client: Any = None
        self._task: asyncio.Task[None] | None = None
        self._scope: Any = None  # the connection task's anyio cancel scope
        self._ready = asyncio.Event()
        self._was_ready = False
        self._stopping = False
        self._http_status = 0  # the last HTTP error status an HTTP server answered
        self.show_login: Callable[[McpServer, str], None] | None = None
        """Shows an OAuth login's URL to the user (the front end sets it); None: no one can."""
        self.login_url = ""  # the authorization URL while a login waits for the browser
        self._oauth: Any = None  # the server's SafeOAuth (auth = "oauth")

    # -- what the front ends show ---------------------------------------------------------------
    @property
    def stderr_tail(self) -> str:
        return self.mask(self._tail.text())

    def mask(self, text: str) -> str:
        """``text`` without this server's secrets (nor any other Larik knows)."""
        from ..llm import secrets

        for value in self._secrets:
            if value and value in text:
                text = text.replace(value, _MASK)
        return secrets.mask(text)

    def _set(self, state: State, error: str = "") -> None:
        self.state = state
        self.error = short(self.mask(" ".join(error.split())), MAX_ERROR)
        if self.on_change is not None:
            self.on_change(self)

    # -- lifecycle ------------------------------------------------------------------------------
    def start(self) -> asyncio.Task[None] | None:
        """Start connecting in the background (no-op when disabled, starting or ready). The
        task ends when the server is ready or has failed."""
        if self.state in (State.DISABLED, State.STARTING, State.READY):
            return self._task if self.state is not State.DISABLED else None
        self._ready = asyncio.Event()
        self._tail = _Tail()
        self._stopping = False
        self._http_status = 0
        self._set(State.STARTING)
        self._task = asyncio.get_running_loop().create_task(self._own(), name=f"mcp:{self.name}")
        return self._task

    async def wait_settled(self, timeout: float | None = None) -> None:
        """Wait until the server is ready or has failed (at most ``timeout`` seconds, longer
        while an OAuth login waits for the browser: that wait has its own limit)."""
        while self.state is State.STARTING:
            waiter = asyncio.ensure_future(self._ready.wait())
            task = self._task
            pending = [waiter] + ([task] if task is not None else [])
            try:
                await asyncio.wait(pending, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            finally:
                waiter.cancel()
            if not self.login_url:
                return

    async def stop(self, state: State = State.STOPPED) -> None:
        """Close the connection (the SDK stops the process) and wait for it to be gone."""
        task, self._task = self._task, None
        self._stopping = True
        self._cancel()
        if task is not None and not task.done():
            try:
                await asyncio.shield(task)
            except (asyncio.CancelledError, Exception):
                if not task.done():
                    raise
        self._client = None
        if self.state is not State.FAILED or state is State.DISABLED:
            self._set(state)

    async def restart(self) -> None:
        await self.stop()
        if self.state is State.DISABLED:
            return
        self.state = State.STOPPED
        task = self.start()
        if task is not None:
            await self.wait_settled()

    async def ensure(self) -> None:
        """Before a call: reconnect a server that had been ready and went away (once), and
        wait for one still starting."""
        if self.state is State.FAILED and self._was_ready:
            self._was_ready = False  # one automatic reconnect per failure
            await self.restart()
        elif self.state is State.STARTING:
            await self.wait_settled(self.config.startup_timeout + 5)

    async def _own(self) -> None:
        timeout = self.config.startup_timeout
        timed_out = False
        try:
            # the SDK takes most of a second to import: in a thread, so a TUI keeps drawing
            await asyncio.to_thread(_import_sdk, self.config.auth == "oauth")
            if self._stopping:
                return
            import anyio

            _quiet_sdk_logging()
            # one scope for the whole connection: the SDK's task groups live inside it; its
            # deadline is the startup timeout until the server is ready, then none
            with anyio.CancelScope(deadline=anyio.current_time() + timeout) as scope:
                self._scope = scope
                async with AsyncExitStack() as stack:
                    client = await self._connect(stack)
                    await self._list(client)
                    scope.deadline = math.inf
                    self._client = client
                    self._was_ready = True
                    self._set(State.READY)
                    self._ready.set()
                    await anyio.sleep_forever()
            timed_out = scope.cancelled_caught and scope.deadline != math.inf
        except Exception as e:
            if not self._stopping:
                self._fail(self._start_failure(e))
        finally:
            self._client = None
            self._scope = None
            self._ready.set()
        if timed_out and self.state is State.STARTING:
            self._fail(f"did not answer within {timeout:g} s of starting")
        elif self.state in (State.STARTING, State.READY):
            self._set(State.STOPPED)

    def _start_failure(self, e: BaseException) -> str:
        problem = getattr(self._oauth, "problem", "")
        if problem:
            return str(problem)
        if type(_innermost(e)).__name__.startswith("OAuth"):
            return f"OAuth login failed: {_describe(_innermost(e))}"
        if self._http_status == 401 and self.config.auth != "oauth":
            return (
                'HTTP 401: the server wants a login: set auth = "oauth" in its '
                f"[mcp.servers.{self.name}] table, or give it a token in headers "
                '(Authorization = "Bearer ${TOKEN}")'
            )
        if self._http_status:
            return f"HTTP {self._http_status} from {self.config.url}"
        if _is_gone(e) and self.state is State.STARTING and self.config.command:
            return "it exited before answering the handshake"
        return _describe(e)

    def _cancel(self) -> None:
        """End the connection task (not a timeout: the deadline is lifted first)."""
        if self._scope is not None:
            self._scope.deadline = math.inf
            self._scope.cancel()

    def _fail(self, why: str) -> None:
        self._client = None
        self._set(State.FAILED, why)

    async def _connect(self, stack: AsyncExitStack) -> Any:
        from mcp import Client

        try:
            exp = expand(self.config)
        except ValueError as e:
            raise _StartError(str(e)) from None
        self._secrets = tuple(sorted(set(exp.secrets), key=len, reverse=True))
        _remember_secrets(self._secrets)
        transport = self._stdio(exp) if exp.command else self._http(exp, stack)
        client = Client(
            transport,
            mode="auto",
            read_timeout_seconds=self.config.startup_timeout,
            cache=None,
        )
        return await stack.enter_async_context(client)

    @asynccontextmanager
    async def _stdio(self, exp: ExpandedServer) -> AsyncIterator[Any]:
        from mcp.client.stdio import StdioServerParameters, stdio_client

        cwd = (self.root / exp.cwd) if exp.cwd else self.root
        argv = self._argv(exp, cwd)
        env = exp.env or None
        if not self.sandboxed:  # what it starts is found outside the project too
            from mcp.client.stdio import get_default_environment

            env = host_programs.host_env({**get_default_environment(), **(exp.env or {})}, cwd)
        params = StdioServerParameters(command=argv[0], args=argv[1:], env=env, cwd=str(cwd))
        read_fd, write_fd = os.pipe()
        pipe_inode = os.fstat(write_fd).st_ino
        errlog = os.fdopen(write_fd, "w")
        loop = asyncio.get_running_loop()
        transport: asyncio.ReadTransport | None = None
        group: int | None = None
        try:
            try:
                async with stdio_client(params, errlog=errlog) as streams:
                    group = _child_by_stderr(pipe_inode)
                    errlog.close()  # the server holds its own copy; EOF then means it exited
                    transport, _ = await loop.connect_read_pipe(
                        lambda: _StderrReader(self._tail, self._on_stderr_eof),
                        os.fdopen(read_fd, "rb", buffering=0),
                    )
                    read_fd = -1
                    yield streams
            except OSError as e:  # the command could not start
                raise _StartError(f"cannot start {exp.command!r}: {e.strerror or e}") from None
        finally:
            errlog.close()
            if read_fd >= 0:
                os.close(read_fd)
            if transport is not None:
                transport.close()
            if group is not None:
                # after the SDK's shutdown: end what the server left in its process group
                # (it leads the group; the SDK kills it only when the server itself does not
                # exit, and one that exits on EOF can leave children: npx and its node)
                await end_group(group)

    def _argv(self, exp: ExpandedServer, cwd: Path) -> list[str]:
        """The server's command line, inside the OS sandbox unless it runs outside."""
        from ..sandbox.programs import entry_box, program_path

        cfg = self.config
        box = entry_box(
            self.sandbox,
            user=cfg.user,
            unsandboxed=cfg.unsandboxed,
            network=cfg.network,
            words=[exp.command, *exp.args],
            root=self.root,
        )
        self.sandboxed = box is not None
        if box is None:
            return [_own_program(exp.command, cwd), *exp.args]
        program = program_path(exp.command, exp.env, cwd)
        if program is None:  # said as the unsandboxed start says it, not as bwrap would
            raise _StartError(f"cannot start {exp.command!r}: No such file or directory")
        argv = [program, *exp.args]
        if cwd.resolve() != self.root.resolve():  # bwrap starts it in the root
            return box.wrap(["env", "-C", str(cwd), "--", *argv], self.root)
        return box.wrap(argv, self.root)

    def _on_stderr_eof(self) -> None:
        """The server's stderr closed: it exited (or closed stderr, which servers do not)."""
        if self.state is State.READY and not self._stopping:
            self._fail(
                "the server exited"
                + (f"; stderr: {_last(self.stderr_tail)}" if self.stderr_tail else "")
            )
            self._cancel()

    def _http(self, exp: ExpandedServer, stack: AsyncExitStack) -> Any:
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        auth = self._oauth_for(exp.url) if self.config.auth == "oauth" else None
        http = create_mcp_http_client(headers=exp.headers or None, auth=auth)
        http.event_hooks["response"].append(self._on_response)
        return _entered(stack, http, streamable_http_client(exp.url, http_client=http))

    def _oauth_for(self, url: str) -> Any:
        """The SDK's OAuth client for this server, with its token file and login hand-off."""
        from ..config import state_dir
        from .oauth import SafeOAuth, TokenFile, token_path

        show = self.show_login
        self._oauth = SafeOAuth(
            url,
            TokenFile(token_path(state_dir(), self.name, url)),
            show=(lambda link: show(self, link)) if show is not None else None,
            waiting=self._login_waiting,
            no_login=(
                "needs an OAuth login, and this run cannot show one (not in a terminal): "
                f"log in once with `larik mcp login {self.name}`; the token is kept"
            ),
            client_id=self.config.client_id,
            callback_port=self.config.callback_port,
        )
        self.login_url = ""
        return self._oauth

    def _login_waiting(self, url: str) -> None:
        """While the user logs in (``url``: the authorization URL; "": done), the start-up
        deadline is lifted: the login has its own."""
        if self._scope is not None and self.state is State.STARTING:
            import anyio

            now = anyio.current_time()
            self._scope.deadline = math.inf if url else now + self.config.startup_timeout
        self.login_url = url
        if self.on_change is not None:
            self.on_change(self)

    async def _on_response(self, response: Any) -> None:
        """Keep an HTTP error status: the SDK reports it only as "an error response"."""
        if response.status_code >= 400:
            self._http_status = response.status_code

    async def _list(self, client: Any) -> None:
        caps = client.server_capabilities
        self.instructions = (client.instructions or "")[:4000]
        tools, resources, prompts = [], [], []
        if caps.tools is not None:
            tools = await _all_pages(client.list_tools, "tools")
        if caps.resources is not None:
            resources = await _all_pages(client.list_resources, "resources")
        if caps.prompts is not None:
            prompts = await _all_pages(client.list_prompts, "prompts")
        allow = self.config.tools
        seen: set[str] = set()
        self.tools, self.hidden_tools = [], 0
        for t in tools:
            if allow is not None and not any(fnmatch.fnmatchcase(t.name, p) for p in allow):
                self.hidden_tools += 1
                continue
            name = exposed_name(self.name, t.name)
            if name in seen:
                continue
            seen.add(name)
            ann = t.annotations
            schema, note = fit_schema(tool_schema(t.input_schema))
            title = short(t.title or (ann.title if ann is not None else ""))
            described = t.description or title or f"{short(t.name)} (MCP server {self.name})"
            self.tools.append(
                ToolInfo(
                    server=self.name,
                    remote=t.name,
                    name=name,
                    description=described_text(described, MAX_DESCRIPTION) + note,
                    schema=schema,
                    read_only=bool(ann is not None and ann.read_only_hint),
                    title=title,
                )
            )
        # every string listed is cut here, once: the TUI, the prompt and the model read these
        self.resources = [
            ResourceInfo(
                self.name, r.uri, short(r.name), short(r.description), short(r.mime_type, 60)
            )
            for r in resources
        ]
        self.prompts = [
            PromptInfo(
                self.name,
                p.name,
                short(p.description),
                tuple(
                    (short(a.name), bool(a.required), short(a.description))
                    for a in (p.arguments or [])[:MAX_ARGUMENTS]
                ),
            )
            for p in prompts
        ]

    # -- calls ----------------------------------------------------------------------------------
    async def call_tool(self, remote: str, arguments: dict[str, Any]) -> Any:
        """The server's ``CallToolResult``; raises :class:`McpCallError` when there is none."""
        return await self._call(lambda c: c.call_tool(remote, arguments), f"calling {remote}")

    async def read_resource(self, uri: str) -> Any:
        return await self._call(lambda c: c.read_resource(uri), f"reading {uri}")

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> Any:
        return await self._call(lambda c: c.get_prompt(name, arguments), f"getting prompt {name}")

    async def _call(self, fn: Callable[[Any], Any], what: str) -> Any:
        await self.ensure()
        client = self._client
        if client is None or self.state is not State.READY:
            raise McpCallError(self.unavailable())
        timeout = self.config.timeout
        try:
            return await asyncio.wait_for(fn(client), timeout)
        except TimeoutError:
            raise McpCallError(
                f"MCP server {self.name!r} did not answer within {timeout:g} s ({what}); "
                "the call was abandoned"
            ) from None
        except asyncio.CancelledError:
            raise
        except Exception as e:
            if self._client is None or self.state is not State.READY:
                raise McpCallError(self.unavailable()) from None
            if _is_gone(e):
                self._fail(f"the connection closed ({what})")
                self._cancel()
                raise McpCallError(self.unavailable()) from None
            # a server's error is cut like its results (a 3 MB message must not reach the model)
            raise McpCallError(
                clip(f"MCP server {self.name!r}: {self.mask(_describe(e))}")
            ) from None

    def unavailable(self) -> str:
        """Why a call cannot be made now, for the model and the user."""
        if self.state is State.DISABLED:
            return f"MCP server {self.name!r} is disabled (enable it with /mcp)"
        if self.state is State.STARTING:
            return f"MCP server {self.name!r} is still starting"
        if self.state is State.FAILED:
            tail = self.stderr_tail
            more = f"; its stderr ends: {_last(tail)}" if tail else ""
            if self.sandboxed and REFUSAL.search(f"{self.error}\n{tail}"):
                from ..sandbox.programs import hint

                more += " " + hint("server", f"sandbox = false in [mcp.servers.{self.name}]")
            return f"MCP server {self.name!r} failed: {self.error}{more}"
        return f"MCP server {self.name!r} is not running"


class _StartError(Exception):
    pass


def _own_program(command: str, cwd: Path) -> str:
    """An unsandboxed server's program: a path as written (the user's own config named it),
    a name found outside the project (:mod:`larik.host_programs`), else why it is not run."""
    if "/" in command:
        return command
    try:
        return host_programs.find(command, cwd)
    except host_programs.NotOwn as e:
        raise _StartError(f"cannot start {command!r}: {e}") from None


def fit_schema(schema: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """A schema small enough to send with every request, and a note for the description when
    it had to be replaced (a server may send a schema of megabytes)."""
    size = len(json.dumps(schema, ensure_ascii=False, allow_nan=True))
    if size <= MAX_SCHEMA:
        return schema, ""
    names = [n for n in list(schema.get("properties") or {})[:50] if len(n) <= MAX_NAME]
    loose = {"type": "object", "properties": {n: {} for n in names}}
    return loose, f" (its parameter schema, {size:,} characters, was too large to send)"


def _child_by_stderr(inode: int) -> int | None:
    """The process id of the server just started: our child whose stderr is our pipe. The SDK
    does not expose its process; on Linux /proc tells. None elsewhere (or if it already left)."""
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return None
    for tid in tasks:
        try:
            with open(f"/proc/self/task/{tid}/children") as f:
                children = f.read().split()
        except OSError:
            continue
        for pid in children:
            try:
                if os.readlink(f"/proc/{pid}/fd/2") == f"pipe:[{inode}]":
                    return int(pid)
            except OSError:
                continue
    return None


@asynccontextmanager
async def _entered(stack: AsyncExitStack, http: Any, transport: Any) -> AsyncIterator[Any]:
    async with http, transport as streams:
        yield streams


async def _all_pages(fn: Callable[..., Any], attr: str) -> list[Any]:
    out: list[Any] = []
    cursor: str | None = None
    for _ in range(50):
        page = await fn(cursor=cursor)
        out.extend(getattr(page, attr, None) or [])
        cursor = page.next_cursor
        if not cursor or len(out) >= MAX_LISTED:
            break
    return out[:MAX_LISTED]


def _is_gone(e: BaseException) -> bool:
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    text = str(e).lower()
    return isinstance(e, (EOFError, ConnectionError)) or "connection closed" in text


def _innermost(e: BaseException) -> BaseException:
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    return e


def _describe(e: BaseException) -> str:
    """One line for an exception from the SDK or a transport (an ExceptionGroup unwrapped)."""
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    if isinstance(e, _StartError):
        return str(e)
    text = " ".join(str(e).split()) or type(e).__name__
    if isinstance(e, OSError) and e.strerror:
        text = e.strerror
    name = type(e).__name__
    return text if name in ("MCPError", "McpError") else f"{name}: {text}"


def _last(tail: str) -> str:
    lines = [line for line in tail.splitlines() if line.strip()]
    return " | ".join(lines[-3:])[-300:]


_logging_quiet = False
SDK_MODULES = ("anyio", "mcp", "mcp.client.stdio", "mcp.client.streamable_http")


def _import_sdk(oauth: bool = False) -> None:
    import importlib

    try:
        for name in SDK_MODULES + (("larik.mcp.oauth",) if oauth else ()):
            importlib.import_module(name)
    except ImportError as e:
        raise _StartError(f"the MCP SDK cannot be imported ({e}); reinstall larik") from None


def _quiet_sdk_logging() -> None:
    """The SDK logs transport faults with ``logging``; with no handler Python would print them
    on stderr, over the TUI. Larik reports them as the server's state instead."""
    global _logging_quiet
    if not _logging_quiet:
        log = logging.getLogger("mcp")
        log.addHandler(logging.NullHandler())
        log.propagate = False
        _logging_quiet = True


def _remember_secrets(values: tuple[str, ...]) -> None:
    """Register the server's secret values with Larik's masking of all outgoing text."""
    from ..llm import secrets

    secrets.remember(*values)
