"""One MCP server's lifecycle and calls, against real servers written with the SDK."""

from __future__ import annotations

import asyncio
import sys

import pytest

from larik.mcp.config import McpConfig, McpServerConfig
from larik.mcp.content import MAX_TEXT, result_parts
from larik.mcp.manager import McpManager
from larik.mcp.server import McpCallError, McpServer, State
from tests.mcp.conftest import pid_alive, stdio_config
from tests.patience import WAIT, grown_until_async
from tests.procs import MARK_VARIABLE, carrying, gone


async def started(tmp_path, cfg: McpServerConfig, name: str = "t") -> McpServer:
    server = McpServer(name, cfg, tmp_path)
    server.start()
    await server.wait_settled(cfg.startup_timeout + WAIT)  # its own timeout settles it
    return server


async def test_a_stdio_server_lists_its_tools_resources_and_prompts(tmp_path):
    server = await started(tmp_path, stdio_config())
    try:
        assert server.state is State.READY, server.error
        names = {t.name: t for t in server.tools}
        assert "mcp__t__echo" in names and names["mcp__t__echo"].read_only
        assert not names["mcp__t__write_note"].read_only
        assert names["mcp__t__echo"].schema["properties"]["text"] == {"type": "string"}
        # a name providers refuse is made safe and mapped back to the server's own
        dotted = next(t for t in server.tools if t.remote == "files.read-all")
        assert dotted.name.startswith("mcp__t__files_read-all_")
        assert [r.uri for r in server.resources] == ["note://readme"]
        assert server.prompts[0].name == "review"
        assert server.prompts[0].arguments[0][:2] == ("path", True)
        assert server.instructions == "A server for Larik's tests."
        result = await server.call_tool(dotted.remote, {})
        assert result_parts(result).text == "dotted ok"
    finally:
        await server.stop()
    assert server.state is State.STOPPED


async def test_a_tool_error_is_an_error_result_not_an_exception(tmp_path):
    server = await started(tmp_path, stdio_config())
    try:
        parts = result_parts(await server.call_tool("fail", {"reason": "the disk is full"}))
        assert parts.is_error
        assert server.state is State.READY
    finally:
        await server.stop()


async def test_a_5_mb_result_is_cut_for_the_model(tmp_path):
    server = await started(tmp_path, stdio_config())
    try:
        parts = result_parts(await server.call_tool("big", {}))
        assert len(parts.text) < MAX_TEXT + 200
        assert "5,242,880 characters" in parts.text
        # the connection survives it
        assert result_parts(await server.call_tool("echo", {"text": "hi"})).text == "echo: hi"
    finally:
        await server.stop()


async def test_images_come_back_as_image_blocks(tmp_path):
    server = await started(tmp_path, stdio_config())
    try:
        parts = result_parts(await server.call_tool("picture", {}))
        assert parts.text == "a picture"
        assert [b.media_type for b in parts.images] == ["image/png"]
    finally:
        await server.stop()


async def test_a_server_that_exits_at_start_fails_with_its_stderr_tail(tmp_path):
    server = await started(tmp_path, stdio_config("exit"))
    assert server.state is State.FAILED
    assert "fatal: missing GITHUB_TOKEN" in server.stderr_tail
    with pytest.raises(McpCallError, match="failed"):
        await server.call_tool("echo", {"text": "x"})
    await server.stop()
    assert server.state is State.FAILED  # stopping keeps the failure on show


async def test_a_command_that_does_not_exist_fails_in_one_line(tmp_path):
    server = await started(tmp_path, McpServerConfig(command="/nonexistent/mcp-server"))
    assert server.state is State.FAILED
    assert "cannot start '/nonexistent/mcp-server'" in server.error
    assert "\n" not in server.error


