"""MCP server settings: the ``[mcp]`` table of config.toml and a project's ``.mcp.json``.

Imports pydantic only (never the ``mcp`` SDK): :mod:`larik.config` validates these models when it
loads a file, before the TUI has anything to start.

``[mcp.servers.NAME]`` is either a **stdio** server (``command``, ``args``, ``env``, ``cwd``) or a
**streamable HTTP** one (``url``, ``headers``). ``.mcp.json`` — the file Claude Code, Cursor and
others share — holds ``{"mcpServers": {NAME: {...}}}`` in the same shape (``type`` may say
``stdio``, ``http`` or ``streamable-http``; ``sse`` is refused: the SDK's streamable HTTP is the
transport Larik speaks over the network); :func:`from_mcp_json` turns it into these models.

``${VAR}`` and ``${VAR:-default}`` in ``command``, ``args``, ``env``, ``cwd``, ``url`` and
``headers`` are expanded from Larik's environment when the server starts (:func:`expand`), not
when the file is read: a missing variable fails that one server, visibly, not the whole config.
Every value of ``env`` and ``headers`` that came from a variable, every header value, and every
``env`` value whose name looks like a credential is a secret: :func:`secret_values` lists them
for masking.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from ..locations import MCP_JSON

__all__ = [
    "MCP_JSON",
    "McpConfig",
    "McpServerConfig",
    "ExpandedServer",
    "expand",
    "from_mcp_json",
    "read_mcp_json",
    "valid_server_name",
]

#: Server names become part of tool names (``mcp__NAME__TOOL``): letters, digits, ``-`` and
#: single ``_`` only (``__`` separates the parts).
_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_))*")
MAX_NAME = 32
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASS|AUTH|CREDENTIAL|COOKIE|SESSION", re.IGNORECASE)
MAX_MCP_JSON_BYTES = 1 << 20


def valid_server_name(name: str) -> bool:
    return len(name) <= MAX_NAME and _NAME.fullmatch(name) is not None


class McpServerConfig(BaseModel):
    """One ``[mcp.servers.NAME]`` table."""

    model_config = ConfigDict(
        extra="forbid",
        validate_assignment=True,
        use_attribute_docstrings=True,
        allow_inf_nan=False,  # TOML has nan and inf; no count, price or limit is one
    )

    command: str = ""
    """stdio: the program to start (looked up on PATH)."""
    args: list[str] = Field(default_factory=list)
    """stdio: its arguments."""
    env: dict[str, str] = Field(default_factory=dict, repr=False)
    """stdio: extra environment variables (``${VAR}`` takes one from Larik's environment)."""
    cwd: str = ""
    """stdio: the folder to start it in (relative to the project root); empty: the project root."""
    url: str = ""
    """Streamable HTTP: the endpoint; https, or http for 127.0.0.1/::1/localhost only."""
    headers: dict[str, str] = Field(default_factory=dict, repr=False)
    """Streamable HTTP: headers sent with every request, e.g. Authorization = "Bearer ${TOKEN}"."""
    auth: Literal["none", "oauth"] = "none"
    """Streamable HTTP: "oauth" logs in with OAuth (the SDK's client) when the server asks
    (HTTP 401); the tokens are kept in Larik's state folder, per server."""
    client_id: str = ""
    """OAuth: a client registered beforehand with the authorization server (default: Larik
    registers itself dynamically)."""
    callback_port: int = Field(default=0, ge=0, le=65535)
    """OAuth: the loopback port the login returns to (default: a free one)."""
    enabled: bool = True
    """false: listed by /mcp and ``larik mcp list``, but not started."""
    tools: list[str] | None = None
    """Only these of the server's tools are offered to the model (fnmatch patterns); unset: all."""
    timeout: float = Field(default=120.0, gt=0, le=3600)
    """Seconds one tool call (or resource read, prompt) may take."""
    startup_timeout: float = Field(default=30.0, gt=0, le=600)
    """Seconds the server may take to start and answer the handshake."""
    network: bool = True
    """stdio: false cuts the server's network in the OS sandbox (on by default: many servers
    are API clients)."""
    sandbox: bool = True
    """stdio: false runs the server outside the OS sandbox — honoured in your own config only;
    a project's servers (its config, its .mcp.json) always run sandboxed."""

    _source: str = PrivateAttr(default="")
    _user: bool = PrivateAttr(default=False)

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerConfig:
        if bool(self.command) == bool(self.url):
            raise ValueError("give either command (a stdio server) or url (streamable HTTP)")
        if self.url and (self.args or self.env or self.cwd):
            raise ValueError("args, env and cwd are for stdio servers (command), not url")
        if self.command and self.headers:
            raise ValueError("headers are for HTTP servers (url), not command")
        if self.auth != "oauth" and (self.client_id or self.callback_port):
            raise ValueError('client_id and callback_port need auth = "oauth"')
        if self.command and self.auth != "none":
            raise ValueError("auth is for HTTP servers (url), not command")
        if self.url and {"network", "sandbox"} & self.model_fields_set:
            raise ValueError("network and sandbox are for stdio servers (command), not url")
        return self

    @field_validator("url")
    @classmethod
    def _check_url(cls, v: str) -> str:
        if v and "${" not in v:
            from ..llm.net import validate_base_url

            validate_base_url(v)
        return v

    @field_validator("env")
    @classmethod
    def _check_env(cls, v: dict[str, str]) -> dict[str, str]:
        for key in v:
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
                raise ValueError(f"{key!r} is not an environment variable name")
        return v

    @property
    def transport(self) -> Literal["stdio", "http"]:
        return "stdio" if self.command else "http"

    @property
    def source(self) -> str:
        """Where the server was configured: the file's path ("" when made in code)."""
        return self._source

    @property
    def user(self) -> bool:
        """Whether it came from the user's own config (not a project's, not made in code)."""
        return self._user

    @property
    def unsandboxed(self) -> bool:
        """It runs outside the OS sandbox: ``sandbox = false`` in the user's own config."""
        return not self.sandbox and self._user

    def mark_source(self, source: str, *, user: bool = False) -> None:
        """Where it was configured; ``user``: the user's own config."""
        self._source, self._user = source, user

    def describe(self) -> str:
        """The command line (quoted: each argument's bounds are seen) or URL, as configured
        (no variable expanded, no header shown)."""
        if self.command:
            return shlex.join([self.command, *self.args])
        return self.url


class McpConfig(BaseModel):
    """``[mcp]``: tool servers (Model Context Protocol)."""

    model_config = ConfigDict(
        extra="forbid",
        validate_assignment=True,
        use_attribute_docstrings=True,
        allow_inf_nan=False,  # TOML has nan and inf; no count, price or limit is one
    )

    servers: dict[str, McpServerConfig] = Field(default_factory=dict)
    """Server name -> how to start or reach it. Tools are named mcp__NAME__TOOL."""
    defer_share: float = Field(default=0.1, ge=0, le=1)
    """When all MCP tool schemas would take more than this share of the model's context
    window, they are not sent; the model finds them with the tool_search tool instead."""

    @field_validator("servers")
    @classmethod
    def _check_names(cls, v: dict[str, McpServerConfig]) -> dict[str, McpServerConfig]:
        for name in v:
            if not valid_server_name(name):
                raise ValueError(
                    f"server name {name[:40]!r}: use letters, digits, '-' and single '_' "
                    f"(at most {MAX_NAME} characters)"
                )
        return v


# --------------------------------------------------------------------------------- .mcp.json


def read_mcp_json(path: Path) -> dict[str, Any]:
    """The ``mcpServers`` object of a ``.mcp.json``, converted to ``[mcp.servers]`` tables (not
    yet validated). Raises ``ValueError`` with a one-line reason (the caller names the file)."""
    if not path.is_file():
        raise ValueError("not a regular file")
    if path.stat().st_size > MAX_MCP_JSON_BYTES:
        raise ValueError(f"larger than {MAX_MCP_JSON_BYTES >> 20} MiB; not an MCP config")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text") from None
    except RecursionError:
        raise ValueError("invalid JSON: nested too deeply") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"invalid JSON at line {e.lineno}: {e.msg}") from None
    return from_mcp_json(data)


