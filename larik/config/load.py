"""Loading: the user file with the project's layered on top, and what of the project's needs
trust (:mod:`larik.trust`): its gated settings, its ``.mcp.json`` and its commands' shell lines."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..hooks.config import HooksConfig
from ..llm.errors import ConfigError
from ..locations import (
    project_claude_settings_paths,
    project_config_path,
    project_folder,
    project_mcp_json_path,
    state_dir,
    user_config_path,
)
from ..mcp.config import McpConfig
from ..modes import Mode
from .files import _deep_merge, _read_toml, _table, _validate, first_error
from .schema import Config

__all__ = ["load_config"]

#: Keys only the user's own file may set.
_USER_ONLY = ("providers", "trusted_projects", "tui")
_WHY_USER_ONLY = {
    "providers": "redirect API keys",
    "trusted_projects": "trust itself",
    "tui": "change how Larik looks (a theme could hide what a dialog asks) or what keys do",
}


def load_config(
    cwd: Path | None = None, *, trust_project: bool = False, remembered: bool = False
) -> Config:
    """The user file with the project file layered on top; defaults where neither says.

    The project's settings that need trust (:data:`larik.trust.GATED`) apply when
    ``trust_project`` is set (``--trust-project``), when the project is in the user's
    ``trusted_projects``, or — with ``remembered``, which only the TUI passes — when the user
    trusted exactly these settings before. :attr:`Config.project_trust` says what was asked and
    whether it was applied."""
    from .. import trust
    from ..trust_runs import programs
    from ..trust_words import describe

    sources: list[Path] = []
    merged: dict[str, Any] = {}
    user = user_config_path()
    mine = Config()
    if user.exists():
        data = _read_toml(user)
        mine = _validate(data, user)
        merged = data
        sources.append(user)
    user_data = dict(merged)
    plain_root = (cwd or Path.cwd()).resolve()  # a folder whose files ask for nothing gated
    user_perms = _table(merged.get("permissions"))
    user_hooks = merged.get("hooks")
    user_mode = str(user_perms.get("mode") or Mode.ASK)
    project = project_config_path(cwd)
    mcp_json = project_mcp_json_path(cwd)
    shell_files, commands = _project_shell_commands(cwd)
    claude_hooks = _claude_hooks(cwd)
    project_trust: trust.ProjectTrust | None = None
    if project is not None or mcp_json is not None or shell_files or claude_hooks:
        data = {}
        if project is not None:
            data = _read_toml(project)
            for key in _USER_ONLY:
                if key in data:
                    raise ConfigError(
                        f"{project}: {key}: only allowed in the user config ({user}); a project "
                        "file must not " + _WHY_USER_ONLY[key]
                    )
            _validate(data, project)
            _check_project_models(data, project, mine)
        user_sandbox = str(_table(merged.get("sandbox")).get("mode") or "workspace-write")
        user_budget = _table(merged.get("budget"))
        always, gated, deny = trust.split_project(data, user_mode, user_sandbox, user_budget)
        if mcp_json is not None:
            gated[trust.MCP_JSON] = _read_mcp_json(mcp_json)
        if shell_files:
            gated[trust.COMMAND_SHELL] = shell_files
        if claude_hooks:
            gated[trust.CLAUDE_HOOKS] = claude_hooks
        claude_file = Path(next(iter(claude_hooks))) if claude_hooks else None
        config_file = project or mcp_json or commands or claude_file
        assert config_file is not None
        root = plain_root = (
            config_file.parent if config_file == mcp_json else config_file.parent.parent
        ).resolve()
        if any(gated.get(k) for k in ("hooks", "mcp", trust.CLAUDE_HOOKS, trust.MCP_JSON)):
            runs = programs(gated, root)
            if runs.files:
                gated[trust.PROGRAM_FILES] = runs.files
            if runs.unseen:
                gated[trust.PROGRAM_UNSEEN] = runs.unseen
        allow: list[str] = []
        if gated:
            fingerprint = trust.digest(gated)
            source, changed, notice = _trust_source(
                root, merged, trust_project, remembered, fingerprint, gated
            )
            last = trust.recorded(state_dir(), root) if changed else None
            since = "you said no" if last is not None and last.get("trusted") is False else ""
            project_trust = trust.ProjectTrust(
                root=root,
                config_file=config_file,
                asks=describe(gated, user_mode, _name_in(project, root)),
                digest=fingerprint,
                gated=gated,
                trusted=source not in ("", "declined"),
                source=source if source != "declined" else "",  # type: ignore[arg-type]
                declined=source == "declined",
                changed=changed,
                changed_since=since or "you trusted it",
                notice=notice,
            )
            if project_trust.trusted:
                always = _deep_merge(always, {k: v for k, v in gated.items() if "." not in k})
                perms = _table(always.get("permissions"))
                if "permissions.mode" in gated:
                    perms["mode"] = gated["permissions.mode"]
                for key, value in gated.items():  # sandbox.mode, web_fetch.allow_private, …
                    table, dot, name = key.partition(".")
                    if dot and table in ("sandbox", "web_fetch", "budget"):
                        always[table] = {**_table(always.get(table)), name: value}
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
    if project_trust is None:
        config._folder_trusted = _plain_trust(plain_root, user_data, trust_project, remembered)
    trusted_gated = project_trust.gated if project_trust and project_trust.trusted else {}
    config.hooks = _hooks(user_hooks, user, trusted_gated.get("hooks"), project)
    _apply_claude_hooks(config, trusted_gated.get(trust.CLAUDE_HOOKS) or {})
    _mark_server_sources(config, user, mcp_json, project)
    return config


def _model_specs(data: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every model a config file names, as ``(key, spec)``: ``model``, ``roles.NAME`` and each
    of ``fallbacks.NAME`` (validated already: strings and lists of strings)."""
    out = [("model", str(data["model"]))] if data.get("model") else []
    out += [(f"roles.{k}", str(v)) for k, v in _table(data.get("roles")).items()]
    for k, specs in _table(data.get("fallbacks")).items():
        out += [(f"fallbacks.{k}", str(v)) for v in specs or []]
    return out


