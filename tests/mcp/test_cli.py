"""``larik mcp list|add|remove``."""

from __future__ import annotations

import json
import stat
import sys

from larik.config import load_config, user_config_path
from tests.mcp.conftest import SCRIPT
from tests.test_printmode import larik


def test_add_list_and_remove_a_stdio_server(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = larik(
        "mcp", "add", "fs", "--env", "TOKEN=${FS_TOKEN}", "--", "npx", "-y", "server-fs", "/tmp"
    )
    assert code == 0, err
    server = load_config(tmp_path).mcp.servers["fs"]
    assert server.command == "npx" and server.args == ["-y", "server-fs", "/tmp"]
    assert server.env == {"TOKEN": "${FS_TOKEN}"}
    assert stat.S_IMODE(user_config_path().stat().st_mode) == 0o600  # env may hold a token
    code, out, err = larik("mcp", "list", "--json")
    [row] = json.loads(out)["servers"]
    assert row["name"] == "fs" and row["target"] == "npx -y server-fs /tmp"
    code, out, err = larik("mcp", "remove", "fs")
    assert code == 0 and "fs" not in load_config(tmp_path).mcp.servers


def test_add_an_http_server_with_a_header(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = larik(
        "mcp",
        "add",
        "web",
        "--url",
        "https://mcp.example.com/mcp",
        "-H",
        "Authorization: Bearer ${T}",
    )
    assert code == 0, err
    server = load_config(tmp_path).mcp.servers["web"]
    assert server.headers == {"Authorization": "Bearer ${T}"}


def test_bad_adds_are_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = larik("mcp", "add", "x", "--url", "http://evil.example/mcp")
    assert code == 2 and "plain http" in err and err.count("\n") == 1
    code, _, err = larik("mcp", "add", "a__b", "--", "cmd")
    assert code == 2 and "server name" in err
    code, _, err = larik("mcp", "add", "x")
    assert code == 2 and "either command" in err
    assert larik("mcp", "add", "x", "--", "cmd")[0] == 0
    code, _, err = larik("mcp", "add", "x", "--", "other")
    assert code == 2 and "already configured" in err
    code, _, err = larik("mcp", "remove", "nope")
    assert code == 1 and "no MCP server named 'nope'" in err


def test_list_check_starts_the_servers_and_reports_them(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert larik("mcp", "add", "good", "--", sys.executable, str(SCRIPT), "ok")[0] == 0
    assert larik("mcp", "add", "bad", "--", sys.executable, str(SCRIPT), "exit")[0] == 0
    code, out, err = larik("mcp", "list", "--check", "--json")
    rows = {r["name"]: r for r in json.loads(out)["servers"]}
    assert rows["good"]["state"] == "ready" and rows["good"]["tools"] >= 8
    assert (
        rows["bad"]["state"] == "failed" and "fatal: missing GITHUB_TOKEN" in rows["bad"]["error"]
    )


def test_a_project_server_is_not_removed_from_the_user_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"p": {"command": "x"}}}))
    code, out, err = larik("mcp", "list")
    assert "p     blocked: untrusted project" in out and "ignored (untrusted project)" in err
    code, _, err = larik("mcp", "remove", "p")
    assert code == 1 and ".mcp.json (a project file)" in err


def test_add_an_oauth_server_and_login_needs_one(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = larik("mcp", "add", "lin", "--url", "https://mcp.example.com/mcp", "--oauth")
    assert code == 0, err
    assert load_config(tmp_path).mcp.servers["lin"].auth == "oauth"
    larik("mcp", "add", "plain", "--url", "https://other.example.com/mcp")
    code, _, err = larik("mcp", "login", "plain")
    assert code == 1 and 'does not log in with OAuth: set auth = "oauth"' in err
    code, _, err = larik("mcp", "login", "nope")
    assert code == 1 and "no MCP server named 'nope'" in err


def test_list_says_a_project_server_is_blocked_because_the_project_is_untrusted(
    tmp_path, monkeypatch
):
    """Issue 25 item 5: .mcp.json's server listed as "no MCP servers configured"."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    (tmp_path / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"toy": {"command": "toy-server", "args": ["--x"]}}})
    )
    code, out, err = larik("mcp", "list")
    assert code == 0, err
    assert "No MCP servers configured" not in out
    assert "toy   blocked: untrusted project (.mcp.json: toy-server --x)\n" in out
    code, out, _ = larik("mcp", "list", "--json")
    [row] = json.loads(out)["servers"]
    assert row["name"] == "toy" and row["state"] == "blocked: untrusted project"
    assert row["source"] == ".mcp.json" and not row["enabled"]
    code, out, _ = larik("--trust-project", "mcp", "list")  # trusted: an ordinary row
    assert "blocked" not in out and "toy" in out
