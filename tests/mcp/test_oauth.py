"""OAuth for streamable-HTTP servers, against a real server built with the SDK's own server auth
(``auth_server_script.py``): 401 -> discovery -> dynamic registration -> the authorization URL
(the test plays the browser) -> token -> tool call; the token kept for the next start, refreshed
when expired, a new login when the refresh is refused; and the hostile cases."""

from __future__ import annotations

import asyncio
import io
import json
import os
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx2
import pytest

from larik.config import state_dir, user_config_path
from larik.mcp.config import McpServerConfig
from larik.mcp.content import result_parts
from larik.mcp.oauth import endpoint_problem
from larik.mcp.server import McpServer, State
from larik.printmode import PrintOptions, run_print
from tests.mcp.conftest import AuthServer, Browser, auth_servers
from tests.patience import WAIT


@pytest.fixture
def auth_server(tmp_path: Path) -> Iterator[Callable[..., AuthServer]]:
    with auth_servers(tmp_path) as start:
        yield start


async def started(
    server_url: str, show: Browser | None, name: str = "t", **kw: object
) -> McpServer:
    cfg = McpServerConfig(url=server_url, auth="oauth", startup_timeout=WAIT, **kw)  # type: ignore[arg-type]
    server = McpServer(name, cfg, Path.cwd())
    server.show_login = show
    server.start()
    await server.wait_settled(cfg.startup_timeout + WAIT)
    return server


def token_files() -> list[Path]:
    folder = state_dir() / "mcp-oauth"
    return sorted(folder.iterdir()) if folder.is_dir() else []


async def token_expired() -> None:
    """Until the stored access token has expired: past its ``expires_at`` (the client's
    clock; the server's, in whole seconds, ends first), not a fixed wait for it."""
    [path] = token_files()
    ends = json.loads(path.read_text())["expires_at"]
    while time.time() <= ends:
        await asyncio.sleep(ends - time.time() + 0.02)


async def test_the_whole_login_then_the_token_is_kept_for_the_next_start(auth_server):
    srv = auth_server()
    browser = Browser()
    server = await started(srv.url, browser)
    try:
        assert server.state is State.READY, server.error
        assert [t.name for t in server.tools] == ["mcp__t__whoami"]
        assert len(browser.shown) == 1 and "code_challenge=" in browser.shown[0]
        # from another address, refused; the forged redirect, refused; then closed after one use
        assert browser.answers == [403, 400, 200, "closed"]
        assert server.login_url == ""
        result = await server.call_tool("whoami", {})
        raw = result_parts(result).text
        token = raw.rsplit(" ", 1)[-1]
        assert token.startswith("at-")
        # a server echoing the token: masked by value before the model sees it
        assert token not in server.mask(raw) and "***" in server.mask(raw)
    finally:
        await server.stop()
    assert srv.events() == ["register", "code", "call whoami"]
    [path] = token_files()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700

    # the next start: the stored token, no login (even with no one to show a URL to)
    again = await started(srv.url, None)
    try:
        assert again.state is State.READY, again.error
        await again.call_tool("whoami", {})
    finally:
        await again.stop()
    assert srv.events() == ["register", "code", "call whoami", "call whoami"]


async def test_an_expired_token_is_refreshed_on_the_next_start(auth_server):
    srv = auth_server("--expires", "2")
    server = await started(srv.url, Browser())
    assert server.state is State.READY, server.error
    await server.stop()
    await token_expired()
    again = await started(srv.url, None)  # no login possible: the refresh must do
    try:
        assert again.state is State.READY, again.error
        await again.call_tool("whoami", {})
    finally:
        await again.stop()
    assert srv.events() == ["register", "code", "refresh", "call whoami"]


async def test_a_token_that_expires_while_the_server_runs_is_refreshed_before_a_call(
    auth_server,
):
    srv = auth_server("--expires", "2")
    server = await started(srv.url, Browser())
    try:
        assert server.state is State.READY, server.error
        await token_expired()
        result = await server.call_tool("whoami", {})
        assert result_parts(result).text.startswith("client ")
    finally:
        await server.stop()
    assert srv.events() == ["register", "code", "refresh", "call whoami"]


