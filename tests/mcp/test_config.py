"""[mcp.servers] and a project's .mcp.json: shapes, errors, variables, and trust."""

from __future__ import annotations

import json
import sys

import pytest

from larik.config import ConfigError, load_config, user_config_path
from larik.mcp.config import McpServerConfig, expand
from larik.mcp.manager import McpManager
from tests.mcp.conftest import in_project


def write_user(text: str) -> None:
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def write_mcp_json(root, servers: dict) -> None:
    (root / ".git").mkdir(exist_ok=True)
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")


def test_user_servers_from_config_toml(tmp_path):
    write_user(
        '[mcp.servers.github]\ncommand = "npx"\nargs = ["-y", "server-github"]\n'
        'env = { GITHUB_TOKEN = "${GH_TOKEN}" }\ntools = ["get_*"]\ntimeout = 30\n'
        '[mcp.servers.web]\nurl = "https://mcp.example.com/mcp"\n'
        'headers = { Authorization = "Bearer ${WEB_TOKEN}" }\nenabled = false\n'
    )
    config = load_config(tmp_path)
    gh, web = config.mcp.servers["github"], config.mcp.servers["web"]
    assert gh.transport == "stdio" and gh.tools == ["get_*"] and gh.timeout == 30
    assert web.transport == "http" and not web.enabled
    assert gh.source == str(user_config_path())


@pytest.mark.parametrize(
    ("table", "error"),
    [
        ('command = "x"\nurl = "https://a.example/mcp"', "either command"),
        ("args = []", "either command"),
        ('url = "http://mcp.example.com/mcp"', "plain http is only allowed"),
        ('url = "https://a.example/mcp"\nargs = ["x"]', "for stdio servers"),
        ('command = "x"\nheaders = { A = "b" }', "for HTTP servers"),
        ('command = "x"\nenv = { "A B" = "c" }', "not an environment variable name"),
        ('command = "x"\ntimeout = 0', "should be more than 0"),
        ('command = "x"\nbogus = 1', "bogus: unknown key"),
    ],
)
def test_a_bad_server_table_is_one_line_naming_the_file_and_key(tmp_path, table, error):
    write_user(f"[mcp.servers.s]\n{table}\n")
    with pytest.raises(ConfigError) as e:
        load_config(tmp_path)
    assert str(user_config_path()) in str(e.value) and "mcp.servers.s" in str(e.value)
    assert error in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("name", ["a__b", "has space", "x" * 40, "_lead", "dot.ted"])
def test_a_server_name_must_fit_in_a_tool_name(tmp_path, name):
    write_user(f'[mcp.servers."{name}"]\ncommand = "x"\n')
    with pytest.raises(ConfigError, match="server name"):
        load_config(tmp_path)


def test_variables_expand_with_defaults_and_secrets_are_listed():
    cfg = McpServerConfig(
        command="${TOOL_HOME:-/opt}/bin/server",
        args=["--org", "${ORG}"],
        env={"API_TOKEN": "literal-token-value", "MODE": "production", "KEY2": "${K}"},
    )
    exp = expand(cfg, {"ORG": "acme", "K": "from-env-secret-1"})
    assert exp.command == "/opt/bin/server" and exp.args == ["--org", "acme"]
    assert exp.env["KEY2"] == "from-env-secret-1"
    assert "from-env-secret-1" in exp.secrets and "literal-token-value" in exp.secrets
    assert "production" not in exp.secrets  # not a credential: masking it would garble text
    with pytest.raises(ValueError, match="ORG is not set"):
        expand(cfg, {})


def test_header_values_and_bearer_tokens_are_secrets():
    cfg = McpServerConfig(url="https://a.example/mcp", headers={"Authorization": "Bearer ${T}"})
    exp = expand(cfg, {"T": "abcdefgh12345678"})
    assert exp.headers == {"Authorization": "Bearer abcdefgh12345678"}
    assert "abcdefgh12345678" in exp.secrets


def test_a_url_that_expands_to_plain_http_elsewhere_is_refused():
    cfg = McpServerConfig(url="${U}")
    with pytest.raises(ValueError, match="plain http"):
        expand(cfg, {"U": "http://evil.example/mcp"})


def test_mcp_json_in_the_shared_format_is_read_when_trusted(tmp_path):
    write_mcp_json(
        tmp_path,
        {
            "local": {"command": "python", "args": ["srv.py"], "env": {"A": "b"}},
            "remote": {"type": "http", "url": "https://mcp.example.com/mcp"},
        },
    )
    config = load_config(tmp_path, trust_project=True)
    assert set(config.mcp.servers) == {"local", "remote"}
    assert config.mcp.servers["remote"].transport == "http"
    assert config.mcp.servers["local"].source == str(tmp_path / ".mcp.json")


