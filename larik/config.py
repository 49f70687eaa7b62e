"""Larik's configuration: TOML files, where they live, and the routing snapshot.

Files, later ones layered on top of earlier ones (tables merge key by key, other values replace):

1. the user file: ``$LARIK_HOME/config.toml``, else ``$XDG_CONFIG_HOME/larik/config.toml``
   (default ``~/.config/larik/config.toml``);
2. the project file: ``.larik/config.toml`` in the working directory or a parent, up to the git
   root. A project file may not contain ``[providers]`` (a repository you cloned must not be able
   to send your API keys to a server of its choosing) nor ``trusted_projects``. What it brings
   that loosens safety or runs code (a looser ``permissions.mode``, ``allow`` rules, hooks, MCP
   servers, commands) applies only in a trusted project; what only tightens (``deny`` rules, a
   stricter mode) always applies and is added to the user's. See :mod:`larik.trust`.

Each file is validated on its own, so an error names the file it is in, the key and, for TOML
syntax, the line; it is raised as :class:`~larik.llm.errors.ConfigError` (one line, no secrets).
Files are read with ``tomllib`` and written with ``tomli-w``; writing keeps every key Larik does not
own and makes the file mode 0600 when it holds a credential.

Routing reads ``model``, ``roles`` and ``fallbacks`` through :meth:`Config.routing`, a snapshot
taken under a lock, because ``/routing`` can save new roles while subagents resolve on other
threads or tasks: a reader sees the old roles or the new ones, never a mix.
"""

from __future__ import annotations

import difflib
import os
import re
import tempfile
import threading
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from .hooks.config import HooksConfig
from .llm.errors import ConfigError
from .llm.net import is_loopback_host, validate_base_url
from .llm.types import Effort
from .mcp.config import McpConfig

if TYPE_CHECKING:
    from .trust import ProjectTrust

__all__ = [
    "BUILTIN_ROLES",
    "Config",
    "ConfigError",
    "ModelOverride",
    "PermissionsConfig",
    "ProviderConfig",
    "RoutingSnapshot",
    "StuckConfig",
    "bench_dir",
    "bench_results_path",
    "is_loopback_host",
    "claude_home",
    "load_config",
    "project_config_path",
    "project_folder",
    "save_user_config",
    "sessions_dir",
    "state_dir",
    "user_config_path",
    "validate_base_url",
]

#: Roles that always exist. Unset, each resolves to the main model.
BUILTIN_ROLES = ("smart", "worker", "explore", "compact")
#: Roles that default to the current Claude models (see the catalog's ``[defaults]``).
CLAUDE_ROLES = ("opus", "sonnet", "haiku")

ReasoningHistory = Literal["inline", "field", "strip"]
_SECRET_KEYS = ("api_key", "headers")
#: A config file larger than this is refused unread (no config needs it; a huge value would
#: otherwise be parsed, validated and echoed in errors).
MAX_CONFIG_BYTES = 1 << 20
#: Keys only the user's own file may set.
_USER_ONLY = ("providers", "trusted_projects")


# ----------------------------------------------------------------------------------- paths


def user_config_path() -> Path:
    """The user's config file (it may not exist)."""
    home = os.environ.get("LARIK_HOME")
    if home:
        return Path(home).expanduser() / "config.toml"
    xdg = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(xdg).expanduser() / "larik" / "config.toml"


def state_dir() -> Path:
    """Where Larik keeps state (sessions, bench results): ``$LARIK_HOME``, else
    ``$XDG_STATE_HOME/larik`` (default ``~/.local/state/larik``). Not created here."""
    home = os.environ.get("LARIK_HOME")
    if home:
        return Path(home).expanduser()
    xdg = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(xdg).expanduser() / "larik"


def sessions_dir() -> Path:
    """Where session transcripts go. Not created here."""
    return state_dir() / "sessions"


def bench_dir() -> Path:
    """Where ``larik bench`` keeps its runs and its results history. Not created here."""
    return state_dir() / "bench"


def bench_results_path() -> Path:
    """The bench results history (one JSON object per run); routing reads it as evidence."""
    return bench_dir() / "results.jsonl"