async def test_a_refused_refresh_means_a_new_login(auth_server):
    srv = auth_server("--expires", "2", "--no-refresh")
    server = await started(srv.url, Browser())
    assert server.state is State.READY, server.error
    await server.stop()
    await token_expired()
    browser = Browser()
    again = await started(srv.url, browser)
    try:
        assert again.state is State.READY, again.error
        assert len(browser.shown) == 1
    finally:
        await again.stop()
    assert srv.events()[:4] == ["register", "code", "refresh", "code"]


async def test_a_login_that_cannot_be_shown_fails_in_one_line_naming_the_fix(auth_server):
    srv = auth_server()
    server = await started(srv.url, None, name="docs")
    assert server.state is State.FAILED  # at once: not the start-up timeout, which says so
    assert "needs an OAuth login" in server.error and "did not answer" not in server.error
    assert "larik mcp login docs" in server.error
    assert "call whoami" not in srv.events()


async def test_without_auth_oauth_a_401_says_how_to_turn_it_on(auth_server):
    srv = auth_server()
    server = McpServer("docs", McpServerConfig(url=srv.url, startup_timeout=WAIT), Path.cwd())
    server.start()
    await server.wait_settled(2 * WAIT)
    assert server.state is State.FAILED
    assert 'auth = "oauth"' in server.error and "[mcp.servers.docs]" in server.error


# -- hostile servers -----------------------------------------------------------------------------


async def test_metadata_pointing_the_token_endpoint_at_plain_http_is_refused(auth_server):
    srv = auth_server("--lie", "token_endpoint=http://attacker.example/token")
    server = await started(srv.url, Browser())
    assert server.state is State.FAILED
    assert server.error.startswith("OAuth login stopped:")
    assert "http://attacker.example/token is not https" in server.error
    assert "code" not in srv.events()
    assert token_files() == [] or all("tokens" not in p.read_text() for p in token_files())