async def test_a_server_that_hangs_on_initialize_times_out_and_is_killed(tmp_path):
    pidfile = tmp_path / "pids"

    async def attempt(seconds: float) -> tuple[float, McpServer] | None:
        env = {"MCP_TEST_PIDFILE": str(pidfile)}
        server = await started(tmp_path, stdio_config("hang", startup_timeout=seconds, env=env))
        return (seconds, server) if pidfile.exists() else None  # timed out before it ran

    seconds, server = await grown_until_async(attempt, 1.5)
    assert server.state is State.FAILED
    assert f"did not answer within {seconds:g} s" in server.error
    assert "starting in mode hang" in server.stderr_tail
    assert await gone(int(pidfile.read_text().split()[0]))


async def test_a_server_that_dies_mid_call_fails_that_call_and_reconnects_on_the_next(tmp_path):
    pidfile = tmp_path / "pids"
    server = await started(tmp_path, stdio_config(env={"MCP_TEST_PIDFILE": str(pidfile)}))
    try:
        with pytest.raises(McpCallError) as err:
            await server.call_tool("die", {})
        assert server.state is State.FAILED
        assert "dying now" in str(err.value) or "dying now" in server.stderr_tail
        # reconnect on demand: the next call starts it again
        parts = result_parts(await server.call_tool("echo", {"text": "back"}))
        assert parts.text == "echo: back"
        assert server.state is State.READY
        assert len(pidfile.read_text().split()) == 2
    finally:
        await server.stop()


async def test_a_slow_call_times_out_and_the_server_stays_usable(tmp_path):
    server = await started(tmp_path, stdio_config(timeout=1))
    try:
        with pytest.raises(McpCallError, match="did not answer within 1 s"):
            await server.call_tool("slow", {"seconds": 5})
        assert server.state is State.READY
    finally:
        await server.stop()


async def test_stop_leaves_no_process_behind(tmp_path):
    pidfile = tmp_path / "pids"
    manager = McpManager(
        McpConfig(
            servers={
                f"s{i}": stdio_config(env={"MCP_TEST_PIDFILE": str(pidfile)}) for i in range(3)
            }
        ),
        tmp_path,
    )
    manager.start_all()
    await manager.wait_settled()
    assert all(s.state is State.READY for s in manager.servers.values())
    pids = [int(p) for p in pidfile.read_text().split()]
    assert len(pids) == 3 and all(pid_alive(p) for p in pids)
    await manager.close()
    assert not any(pid_alive(p) for p in pids)


async def test_env_variables_are_expanded_and_the_servers_secrets_masked(tmp_path, monkeypatch):
    monkeypatch.setenv("TEST_MCP_TOKEN", "tok-0123456789abcdef")
    cfg = stdio_config(env={"GITHUB_TOKEN": "${TEST_MCP_TOKEN}"})
    server = await started(tmp_path, cfg)
    try:
        parts = result_parts(await server.call_tool("env", {"name": "GITHUB_TOKEN"}))
        assert parts.text == "tok-0123456789abcdef"  # the server gets the value
        assert server.mask("token tok-0123456789abcdef leaked") == "token *** leaked"
        from larik.llm import secrets  # and so does all of Larik's outgoing text

        assert secrets.mask("x tok-0123456789abcdef") == "x ***"
        secrets.forget_all()
        # Larik's own keys are not passed to servers unless the config says so
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-should-not-leak")
    finally:
        await server.stop()
    server = await started(tmp_path, stdio_config())
    try:
        parts = result_parts(await server.call_tool("env", {"name": "ANTHROPIC_API_KEY"}))
        assert parts.text == "<unset>"
    finally:
        await server.stop()


async def test_a_missing_variable_fails_that_server_only(tmp_path):
    manager = McpManager(
        McpConfig(
            servers={
                "good": stdio_config(),
                "bad": stdio_config(env={"TOKEN": "${LARIK_TEST_UNSET_VAR}"}),
            }
        ),
        tmp_path,
    )
    manager.start_all()
    await manager.wait_settled()
    try:
        assert manager.servers["good"].state is State.READY
        assert manager.servers["bad"].state is State.FAILED
        assert "LARIK_TEST_UNSET_VAR is not set" in manager.servers["bad"].error
    finally:
        await manager.close()


