"""``larik mcp list|add|remove|login``: the MCP servers in your config, for scripts.

Light at import time: config and the MCP package are imported when a command runs (the SDK only
by ``list --check``, which starts the servers).
"""

from __future__ import annotations

import sys
from typing import Any

import typer

from ..command_line import TYPER_SETTINGS, Group
from ..llm import jsontext
from ..terminal_text import safe_output
from ..words import count

mcp_app = typer.Typer(
    name="mcp",
    cls=Group,
    help="MCP tool servers: list, add, remove or log in to them (see docs/mcp.md).",
    no_args_is_help=True,
    **TYPER_SETTINGS,
)


def register(app: typer.Typer) -> None:
    app.add_typer(mcp_app, name="mcp")


def _fail(message: str, code: int = 2) -> None:
    print(f"larik: {message}", file=sys.stderr)
    raise typer.Exit(code)


def _config(trust_project: bool) -> Any:
    from ..config import load_config
    from ..llm.errors import ConfigError

    try:
        return load_config(trust_project=trust_project)
    except ConfigError as e:
        _fail(str(e))


@mcp_app.command("list")
@safe_output
def list_cmd(
    json_out: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    check: bool = typer.Option(
        False, "--check", help="Start each enabled server and report its state and tools."
    ),
    trust_project: bool = typer.Option(
        False, "--trust-project", help="Include the project's .mcp.json and [mcp] servers."
    ),
) -> None:
    """List the configured servers (with --check: start them, show state, tools, errors)."""
    config = _config(trust_project)
    rows = [
        {
            "name": name,
            "transport": s.transport,
            "enabled": s.enabled,
            "target": s.describe(),
            "source": s.source,
        }
        for name, s in config.mcp.servers.items()
    ]
    if check and rows:
        import asyncio
        from pathlib import Path

        from ..mcp.manager import check_servers

        states = asyncio.run(check_servers(config, Path.cwd()))
        for row in rows:
            row.update(states[row["name"]])
    pt = config.project_trust
    if pt is not None and not pt.trusted:
        print(pt.ignored_line(), file=sys.stderr)
    from ..trust import BLOCKED

    for name, where, what in pt.blocked_servers() if pt is not None else []:
        rows.append(
            {"name": name, "transport": "", "enabled": False, "target": what, "source": where}
            | {"state": BLOCKED}
        )
    if json_out:
        print(jsontext.dumps({"servers": rows}, indent=2))
        return
    if not rows:
        print("No MCP servers configured. Add one with: larik mcp add NAME -- COMMAND [ARGS…]")
        return
    width = max(4, *(len(r["name"]) for r in rows))
    for r in rows:
        if r.get("state") == BLOCKED:
            print(f"{r['name']:<{width}}  {BLOCKED} ({r['source']}: {r['target']})")
            continue
        state = r.get("state") or ("enabled" if r["enabled"] else "disabled")
        tools = f"  {count(r['tools'], 'tool')}" if "tools" in r else ""
        print(f"{r['name']:<{width}}  {r['transport']:<5}  {state:<8}{tools}  {r['target']}")
        if r.get("error"):
            print(f"{'':<{width}}  {r['error']}")


