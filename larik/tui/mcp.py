"""The TUI's side of MCP: start the servers after the first frame, say when one fails, ``/mcp``,
``@server:URI`` in a prompt, and each server prompt as a ``/mcp__SERVER__PROMPT`` command.

The chat screen calls :func:`prepare` once its config is known (after the first frame, in the
start-up worker) and gives the manager to the agent as its tool source; :func:`start_servers`
starts them in background tasks once the agent's SDK is imported, so a slow or broken server
holds up neither the screen nor the first turn.
Nothing here imports the ``mcp`` SDK: the first server to start imports it in a thread.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..mcp.manager import McpManager
    from ..mcp.server import McpServer
    from .screens.chat import ChatScreen

Handler = Callable[["ChatScreen", str], Awaitable[None]]

__all__ = [
    "close",
    "open_screen",
    "prompt_commands",
    "resource_names",
    "send_with_resources",
    "prepare",
    "start_servers",
]


def prepare(chat: ChatScreen) -> McpManager | None:
    """The manager of the configured servers (none: None), not started yet: the agent gets it
    as its tool source. Idempotent."""
    existing = getattr(chat, "mcp", None)
    settings = getattr(chat.config, "mcp", None)  # (tests may hand the chat a bare config)
    if existing is not None or not getattr(settings, "servers", None):
        return existing
    from ..mcp.manager import McpManager

    if chat.config is None:
        return None
    manager = McpManager.from_config(chat.config, chat.cwd)
    manager.listeners.append(lambda server: _changed(chat, server))
    manager.set_login(lambda server, url: _login(chat, server, url))
    chat.mcp = manager
    return manager


def start_servers(chat: ChatScreen) -> None:
    """Start the servers in the background once the model's SDK is imported: the Python work of
    starting them (the MCP SDK's import, the handshakes) does not compete with that import,
    which the first request waits for."""
    if getattr(chat, "mcp", None) is not None:
        chat.run_worker(_start_after_warm_up(chat), group="mcp-start", exit_on_error=False)


async def _start_after_warm_up(chat: ChatScreen) -> None:
    await chat.warmed_up()
    chat.mcp.start_all()


def _login(chat: ChatScreen, server: McpServer, url: str) -> None:
    """An OAuth login: the URL to open, as a notice (Larik listens on 127.0.0.1 for the
    browser's answer; /mcp shows the URL too while it waits)."""
    chat.say(
        f"MCP server {server.name!r} asks you to log in: open this address in your browser, "
        f"and Larik carries on when you have allowed it:\n{url}",
        "warning",
    )


def _changed(chat: ChatScreen, server: McpServer) -> None:
    state = str(server.state)
    if state == "failed":
        tail = server.stderr_tail.splitlines()[-1:] if server.stderr_tail else []
        more = f" — stderr: {tail[0][:200]}" if tail else ""
        chat.say(f"MCP server {server.name!r} failed: {server.error}{more} (/mcp)", "warning")
    elif state == "ready" and server.tools:
        chat.say(f"MCP server {server.name!r} ready: {len(server.tools)} tools")
    chat.refresh_status()


async def close(chat: ChatScreen) -> None:
    """Stop every server (on quit): no process is left behind."""
    manager = getattr(chat, "mcp", None)
    if manager is not None:
        await manager.close()


def open_screen(chat: ChatScreen) -> None:
    manager = getattr(chat, "mcp", None)
    if manager is None:
        chat.say(
            "no MCP servers configured: add one with `larik mcp add NAME -- COMMAND` or in "
            "[mcp.servers.NAME] (docs/mcp.md)"
        )
        return
    from .screens.mcp import McpScreen

    chat.app.push_screen(McpScreen(manager))


# ------------------------------------------------------------------------------ prompts


def prompt_commands(chat: ChatScreen) -> list[tuple[str, str, str, Handler]]:
    """``(name, usage, summary, handler)`` for each prompt of each ready server: the rows
    ``slash.dynamic`` makes slash commands of."""
    manager = getattr(chat, "mcp", None)
    if manager is None:
        return []
    from ..mcp.mentions import prompt_commands as commands

    return [(pc.name, pc.usage, pc.summary, _prompt_handler(pc.info)) for pc in commands(manager)]


def _prompt_handler(info: Any) -> Handler:
    async def handler(chat: ChatScreen, arg: str) -> None:
        await _run_prompt(chat, info, arg)

    return handler


async def _run_prompt(chat: ChatScreen, info: Any, arg: str) -> None:
    from ..mcp.mentions import run_prompt
    from ..mcp.server import McpCallError

    if chat.need_agent() is None or not chat.idle("running a prompt"):
        return
    try:
        blocks = await run_prompt(chat.mcp, info, arg)
    except (ValueError, McpCallError) as e:
        chat.say(f"/{info.name}: {e}", "error")
        return
    chat.conv.add_user(blocks[0].text, [])
    chat.start_turn(blocks if len(blocks) > 1 else blocks[0].text)


# ---------------------------------------------------------------------------- resources


def resource_names(chat: ChatScreen) -> set[str]:
    """Names of configured servers: ``@NAME:…`` is a resource, not a path."""
    manager = getattr(chat, "mcp", None)
    return set(manager.servers) if manager is not None else set()


def send_with_resources(chat: ChatScreen, text: str, attached: Any) -> bool:
    """If ``text`` mentions ``@server:URI``, read those resources in a worker and start the turn
    with them (True); else False, and the caller sends the prompt as usual."""
    from ..mcp.mentions import resource_mentions

    manager = getattr(chat, "mcp", None)
    if manager is None or not resource_mentions(text, manager.servers):
        return False
    chat.busy = True  # a turn is on its way: a second prompt waits
    chat.run_worker(_read_and_send(chat, text, attached), group="mcp-attach", exit_on_error=False)
    return True


async def _read_and_send(chat: ChatScreen, text: str, attached: Any) -> None:
    from ..mcp.mentions import attach_resources

    try:
        got = await attach_resources(text, chat.mcp)
    finally:
        chat.busy = False
    for problem in got.problems:
        chat.conv.add_notice(problem, "warning")
    chat.conv.add_user(text, [*attached.files, *got.names])
    if got.blocks or attached.files:
        chat.start_turn([*attached.blocks, *got.blocks])
    else:
        chat.start_turn(text)
