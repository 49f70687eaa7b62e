"""The ``[hooks]`` config table, and which hooks an event's tool (or source) matches.

::

    [[hooks.PreToolUse]]
    matcher = "bash"                      # or Claude Code's "Bash", "Edit|Write", "mcp__.*"
    command = "~/.config/larik/hooks/no-rm.sh"
    timeout = 30                          # seconds (default 60)

Event names are Claude Code's (:data:`EVENTS`); each is an array of tables. An entry is either
flat (``command``, ``timeout``) or Claude Code's nested shape, ``hooks = [{type = "command",
command = "…", timeout = 30}]``, so a ``.claude/settings.json`` block translates line for line.

**Matchers** (PreToolUse, PostToolUse: the tool; SubagentStop: the subagent's role;
PreCompact: ``manual`` / ``auto``; SessionStart: the source, ``startup`` / ``resume`` /
``compact``; SessionEnd: the reason; Notification: its ``notification_type``;
UserPromptSubmit and Stop have none) follow Claude Code: empty or ``*``
matches everything; a matcher of only letters, digits, ``_`` and ``|`` is a list of exact
names; anything else is a regular expression searched in the name (``re.search``, case
sensitive). A tool is matched under its Larik name and its Claude Code names
(:data:`CLAUDE_NAMES`: ``Bash`` is ``bash``, ``Edit`` and ``MultiEdit`` are ``edit_file``, …),
so matchers written for Claude Code work unchanged; the hook is told the name its matcher
matched (:meth:`HookEntry.matched_name`).

This module is a leaf (pydantic and ``re`` only): the config validates with it.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

__all__ = [
    "CLAUDE_NAMES",
    "EVENTS",
    "MAX_TIMEOUT",
    "HookCommand",
    "HookEntry",
    "HooksConfig",
    "claude_settings_hooks",
    "tool_names",
]

EVENTS = (
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "Stop",
    "SubagentStop",
    "PreCompact",
    "SessionStart",
    "SessionEnd",
    "Notification",
)
#: Claude Code's events Larik does not fire: named in the error, so a port says what is missing.
UNSUPPORTED = (
    "PostToolUseFailure",
    "PermissionRequest",
    "SubagentStart",
    "PostCompact",
)
DEFAULT_TIMEOUT = 60.0
MAX_TIMEOUT = 600.0

#: Larik's tool -> the names Claude Code gives the same tool (the first is the one a hook sees
#: when only a Claude Code name matched). Tools Claude Code has and Larik has not (WebSearch,
#: NotebookEdit…) never match; MCP tools have the same ``mcp__server__tool`` names in both.
CLAUDE_NAMES: dict[str, tuple[str, ...]] = {
    "bash": ("Bash",),
    "read_file": ("Read",),
    "write_file": ("Write",),
    "edit_file": ("Edit", "MultiEdit"),
    "grep": ("Grep",),
    "glob": ("Glob",),
    "task": ("Task", "Agent"),
    "job_output": ("BashOutput",),
    "job_stop": ("KillShell", "KillBash"),
    "web_fetch": ("WebFetch",),
}

_NAMES = re.compile(r"[A-Za-z0-9_|]+")


def tool_names(name: str) -> tuple[str, ...]:
    """The names a hook matcher may match a tool under: Larik's first."""
    return (name, *CLAUDE_NAMES.get(name, ()))


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True, allow_inf_nan=False)


class HookCommand(_Strict):
    """One command in Claude Code's nested shape (``hooks = [{type = "command", …}]``)."""

    type: Literal["command"] = "command"
    """Only "command" hooks run in Larik."""
    command: str = Field(min_length=1)
    """The shell command (run with ``bash -c`` in the project root)."""
    timeout: float = Field(default=DEFAULT_TIMEOUT, gt=0, le=MAX_TIMEOUT)
    """Seconds before the hook and everything it started are killed."""


class HookEntry(_Strict):
    """One ``[[hooks.EVENT]]`` table."""

    matcher: str = ""
    """Which tools (or session-start sources) it runs for; "" or "*" for all."""
    command: str = ""
    """The shell command (run with ``bash -c`` in the project root)."""
    timeout: float = Field(default=DEFAULT_TIMEOUT, gt=0, le=MAX_TIMEOUT)
    """Seconds before the hook and everything it started are killed."""
    hooks: list[HookCommand] = Field(default_factory=list)
    """Claude Code's nested shape, instead of ``command``."""
    network: bool = False
    """true: the hook may use the network in the OS sandbox (cut by default, as for bash)."""
    sandbox: bool = True
    """false: run it outside the OS sandbox — honoured in your own config only; a project's
    hooks always run sandboxed."""

    _source: str = PrivateAttr(default="")
    _user: bool = PrivateAttr(default=False)
    _pattern: re.Pattern[str] | None = PrivateAttr(default=None)

    @field_validator("matcher")
    @classmethod
    def _check_matcher(cls, v: str) -> str:
        if v not in ("", "*") and not _NAMES.fullmatch(v):
            try:
                re.compile(v)
            except re.error as e:
                raise ValueError(f"not a regular expression: {e}") from None
        return v

    @model_validator(mode="after")
    def _one_shape(self) -> HookEntry:
        if bool(self.command.strip()) == bool(self.hooks):
            raise ValueError("give either command or hooks = [{command = …}], not both or neither")
        if self.matcher not in ("", "*") and not _NAMES.fullmatch(self.matcher):
            self._pattern = re.compile(self.matcher)
        return self

    @property
    def source(self) -> str:
        """The config file it came from ("" when built in code)."""
        return self._source

    @property
    def user(self) -> bool:
        """Whether it came from the user's own config (not a project's, not built in code)."""
        return self._user

    @property
    def unsandboxed(self) -> bool:
        """It runs outside the OS sandbox: ``sandbox = false`` in the user's own config."""
        return not self.sandbox and self._user

    def commands(self) -> list[HookCommand]:
        """What runs when it matches, in order."""
        if self.hooks:
            return list(self.hooks)
        return [HookCommand(command=self.command, timeout=self.timeout)]

    def matched_name(self, names: tuple[str, ...]) -> str | None:
        """The first of ``names`` this entry's matcher matches, or None."""
        if self.matcher in ("", "*"):
            return names[0]
        if self._pattern is None:
            wanted = set(self.matcher.split("|"))
            return next((n for n in names if n in wanted), None)
        return next((n for n in names if self._pattern.search(n)), None)