def from_mcp_json(data: Any) -> dict[str, Any]:
    """``{"mcpServers": {...}}`` -> ``{NAME: table}`` in the ``[mcp.servers]`` shape."""
    if not isinstance(data, Mapping):
        raise ValueError("the top level must be an object with mcpServers")
    servers = data.get("mcpServers", {})
    if not isinstance(servers, Mapping):
        raise ValueError("mcpServers must be an object")
    out: dict[str, Any] = {}
    for name, entry in servers.items():
        if not isinstance(entry, Mapping):
            raise ValueError(f"mcpServers.{str(name)[:40]}: must be an object")
        table = dict(entry)
        kind = table.pop("type", None)
        if kind == "sse":
            raise ValueError(
                f"mcpServers.{name}: type 'sse' (the old HTTP+SSE transport) is not supported; "
                "use the server's streamable HTTP endpoint (type 'http')"
            )
        if kind not in (None, "stdio", "http", "streamable-http", "streamableHttp"):
            raise ValueError(f"mcpServers.{str(name)[:40]}: unknown type {str(kind)[:20]!r}")
        if "url" in table and "command" not in table:
            _oauth_from_mcp_json(str(name)[:40], table)
        out[str(name)] = table
    return out


def _oauth_from_mcp_json(name: str, table: dict[str, Any]) -> None:
    """An HTTP server of ``.mcp.json`` logs in with OAuth when it asks, as other clients do,
    unless it sends its own Authorization header or says ``"oauth": false``; an ``oauth`` object
    may name ``clientId`` and ``callbackPort``."""
    oauth = table.pop("oauth", None)
    if oauth is False or any(k.lower() == "authorization" for k in table.get("headers") or {}):
        return
    table.setdefault("auth", "oauth")
    if oauth is None or oauth is True:
        return
    if not isinstance(oauth, Mapping):
        raise ValueError(f"mcpServers.{name}.oauth: must be an object, true or false")
    keys = {"clientId": "client_id", "callbackPort": "callback_port"}
    for key, value in oauth.items():
        if key not in keys:
            raise ValueError(f"mcpServers.{name}.oauth: unknown key {str(key)[:30]!r}")
        table[keys[key]] = value