def project_config_path(cwd: Path | None = None) -> Path | None:
    """The nearest ``.larik/config.toml`` from ``cwd`` upward to the git root (inclusive).
    Outside a git repository only ``cwd`` itself is looked at."""
    return _project_file(cwd, ".larik/config.toml")


def project_mcp_json_path(cwd: Path | None = None) -> Path | None:
    """The nearest ``.mcp.json`` (MCP servers, the format other agents share), searched like
    :func:`project_config_path`."""
    from .mcp.config import MCP_JSON

    return _project_file(cwd, MCP_JSON)


def project_folder(cwd: Path | None, relative: str) -> Path | None:
    """The nearest folder ``relative`` (``.claude/commands``, ``.agents/skills``) from ``cwd``
    upward to the git root, searched like :func:`project_config_path`."""
    for d in _project_chain(cwd):
        if (d / relative).is_dir():
            return d / relative
    return None


def claude_home() -> Path:
    """Claude Code's user folder (``$CLAUDE_CONFIG_DIR``, else ``~/.claude``): its
    ``commands/`` and ``skills/`` are read as the user's own."""
    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude").expanduser()


def _project_chain(cwd: Path | None) -> list[Path]:
    start = (cwd or Path.cwd()).resolve()
    chain = [start, *start.parents]
    root = next((d for d in chain if (d / ".git").exists()), None)
    return chain[: chain.index(root) + 1] if root is not None else [start]


def _project_file(cwd: Path | None, relative: str) -> Path | None:
    user = user_config_path().resolve()
    for d in _project_chain(cwd):
        candidate = d / relative
        if candidate.is_file() and candidate.resolve() != user:
            return candidate
    return None


# ---------------------------------------------------------------------------------- models


class _Strict(BaseModel):
    model_config = ConfigDict(
        extra="forbid", validate_assignment=True, use_attribute_docstrings=True
    )


class ProviderConfig(_Strict):
    """One ``[providers.NAME]`` table: settings for a built-in provider or a custom one."""

    type: str | None = None
    """Adapter kind (a registered one); required for a new provider, optional for a built-in one."""
    base_url: str = ""
    """Endpoint; https, or http for 127.0.0.1/::1/localhost only. Empty: the default."""
    api_key: str = Field(default="", repr=False)
    """The key itself (the file is then written mode 0600). Prefer ``api_key_env``."""
    api_key_env: str = ""
    """Environment variable holding the key, instead of the provider's usual one."""
    headers: dict[str, str] = Field(default_factory=dict, repr=False)
    """Extra HTTP headers sent with every request."""
    reasoning_history: ReasoningHistory | None = None
    """openai-compatible only: send earlier reasoning back inline (<think>), as a field, or strip it."""
    options: dict[str, Any] = Field(default_factory=dict)
    """Extra keyword arguments passed to the adapter as is."""

    @field_validator("type")
    @classmethod
    def _check_type(cls, v: str | None) -> str | None:
        from .llm import registry

        known = [k.name for k in registry.kinds() if k.listed]
        if v is not None and v not in known:
            raise ValueError(f"must be one of {', '.join(known)}")
        return v

    @field_validator("base_url")
    @classmethod
    def _check_base_url(cls, v: str) -> str:
        return validate_base_url(v) if v else v

    @field_validator("api_key_env")
    @classmethod
    def _check_env_name(cls, v: str) -> str:
        if v and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", v):
            raise ValueError("must be an environment variable name, not the key itself")
        return v