async def test_metadata_pointing_the_token_endpoint_at_another_origin_is_refused(auth_server):
    """A capture server on another loopback port would receive the code: nothing reaches it."""
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    seen: list[str] = []

    class Capture(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            seen.append(self.path)
            self.send_response(500)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    httpd = HTTPServer(("127.0.0.1", 0), Capture)
    threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    try:
        srv = auth_server("--lie", f"token_endpoint=http://127.0.0.1:{httpd.server_port}/token")
        server = await started(srv.url, Browser())
        assert server.state is State.FAILED
        assert "is not on the authorization server's origin" in server.error
        assert seen == []
    finally:
        httpd.shutdown()


async def test_a_resource_naming_an_authorization_server_on_plain_http_is_refused(auth_server):
    srv = auth_server("--lie-prm", 'authorization_servers=["http://attacker.example"]')
    browser = Browser()
    server = await started(srv.url, browser)
    assert server.state is State.FAILED
    assert server.error.startswith("OAuth login stopped: http://attacker.example/")
    assert browser.shown == [] and srv.events() == []


async def test_an_authorization_url_on_plain_http_is_never_shown(auth_server):
    srv = auth_server("--lie", "authorization_endpoint=http://attacker.example/authorize")
    browser = Browser()
    server = await started(srv.url, browser)
    assert server.state is State.FAILED
    assert "the authorization URL http://attacker.example/authorize is not https" in server.error
    assert browser.shown == []


async def test_a_token_for_one_url_is_never_sent_to_another_with_the_same_name(auth_server):
    first, second = auth_server(), auth_server()
    server = await started(first.url, Browser(), name="github")
    assert server.state is State.READY, server.error
    await server.stop()
    # the same name now points elsewhere (an edited .mcp.json): no stored token goes there
    moved = await started(second.url, None, name="github")
    assert moved.state is State.FAILED and "needs an OAuth login" in moved.error
    assert second.events() == ["register"]  # it registered afresh; no token, no call
    assert len(token_files()) == 2 and sum("tokens" in p.read_text() for p in token_files()) == 1


@pytest.mark.parametrize(
    ("url", "server_on_loopback", "allowed"),
    [
        ("https://auth.example.com/token", False, True),
        ("http://auth.example.com/token", False, False),
        ("http://127.0.0.1:9000/token", True, True),
        ("http://127.0.0.1:9000/token", False, False),  # a remote server cannot use a local port
        ("http://localhost.attacker.example/token", True, False),
        ("https://user:pw@auth.example.com/token", False, False),
        ("ftp://auth.example.com/token", False, False),
        ("https://auth.example.com/" + "a" * 8000, False, True),
        # a lying server's megabyte of authorization URL is neither requested nor shown
        ("https://auth.example.com/" + "a" * 3_000_000, False, False),
    ],
)
def test_the_url_rule_for_every_oauth_endpoint(url, server_on_loopback, allowed):
    assert (endpoint_problem(url, server_on_loopback) == "") is allowed


def test_oauth_settings_need_an_http_server_and_auth_oauth():
    with pytest.raises(ValueError, match="auth is for HTTP servers"):
        McpServerConfig(command="x", auth="oauth")
    with pytest.raises(ValueError, match='need auth = "oauth"'):
        McpServerConfig(url="https://x.example/mcp", client_id="abc")
    assert os.environ.get("LARIK_HOME")  # tokens go to the test's private state folder


# -- print mode and `larik mcp login` -------------------------------------------------------------


class Terminal(io.StringIO):
    """A stderr that is a terminal, and a user who opens the address printed on it."""

    def isatty(self) -> bool:
        return True

    def write(self, text: str) -> int:
        for line in text.splitlines():
            if "/authorize?" in line:
                threading.Thread(target=self._open, args=(line.strip(),), daemon=True).start()
        return super().write(text)

    @staticmethod
    def _open(url: str) -> None:
        back = httpx2.get(url).headers["location"]
        httpx2.get(back)


def print_run(project: Path, model: str, err: io.StringIO) -> tuple[int, str]:
    out = io.StringIO()
    opts = PrintOptions(
        prompt="go", cwd=project, model=model, permission_mode="yolo", output_format="stream-json"
    )
    return run_print(opts, stdout=out, stderr=err), out.getvalue()


def whoami_model(path: Path) -> str:
    turns = [{"tool_calls": [{"name": "mcp__docs__whoami", "input": {}}]}, {"text": "done"}]
    path.write_text(json.dumps({"turns": turns}))
    return f"scripted/{path}"


def test_print_mode_logs_in_on_a_terminal_and_fails_in_one_line_elsewhere(auth_server, tmp_path):
    srv = auth_server()
    config = user_config_path()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'[mcp.servers.docs]\nurl = "{srv.url}"\nauth = "oauth"\n')
    project = tmp_path / "proj"
    project.mkdir()

    # not a terminal (CI, a pipe): one warning naming the fix; the task goes on without it
    err = io.StringIO()
    code, out = print_run(project, whoami_model(tmp_path / "a.json"), err)
    assert code == 0
    [warning] = [line for line in err.getvalue().splitlines() if "docs" in line]
    assert warning.startswith("larik: warning: MCP server 'docs' failed: needs an OAuth login")
    assert "larik mcp login docs" in warning

    # a terminal: the address is printed, the user opens it, the tool call goes through
    err = Terminal()
    code, out = print_run(project, whoami_model(tmp_path / "b.json"), err)
    assert code == 0, err.getvalue()
    assert "MCP server 'docs' asks you to log in" in err.getvalue()
    results = [
        b
        for line in out.splitlines()
        if (ev := json.loads(line))["type"] == "message" and ev["message"]["role"] == "user"
        for b in ev["message"]["blocks"]
        if b["type"] == "tool_result"
    ]
    assert results[0]["content"].startswith("client ") and results[0]["content"].endswith("***")
    token = json.loads(token_files()[0].read_text())["tokens"]["access_token"]
    transcripts = list(user_config_path().parent.rglob("*.jsonl"))
    assert transcripts and all(token not in p.read_text() for p in transcripts)
    assert token not in out and token not in err.getvalue()


def test_larik_mcp_login_prints_the_address_and_keeps_the_token(auth_server, monkeypatch):
    from larik import cli

    srv = auth_server()
    config = user_config_path()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'[mcp.servers.docs]\nurl = "{srv.url}"\nauth = "oauth"\n')
    err, out = Terminal(), io.StringIO()
    monkeypatch.setattr(sys, "argv", ["larik", "mcp", "login", "docs"])
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(sys, "stdout", out)
    with pytest.raises(SystemExit) as done:
        cli.main()
    assert done.value.code in (0, None), err.getvalue()
    assert "Logged in to MCP server 'docs': 1 tool" in out.getvalue()
    assert srv.events() == ["register", "code"]
    assert "tokens" in token_files()[0].read_text()