async def test_the_tools_allow_list_keeps_only_matching_tools(tmp_path):
    server = await started(tmp_path, stdio_config(tools=["echo", "wri*"]))
    try:
        assert sorted(t.remote for t in server.tools) == ["echo", "write_note"]
        assert server.hidden_tools > 0
    finally:
        await server.stop()


async def test_a_streamable_http_server_works_the_same(tmp_path, http_url):
    server = await started(tmp_path, McpServerConfig(url=http_url, headers={"X-Test": "yes"}))
    try:
        assert server.state is State.READY, server.error
        assert "mcp__t__echo" in {t.name for t in server.tools}
        assert result_parts(await server.call_tool("echo", {"text": "web"})).text == "echo: web"
        parts = result_parts(await server.call_tool("big", {}))
        assert "5,242,880 characters" in parts.text
        assert result_parts(await server.call_tool("fail", {"reason": "x"})).is_error
    finally:
        await server.stop()


async def test_an_http_server_that_is_not_there_fails_in_one_line(tmp_path):
    from tests.mcp.conftest import free_port

    cfg = McpServerConfig(url=f"http://127.0.0.1:{free_port()}/mcp", startup_timeout=5)
    server = await started(tmp_path, cfg)
    assert server.state is State.FAILED
    assert server.error and "\n" not in server.error


def test_the_sdk_is_not_imported_by_the_config_models():
    import subprocess

    code = (
        "import sys, larik.mcp.config, larik.mcp.manager, larik.mcp.names, larik.mcp.content\n"
        "print('mcp' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


async def test_stopping_a_server_that_is_still_starting_ends_it(tmp_path, mark):
    pidfile = tmp_path / "pids"
    cfg = stdio_config("hang", env={"MCP_TEST_PIDFILE": str(pidfile)})
    server = McpServer("t", cfg, tmp_path)
    server.start()
    deadline = asyncio.get_running_loop().time() + WAIT
    while not (pidfile.exists() and pidfile.read_text().strip()):
        assert asyncio.get_running_loop().time() < deadline, "the server did not start"
        await asyncio.sleep(0.05)
    await asyncio.wait_for(server.stop(), WAIT)
    assert server.state is State.STOPPED
    pid = int(pidfile.read_text().split()[0])
    assert not pid_alive(pid)
    # and stopped at once: nothing is started later (a process it started would carry the mark
    # as soon as it exists, where its pid file waits for its Python and the SDK: ~1 s)
    early_env = {"MCP_TEST_PIDFILE": str(tmp_path / "early"), MARK_VARIABLE: mark}
    early = McpServer("e", stdio_config(env=early_env), tmp_path)
    early.start()
    await early.stop()
    await asyncio.sleep(0.5)
    assert carrying(mark) == [] and not (tmp_path / "early").exists()


@pytest.mark.parametrize(
    ("status", "error"), [(401, "HTTP 401: the server wants a login"), (503, "HTTP 503 from")]
)
async def test_an_http_error_status_is_named_in_the_failure(tmp_path, status, error):
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_GET = do_POST

        def log_message(self, *args: object) -> None:
            pass

    httpd = HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_port}/mcp"
        server = await started(tmp_path, McpServerConfig(url=url, startup_timeout=WAIT))
        assert server.state is State.FAILED and error in server.error
    finally:
        httpd.shutdown()


def test_a_huge_schema_from_a_server_is_not_sent_whole():
    from larik.mcp.offer import MAX_SCHEMA, fit_schema

    huge = {
        "type": "object",
        "properties": {f"p{i}": {"type": "string", "description": "x" * 200} for i in range(500)},
    }
    schema, note = fit_schema(huge)
    assert len(str(schema)) < MAX_SCHEMA and "was too large to send" in note
    assert list(schema["properties"])[:2] == ["p0", "p1"]
    small = {"type": "object", "properties": {"a": {"type": "string"}}}
    assert fit_schema(small) == (small, "")