def _check_project_models(data: Mapping[str, Any], project: Path, mine: Config) -> None:
    """A project's file names models of your providers or the built-in ones, never one whose
    model is a file (``scripted/PATH``: the repository's own file would answer as the model,
    and in yolo its tool calls would run). Trusted or not; your config and ``--model`` may."""
    from ..llm.endpoint import plays_a_file

    for key, spec in _model_specs(data):
        if plays_a_file(spec, mine):
            raise ConfigError(
                f"{project}: {key}: {spec[:80]!r} plays a file as the model; a project may name "
                "only real providers' models (a scripted model goes in your user config or "
                "--model)"
            )


def _project_shell_commands(cwd: Path | None) -> tuple[dict[str, str], Path | None]:
    """The project's command files with ``!`…``` shell lines (path -> SHA-256), and the
    commands folder they are in: running those lines needs trust (larik.custom_commands)."""
    from ..command_files import PROJECT_FOLDERS
    from ..trust_runs import shell_command_files

    root = (cwd or Path.cwd()).resolve()
    found = [project_folder(root, rel) for rel in PROJECT_FOLDERS]
    files = shell_command_files([(f, f.parent.parent.resolve()) for f in found if f is not None])
    if not files:
        return {}, None
    first = Path(next(iter(files)))
    folder = next(
        d for d in first.parents if d.name == "commands" and d.parent.name in (".larik", ".claude")
    )
    return files, folder


def _claude_hooks(cwd: Path | None) -> dict[str, dict[str, Any]]:
    """The hooks of the project's Claude Code settings files (path -> ``[hooks]`` tables),
    each validated as Larik's own: they run once the project is trusted, after the project's
    ``[hooks]``. A file whose hooks cannot be read is ``{UNREADABLE: "why"}``: a file written
    for another agent must not stop Larik in a project nobody trusted (the trust question
    names it); once trusted it is a one-line error naming it (``_apply_claude_hooks``)."""
    from .. import trust
    from ..hooks.config import claude_settings_hooks

    out: dict[str, dict[str, Any]] = {}
    for path in project_claude_settings_paths(cwd):
        tables: dict[str, Any]
        try:
            tables = dict(claude_settings_hooks(path))
            HooksConfig.model_validate(tables)
        except ValidationError as e:
            where, msg = first_error(e, model=HooksConfig)
            tables = {trust.UNREADABLE: f"hooks.{where}: {msg}"}
        except ValueError as e:
            tables = {trust.UNREADABLE: str(e)}
        if tables:
            out[str(path)] = tables
    return out


def _apply_claude_hooks(config: Config, tables_by_path: Mapping[str, Any]) -> None:
    """A trusted project's Claude Code hooks, after its ``[hooks]``."""
    from .. import trust

    for path, tables in tables_by_path.items():
        if trust.UNREADABLE in tables:
            raise ConfigError(f"{path}: {tables[trust.UNREADABLE]}")
        theirs = HooksConfig.model_validate(tables)  # validated in _claude_hooks
        theirs.mark_source(path)
        config.hooks = config.hooks.extended(theirs)


def _hooks(user: Any, user_file: Path, project: Any, project_file: Path | None) -> HooksConfig:
    """The user's hooks, then a trusted project's, event by event: a project adds hooks, it
    never replaces yours (both files were validated already). Each knows its file."""
    mine = HooksConfig.model_validate(user or {})
    mine.mark_source(str(user_file), user=True)
    theirs = HooksConfig.model_validate(project or {})
    theirs.mark_source(str(project_file))
    return mine.extended(theirs)