class ModelOverride(_Strict):
    """One ``[models."provider/model"]`` table: adds a model to the catalog or overrides it."""

    context_window: int | None = Field(default=None, gt=0)
    """Tokens the model can take in (prompt + reply)."""
    max_output: int | None = Field(default=None, gt=0)
    """Most tokens the model can write in one reply."""
    input_price: float | None = Field(default=None, ge=0)
    """USD per million uncached input tokens."""
    output_price: float | None = Field(default=None, ge=0)
    """USD per million output tokens."""
    cache_read_price: float | None = Field(default=None, ge=0)
    """USD per million input tokens read from the prompt cache."""
    cache_write_price: float | None = Field(default=None, ge=0)
    """USD per million input tokens written to the prompt cache."""
    tools: bool | list[str] | None = None
    """Whether the model can call tools; a list names the built-in tools it is offered."""
    vision: bool | None = None
    """Whether the model can read images."""
    subscription: bool | None = None
    """Paid by a flat-rate plan: ranked right after local models by suggest_routing."""
    max_turns: int | None = Field(default=None, gt=0)
    """At most this many model calls per turn with this model (lowers max_turns, never raises it)."""
    temperature: float | None = Field(default=None, ge=0, le=2)
    """Sampling temperature sent with every request to this model."""

    @field_validator("tools")
    @classmethod
    def _known_tools(cls, v: bool | list[str] | None) -> bool | list[str] | None:
        from .tool_names import ALL_TOOLS

        if isinstance(v, list):
            for name in v:
                if name not in ALL_TOOLS:
                    raise ValueError(f"unknown tool {name!r} (the tools: {', '.join(ALL_TOOLS)})")
        return v


class StuckConfig(_Strict):
    """``[stuck]``: when a model going round in circles is told so, then stopped (0: off)."""

    repeats: int = Field(default=3, ge=0)
    """The same call with the same result this many times in a row."""
    alternations: int = Field(default=3, ge=0)
    """Two calls taking turns (A B A B …), this many times each."""
    text_repeats: int = Field(default=3, ge=0)
    """The same reply text this many times in a row."""
    tool_errors: int = Field(default=5, ge=0)
    """Errors in a row from one tool."""
    warnings: int = Field(default=1, ge=0)
    """Detections answered with a nudge to the model before the turn ends ``stuck``."""


class PermissionsConfig(_Strict):
    """``[permissions]``: what tools may do without asking."""

    mode: Literal["ask", "edits", "yolo", "plan"] = "ask"
    """ask: confirm edits and commands; edits: confirm commands; yolo: never ask; plan: read only."""
    allow: list[str] = Field(default_factory=list)
    """Rules always allowed, as "TOOL: PATTERN", e.g. "bash: pytest*"."""
    deny: list[str] = Field(default_factory=list)
    """Rules always refused, as "TOOL: PATTERN"; deny wins over allow."""

    @field_validator("allow", "deny")
    @classmethod
    def _check_rules(cls, rules: list[str]) -> list[str]:
        for text in rules:
            check_rule_text(text)
        return rules


class SandboxConfig(_Strict):
    """``[sandbox]``: the OS sandbox bash commands run in (bubblewrap; docs/security.md)."""

    mode: Literal["workspace-write", "read-only", "off"] = "workspace-write"
    """workspace-write: the project (and ``writable``) writable, the rest read-only; read-only:
    nothing writable; off: no sandbox, the prompts only."""
    network: bool = False
    """Let sandboxed commands use the network."""
    writable: list[str] = Field(default_factory=list)
    """More paths sandboxed commands may write (``~`` allowed; relative to the project)."""


