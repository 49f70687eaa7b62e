"""The configuration's shape: :class:`Config`, the merged configuration, holding one of each
table — what reaches a model (:mod:`.providers`), what the agent may do and how far it goes
(:mod:`.tables`), the TUI's (:mod:`.tui`), hooks' and MCP servers' (their own packages) — and
the routing snapshot. Each field has a one-line docstring, which docs/configuration.md is
checked against."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from ..hooks.config import HooksConfig
from ..llm.errors import ConfigError
from ..llm.types import Effort
from ..mcp.config import McpConfig
from .providers import ModelOverride, ProviderConfig
from .tables import (
    BudgetConfig,
    JobsConfig,
    LspConfig,
    PermissionsConfig,
    SandboxConfig,
    StuckConfig,
    WebFetchConfig,
)
from .tui import TuiConfig

if TYPE_CHECKING:
    from ..trust import ProjectTrust

__all__ = ["BUILTIN_ROLES", "CLAUDE_ROLES", "Config", "RoutingSnapshot"]

#: Roles that always exist. Unset, each resolves to the main model.
BUILTIN_ROLES = ("smart", "worker", "explore", "compact")
#: Roles that default to the current Claude models (see the catalog's ``[defaults]``).
CLAUDE_ROLES = ("opus", "sonnet", "haiku")


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
