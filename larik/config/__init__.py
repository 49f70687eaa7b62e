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

The package: :mod:`.schema` (the merged configuration, the pydantic model of the whole file)
and its tables (:mod:`.providers`, :mod:`.tables`, :mod:`.tui`), :mod:`.files` (read,
validate, merge, save) and :mod:`.load` (layering and project trust); where files live is
:mod:`larik.locations`.
Import from ``larik.config``; the names below are its public face.
"""

from __future__ import annotations

from ..llm.errors import ConfigError
from ..llm.net import is_loopback_host, validate_base_url
from ..locations import (
    bench_dir,
    bench_results_path,
    claude_home,
    project_config_path,
    project_folder,
    project_mcp_json_path,
    sessions_dir,
    state_dir,
    user_config_path,
)
from .files import MAX_CONFIG_BYTES, save_user_config
from .load import load_config
from .providers import ModelOverride, ProviderConfig
from .schema import BUILTIN_ROLES, CLAUDE_ROLES, Config, RoutingSnapshot
from .tables import (
    BudgetConfig,
    JobsConfig,
    LspConfig,
    LspServerConfig,
    PermissionsConfig,
    SandboxConfig,
    StuckConfig,
    WebFetchConfig,
    check_rule_text,
)
from .tui import TuiConfig, TuiThemeConfig

__all__ = [
    "BUILTIN_ROLES",
    "CLAUDE_ROLES",
    "MAX_CONFIG_BYTES",
    "Config",
    "ConfigError",
    "BudgetConfig",
    "JobsConfig",
    "LspConfig",
    "LspServerConfig",
    "ModelOverride",
    "PermissionsConfig",
    "ProviderConfig",
    "RoutingSnapshot",
    "SandboxConfig",
    "WebFetchConfig",
    "StuckConfig",
    "TuiConfig",
    "TuiThemeConfig",
    "bench_dir",
    "bench_results_path",
    "check_rule_text",
    "claude_home",
    "is_loopback_host",
    "load_config",
    "project_config_path",
    "project_folder",
    "project_mcp_json_path",
    "save_user_config",
    "sessions_dir",
    "state_dir",
    "user_config_path",
    "validate_base_url",
]