def check_rule_text(text: str) -> tuple[str, str]:
    """``(tool, pattern)`` of a permission rule ``"TOOL: PATTERN"``, or ``ValueError`` naming
    what is wrong (one line). ``TOOL`` is a pattern that must name at least one tool."""
    from .tool_names import ALL_TOOLS, is_known_tool_pattern

    tool, sep, pattern = text.partition(":")
    tool, pattern = tool.strip(), pattern.strip().strip("\"'") if sep else "*"
    if not tool:
        raise ValueError(f"rule {_clip(text)!r} names no tool (write it as 'TOOL: PATTERN')")
    if not is_known_tool_pattern(tool):
        raise ValueError(
            f"rule {_clip(text)!r} names no known tool ({', '.join(ALL_TOOLS)}, or mcp__…)"
        )
    return tool, pattern or "*"


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Config(BaseModel):
    """The merged configuration. Unknown top-level tables are kept (``model_extra``)."""

    model_config = ConfigDict(
        extra="allow", validate_assignment=True, use_attribute_docstrings=True
    )

    model: str = ""
    """Main model: "provider/model", a bare model id or a role. Empty: the first provider with a key."""
    effort: Effort = ""
    """Reasoning effort: "" (provider default), low, medium, high or max."""
    roles: dict[str, str] = Field(default_factory=dict)
    """Role name -> model spec (smart, worker, explore, compact, opus, sonnet, haiku, or your own)."""
    fallbacks: dict[str, list[str]] = Field(default_factory=dict)
    """Role name or model spec -> model specs to try, in order, when it fails."""
    providers: dict[str, ProviderConfig] = Field(default_factory=dict)
    """Provider name -> settings (built-in providers or your own endpoints)."""
    models: dict[str, ModelOverride] = Field(default_factory=dict)
    """"provider/model" (or a bare id) -> catalog entry to add or override."""
    permissions: PermissionsConfig = Field(default_factory=PermissionsConfig)
    """Tool permission mode and rules."""
    sandbox: SandboxConfig = Field(default_factory=SandboxConfig)
    """The OS sandbox for bash commands."""
    compact_threshold: float = Field(default=0.8, gt=0, le=1)
    """Compact the conversation when it fills this fraction of the context window."""
    max_turns: int = Field(default=100, gt=0)
    """Most model calls in one user turn before the agent stops."""
    subagent_max_turns: int = Field(default=30, gt=0)
    """Most model calls a subagent (the task tool) makes before it stops (and max_turns at most)."""
    first_chunk_timeout: float = Field(default=300.0, gt=0)
    """Seconds to wait for the first streamed chunk of a reply."""
    idle_timeout: float = Field(default=180.0, gt=0)
    """Seconds to wait between streamed chunks."""
    stuck: StuckConfig = Field(default_factory=StuckConfig)
    """When a looping model is nudged, then stopped."""
    trusted_projects: list[str] = Field(default_factory=list)
    """User config only: project folders whose own config may loosen safety or run code."""
    checkpoints: bool = True
    """Snapshot the project's files before each turn's first change, so /undo and /rewind work."""
    mcp: McpConfig = Field(default_factory=McpConfig)
    """MCP tool servers ([mcp.servers.NAME]); a trusted project's .mcp.json adds its own."""
    hooks: HooksConfig = Field(default_factory=HooksConfig)
    """Commands run at events ([[hooks.PreToolUse]] …); a trusted project's run after yours."""

    _sources: tuple[Path, ...] = PrivateAttr(default=())
    _trust: Any = PrivateAttr(default=None)

    @field_validator("roles")
    @classmethod
    def _roles_name_models(cls, roles: dict[str, str]) -> dict[str, str]:
        names = set(roles) | set(BUILTIN_ROLES) | set(CLAUDE_ROLES)
        for role, spec in roles.items():
            if spec.strip() in names:
                raise ValueError(
                    f"role {role!r} names the role {spec.strip()!r}; a role must name a "
                    "provider/model, not another role"
                )
        return roles

    def routing(self) -> RoutingSnapshot:
        """The routing-relevant settings, copied under the routing lock."""
        with _ROUTING_LOCK:
            return RoutingSnapshot(
                model=self.model,
                roles=MappingProxyType(dict(self.roles)),
                fallbacks=MappingProxyType({k: tuple(v) for k, v in self.fallbacks.items()}),
            )

    def set_routing(
        self,
        *,
        model: str | None = None,
        roles: Mapping[str, str] | None = None,
        fallbacks: Mapping[str, list[str]] | None = None,
    ) -> None:
        """Replace model/roles/fallbacks in one step, under the routing lock."""
        try:
            checked = Config(
                model=self.model if model is None else model,
                roles=dict(self.roles if roles is None else roles),
                fallbacks=dict(self.fallbacks if fallbacks is None else fallbacks),
            )
        except ValidationError as e:
            err = e.errors()[0]
            key = ".".join(str(p) for p in err["loc"])
            raise ConfigError(f"{key}: {str(err['msg']).removeprefix('Value error, ')}") from None
        with _ROUTING_LOCK:
            self.model = checked.model
            self.roles = checked.roles
            self.fallbacks = checked.fallbacks

    @property
    def sources(self) -> tuple[Path, ...]:
        """The files this config was read from, user file first."""
        return self._sources

    @property
    def project_trust(self) -> ProjectTrust | None:
        """What the project's file asks for that needs trust (None: nothing), and whether it
        was applied."""
        return self._trust