class HooksConfig(_Strict):
    """``[hooks]``: commands run at events, Claude Code's contract (see docs/hooks.md)."""

    PreToolUse: list[HookEntry] = Field(default_factory=list)
    """Before a tool call: may block it, change its input, or ask the user."""
    PostToolUse: list[HookEntry] = Field(default_factory=list)
    """After a tool call that ran: may tell the model something about the result."""
    UserPromptSubmit: list[HookEntry] = Field(default_factory=list)
    """When the user sends a prompt: may block it or add context."""
    Stop: list[HookEntry] = Field(default_factory=list)
    """When the agent is about to end its turn: may make it carry on."""
    SubagentStop: list[HookEntry] = Field(default_factory=list)
    """When a subagent (the task tool) is about to answer: may make it carry on."""
    PreCompact: list[HookEntry] = Field(default_factory=list)
    """Before the conversation is compacted (matcher: manual or auto): cannot stop it."""
    SessionStart: list[HookEntry] = Field(default_factory=list)
    """When a session starts, resumes or is compacted: may add context."""
    SessionEnd: list[HookEntry] = Field(default_factory=list)
    """When a session ends (matcher: the reason): for clean-up, cannot stop it."""
    Notification: list[HookEntry] = Field(default_factory=list)
    """When the TUI notifies you (matcher: permission_prompt, idle_prompt, job_finished)."""

    @model_validator(mode="before")
    @classmethod
    def _known_events(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for key in data:
                if key in EVENTS:
                    continue
                if key in UNSUPPORTED:
                    raise ValueError(
                        f"the event {key!r} is not one Larik runs (it runs {', '.join(EVENTS)})"
                    )
                near = difflib.get_close_matches(str(key), EVENTS, n=1, cutoff=0.6)
                hint = f" (did you mean {near[0]!r}?)" if near else ""
                raise ValueError(f"unknown hook event {str(key)[:40]!r}{hint}")
        return data

    def entries(self, event: str) -> list[HookEntry]:
        return list(getattr(self, event))

    def any(self) -> bool:
        return any(self.entries(e) for e in EVENTS)

    def mark_source(self, source: str, *, user: bool = False) -> None:
        """Where these hooks came from; ``user``: the user's own config (only its entries may
        run outside the OS sandbox)."""
        for event in EVENTS:
            for entry in self.entries(event):
                entry._source, entry._user = source, user

    def extended(self, other: HooksConfig) -> HooksConfig:
        """These hooks, then ``other``'s, event by event (sources kept)."""
        out = HooksConfig()
        for event in EVENTS:
            setattr(out, event, [*self.entries(event), *other.entries(event)])
        return out


MAX_SETTINGS_BYTES = 1 << 20  # a .claude/settings.json larger than this is refused


def claude_settings_hooks(path: Path) -> dict[str, list[dict[str, Any]]]:
    """The ``hooks`` of a Claude Code settings file as ``[hooks]`` tables (raises ValueError
    with a one-line reason when the file cannot be read as JSON).

    Only what Larik runs is kept, so a file written for Claude Code works unchanged: the events
    of :data:`EVENTS` (others — ``PermissionRequest``… — are left out), and
    ``type = "command"`` hooks (``prompt`` and ``agent`` hooks ask a model: left out). The rest of
    the file (permissions, env, model…) is Claude Code's business and is not read."""
    import json

    try:
        raw = path.read_bytes()[: MAX_SETTINGS_BYTES + 1]
    except OSError as e:
        raise ValueError(f"cannot read it: {e.strerror or e}") from None
    if len(raw) > MAX_SETTINGS_BYTES:
        raise ValueError(f"larger than {MAX_SETTINGS_BYTES >> 20} MiB")
    try:
        data = json.loads(raw.decode("utf-8", "replace") or "{}")
    except (ValueError, RecursionError) as e:
        raise ValueError(f"not valid JSON ({e})") from None
    hooks = data.get("hooks") if isinstance(data, dict) else None
    if hooks is None:
        return {}
    if not isinstance(hooks, dict):
        raise ValueError("hooks: not an object")
    out: dict[str, list[dict[str, Any]]] = {}
    for event, entries in hooks.items():
        if event not in EVENTS:
            continue
        if not isinstance(entries, list):
            raise ValueError(f"hooks.{str(event)[:40]}: not a list")
        kept = []
        for entry in entries:
            if not isinstance(entry, dict):
                raise ValueError(f"hooks.{event}: an entry is not an object")
            commands = entry.get("hooks")
            if not isinstance(commands, list):
                raise ValueError(f"hooks.{event}: an entry has no hooks list")
            runs = [
                {k: c[k] for k in ("type", "command", "timeout") if k in c}
                for c in commands
                if isinstance(c, dict) and c.get("type", "command") == "command"
            ]
            if runs:
                matcher = entry.get("matcher", "")
                kept.append({"matcher": matcher, "hooks": runs})
        if kept:
            out[event] = kept
    return out