def test_mcp_json_http_servers_log_in_with_oauth_as_other_clients_do(tmp_path):
    write_mcp_json(
        tmp_path,
        {
            "plain": {"type": "http", "url": "https://a.example/mcp"},
            "keyed": {"url": "https://b.example/mcp", "headers": {"Authorization": "Bearer x"}},
            "off": {"url": "https://c.example/mcp", "oauth": False},
            "own": {
                "url": "https://d.example/mcp",
                "oauth": {"clientId": "abc", "callbackPort": 8123},
            },
            "local": {"command": "python"},
        },
    )
    servers = load_config(tmp_path, trust_project=True).mcp.servers
    assert {n: s.auth for n, s in servers.items()} == {
        "plain": "oauth",
        "keyed": "none",
        "off": "none",
        "own": "oauth",
        "local": "none",
    }
    assert (servers["own"].client_id, servers["own"].callback_port) == ("abc", 8123)


def test_a_trusted_projects_server_replaces_the_users_of_the_same_name_whole(tmp_path):
    write_user('[mcp.servers.gh]\ncommand = "gh-server"\nenv = { T = "x" }\n')
    write_mcp_json(tmp_path, {"gh": {"type": "http", "url": "https://gh.example/mcp"}})
    config = load_config(tmp_path, trust_project=True)
    assert config.mcp.servers["gh"].url == "https://gh.example/mcp"
    assert config.mcp.servers["gh"].command == ""


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("{not json", "invalid JSON at line 1"),
        ('{"mcpServers": []}', "mcpServers must be an object"),
        ('{"mcpServers": {"s": {"type": "sse", "url": "https://a.example/sse"}}}', "type 'sse'"),
        ('{"mcpServers": {"s": {"args": ["x"]}}}', "mcpServers.s: give either command"),
        ('{"mcpServers": {"a__b": {"command": "x"}}}', "server name"),
        ('{"mcpServers": {"s": {"url": "https://a.example", "oauth": 1}}}', "s.oauth: must be"),
        ('{"mcpServers": {"s": {"url": "https://a.example", "oauth": {"x": 1}}}}', "unknown key"),
    ],
)
def test_a_bad_mcp_json_is_one_line_naming_it(tmp_path, text, error):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".mcp.json").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as e:
        load_config(tmp_path)
    assert str(tmp_path / ".mcp.json") in str(e.value) and error in str(e.value)
    assert "\n" not in str(e.value)


# ------------------------------------------------------------------------------ the hostile repo


async def test_an_untrusted_projects_mcp_json_servers_never_start(tmp_path):
    mark = tmp_path / "server-ran"
    write_mcp_json(
        tmp_path,
        {
            "evil": {
                "command": sys.executable,
                "args": [str(in_project(tmp_path)), "ok"],
                "env": {"MCP_TEST_MARK": str(mark)},
            }
        },
    )
    config = load_config(tmp_path)
    assert config.mcp.servers == {}
    pt = config.project_trust
    assert pt is not None and not pt.trusted
    # what the dialog and the ignored line show: the command that trusting would run
    assert any(
        ".mcp.json starts MCP servers: evil (" in a and "server_script.py" in a for a in pt.asks
    )
    assert str(tmp_path / ".mcp.json") in pt.ignored_line()
    manager = McpManager.from_config(config, tmp_path)
    manager.start_all()
    await manager.wait_settled()
    await manager.close()
    assert not mark.exists()
    # trusted, the same file does start it: the test above could have failed
    trusted = load_config(tmp_path, trust_project=True)
    manager = McpManager.from_config(trusted, tmp_path)
    manager.start_all()
    await manager.wait_settled()
    await manager.close()
    assert mark.exists()


def test_a_changed_mcp_json_needs_trust_again(tmp_path):
    write_mcp_json(tmp_path, {"a": {"command": "server-a"}})
    first = load_config(tmp_path).project_trust
    write_mcp_json(tmp_path, {"a": {"command": "server-a", "args": ["--evil"]}})
    second = load_config(tmp_path).project_trust
    assert first is not None and second is not None and first.digest != second.digest


def test_mcp_json_and_a_project_toml_are_gated_together(tmp_path):
    write_mcp_json(tmp_path, {"a": {"command": "server-a"}})
    (tmp_path / ".larik").mkdir()
    (tmp_path / ".larik" / "config.toml").write_text('[mcp.servers.b]\ncommand = "server-b"\n')
    config = load_config(tmp_path)
    assert config.mcp.servers == {}
    assert len(config.project_trust.asks) == 2
    trusted = load_config(tmp_path, trust_project=True)
    assert set(trusted.mcp.servers) == {"a", "b"}
    assert trusted.mcp.servers["b"].source == str(tmp_path / ".larik" / "config.toml")
