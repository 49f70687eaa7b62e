"""The configuration's shape: the pydantic models of every table (each field with a one-line
docstring, which docs/configuration.md is checked against) and the routing snapshot."""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from ..hooks.config import HooksConfig
from ..llm.errors import ConfigError
from ..llm.net import validate_base_url
from ..llm.types import Effort
from ..mcp.config import McpConfig
from ..modes import Mode

if TYPE_CHECKING:
    from ..trust import ProjectTrust

__all__ = [
    "BUILTIN_ROLES",
    "BudgetConfig",
    "CLAUDE_ROLES",
    "Config",
    "ModelOverride",
    "PermissionsConfig",
    "ProviderConfig",
    "RoutingSnapshot",
    "SandboxConfig",
    "JobsConfig",
    "WebFetchConfig",
    "StuckConfig",
    "TuiConfig",
    "TuiThemeConfig",
    "check_rule_text",
]

#: Roles that always exist. Unset, each resolves to the main model.
BUILTIN_ROLES = ("smart", "worker", "explore", "compact")
#: Roles that default to the current Claude models (see the catalog's ``[defaults]``).
CLAUDE_ROLES = ("opus", "sonnet", "haiku")

ReasoningHistory = Literal["inline", "field", "strip"]


class _Strict(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        validate_assignment=True,
        use_attribute_docstrings=True,
        allow_inf_nan=False,  # TOML has nan and inf; no count, price or limit is one
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
        from ..llm import registry

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


#: USD per million tokens no model costs: a cost stays a number JSON can hold (1e308 per
#: million tokens made a reply's cost infinite, and print mode's result no JSON).
MAX_PRICE = 1_000_000.0


class ModelOverride(_Strict):
    """One ``[models."provider/model"]`` table: adds a model to the catalog or overrides it."""

    context_window: int | None = Field(default=None, gt=0)
    """Tokens the model can take in (prompt + reply)."""
    max_output: int | None = Field(default=None, gt=0)
    """Most tokens the model can write in one reply."""
    input_price: float | None = Field(default=None, ge=0, le=MAX_PRICE)
    """USD per million uncached input tokens."""
    output_price: float | None = Field(default=None, ge=0, le=MAX_PRICE)
    """USD per million output tokens."""
    cache_read_price: float | None = Field(default=None, ge=0, le=MAX_PRICE)
    """USD per million input tokens read from the prompt cache."""
    cache_write_price: float | None = Field(default=None, ge=0, le=MAX_PRICE)
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
    top_p: float | None = Field(default=None, gt=0, le=1)
    """Nucleus sampling: the share of probability mass sampled from."""
    repeat_penalty: float | None = Field(default=None, gt=0, le=2)
    """Penalty on tokens repeated recently (llama.cpp, Ollama, vLLM; 1: none)."""
    line_numbers: bool | None = None
    """Whether read_file shows line numbers (default: yes)."""
    cancel_runaway: bool | None = None
    """Cancel a reply that keeps repeating itself as it streams (default: small models)."""
    constrained_tools: bool | None = None
    """Ask a llama.cpp or vLLM server for grammar-constrained tool calls (default: small models)."""
    workflow: Literal["loop", "edit"] | None = None
    """How a turn runs: "loop" (tool calls) or "edit" (Larik finds files, runs tests)."""
    edit_format: Literal["whole", "diff"] | None = None
    """The edit workflow's reply: "whole" files or "diff" (search/replace blocks)."""
    review: bool | None = None
    """The edit workflow asks once for a check against the request when the tests cannot."""
    prefill: bool | None = None
    """The edit workflow begins the model's reply with the file's path and fence."""
    own_tests: bool | None = None
    """The edit workflow asks for tests of the request first when the project's pass."""

    @field_validator("tools")
    @classmethod
    def _known_tools(cls, v: bool | list[str] | None) -> bool | list[str] | None:
        from ..tool_names import ALL_TOOLS

        if isinstance(v, list):
            for name in v:
                if name not in ALL_TOOLS:
                    raise ValueError(f"unknown tool {name!r} (the tools: {', '.join(ALL_TOOLS)})")
        return v


class StuckConfig(_Strict):
    """``[stuck]``: when a model going round in circles is told so, then stopped (0: off)."""

    repeats: int = Field(default=3, ge=0)
    """The same call with the same result this many times in a row."""
    same_calls: int = Field(default=6, ge=0)
    """The same call this many times in a row, whatever its results (job_output aside)."""
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

    mode: Mode = Mode.ASK
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


class BudgetConfig(_Strict):
    """[budget]: spending limits in USD, estimated before each request (docs/print-mode.md)."""

    session_usd: float | None = Field(default=None, gt=0)
    """Stop before the request that would take this session's spending past this (None: no limit)."""
    turn_usd: float | None = Field(default=None, gt=0)
    """Stop before the request that would take one turn's spending past this (None: no limit)."""


class JobsConfig(_Strict):
    """``[jobs]``: background commands (``bash`` with ``background: true``; docs/tools.md).
    Capped, so that no config can make them unbounded."""

    max: int = Field(default=8, ge=1, le=32)
    """Background jobs running at once (at most 32)."""
    output_buffer: int = Field(default=1_000_000, ge=10_000, le=8_000_000)
    """Bytes of output kept per job, the newest (at most 8 MB)."""


class WebFetchConfig(_Strict):
    """``[web_fetch]``: the web_fetch tool's limits and the private addresses it may reach."""

    allow_private: list[str] = Field(default_factory=list)
    """Private, loopback or link-local addresses web_fetch may reach anyway: addresses or
    networks ("127.0.0.1", "10.0.0.0/8") or host names ("wiki.corp"). Empty: none."""
    timeout: float = Field(default=30.0, gt=0, le=300)
    """Seconds one fetch may take, redirects and download included."""
    max_bytes: int = Field(default=5_000_000, gt=0, le=50_000_000)
    """Most bytes of a response body read; the rest is not downloaded."""

    @field_validator("allow_private")
    @classmethod
    def _check_entries(cls, entries: list[str]) -> list[str]:
        import ipaddress

        for e in entries:
            try:
                ipaddress.ip_network(e.strip("[]"), strict=False)
            except ValueError:
                if not re.fullmatch(r"[A-Za-z0-9*?.-]+", e):
                    raise ValueError(
                        f"{e!r} is neither an address, a network nor a host name"
                    ) from None
        return entries


class LspServerConfig(_Strict):
    """``[lsp.servers.NAME]``: a language server to add (or to replace a known one's command)."""

    command: list[str] = Field(min_length=1)
    """The program and its arguments, speaking LSP over stdin/stdout (``["pylsp"]``)."""
    languages: list[str] = Field(default_factory=list)
    """LSP language ids it serves ("python", "typescript", …)."""
    globs: list[str] = Field(default_factory=list)
    """File name patterns it serves ("*.py"); empty: the languages' usual suffixes."""
    init_options: dict[str, Any] = Field(default_factory=dict)
    """Sent as ``initializationOptions`` in ``initialize``."""
    settings: dict[str, Any] = Field(default_factory=dict)
    """What the server is told when it asks for its settings (``workspace/configuration``):
    a section ``"a.b"`` is ``settings["a"]["b"]``; one not here is null."""


class LspConfig(_Strict):
    """``[lsp]``: language servers whose diagnostics follow each edit (docs/lsp.md). A
    project's ``[lsp]`` applies only once the project is trusted (it starts programs)."""

    enabled: bool | None = None
    """true: run servers in any project; false: never; unset: only in a trusted project."""
    disabled: list[str] = Field(default_factory=list)
    """Names of known servers not to use ("pylsp", "ruff", …: ``larik lsp`` lists them)."""
    servers: dict[str, LspServerConfig] = Field(default_factory=dict)
    """Servers to add, by name; tried before the known ones."""
    wait_ms: int = Field(default=1500, ge=0, le=30_000)
    """Most milliseconds an edit waits for the server's diagnostics."""
    start_ms: int = Field(default=5000, ge=0, le=60_000)
    """Most milliseconds the first edit of a language waits for its server to start."""
    max_lines: int = Field(default=10, ge=1, le=200)
    """Most diagnostic lines appended to one edit's result."""


#: a colour as Textual's CSS takes it: ``#rgb``, ``#rrggbb`` (and with alpha), ``rgb(…)``,
#: ``hsl(…)`` or a name (``red``, ``ansi_bright_blue``); parsed for good by the TUI
_COLOUR = re.compile(
    r"#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})|(?:rgb|hsl)a?\([^()]*\)|[a-z_]+"
)


class TuiThemeConfig(_Strict):
    """``[tui.themes.NAME]``: a theme of your own, on top of ``base``; an unset colour is the
    base theme's (docs/tui.md#themes)."""

    base: str = "larik-dark"
    """The theme it starts from: larik-dark, larik-light, one of Textual's, or another of yours."""
    dark: bool | None = None
    """Whether it is a dark theme (unset: the base's)."""
    primary: str = ""
    """Borders, the prompt's frame, highlights."""
    secondary: str = ""
    """Secondary highlights."""
    accent: str = ""
    """The focused prompt's frame, accents."""
    foreground: str = ""
    """Text."""
    background: str = ""
    """The screen's background."""
    surface: str = ""
    """Dialogs' and lists' background."""
    panel: str = ""
    """Panels' background."""
    warning: str = ""
    """Warnings."""
    error: str = ""
    """Errors."""
    success: str = ""
    """Success marks."""
    user: str = ""
    """The background of your prompts in the conversation."""
    reply: str = ""
    """The text of the model's replies."""
    thinking: str = ""
    """The text of thinking blocks."""
    diff_added: str = ""
    """Added lines in diffs."""
    diff_removed: str = ""
    """Removed lines in diffs."""
    diff_hunk: str = ""
    """Diff hunk headers (``@@ … @@``)."""
    tool_border: str = ""
    """A tool card's left border."""
    tool_error: str = ""
    """A failed tool card's border."""
    tool_denied: str = ""
    """A refused tool card's border."""
    status_background: str = ""
    """The status line's background."""
    status_text: str = ""
    """The status line's text."""
    code: str = ""
    """The Pygments style code blocks are highlighted with ("monokai", "friendly", …)."""

    @field_validator("*")
    @classmethod
    def _check_colour(cls, value: Any, info: Any) -> Any:
        if info.field_name in ("base", "dark", "code") or not value:
            return value
        if not _COLOUR.fullmatch(str(value).strip()):
            raise ValueError(f"{value!r} is not a colour (#rrggbb, rgb(…), hsl(…) or a name)")
        return value


class TuiConfig(_Strict):
    """``[tui]``: how the TUI looks and what its keys do (docs/tui.md). User config only."""

    theme: str = "larik-dark"
    """larik-dark, larik-light, auto (follows the terminal's background), one of Textual's
    themes (nord, gruvbox, …) or one of ``[tui.themes]``."""
    themes: dict[str, TuiThemeConfig] = Field(default_factory=dict)
    """Themes of your own, by name."""
    vim: bool = False
    """Edit the prompt vim-style (normal and insert modes); ``/vim`` toggles it and saves it."""
    notify: Literal["auto", "off", "bell", "osc"] = "auto"
    """How a turn's end, a permission question or a finished job reaches you when you are not
    looking: auto (OSC 9 / OSC 777 where the terminal shows them, else the bell), osc, bell, off."""
    print_on_exit: bool = False
    """On leaving, write the conversation as plain text to the terminal, into its scrollback."""
    status_line: str = ""
    """A command whose first line of output (the session's state as JSON on its stdin, as
    Claude Code gives it) is shown in the status line; run on a change, at most once a second."""
    status_line_mode: Literal["append", "replace"] = "append"
    """Where that line goes: after Larik's own status line, or in its place."""
    notify_after: float = Field(default=30.0, ge=0, le=3600)
    """Seconds after which it notifies you even though the terminal has focus and you have not
    touched a key (0: only when the terminal is not focused)."""


def check_rule_text(text: str) -> tuple[str, str]:
    """``(tool, pattern)`` of a permission rule ``"TOOL: PATTERN"``, or ``ValueError`` naming
    what is wrong (one line, the rule cut to 60 characters): :func:`larik.tool_names.parse_rule`."""
    from ..tool_names import parse_rule

    return parse_rule(text, clip=60)


class Config(BaseModel):
    """The merged configuration. Unknown top-level tables are kept (``model_extra``)."""

    model_config = ConfigDict(
        extra="allow",
        validate_assignment=True,
        use_attribute_docstrings=True,
        allow_inf_nan=False,  # TOML has nan and inf; no count, price or limit is one
    )

    model: str = ""
    """Main model: "provider/model", a bare model id or a role. Empty: the first provider with a key."""
    effort: Effort = Effort.DEFAULT
    """Reasoning effort: "" (the provider's default) or a level (larik.llm.types.Effort)."""
    roles: dict[str, str] = Field(default_factory=dict)
    """Role name -> model spec (smart, worker, explore, compact, opus, sonnet, haiku, or your own)."""
    fallbacks: dict[str, list[str]] = Field(default_factory=dict)
    """Role name or model spec -> model specs to try, in order, when it fails."""
    prefer: dict[str, Literal["subscription"]] = Field(default_factory=dict)
    """Role name -> "subscription": a signed-in plan's model first, the role's own model after it."""
    providers: dict[str, ProviderConfig] = Field(default_factory=dict)
    """Provider name -> settings (built-in providers or your own endpoints)."""
    models: dict[str, ModelOverride] = Field(default_factory=dict)
    """"provider/model" (or a bare id) -> catalog entry to add or override."""
    permissions: PermissionsConfig = Field(default_factory=PermissionsConfig)
    """Tool permission mode and rules."""
    sandbox: SandboxConfig = Field(default_factory=SandboxConfig)
    """The OS sandbox for bash commands."""
    jobs: JobsConfig = Field(default_factory=JobsConfig)
    """Background jobs: how many at once, how much output each keeps."""
    budget: BudgetConfig = Field(default_factory=BudgetConfig)
    """Spending limits: the run stops before the request that would cross one."""
    web_fetch: WebFetchConfig = Field(default_factory=WebFetchConfig)
    """The web_fetch tool's limits and the private addresses it may reach."""
    lsp: LspConfig = Field(default_factory=LspConfig)
    """Language servers whose diagnostics follow each edit."""
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
    tui: TuiConfig = Field(default_factory=TuiConfig)
    """The TUI's theme, keys and prompt editing (user config only)."""

    _sources: tuple[Path, ...] = PrivateAttr(default=())
    _trust: Any = PrivateAttr(default=None)
    _folder_trusted: bool = PrivateAttr(default=False)

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

    @property
    def accounts_dir(self) -> Path:
        """Where signed-in accounts are kept (``larik login``): ``<state>/accounts``."""
        from ..locations import accounts_dir

        return accounts_dir()

    @property
    def local_dir(self) -> Path:
        """Where the local engine keeps its models' index, logs and run files
        (``larik local``): ``<state>/local``."""
        from ..locations import local_dir

        return local_dir()

    def routing(self) -> RoutingSnapshot:
        """The routing-relevant settings, copied under the routing lock."""
        with _ROUTING_LOCK:
            return RoutingSnapshot(
                model=self.model,
                roles=MappingProxyType(dict(self.roles)),
                fallbacks=MappingProxyType({k: tuple(v) for k, v in self.fallbacks.items()}),
                prefer=MappingProxyType(dict(self.prefer)),
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

    @property
    def folder_trusted(self) -> bool:
        """Whether the user trusts the project folder itself (its language servers run its
        plugins and configs): its gated settings' trust when it has some, else the same ways
        of trusting for a folder that asks for nothing — ``--trust-project``, a
        ``trusted_projects`` entry, and (TUI, ACP) a remembered yes (``larik trust yes``)."""
        return bool(self._trust.trusted) if self._trust is not None else self._folder_trusted


@dataclass(frozen=True)
class RoutingSnapshot:
    """A consistent, read-only view of the routing settings at one instant."""

    model: str = ""
    roles: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    fallbacks: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: MappingProxyType({}))
    prefer: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    """Role name -> what it tries first ("subscription": a signed-in plan's model)."""


_ROUTING_LOCK = threading.RLock()
_FILE_LOCK = threading.Lock()