@dataclass(frozen=True)
class RoutingSnapshot:
    """A consistent, read-only view of the routing settings at one instant."""

    model: str = ""
    roles: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    fallbacks: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: MappingProxyType({}))


_ROUTING_LOCK = threading.RLock()
_FILE_LOCK = threading.Lock()


# --------------------------------------------------------------------------------- loading


def load_config(
    cwd: Path | None = None, *, trust_project: bool = False, remembered: bool = False
) -> Config:
    """The user file with the project file layered on top; defaults where neither says.

    The project's settings that need trust (:data:`larik.trust.GATED`) apply when
    ``trust_project`` is set (``--trust-project``), when the project is in the user's
    ``trusted_projects``, or — with ``remembered``, which only the TUI passes — when the user
    trusted exactly these settings before. :attr:`Config.project_trust` says what was asked and
    whether it was applied."""
    from . import trust

    sources: list[Path] = []
    merged: dict[str, Any] = {}
    user = user_config_path()
    if user.exists():
        data = _read_toml(user)
        _validate(data, user)
        merged = data
        sources.append(user)
    user_perms = _table(merged.get("permissions"))
    user_hooks = merged.get("hooks")
    user_mode = str(user_perms.get("mode") or "ask")
    project = project_config_path(cwd)
    mcp_json = project_mcp_json_path(cwd)
    shell_files, commands = _project_shell_commands(cwd)
    project_trust: trust.ProjectTrust | None = None
    if project is not None or mcp_json is not None or shell_files:
        data = {}
        if project is not None:
            data = _read_toml(project)
            for key in _USER_ONLY:
                if key in data:
                    raise ConfigError(
                        f"{project}: {key}: only allowed in the user config ({user}); a project "
                        "file must not "
                        + ("redirect API keys" if key == "providers" else "trust itself")
                    )
            _validate(data, project)
        user_sandbox = str(_table(merged.get("sandbox")).get("mode") or "workspace-write")
        always, gated, deny = trust.split_project(data, user_mode, user_sandbox)
        if mcp_json is not None:
            gated[trust.MCP_JSON] = _read_mcp_json(mcp_json)
        if shell_files:
            gated[trust.COMMAND_SHELL] = shell_files
        config_file = project or mcp_json or commands
        assert config_file is not None
        root = (
            project.parent.parent
            if project is not None
            else (config_file.parent if mcp_json is not None else config_file.parent.parent)
        ).resolve()
        allow: list[str] = []
        if gated:
            fingerprint = trust.digest(gated)
            source = _trust_source(root, merged, trust_project, remembered, fingerprint)
            project_trust = trust.ProjectTrust(
                root=root,
                config_file=config_file,
                asks=trust.describe(gated, user_mode),
                digest=fingerprint,
                gated=gated,
                trusted=source not in ("", "declined"),
                source=source if source != "declined" else "",  # type: ignore[arg-type]
                declined=source == "declined",
            )
            if project_trust.trusted:
                always = _deep_merge(always, {k: v for k, v in gated.items() if "." not in k})
                perms = _table(always.get("permissions"))
                if "permissions.mode" in gated:
                    perms["mode"] = gated["permissions.mode"]
                box = _table(always.get("sandbox"))
                for key in ("mode", "network", "writable"):
                    if f"sandbox.{key}" in gated:
                        box[key] = gated[f"sandbox.{key}"]
                if box:
                    always["sandbox"] = box
                allow = list(gated.get("permissions.allow") or [])
                always["permissions"] = perms
                merged = _with_servers(merged, gated.get(trust.MCP_JSON) or {})
        merged = _deep_merge(merged, always)
        perms = _table(merged.get("permissions"))
        perms["allow"] = _union(user_perms.get("allow") or [], allow)
        perms["deny"] = _union(user_perms.get("deny") or [], deny)
        merged["permissions"] = perms
        sources.extend(p for p in (mcp_json, project) if p is not None)
    config = _validate(merged, sources[-1] if sources else user)
    config._sources = tuple(sources)
    config._trust = project_trust
    trusted_gated = project_trust.gated if project_trust and project_trust.trusted else {}
    config.hooks = _hooks(user_hooks, user, trusted_gated.get("hooks"), project)
    _mark_server_sources(config, user, mcp_json, project)
    return config


