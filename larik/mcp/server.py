"""One MCP server: start it, keep the connection, call it, stop it. Its transport is
:mod:`larik.mcp.stdio`'s (a process) or :mod:`larik.mcp.http`'s (a URL); what it offers,
listed once it is ready, is :mod:`larik.mcp.offer`'s; the SDK is imported when a server starts,
never before (:mod:`larik.mcp.sdk`).

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
import math
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..llm.errors import LarikError
from ..sandbox import REFUSAL
from .config import ExpandedServer, McpServerConfig, expand
from .content import clip, short
from .http import HttpLink
from .offer import PromptInfo, ResourceInfo, ToolInfo, list_offer
from .sdk import StartError, describe, import_sdk, innermost, is_gone, quiet_sdk_logging
from .stdio import StderrTail, box_for, command_line, last, stdio_streams

if TYPE_CHECKING:
    from ..sandbox import Sandbox

__all__ = ["McpCallError", "McpServer", "State"]

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
        self._tail = StderrTail()
        self._client: Any = None
        self._task: asyncio.Task[None] | None = None
        self._scope: Any = None  # the connection task's anyio cancel scope
        self._ready = asyncio.Event()
        self._was_ready = False
        self._stopping = False
        self._link = HttpLink(name, config)  # a URL server's HTTP client and last status
        self.show_login: Callable[[McpServer, str], None] | None = None
        """Shows an OAuth login's URL to the user (the front end sets it); None: no one can."""
        self.login_url = ""  # the authorization URL while a login waits for the browser

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
        self._tail = StderrTail()
        self._stopping = False
        self._link.status = 0
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
            await asyncio.to_thread(import_sdk, self.config.auth == "oauth")
            if self._stopping:
                return
            import anyio

            quiet_sdk_logging()
            # one scope for the whole connection: the SDK's task groups live inside it; its
            # deadline is the startup timeout until the server is ready, then none
            with anyio.CancelScope(deadline=anyio.current_time() + timeout) as scope:
                self._scope = scope
                async with AsyncExitStack() as stack:
                    client = await self._connect(stack)
                    offer = await list_offer(self.name, self.config.tools, client)
                    self.tools, self.hidden_tools = offer.tools, offer.hidden_tools
                    self.resources, self.prompts = offer.resources, offer.prompts
                    self.instructions = offer.instructions
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
        problem = self._link.problem
        if problem:
            return problem
        if type(innermost(e)).__name__.startswith("OAuth"):
            return f"OAuth login failed: {describe(innermost(e))}"
        if self._link.status == 401 and self.config.auth != "oauth":
            return (
                'HTTP 401: the server wants a login: set auth = "oauth" in its '
                f"[mcp.servers.{self.name}] table, or give it a token in headers "
                '(Authorization = "Bearer ${TOKEN}")'
            )
        if self._link.status:
            return f"HTTP {self._link.status} from {self.config.url}"
        if is_gone(e) and self.state is State.STARTING and self.config.command:
            return "it exited before answering the handshake"
        return describe(e)

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
            raise StartError(str(e)) from None
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
        cwd = (self.root / exp.cwd) if exp.cwd else self.root
        box = box_for(exp, self.config, self.sandbox, self.root)
        self.sandboxed = box is not None
        argv = command_line(exp, cwd, box, self.root)
        streams = stdio_streams(
            exp, argv, cwd, sandboxed=self.sandboxed, tail=self._tail, on_eof=self._on_stderr_eof
        )
        async with streams as opened:
            yield opened

    def _on_stderr_eof(self) -> None:
        """The server's stderr closed: it exited (or closed stderr, which servers do not)."""
        if self.state is State.READY and not self._stopping:
            self._fail(
                "the server exited"
                + (f"; stderr: {last(self.stderr_tail)}" if self.stderr_tail else "")
            )
            self._cancel()

    def _http(self, exp: ExpandedServer, stack: AsyncExitStack) -> Any:
        show = self.show_login
        if self.config.auth == "oauth":
            self.login_url = ""
        return self._link.streams(
            exp,
            stack,
            show=(lambda link: show(self, link)) if show is not None else None,
            waiting=self._login_waiting,
        )

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
            if is_gone(e):
                self._fail(f"the connection closed ({what})")
                self._cancel()
                raise McpCallError(self.unavailable()) from None
            # a server's error is cut like its results (a 3 MB message must not reach the model)
            raise McpCallError(
                clip(f"MCP server {self.name!r}: {self.mask(describe(e))}")
            ) from None

    def unavailable(self) -> str:
        """Why a call cannot be made now, for the model and the user."""
        if self.state is State.DISABLED:
            return f"MCP server {self.name!r} is disabled (enable it with /mcp)"
        if self.state is State.STARTING:
            return f"MCP server {self.name!r} is still starting"
        if self.state is State.FAILED:
            tail = self.stderr_tail
            more = f"; its stderr ends: {last(tail)}" if tail else ""
            if self.sandboxed and REFUSAL.search(f"{self.error}\n{tail}"):
                from ..sandbox.programs import hint

                more += " " + hint("server", f"sandbox = false in [mcp.servers.{self.name}]")
            return f"MCP server {self.name!r} failed: {self.error}{more}"
        return f"MCP server {self.name!r} is not running"


def _remember_secrets(values: tuple[str, ...]) -> None:
    """Register the server's secret values with Larik's masking of all outgoing text."""
    from ..llm import secrets

    secrets.remember(*values)