def _read_mcp_json(path: Path) -> dict[str, Any]:
    """A project's ``.mcp.json`` as ``[mcp.servers]`` tables, each validated (errors name it)."""
    from ..mcp.config import McpServerConfig, read_mcp_json

    try:
        servers = read_mcp_json(path)
    except ValueError as e:
        raise ConfigError(f"{path}: {e}") from None
    for name, table in servers.items():
        try:
            McpConfig(servers={name: McpServerConfig.model_validate(table)})
        except ValidationError as e:
            key, msg = first_error(e, skip=("servers",), model=McpConfig)
            where = f"mcpServers.{name[:40]}" + (f".{key}" if key and key != name else "")
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
    """Remember which file configured each MCP server (for /mcp and ``larik mcp list``), and
    whether it is the user's own (only those may run outside the OS sandbox)."""
    trusted = config.project_trust is not None and config.project_trust.trusted
    gated = config.project_trust.gated if config.project_trust is not None else {}
    from_project = _table(gated.get("mcp")).get("servers") or {}
    from_json = gated.get(".mcp.json") or {}
    for name, server in config.mcp.servers.items():
        if trusted and project is not None and name in from_project:
            server.mark_source(str(project))
        elif trusted and mcp_json is not None and name in from_json:
            server.mark_source(str(mcp_json))
        else:
            server.mark_source(str(user), user=True)


def _name_in(path: Path | None, root: Path) -> str:
    """``path`` as the trust dialog names it (``.larik/config.toml``); "" for none."""
    if path is None:
        return ""
    try:
        return str(path.resolve().relative_to(root))
    except ValueError:
        return str(path)


def _union(first: list[str], second: list[str]) -> list[str]:
    return list(dict.fromkeys([*first, *second]))


def _trust_source(
    root: Path,
    user: Mapping[str, Any],
    flag: bool,
    remembered: bool,
    fingerprint: str,
    gated: Mapping[str, Any],
) -> tuple[str, tuple[str, ...], str]:
    """Why the project is trusted ("flag", "config", "remembered"), "declined" when the user
    said no to these settings, or "" when nobody said; and, for a project of
    ``trusted_projects`` that changed since it was last trusted, what changed.

    ``--trust-project`` trusts the settings as they are and records their digest in
    ``$STATE/trust.json``, as the TUI's answer does. A ``trusted_projects`` entry holds for the
    digest recorded there; with none recorded yet, the first use records it. When what the
    digest covers changed since, the entry does not hold: the TUI asks again (showing what
    changed), print mode and bench apply nothing and say what changed. The third value is a
    notice for the user ("" when there is none)."""
    from .. import trust

    state = state_dir()
    if flag:
        return "flag", (), _record(state, root, fingerprint, True, gated)
    if _listed(user, root):
        last = trust.recorded(state, root)
        if last is None:  # first use: what is there now is what the user trusts
            return "config", (), _record(state, root, fingerprint, True, gated)
        if last.get("digest") == fingerprint:
            return ("config" if last.get("trusted") is True else "declined"), (), ""
        return "", trust.changes(last.get("items"), gated), ""
    if remembered:
        last = trust.recorded(state, root)
        if last is not None and last.get("digest") == fingerprint:
            answer = last.get("trusted")
            if isinstance(answer, bool):
                return ("remembered" if answer else "declined"), (), ""
        elif last is not None:  # asked again: what changed since that answer, item by item
            return "", trust.changes(last.get("items"), gated), ""
    return "", (), ""


def _plain_trust(root: Path, user: Mapping[str, Any], flag: bool, remembered: bool) -> bool:
    """Whether a folder whose files ask for nothing that needs trust is trusted all the same
    (its language servers run its code): as :func:`_trust_source` says for an empty set of
    settings — ``--trust-project`` (recorded), a ``trusted_projects`` entry, or, with
    ``remembered``, a recorded yes — except that a listing holds whatever was recorded
    before (there is nothing whose change it must notice)."""
    from .. import trust

    if flag:  # a record that cannot be written costs only the TUI's memory of it
        _record(state_dir(), root, trust.digest({}), True, {})
        return True
    if _listed(user, root):
        return True
    return remembered and trust.recall(state_dir(), root, trust.digest({})) is True


def _listed(user: Mapping[str, Any], root: Path) -> bool:
    """Whether the user's ``trusted_projects`` names ``root``."""
    listed = user.get("trusted_projects") or []
    for entry in listed if isinstance(listed, list) else []:
        try:
            if Path(str(entry)).expanduser().resolve() == root:
                return True
        except (OSError, RuntimeError, ValueError):
            continue
    return False


def _record(state: Path, root: Path, fingerprint: str, trusted: bool, gated: Any) -> str:
    """Record the digest a trust holds for; a state folder that cannot be written costs the
    record, not the run: the returned notice says so ("" when recorded)."""
    from .. import trust

    try:
        trust.remember(state, root, fingerprint, trusted, gated)
    except OSError as e:
        return (
            f"could not record the project's trust in {trust.trust_file(state)}: "
            f"{e.strerror or e}; a later change to it will not be noticed"
        )
    return ""