def _project_shell_commands(cwd: Path | None) -> tuple[dict[str, str], Path | None]:
    """The project's command files with ``!`…``` shell lines (path -> SHA-256), and the
    commands folder they are in: running those lines needs trust (larik.custom_commands)."""
    from .custom_commands import project_shell_files

    files = project_shell_files(cwd)
    if not files:
        return {}, None
    first = Path(next(iter(files)))
    folder = next(
        d for d in first.parents if d.name == "commands" and d.parent.name in (".larik", ".claude")
    )
    return files, folder


def _hooks(user: Any, user_file: Path, project: Any, project_file: Path | None) -> HooksConfig:
    """The user's hooks, then a trusted project's, event by event: a project adds hooks, it
    never replaces yours (both files were validated already). Each knows its file."""
    mine = HooksConfig.model_validate(user or {})
    mine.mark_source(str(user_file))
    theirs = HooksConfig.model_validate(project or {})
    theirs.mark_source(str(project_file))
    return mine.extended(theirs)


def _read_mcp_json(path: Path) -> dict[str, Any]:
    """A project's ``.mcp.json`` as ``[mcp.servers]`` tables, each validated (errors name it)."""
    from .mcp.config import McpServerConfig, read_mcp_json

    try:
        servers = read_mcp_json(path)
    except ValueError as e:
        raise ConfigError(f"{path}: {e}") from None
    for name, table in servers.items():
        try:
            McpConfig(servers={name: McpServerConfig.model_validate(table)})
        except ValidationError as e:
            err = e.errors()[0]
            key = ".".join(str(p) for p in err["loc"] if p != "servers")
            where = f"mcpServers.{name[:40]}" + (f".{key}" if key and key != name else "")
            msg = str(err["msg"]).removeprefix("Value error, ")
            raise ConfigError(f"{path}: {where}: {msg}") from None
    return servers


def _with_servers(merged: dict[str, Any], servers: Mapping[str, Any]) -> dict[str, Any]:
    """``merged`` with a trusted ``.mcp.json``'s servers: each replaces a same-named one whole."""
    if not servers:
        return merged
    mcp = _table(merged.get("mcp"))
    mcp["servers"] = {**_table(mcp.get("servers")), **servers}
    return {**merged, "mcp": mcp}


def _mark_server_sources(
    config: Config, user: Path, mcp_json: Path | None, project: Path | None
) -> None:
    """Remember which file configured each MCP server (for /mcp and ``larik mcp list``)."""
    trusted = config.project_trust is not None and config.project_trust.trusted
    gated = config.project_trust.gated if config.project_trust is not None else {}
    from_project = _table(gated.get("mcp")).get("servers") or {}
    from_json = gated.get(".mcp.json") or {}
    for name, server in config.mcp.servers.items():
        if trusted and project is not None and name in from_project:
            server._source = str(project)
        elif trusted and mcp_json is not None and name in from_json:
            server._source = str(mcp_json)
        else:
            server._source = str(user)


