"""The servers part of a session: the MCP servers (their tools, resources and prompts), the
custom-command catalogue, and what the agent runs beside the conversation (language servers,
background jobs) — what comes and goes with the session besides the conversation.

``prepare()`` makes the configured servers' manager (the agent's tool source), ``start()``
starts them, ``close()`` stops them; a failure, a server that became ready and an OAuth login
address are notices (``say``), every change a ``CHANGED("mcp")`` (``changed``).
``discover_commands()`` finds the custom commands (each problem said once);
``expand(name, args)`` is what ``/name args`` turns into — an MCP prompt's blocks or a custom
command — and ``command_rows()`` lists both kinds for completion and ``/help``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..llm.errors import LarikError
from ..words import count
from .commands import builtin_names

if TYPE_CHECKING:
    from ..agent.jobs import JobTable
    from ..custom_commands import CommandCatalog, CustomCommand
    from ..llm.types import Block
    from ..mcp.manager import McpManager
    from ..mcp.mentions import ResourceAttachment
    from ..mcp.server import McpServer
    from .port import AgentSlot

__all__ = ["AmbiguousCommand", "PromptExpansion", "Servers"]


class AmbiguousCommand(LarikError):
    """A short command name that more than one custom command has."""

    def __init__(self, name: str, names: list[str]) -> None:
        super().__init__(f"/{name} is ambiguous: " + ", ".join(f"/{n}" for n in names))
        self.names = names


@dataclass(frozen=True, slots=True)
class PromptExpansion:
    """An MCP server's prompt, run: the turn's prompt and what a face shows of it."""

    prompt: str | list[Block]
    typed: str
    shown: str


class Servers:
    """The MCP servers and the custom commands of one session in ``cwd``. ``login``: True a
    notice with the address, False none (the server fails, saying to run ``larik mcp login
    NAME``), else how an OAuth login's address reaches the user."""

    def __init__(
        self,
        cwd: Path,
        config: Callable[[], Any],
        slot: AgentSlot,
        *,
        say: Callable[[str, str], None],
        changed: Callable[[str], None],
        login: Callable[[McpServer, str], None] | bool = True,
        enabled: bool = True,
    ) -> None:
        self.cwd = cwd
        self._slot = slot
        self._config = config  # the session's config now (the TUI loads it after a frame)
        self._say, self._changed = say, changed
        self.login = login
        self.enabled = enabled
        self.mcp: McpManager | None = None
        self.commands: CommandCatalog | None = None
        self._said: set[str] = set()  # command-file problems said already

    # -- MCP servers --------------------------------------------------------------------------
    def prepare(self) -> McpManager | None:
        """The configured MCP servers' manager, not started (none configured: None). The agent
        gets it as its tool source. Idempotent."""
        config = self._config()
        settings = getattr(config, "mcp", None)  # (tests may hand a bare config)
        if self.mcp is not None or not self.enabled or not getattr(settings, "servers", None):
            return self.mcp
        from ..mcp.manager import McpManager

        manager = McpManager.from_config(config, self.cwd)
        manager.listeners.append(self._server_changed)
        login = self.login
        manager.set_login(self._login if login is True else login or None)
        self.mcp = manager
        return manager

    def start(self) -> None:
        """Start the MCP servers in the background (the TUI: once the model's SDK is in)."""
        if self.mcp is not None:
            self.mcp.start_all()

    async def wait_settled(self) -> None:
        if self.mcp is not None:  # each failure is a notice already (its state changed)
            await self.mcp.wait_settled()

    async def close(self) -> None:
        if self.mcp is not None:
            await self.mcp.close()  # no server process is left behind

    def _login(self, server: McpServer, url: str) -> None:
        self._say(
            f"MCP server {server.name!r} asks you to log in: open this address in your browser, "
            f"and Larik carries on when you have allowed it:\n{url}",
            "warning",
        )

    def _server_changed(self, server: McpServer) -> None:
        state = str(server.state)
        if state == "failed":
            self._say(server.unavailable(), "warning")  # its reason, its stderr's end
        elif state == "ready" and server.tools:
            self._say(
                f"MCP server {server.name!r} ready: {count(len(server.tools), 'tool')}", "info"
            )
        self._changed("mcp")

    # -- what the agent runs beside the conversation ------------------------------------------
    @property
    def jobs(self) -> JobTable | None:
        """The background jobs (``/jobs``; None before the agent exists)."""
        agent = self._slot.current
        return agent.jobs if agent is not None else None

    def lsp_status(self) -> str:
        """The language servers: found where, which run, their last diagnostics (``/lsp``);
        before a model, what would run (none is started)."""
        from ..lsp.session import LspSession, status_text

        agent = self._slot.current
        lsp = agent.lsp if agent is not None else None
        lsp = lsp if lsp is not None else LspSession(self._config(), self.cwd)
        return status_text(lsp.status())

    # -- resources in a prompt ----------------------------------------------------------------
    def resource_names(self) -> set[str]:
        """Names of configured MCP servers: ``@NAME:…`` is their resource, not a path."""
        return set(self.mcp.servers) if self.mcp is not None else set()

    def mentions_resources(self, text: str) -> bool:
        if self.mcp is None:
            return False
        from ..mcp.mentions import resource_mentions

        return bool(resource_mentions(text, self.mcp.servers))

    async def attach_resources(self, text: str) -> ResourceAttachment:
        """Read each ``@server:URI`` of ``text`` (``.blocks``, ``.names``, ``.problems``)."""
        from ..mcp.mentions import ResourceAttachment, attach_resources

        if self.mcp is None:
            return ResourceAttachment()
        return await attach_resources(text, self.mcp)

    # -- commands -----------------------------------------------------------------------------
    async def discover_commands(self) -> CommandCatalog:
        """Look for the custom commands (in a thread); each new problem is a notice, once."""
        from ..custom_commands import discover_commands

        catalog = await asyncio.to_thread(discover_commands, self.cwd, builtin_names())
        for problem in catalog.problems:
            if problem not in self._said:
                self._said.add(problem)
                self._say(problem, "warning")
        self.commands = catalog
        return catalog

    async def expand(self, name: str, args: str) -> PromptExpansion | CustomCommand | None:
        """What ``/name args`` is: an MCP server's prompt (run: its blocks), a custom command
        (a file added since is looked for first), or None; :class:`AmbiguousCommand` for a
        short name two commands share."""
        if self.mcp is not None:
            from ..mcp.mentions import find_prompt, run_prompt
            from ..mcp.server import McpCallError

            info = find_prompt(self.mcp, name)
            if info is not None:
                try:
                    blocks = await run_prompt(self.mcp, info, args)
                except (ValueError, McpCallError) as e:
                    raise LarikError(f"/{name}: {e}") from None
                prompt = blocks if len(blocks) > 1 else blocks[0].text
                typed = f"/{name} {args.strip()}".rstrip()
                return PromptExpansion(prompt, typed, blocks[0].text)
        cmd = self.commands.find(name) if self.commands is not None else None
        if cmd is None:
            catalog = await self.discover_commands()  # a file added since, or a short name
            cmd = catalog.find(name)
            if cmd is None and (clash := catalog.ambiguous(name)):
                raise AmbiguousCommand(name, [c.name for c in clash])
        return cmd

    def command_rows(self) -> list[tuple[str, str, str]]:
        """``(name, usage, summary)`` of the commands that come and go with the session: each
        ready MCP server's prompts, then the custom commands found so far."""
        rows: list[tuple[str, str, str]] = []
        if self.mcp is not None:
            from ..mcp.mentions import prompt_commands

            rows += [(pc.name, pc.usage, pc.summary) for pc in prompt_commands(self.mcp)]
        if self.commands is not None:
            rows += [(c.name, c.usage(), c.summary()) for c in self.commands.commands]
        return rows