@mcp_app.command("add")
@safe_output
def add_cmd(
    name: str = typer.Argument(..., help="The server's name (tools become mcp__NAME__TOOL)."),
    command: list[str] = typer.Argument(None, help="stdio: the command and its arguments."),
    url: str = typer.Option("", "--url", help="Streamable HTTP: the endpoint URL."),
    env: list[str] = typer.Option([], "--env", "-e", help="KEY=VALUE (VALUE may be ${VAR})."),
    header: list[str] = typer.Option([], "--header", "-H", help="'Name: value' (HTTP)."),
    timeout: float | None = typer.Option(None, "--timeout", help="Seconds per tool call."),
    disabled: bool = typer.Option(False, "--disabled", help="Add it, but do not start it."),
    oauth: bool = typer.Option(False, "--oauth", help="HTTP: log in with OAuth when it asks."),
) -> None:
    """Add a server to your user config: larik mcp add NAME -- COMMAND [ARGS…], or --url URL."""
    from pydantic import ValidationError

    from ..config import save_user_config
    from ..config.files import first_error
    from ..llm.errors import ConfigError
    from ..mcp.config import McpServerConfig

    table: dict[str, Any] = {}
    if command:
        table.update(command=command[0], args=command[1:])
    if url:
        table["url"] = url
    if env:
        table["env"] = dict(_pair(e, "=", "--env") for e in env)
    if header:
        table["headers"] = dict(_pair(h, ":", "--header") for h in header)
    if timeout is not None:
        table["timeout"] = timeout
    if disabled:
        table["enabled"] = False
    if oauth:
        table["auth"] = "oauth"
    try:
        McpServerConfig.model_validate(table)
    except ValidationError as e:
        key, msg = first_error(e, model=McpServerConfig)
        _fail(f"mcp add {name}: {key + ': ' if key else ''}{msg}")
    config = _config(False)
    if name in config.mcp.servers:
        _fail(
            f"an MCP server named {name!r} is already configured ({config.mcp.servers[name].source}); "
            f"larik mcp remove {name} first"
        )
    try:
        path = save_user_config({"mcp": {"servers": {name: table}}})
    except ConfigError as e:
        _fail(str(e))
    print(f"Added MCP server {name!r} to {path}")


def _pair(text: str, sep: str, option: str) -> tuple[str, str]:
    key, found, value = text.partition(sep)
    if not found or not key.strip():
        _fail(f"{option} {text.split(sep)[0][:40]!r}: write it as KEY{sep}VALUE")
    return key.strip(), value.strip()


@mcp_app.command("remove")
@safe_output
def remove_cmd(name: str = typer.Argument(..., help="The server to remove.")) -> None:
    """Remove a server from your user config."""
    from ..config import save_user_config, user_config_path

    config = _config(True)
    server = config.mcp.servers.get(name)
    if server is None:
        _fail(f"no MCP server named {name!r} in {user_config_path()}", 1)
    if server.source != str(user_config_path()):
        _fail(f"{name!r} is configured in {server.source} (a project file); edit it there", 1)
    save_user_config({"mcp": {"servers": {name: None}}})
    print(f"Removed MCP server {name!r} from {user_config_path()}")


@mcp_app.command("login")
@safe_output
def login_cmd(
    name: str = typer.Argument(..., help="The server to log in to."),
    trust_project: bool = typer.Option(
        False, "--trust-project", help="Include the project's .mcp.json and [mcp] servers."
    ),
) -> None:
    """Log in to an HTTP server with OAuth: prints the address to open, waits for the browser,
    keeps the token (in Larik's state folder) for every later run."""
    import asyncio
    from pathlib import Path

    config = _config(trust_project)
    server = config.mcp.servers.get(name)
    if server is None:
        _fail(f"no MCP server named {name!r} (larik mcp list shows them)", 1)
    if server.auth != "oauth":
        _fail(f'{name!r} does not log in with OAuth: set auth = "oauth" in [mcp.servers.{name}]', 1)
    ok, line = asyncio.run(_login(name, server, Path.cwd()))
    if not ok:
        _fail(line, 1)
    print(line)


async def _login(name: str, config: Any, cwd: Any) -> tuple[bool, str]:
    from ..mcp.manager import login_on
    from ..mcp.server import McpServer, State

    server = McpServer(name, config.model_copy(update={"enabled": True}), cwd)
    server.show_login = login_on(sys.stderr)
    server.start()
    try:
        await server.wait_settled(config.startup_timeout + 5)
        if server.state is not State.READY:
            return False, server.unavailable()
        return True, f"Logged in to MCP server {name!r}: {count(len(server.tools), 'tool')}"
    finally:
        await server.stop()