def _table(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


def _union(first: list[str], second: list[str]) -> list[str]:
    return list(dict.fromkeys([*first, *second]))


def _trust_source(
    root: Path, user: Mapping[str, Any], flag: bool, remembered: bool, fingerprint: str
) -> str:
    """Why the project is trusted ("flag", "config", "remembered"), "declined" when the user
    said no to these settings in the TUI, or "" when nobody said."""
    from . import trust

    if flag:
        return "flag"
    listed = user.get("trusted_projects") or []
    for entry in listed if isinstance(listed, list) else []:
        try:
            if Path(str(entry)).expanduser().resolve() == root:
                return "config"
        except (OSError, RuntimeError, ValueError):
            continue
    if remembered:
        answer = trust.recall(state_dir(), root, fingerprint)
        if answer is not None:
            return "remembered" if answer else "declined"
    return ""


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        if not path.is_file():
            raise ConfigError(f"{path}: not a regular file")
        if path.stat().st_size > MAX_CONFIG_BYTES:
            raise ConfigError(f"{path}: larger than {MAX_CONFIG_BYTES >> 20} MiB; not a config file")
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise ConfigError(f"{path}: invalid TOML: nested too deeply") from None
    except tomllib.TOMLDecodeError as e:
        msg = str(e)
        m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
        where = f":{m.group(1)}" if m else ""
        reason = re.sub(r"\s*\(at line \d+, column \d+\)", "", msg).strip() or "syntax error"
        raise ConfigError(f"{path}{where}: invalid TOML: {reason}") from None


def _check_unknown_keys(data: Mapping[str, Any], path: Path) -> None:
    """Unknown top-level tables are kept for other parts of Larik, but a plain value there
    (``modle = "…"``) or a table named almost like one of ours (``[permission]``) is a typo."""
    fields = Config.model_fields
    tables = [k for k, f in fields.items() if f.default_factory is not None]
    for key, value in data.items():
        if key in fields:
            continue
        if isinstance(value, Mapping):
            near = difflib.get_close_matches(key, tables, n=1, cutoff=0.8)
        else:
            near = difflib.get_close_matches(key, list(fields), n=1, cutoff=0.6) or [""]
        if near:
            hint = f" (did you mean {near[0]!r}?)" if near[0] else ""
            raise ConfigError(f"{path}: {key}: unknown key{hint}")


def _validate(data: dict[str, Any], path: Path) -> Config:
    _check_unknown_keys(data, path)
    try:
        return Config.model_validate(data)
    except RecursionError:
        raise ConfigError(f"{path}: a value is nested too deeply") from None
    except ValidationError as e:
        err = e.errors()[0]
        key = ".".join(str(p) for p in err["loc"]) or "(top level)"
        msg = str(err["msg"]).removeprefix("Value error, ")
        secret = any(s in key for s in _SECRET_KEYS)
        got = "" if secret or err["type"] == "value_error" else _short(err.get("input"))
        raise ConfigError(f"{path}: {key}: {msg}{got}") from None


def _short(value: object) -> str:
    if value is None or isinstance(value, dict | list):
        return ""
    text = repr(value)
    return f" (got {text if len(text) <= 40 else text[:39] + '…'})"


def _deep_merge(base: Mapping[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    """Tables merge key by key; any other value in ``top`` replaces. A ``None`` in ``top``
    deletes the key (used by saves)."""
    out = dict(base)
    for key, value in top.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = _deep_merge(out[key], value)
        elif isinstance(value, Mapping):
            out[key] = _deep_merge({}, value)
        else:
            out[key] = value
    return out


# --------------------------------------------------------------------------------- writing


def save_user_config(updates: Mapping[str, Any]) -> Path:
    """Deep-merge ``updates`` into the user file and write it back.

    Keys not in ``updates`` are kept, including ones Larik does not know. A ``None`` (or, inside
    a table, an empty string) removes a key. The result is validated before anything is written;
    the write is atomic, and the file is mode 0600 when it holds an ``api_key`` or headers.
    """
    import tomli_w

    path = user_config_path()
    with _FILE_LOCK:
        current = _read_toml(path) if path.is_file() else {}
        merged = _prune(_deep_merge(current, updates))
        for key in updates:  # a table the update left empty is not written as an empty "[key]"
            if merged.get(key) == {}:
                del merged[key]
        _validate(merged, path)
        text = tomli_w.dumps(merged)
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = 0o600 if _holds_secret(merged) else _existing_mode(path)
        fd, tmp = tempfile.mkstemp(prefix=".config-", suffix=".toml", dir=path.parent)
        try:
            os.fchmod(fd, mode)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    return path


def _prune(data: dict[str, Any], depth: int = 0) -> dict[str, Any]:
    """Drop empty strings inside tables (how a save unsets a role) and tables left empty
    below the top level."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            value = _prune(value, depth + 1)
            if not value and depth > 0:
                continue
        elif value == "" and depth > 0:
            continue
        out[key] = value
    return out


def _holds_secret(data: Mapping[str, Any]) -> bool:
    providers = _table(data.get("providers"))
    servers = _table(_table(data.get("mcp")).get("servers"))  # MCP env and headers hold tokens
    return any(
        isinstance(p, Mapping) and (p.get("api_key") or p.get("headers"))
        for p in providers.values()
    ) or any(
        isinstance(s, Mapping) and (s.get("env") or s.get("headers")) for s in servers.values()
    )


def _existing_mode(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