# ----------------------------------------------------------------------------- at start time


@dataclass(frozen=True)
class ExpandedServer:
    """A server's settings with ``${VAR}`` replaced, and the values to mask."""

    command: str
    args: list[str]
    env: dict[str, str]
    cwd: str
    url: str
    headers: dict[str, str]
    secrets: tuple[str, ...]


class MissingVariable(ValueError):
    pass


def _sub(text: str, environ: Mapping[str, str], found: list[str]) -> str:
    def one(m: re.Match[str]) -> str:
        value = environ.get(m.group(1))
        if value is None or (value == "" and m.group(2) is not None):
            if m.group(2) is None:
                raise MissingVariable(f"the environment variable {m.group(1)} is not set")
            value = m.group(2)
        found.append(value)
        return value

    return _VAR.sub(one, text)


def expand(cfg: McpServerConfig, environ: Mapping[str, str] | None = None) -> ExpandedServer:
    """``cfg`` with every ``${VAR}`` expanded; raises ``MissingVariable`` (a ValueError) for a
    variable that is unset and has no default. http is allowed for loopback hosts only, also
    after expansion."""
    env_in = os.environ if environ is None else environ
    plain: list[str] = []
    secrets: list[str] = []
    command = _sub(cfg.command, env_in, plain)
    args = [_sub(a, env_in, plain) for a in cfg.args]
    cwd = _sub(cfg.cwd, env_in, plain)
    url = _sub(cfg.url, env_in, plain)
    env: dict[str, str] = {}
    for key, raw in cfg.env.items():
        found: list[str] = []
        env[key] = _sub(raw, env_in, found)
        secrets.extend(found)
        if _SECRET_NAME.search(key):
            secrets.append(env[key])
    headers: dict[str, str] = {}
    for key, raw in cfg.headers.items():
        headers[key] = _sub(raw, env_in, [])
        secrets.append(headers[key])
        # "Bearer TOKEN": the token alone is the secret too (it may appear without the prefix)
        secrets.extend(part for part in headers[key].split() if len(part) >= 8)
    if url:
        from ..llm.net import validate_base_url

        validate_base_url(url)
    return ExpandedServer(command, args, env, cwd, url, headers, tuple(s for s in secrets if s))
