"""Project trust: what a project's own ``.larik/config.toml`` may do before the user says so.

A repository you cloned is someone else's code. Settings in its config that *loosen* safety or
*run code* take effect only in a project the user has trusted; settings that only *tighten*
always apply, merged with the user's (never replacing them). The split is a table,
:data:`GATED`, that a test walks:

=======================  =====================================================================
setting                  untrusted project
=======================  =====================================================================
permissions.mode         applied only when as strict as the user's or more (plan > ask > edits > yolo)
permissions.allow        ignored
permissions.deny         always applied, added to the user's deny rules
hooks, mcp, commands,    ignored (whole tables: they run programs; [lsp] starts language
lsp                      servers, which run the project's plugins and configs)
commands.shell           ignored: the project's command files with !`…` shell lines run those
                         lines only once trusted (each file's SHA-256 is in the digest)
checkpoints = false      ignored (a project must not turn off what /undo needs)
sandbox.mode             applied only when as strict as the user's or more (read-only > workspace-write > off)
sandbox.network          ``true`` ignored (a project may only turn the network off)
sandbox.writable         ignored (a project must not open more of the disk to commands)
web_fetch.allow_private  ignored (a project must not let web_fetch reach private addresses)
budget.session_usd,      applied only when as low as the user's or lower (or the user set none):
budget.turn_usd          a project may spend less, never more
prefer                   ignored ([prefer] ROLE = "subscription" sends a role to the user's
                         signed-in plans: it spends their paid quota)
.mcp.json                ignored (the project's MCP servers, in the format other agents share)
.claude hooks            ignored (the hooks of .claude/settings.json and settings.local.json,
                         Claude Code's project settings: they run programs)
programs.files           the files the hooks and MCP servers run from the project, by SHA-256
                         (larik.program_files): in the digest, so a changed one asks again
programs.unseen          what the digest cannot see they run (``runs make``), in words
trusted_projects         an error (only the user's file may name trusted folders)
providers                an error (a project must not redirect API keys; see larik.config)
=======================  =====================================================================

Trust comes from, in order: ``--trust-project`` on the command line; the folder being listed in
the user config's ``trusted_projects``; and, in the TUI only, the answer the user gave to "Trust
this folder?". Each holds for a digest of exactly the settings (and the files they run) as they
were, recorded in ``$STATE/trust.json``: the flag and the TUI's answer record it, a
``trusted_projects`` entry with nothing recorded records it on first use. When they change, the
listed folder no longer holds (:attr:`ProjectTrust.changed` says what changed, item by item):
the TUI asks again, print mode and bench apply nothing and say so. Print mode and bench never
use the TUI's answer for a folder that is not listed: a script trusts a project only by flag or
by the user's config.

This module is the policy (:data:`GATED`, :func:`split_project`, :class:`ProjectTrust`) and the
remembered answers; the gated settings in words are :mod:`larik.trust_words`'s, and what
trusting lets run beyond those words (program files, shell lines) :mod:`larik.trust_runs`'s.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from .llm import jsontext
from .modes import STRICTEST_FIRST

__all__ = [
    "BLOCKED",
    "CLAUDE_HOOKS",
    "COMMAND_SHELL",
    "GATED",
    "MCP_JSON",
    "GATED_TABLES",
    "MODE_STRICTNESS",
    "PROGRAM_FILES",
    "PROGRAM_UNSEEN",
    "ProjectTrust",
    "changes",
    "digest",
    "forget",
    "in_project",
    "items",
    "recall",
    "recorded",
    "remember",
    "server_target",
    "short",
    "shown_command",
    "split_project",
    "trust_file",
]

#: Permission modes from the strictest to the loosest.
MODE_STRICTNESS: tuple[str, ...] = STRICTEST_FIRST

#: Top-level tables a project brings that run programs: ignored unless trusted.
GATED_TABLES = ("hooks", "mcp", "commands", "lsp")

#: The key a project's ``.mcp.json`` (its ``mcpServers``, as ``[mcp.servers]`` tables) is
#: gated under: it starts programs like ``[mcp]`` does.
MCP_JSON = ".mcp.json"

#: The key the hooks of a project's ``.claude/settings.json`` and ``settings.local.json`` (path
#: -> ``[hooks]`` tables; larik.hooks.config.claude_settings_hooks) are gated under.
CLAUDE_HOOKS = ".claude hooks"
#: In a CLAUDE_HOOKS entry: why that file's hooks cannot be read (an error once trusted).
UNREADABLE = "(unreadable)"

#: The key a project's command files with ``!`…``` shell lines are gated under (path ->
#: SHA-256 of the file; ``larik.custom_commands``): the lines run only once trusted.
COMMAND_SHELL = "commands.shell"

#: The key the files inside the project that its hooks and MCP servers run are gated under
#: (path relative to the root -> SHA-256; larik.trust_runs.programs): trusting
#: them trusts these files as they are, so a changed one is a new question (as a changed
#: command file is).
PROGRAM_FILES = "programs.files"
#: The key of what the digest cannot see that they run, in words (``runs make: …``).
PROGRAM_UNSEEN = "programs.unseen"

#: What an untrusted project's setting does, by dotted key (a test walks this table).
GATED: dict[str, Literal["tighten-only", "ignored", "merged"]] = {
    "permissions.mode": "tighten-only",
    "permissions.allow": "ignored",
    "permissions.deny": "merged",
    **{table: "ignored" for table in GATED_TABLES},
    MCP_JSON: "ignored",
    CLAUDE_HOOKS: "ignored",
    COMMAND_SHELL: "ignored",
    PROGRAM_FILES: "ignored",
    PROGRAM_UNSEEN: "ignored",
    "checkpoints": "tighten-only",  # may turn them on, not off (they are how /undo works)
    "sandbox.mode": "tighten-only",
    "sandbox.network": "tighten-only",  # may turn it off, not on
    "sandbox.writable": "ignored",
    "web_fetch.allow_private": "ignored",  # a project must not open the private network
    "budget.session_usd": "tighten-only",  # may lower the user's limit, not raise it
    "budget.turn_usd": "tighten-only",
    "prefer": "ignored",  # routes roles to the user's signed-in plans: spends their quota
}

_FILE_NAME = "trust.json"


@dataclass(frozen=True)
class ProjectTrust:
    """What a project's config asks for that needs the user's trust.

    ``asks`` lists each gated setting in words (for the dialog and for the "ignored" line);
    ``digest`` fingerprints exactly those settings, so a remembered answer holds only while
    they stay the same. ``trusted`` says whether they were applied, ``source`` why."""

    root: Path
    config_file: Path
    asks: tuple[str, ...]
    digest: str
    gated: Mapping[str, Any] = field(default_factory=dict, repr=False)
    trusted: bool = False
    source: Literal["", "flag", "config", "remembered"] = ""
    declined: bool = False  # the user said no in the TUI (for these very settings)
    #: In a project of ``trusted_projects``: what changed since the user last trusted it
    #: (:func:`changes`); empty otherwise. Such a change is not applied until asked again.
    changed: tuple[str, ...] = ()
    changed_since: str = "you trusted it"  # or "you said no": the answer ``changed`` is against
    notice: str = ""  # for the user: e.g. the trust could not be recorded

    def blocked_servers(self) -> list[tuple[str, str, str]]:
        """The MCP servers that do not start because the project is not trusted, as
        ``(name, the file naming it, its command line or URL)``; none once trusted."""
        if self.trusted:
            return []
        mcp = self.gated.get("mcp")
        try:
            config = str(self.config_file.relative_to(self.root))
        except ValueError:
            config = str(self.config_file)
        out = []
        for where, table in (
            (config, mcp.get("servers") if isinstance(mcp, Mapping) else None),
            (MCP_JSON, self.gated.get(MCP_JSON)),
        ):
            for name, server in table.items() if isinstance(table, Mapping) else ():
                out.append((str(name), where, server_target(server)))
        return out

    def ignored_line(self) -> str:
        """One line for stderr when the settings were not applied."""
        if self.changed:
            return (
                f"larik: {self.config_file}: not applied: the project changed since you trusted "
                f"it ({'; '.join(self.changed)}). Pass --trust-project to trust it as it is "
                "now (or say yes in the TUI)"
            )
        if self.declined:
            return (
                f"larik: {self.config_file}: not applied: you declined these settings in the "
                "TUI. Pass --trust-project to trust them (larik trust shows the answer)"
            )
        return (
            f"larik: {self.config_file}: ignored (untrusted project): {'; '.join(self.asks)}. "
            "Pass --trust-project, or add the folder to trusted_projects in your user config"
        )


def split_project(
    data: Mapping[str, Any],
    user_mode: str,
    user_sandbox: str = "workspace-write",
    user_budget: Mapping[str, Any] | None = None,
) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """Split a project file's data into what always applies and what needs trust.

    Returns ``(always, gated, deny)``: ``always`` is the data without the gated settings,
    ``gated`` the settings that wait for trust (as dotted keys), ``deny`` the project's deny
    rules (merged with the user's by the caller, trusted or not)."""
    always = {k: v for k, v in data.items() if k not in GATED_TABLES}
    gated: dict[str, Any] = {k: data[k] for k in GATED_TABLES if k in data}
    perms = (
        dict(data.get("permissions") or {}) if isinstance(data.get("permissions"), Mapping) else {}
    )
    deny = list(perms.pop("deny", []) or [])
    if "allow" in perms:
        allow = perms.pop("allow")
        if allow:
            gated["permissions.allow"] = allow
    if "mode" in perms:
        mode = perms["mode"]
        if _looser(mode, user_mode):
            gated["permissions.mode"] = perms.pop("mode")
    if "permissions" in data:
        always["permissions"] = perms
    if always.get("checkpoints") is False:
        gated["checkpoints"] = always.pop("checkpoints")
    if isinstance(data.get("sandbox"), Mapping):
        box = dict(data["sandbox"])
        if "mode" in box and _looser(box["mode"], user_sandbox, SANDBOX_STRICTNESS):
            gated["sandbox.mode"] = box.pop("mode")
        if box.get("network") is True:
            gated["sandbox.network"] = box.pop("network")
        if "writable" in box:
            writable = box.pop("writable")
            if writable:
                gated["sandbox.writable"] = writable
        always["sandbox"] = box
    if isinstance(data.get("web_fetch"), Mapping):
        web = dict(data["web_fetch"])
        if web.get("allow_private"):
            gated["web_fetch.allow_private"] = web.pop("allow_private")
        always["web_fetch"] = web
    if isinstance(data.get("budget"), Mapping):
        budget, mine = dict(data["budget"]), user_budget or {}
        for key in ("session_usd", "turn_usd"):
            if key in budget and _raises(budget[key], mine.get(key)):
                gated[f"budget.{key}"] = budget.pop(key)
        always["budget"] = budget
    if isinstance(data.get("prefer"), Mapping) and data["prefer"]:
        gated["prefer"] = always.pop("prefer")  # merged as a table once trusted (load.py)
    return always, gated, deny


def _raises(limit: Any, user_limit: Any) -> bool:
    """A project's spending limit above the user's own (a limit where the user set none only
    tightens; a value that is not a number is left for validation to reject)."""
    number = (int, float)
    return isinstance(limit, number) and isinstance(user_limit, number) and limit > user_limit


#: Sandbox modes (larik.sandbox) from the strictest to the loosest.
SANDBOX_STRICTNESS = ("read-only", "workspace-write", "off")


def _looser(mode: Any, than: str, order: tuple[str, ...] = MODE_STRICTNESS) -> bool:
    if mode not in order or than not in order:
        return False  # an unknown mode is left for validation to reject
    return order.index(mode) > order.index(than)


# -- the few words the policy's own answers use (blocked_servers, items, changes) -------------


def server_target(table: Any) -> str:
    """A server's command line or URL, as the trust question shows it."""
    t = table if isinstance(table, Mapping) else {}
    raw = t.get("args")
    args = raw if isinstance(raw, list) else []
    if t.get("command"):  # quoted as a shell would need it: each argument's bounds are seen
        return shown_command(shlex.join(str(a) for a in [t["command"], *args]))
    return shown_command(str(t.get("url") or "?"))


#: How ``/mcp`` and ``larik mcp list`` say a server waits for trust (:meth:`blocked_servers`).
BLOCKED = "blocked: untrusted project"


def shown_command(command: str, limit: int = 200) -> str:
    """A command to show: runs of whitespace as one space (padding cannot push its end out of
    sight), and a longer one cut with the count of what is not shown."""
    text = " ".join(command.split())
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… (+{len(text) - limit} characters not shown)"


def in_project(path: str) -> str:
    """``/home/me/repo/.claude/commands/x.md`` -> ``.claude/commands/x.md``."""
    for marker in ("/.larik/", "/.claude/"):
        i = path.rfind(marker)
        if i >= 0:
            return path[i + 1 :]
    return path


def short(text: str, limit: int = 400) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def digest(gated: Mapping[str, Any]) -> str:
    blob = json.dumps(gated, sort_keys=True, default=str, ensure_ascii=True, allow_nan=True)
    return hashlib.sha256(blob.encode()).hexdigest()


# ------------------------------------------------------------------------ the remembered answers


def trust_file(state: Path) -> Path:
    return state / _FILE_NAME


def _load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def recorded(state: Path, root: Path) -> dict[str, Any] | None:
    """What was last recorded for ``root``: ``digest``, ``trusted`` and ``items``
    (:func:`items`), or None when nothing (or nothing readable) was."""
    entry = _load(trust_file(state)).get(str(root))
    if not isinstance(entry, dict) or not isinstance(entry.get("digest"), str):
        return None
    return entry


def recall(state: Path, root: Path, fingerprint: str) -> bool | None:
    """The user's remembered answer for ``root`` with exactly these settings: True (trusted),
    False (declined) or None (never asked, or the settings changed since)."""
    entry = recorded(state, root)
    if entry is None or entry.get("digest") != fingerprint:
        return None
    answer = entry.get("trusted")
    return answer if isinstance(answer, bool) else None


def remember(
    state: Path,
    root: Path,
    fingerprint: str,
    trusted: bool,
    gated: Mapping[str, Any] | None = None,
) -> None:
    """Record an answer for these settings (atomically, file mode 0600): the TUI's yes or no,
    ``--trust-project``, or a ``trusted_projects`` entry's first use. ``gated`` (the settings
    themselves) lets a later change be named item by item (:func:`changes`)."""
    path = trust_file(state)
    data = _load(path)
    data[str(root)] = {
        "digest": fingerprint,
        "trusted": trusted,
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        **({"items": items(gated)} if gated is not None else {}),
    }
    _write(path, data)


def items(gated: Mapping[str, Any]) -> dict[str, str]:
    """Each gated setting, and each entry of one that is a table (a hook file, an MCP server, a
    file the hooks run), by a short digest: what :func:`changes` compares."""
    out: dict[str, str] = {}
    for key, value in gated.items():
        if (
            key == "mcp"
            and isinstance(value, Mapping)
            and isinstance(value.get("servers"), Mapping)
        ):
            value = value["servers"]
        if isinstance(value, Mapping) and value:
            for name, sub in value.items():
                out[f"{key}: {in_project(str(name))}"] = digest({"v": sub})[:16]
        elif isinstance(value, list) and key == PROGRAM_UNSEEN:
            for note in value:
                out[f"{key}: {note}"] = ""
        else:
            out[key] = digest({"v": value})[:16]
    return out


def changes(before: Mapping[str, Any] | None, gated: Mapping[str, Any]) -> tuple[str, ...]:
    """What differs from what was recorded, in words: ``changed: programs.files:
    .claude/hooks/lib.sh``, ``new: .claude hooks: .claude/settings.json``, ``removed: …``."""
    if not isinstance(before, Mapping):
        return ("what it asks for changed (the earlier settings were not recorded item by item)",)
    now = items(gated)
    new = sorted((k for k in now if k not in before), key=lambda k: not _runs(k))
    out = [f"new: {k}" for k in new]  # what runs a program first: the new commands
    out += [f"changed: {k}" for k in now if k in before and before[k] != now[k]]
    out += [f"removed: {k}" for k in before if k not in now]
    return tuple(short(o, 200) for o in out) or ("what it asks for changed",)


#: The gated keys whose items run programs (:func:`changes` names new ones first).
RUNS = ("hooks", "mcp", "lsp", MCP_JSON, CLAUDE_HOOKS, COMMAND_SHELL, PROGRAM_FILES)


def _runs(item: str) -> bool:
    """Whether an item of :func:`items` (``KEY`` or ``KEY: NAME``) runs a program."""
    return item.partition(": ")[0] in RUNS


def forget(state: Path, root: Path) -> None:
    path = trust_file(state)
    data = _load(path)
    if data.pop(str(root), None) is not None:
        _write(path, data)


def _write(path: Path, data: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(prefix=".trust-", suffix=".json", dir=path.parent)
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            jsontext.dump(data, f, indent=1, sort_keys=True)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
