"""Where Larik's files live: the user and project config files, the state folder (sessions,
bench results, checkpoints), project folders searched up to the git root, Claude Code's home.
Nothing here creates a folder or reads a file. A leaf (``larik.config`` re-exports it): what
reads a path before pydantic is imported — ``larik acp``'s answer to ``initialize`` — imports
this and nothing heavy."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = [
    "MAX_CONFIG_BYTES",
    "MCP_JSON",
    "accounts_dir",
    "bench_dir",
    "bench_results_path",
    "claude_home",
    "local_dir",
    "project_claude_settings_paths",
    "project_config_path",
    "project_folder",
    "project_mcp_json_path",
    "sessions_dir",
    "state_dir",
    "user_config_path",
]


MCP_JSON = ".mcp.json"  # a project's MCP servers (larik.mcp.config reads it)
MAX_CONFIG_BYTES = 1 << 20  # a config file larger than this is refused, not read


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


def accounts_dir() -> Path:
    """Where signed-in accounts are kept (``larik login``). Not created here."""
    return state_dir() / "accounts"


def local_dir() -> Path:
    """Where Larik's own engine keeps its models' index, logs and run files (``larik local``).
    Not created here."""
    return state_dir() / "local"


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
    return _project_file(cwd, MCP_JSON)


def project_claude_settings_paths(cwd: Path | None = None) -> list[Path]:
    """The project's Claude Code settings files (``.claude/settings.json``, then
    ``.claude/settings.local.json``), each searched like :func:`project_config_path`: their
    ``hooks`` are read (larik.hooks.config.claude_settings_hooks), once the project is trusted."""
    found = (_project_file(cwd, f".claude/{name}") for name in CLAUDE_SETTINGS)
    return [p for p in found if p is not None]


#: Claude Code's project settings files whose hooks Larik runs, in the order they apply.
CLAUDE_SETTINGS = ("settings.json", "settings.local.json")


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
