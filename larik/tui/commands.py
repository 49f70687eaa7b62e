"""Slash commands: the table (completion menu, ``/help``, parsing) and their handlers.

``COMMANDS`` lists names, usages and one-line summaries. The handlers are the methods
``cmd_<name>(arg)`` of ``SlashCommands``, a mixin of the app: they use the app's agent,
conversation view, config and screens.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual import work

from ..llm.errors import LarikError
from .widgets.status_bar import UNKNOWN_COST

if TYPE_CHECKING:  # the screens are imported where they are pushed: none is on the first frame
    from .protocol import AgentLike
    from .screens.model_picker import ModelPickerScreen

__all__ = [
    "COMMANDS",
    "Command",
    "SlashCommands",
    "complete",
    "cost_markdown",
    "find",
    "help_markdown",
    "looked_text",
    "parse",
]

EFFORTS = ("low", "medium", "high", "max")
MODES = {
    "ask": "confirm edits and commands",
    "edits": "edit freely, confirm commands",
    "yolo": "never ask",
}


@dataclass(frozen=True, slots=True)
class Command:
    name: str
    usage: str
    summary: str
    aliases: tuple[str, ...] = ()


COMMANDS: tuple[Command, ...] = (
    Command("model", "/model [SPEC]", "pick a model, or switch to SPEC (provider/model)"),
    Command("routing", "/routing", "role -> model -> fallbacks: change, apply a preset, save"),
    Command("effort", "/effort [LEVEL]", "reasoning effort: low, medium, high, max or default"),
    Command("compact", "/compact", "summarise the conversation to free context"),
    Command("clear", "/clear", "start a new session (the old one stays saved)", ("new",)),
    Command("resume", "/resume [ID]", "open an earlier session of this project"),
    Command("cost", "/cost", "tokens and cost so far, per model and per role"),
    Command(
        "permissions", "/permissions [MODE]", "show or set the permission mode: ask, edits, yolo"
    ),
    Command("help", "/help", "this list, and the keys", ("?",)),
    Command("exit", "/exit", "quit (prints how to resume)", ("quit", "q")),
)


def find(name: str) -> Command | None:
    name = name.lower()
    for c in COMMANDS:
        if name == c.name or name in c.aliases:
            return c
    return None


def parse(text: str) -> tuple[str, str] | None:
    """``"/model  openai/gpt-5 "`` -> ``("model", "openai/gpt-5")``; None when not a command.

    A line that starts with ``//`` or ``/`` followed by a space, or that looks like a path
    (``/usr/bin …``), is a prompt, not a command.
    """
    s = text.strip()
    if not s.startswith("/") or s.startswith("//") or len(s) < 2 or s[1].isspace():
        return None
    head, _, rest = s[1:].partition(" ")
    if "/" in head:
        return None
    return head.lower(), rest.strip()


def complete(prefix: str) -> list[Command]:
    """Commands whose name (or an alias) starts with ``prefix`` (without the slash)."""
    p = prefix.lower()
    return [c for c in COMMANDS if c.name.startswith(p) or any(a.startswith(p) for a in c.aliases)]


KEYS = (
    ("Enter", "send"),
    ("Shift+Enter, Ctrl+J", "new line"),
    ("Up / Down", "prompt history"),
    ("@path", "attach a file (images too)"),
    ("!command", "run a shell command here and show its output"),
    ("Esc", "interrupt the running turn"),
    ("Ctrl+C twice", "quit"),
)


def help_markdown() -> str:
    rows = "\n".join(f"| `{c.usage}` | {c.summary} |" for c in COMMANDS)
    keys = "\n".join(f"| {k} | {v} |" for k, v in KEYS)
    return f"| command | does |\n|---|---|\n{rows}\n\n| key | does |\n|---|---|\n{keys}\n"


class SlashCommands:
    """The handlers, mixed into the app (which provides ``agent``, ``conv``, ``config``, …)."""

    agent: Any
    conv: Any
    config: Any
    cwd: Any
    busy: bool
    local_models: Any
    factory: Any
    approve: Any

    if TYPE_CHECKING:

        def say(self, text: str, level: str = "info", *, as_markdown: bool = False) -> None: ...
        def _need_agent(self) -> AgentLike | None: ...
        def _idle(self, what: str) -> bool: ...
        def current_spec(self) -> str: ...
        def _entries(self) -> list[Any]: ...
        async def _find_local(self) -> list[Any]: ...
        async def _start_agent(self, model: str = "", resume: str | None = None) -> None: ...
        async def _use_agent(self, agent: Any, *, keep_settings_from: Any = None) -> None: ...
        def _refresh_status(self) -> None: ...
        def warm_up_sdk(self) -> None: ...
        def start_turn(self, prompt: Any, *, compact: bool = False) -> None: ...
        async def quit_app(self) -> None: ...
        def push_screen(self, *args: Any, **kwargs: Any) -> Any: ...
        def run_worker(self, *args: Any, **kwargs: Any) -> Any: ...

    async def run_command(self, name: str, arg: str) -> None:
        cmd = find(name)
        if cmd is None:
            self.say(f"unknown command /{name}", "error")
            self.say(help_markdown(), as_markdown=True)
            return
        try:
            await getattr(self, f"cmd_{cmd.name}")(arg)
        except LarikError as e:
            self.say(f"/{cmd.name}: {e}", "error")
        except Exception as e:  # a bug must not take the session down: one line, no traceback
            self.say(f"/{cmd.name} failed: {type(e).__name__}: {e}", "error")

    async def cmd_model(self, arg: str) -> None:
        if arg:
            await self.switch_model(arg)
            return
        from .screens.model_picker import ModelPickerScreen

        picker = ModelPickerScreen(self._entries(), current=self.current_spec())
        self.push_screen(picker, callback=self._picked_model)
        self._discover_into(picker)

    @work(group="discover", exclusive=True, exit_on_error=False)
    async def _discover_into(self, picker: ModelPickerScreen) -> None:
        local: list[Any] = []
        try:
            local = await self._find_local()
        finally:  # found, failed or cancelled: the picker stops saying it is looking
            entries = [e for e in self._entries() if e.source == "local"]
            if picker.is_attached:
                picker.add_local(entries, looked_text(local))

    def _picked_model(self, spec: str | None) -> None:
        if spec:
            self.run_worker(
                self.switch_model(spec), group="switch", exclusive=True, exit_on_error=False
            )

    async def switch_model(self, spec: str) -> None:
        if self.agent is None:
            await self._start_agent(spec)
            if self.agent is not None:
                self.say(f"model: {self.current_spec()}")
            return
        try:
            if self.busy:
                resolved = self.agent.set_model(spec)
            else:  # building a provider may import its SDK: keep the screen live meanwhile
                resolved = await asyncio.to_thread(self.agent.set_model, spec)
        except LarikError as e:
            self.say(f"cannot switch to {spec}: {e}", "error")
            return
        except Exception as e:  # one line, never a traceback
            self.say(f"cannot switch to {spec}: {type(e).__name__}: {e}", "error")
            return
        shown = getattr(resolved, "spec", "") or self.current_spec()
        self.say(f"model: {shown} (the conversation goes on)")
        self._refresh_status()
        self.warm_up_sdk()

    async def cmd_routing(self, arg: str) -> None:
        if self.config is None:
            self.say("routing needs a config", "error")
            return
        if self.local_models is None:
            await self._find_local()
        from .screens.routing import RoutingScreen

        self.push_screen(RoutingScreen(self.config, self._entries()), callback=self._routed)

    def _routed(self, summary: str | None) -> None:
        if summary:
            self.say(summary)

    async def cmd_effort(self, arg: str) -> None:
        agent = self._need_agent()
        if agent is None:
            return
        level = arg.lower()
        if not level:
            self.say(
                f"effort: {agent.effort or 'default'} (set with /effort low|medium|high|max|default)"
            )
            return
        if level not in (*EFFORTS, "default"):
            self.say(f"unknown effort {arg!r}: use low, medium, high, max or default", "error")
            return
        was = agent.effort or "default"
        agent.effort = "" if level == "default" else level
        self.say(f"effort: {level} (was {was}; from the next turn)")
        self._refresh_status()

    async def cmd_compact(self, arg: str) -> None:
        if self._need_agent() is None or not self._idle("/compact"):
            return
        self.say("compacting the conversation…")
        self.start_turn(None, compact=True)

    async def cmd_clear(self, arg: str) -> None:
        old = self._need_agent()
        if old is None or not self._idle("/clear"):
            return
        await self._replace_agent(old, resume=None)

    async def _replace_agent(self, old: AgentLike, *, resume: str | None) -> None:
        try:
            new = await self.factory(
                approver=self.approve, model=self.current_spec(), resume=resume
            )
        except LarikError as e:
            self.say(str(e), "error")
            return
        except Exception as e:  # one line, never a traceback; the old session goes on
            self.say(f"could not open the session: {type(e).__name__}: {e}", "error")
            return
        try:
            await old.close()
        except Exception:  # the old session is saved already
            pass
        await self.conv.clear()
        await self._use_agent(new, keep_settings_from=old)
        if resume is None:
            self.say(f"new session {new.session_id}")
        elif not new.messages:
            self.say(f"resumed session {new.session_id} (no messages yet)")

    async def cmd_resume(self, arg: str) -> None:
        old = self._need_agent()
        if old is None or not self._idle("/resume"):
            return
        if arg:
            await self._replace_agent(old, resume=arg)
            return
        try:
            from ..agent.sessions import list_sessions

            sessions = list_sessions(self.cwd)
        except Exception as e:  # unreadable sessions: say so
            self.say(f"cannot list sessions: {e}", "error")
            return
        if not [s for s in sessions if s.id != old.session_id]:
            self.say("no earlier sessions in this project")
            return

        def picked(session_id: str | None) -> None:
            if session_id and self.agent is not None:
                self.run_worker(
                    self._replace_agent(self.agent, resume=session_id),
                    group="agent",
                    exit_on_error=False,
                )

        from .screens.sessions import SessionPickerScreen

        self.push_screen(SessionPickerScreen(sessions, current=old.session_id), callback=picked)

    async def cmd_cost(self, arg: str) -> None:
        agent = self._need_agent()
        if agent is None:
            return
        self.say(cost_markdown(agent), as_markdown=True)

    async def cmd_permissions(self, arg: str) -> None:
        agent = self._need_agent()
        if agent is None:
            return
        mode = arg.lower()
        if mode:
            if mode not in MODES:
                self.say(f"unknown mode {arg!r}: use ask, edits or yolo", "error")
                return
            was = agent.permission_mode
            agent.permission_mode = mode
            self.say(f"permission mode: {mode} (was {was}): {MODES[mode]}")
            self._refresh_status()
            return
        lines = [
            f"permission mode: **{agent.permission_mode}** (set with `/permissions ask|edits|yolo`)"
        ]
        lines.append("- " + " · ".join(f"{m}: {what}" for m, what in MODES.items()))
        perms = getattr(self.config, "permissions", None)
        for kind in ("allow", "deny"):
            rules = getattr(perms, kind, None) or []
            if rules:
                lines.append(f"- {kind}: " + ", ".join(f"`{r}`" for r in rules))
        self.say("\n".join(lines), as_markdown=True)

    async def cmd_help(self, arg: str) -> None:
        self.say(help_markdown(), as_markdown=True)

    async def cmd_exit(self, arg: str) -> None:
        await self.quit_app()


def looked_text(local: list[Any]) -> str:
    """The picker's footer once the search for local servers is over."""
    return f"{len(local)} local model(s) found" if local else "no local server answered"


def cost_markdown(agent: AgentLike) -> str:
    def money(v: float | None) -> str:
        return f"${v:.4f}" if v is not None else UNKNOWN_COST

    rows = [
        "| model | input | output | cache read | cache write | cost |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for model, u in agent.usage.by_model.items():
        rows.append(
            f"| {model} | {u.input} | {u.output} | {u.cache_read} | {u.cache_write} | "
            f"{money(agent.usage.cost_by_model.get(model))} |"
        )
    t = agent.usage.total
    rows.append(
        f"| **total** | {t.input} | {t.output} | {t.cache_read} | {t.cache_write} | "
        f"**{money(agent.usage.total_cost)}** |"
    )
    out = "\n".join(rows)
    if agent.usage.by_role:
        out += "\n\n| role | tokens |\n|---|---:|\n" + "\n".join(
            f"| {role or 'main'} | {u.total} |" for role, u in agent.usage.by_role.items()
        )
    return out
