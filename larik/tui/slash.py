"""Slash commands: one small object per command, in one table, ``COMMANDS``.

A command is a :class:`SlashCommand`: its name and aliases, its usage and one-line help, and its
handler, ``async (chat, arg)``, where ``chat`` is the
:class:`~larik.tui.screens.chat.ChatScreen` it was typed in. The table drives parsing,
completion, ``/help`` and dispatch (:func:`run`), and the tests walk it: every command has a
handler, a help line and a test named ``test_slash_<name>_…`` (tests/tui/test_commands.py).
Adding one is a handler here, a row in ``COMMANDS`` and that test (docs/architecture.md).

Handlers use the chat screen's public methods (``say``, ``need_agent``, ``idle``,
``switch_model``, ``replace_agent``, …). The screens they open are imported when opened, so
none is imported before the first frame.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..llm.errors import LarikError
from . import undo

if TYPE_CHECKING:  # annotations only: the chat screen imports this module
    from .protocol import AgentLike
    from .screens.chat import ChatScreen

__all__ = [
    "COMMANDS",
    "SlashCommand",
    "complete",
    "cost_markdown",
    "find",
    "help_markdown",
    "parse",
    "run",
]

Handler = Callable[["ChatScreen", str], Awaitable[None]]

EFFORTS = ("low", "medium", "high", "max")
MODES = {
    "ask": "confirm edits and commands",
    "edits": "edit freely, confirm commands",
    "yolo": "never ask",
    "plan": "read and search only, then a plan to accept or refine",
}


@dataclass(frozen=True, slots=True)
class SlashCommand:
    name: str
    usage: str  # shown in the completion menu and /help: "/name [ARG]"
    summary: str  # the one help line
    handler: Handler
    aliases: tuple[str, ...] = ()


# -- the handlers -----------------------------------------------------------------------------
async def _model(chat: ChatScreen, arg: str) -> None:
    if arg:
        await chat.switch_model(arg)
    else:
        chat.open_model_picker()


async def _routing(chat: ChatScreen, arg: str) -> None:
    if chat.config is None:
        chat.say("routing needs a config", "error")
        return
    if chat.local_models is None:
        await chat.find_local()
    from .screens.routing import RoutingScreen

    def closed(summary: str | None) -> None:
        if summary:
            chat.say(summary)

    screen = RoutingScreen(chat.config, chat.entries(), current=chat.current_spec())
    chat.app.push_screen(screen, callback=closed)


async def _effort(chat: ChatScreen, arg: str) -> None:
    agent = chat.need_agent()
    if agent is None:
        return
    level = arg.lower()
    if not level:
        chat.say(
            f"effort: {agent.effort or 'default'} (set with /effort low|medium|high|max|default)"
        )
        return
    if level not in (*EFFORTS, "default"):
        chat.say(f"unknown effort {arg!r}: use low, medium, high, max or default", "error")
        return
    was = agent.effort or "default"
    agent.effort = "" if level == "default" else level
    chat.say(f"effort: {level} (was {was}; from the next turn)")
    chat.refresh_status()


async def _compact(chat: ChatScreen, arg: str) -> None:
    if chat.need_agent() is None or not chat.idle("/compact"):
        return
    chat.start_turn(None, compact=True)  # the activity line says it is compacting


async def _clear(chat: ChatScreen, arg: str) -> None:
    old = chat.need_agent()
    if old is None or not chat.idle("/clear"):
        return
    await chat.replace_agent(old, resume=None)


async def _resume(chat: ChatScreen, arg: str) -> None:
    old = chat.need_agent()
    if old is None or not chat.idle("/resume"):
        return
    if arg:
        await chat.replace_agent(old, resume=arg)
        return
    try:
        from ..agent.sessions import list_sessions

        sessions = list_sessions(chat.cwd)
    except Exception as e:  # unreadable sessions: say so
        chat.say(f"cannot list sessions: {e}", "error")
        return
    if not [s for s in sessions if s.id != old.session_id]:
        chat.say("no earlier sessions in this project")
        return

    def picked(session_id: str | None) -> None:
        if session_id and chat.agent is not None:
            chat.run_worker(
                chat.replace_agent(chat.agent, resume=session_id),
                group="agent",
                exit_on_error=False,
            )

    from .screens.sessions import SessionPickerScreen

    chat.app.push_screen(SessionPickerScreen(sessions, current=old.session_id), callback=picked)


async def _cost(chat: ChatScreen, arg: str) -> None:
    agent = chat.need_agent()
    if agent is not None:
        chat.say(cost_markdown(agent, chat.config), as_markdown=True)


async def _permissions(chat: ChatScreen, arg: str) -> None:
    agent = chat.need_agent()
    if agent is None:
        return
    mode = arg.lower()
    if mode:
        if mode not in MODES:
            chat.say(f"unknown mode {arg!r}: use {', '.join(MODES)}", "error")
            return
        was = agent.permission_mode
        agent.permission_mode = mode
        chat.say(f"permission mode: {mode} (was {was}): {MODES[mode]}")
        chat.refresh_status()
        return
    lines = [
        f"permission mode: **{agent.permission_mode}** (set with `/permissions "
        f"{'|'.join(MODES)}`, or Shift+Tab)"
    ]
    lines.append("- " + " · ".join(f"{m}: {what}" for m, what in MODES.items()))
    perms = getattr(chat.config, "permissions", None)
    for kind in ("allow", "deny"):
        rules = getattr(perms, kind, None) or []
        if rules:
            lines.append(f"- {kind}: " + ", ".join(f"`{r}`" for r in rules))
    chat.say("\n".join(lines), as_markdown=True)


async def _hooks(chat: ChatScreen, arg: str) -> None:
    chat.say(hooks_markdown(chat.config), as_markdown=True)


def hooks_markdown(config: Any) -> str:
    """The hooks in effect, event by event (matcher, command, timeout, the file it came from),
    and a project's that do not run because it is not trusted."""
    from ..hooks.config import EVENTS

    hooks = getattr(config, "hooks", None)
    lines = ["**hooks** (docs/hooks.md; edit them in your config, then start again)"]
    for event in EVENTS:
        entries = hooks.entries(event) if hooks is not None else []
        for entry in entries:
            where = f" — {entry.source}" if entry.source else ""
            matcher = f" `{entry.matcher}`" if entry.matcher not in ("", "*") else ""
            for cmd in entry.commands():
                command = " ".join(cmd.command.split())
                command = command if len(command) <= 80 else command[:79] + "…"
                lines.append(f"- {event}{matcher}: {_code(command)} ({cmd.timeout:g} s){where}")
    if len(lines) == 1:
        lines.append("- none configured")
    trust = getattr(config, "project_trust", None)
    if trust is not None and not trust.trusted:
        waiting = [a for a in trust.asks if "runs a hook: " in a]
        if waiting:
            lines.append("\nnot run, the project is not trusted:\n")
            for ask in waiting:  # "FILE runs a hook: EVENT [MATCHER]: COMMAND" (larik/trust.py)
                source, _, hook = ask.partition(" runs a hook: ")
                event, _, command = hook.partition(": ")
                lines.append(f"- {event}: {_code(command)} — {source}")
    return "\n".join(lines)


def _code(text: str) -> str:
    """``text`` as a Markdown code span, whatever backticks it holds."""
    fence = "`" * (max((len(r) for r in re.findall(r"`+", text)), default=0) + 1)
    return f"{fence} {text} {fence}" if "`" in text else f"`{text}`"


async def _help(chat: ChatScreen, arg: str) -> None:
    chat.say(help_markdown(chat), as_markdown=True)


async def _mcp(chat: ChatScreen, arg: str) -> None:
    from . import mcp

    mcp.open_screen(chat)


async def _jobs(chat: ChatScreen, arg: str) -> None:
    agent = chat.need_agent()
    table = getattr(agent, "jobs", None)
    if agent is None or table is None:
        return
    from .screens.jobs import JobsScreen

    chat.app.push_screen(JobsScreen(table))


async def _exit(chat: ChatScreen, arg: str) -> None:
    await chat.quit()


# -- the table --------------------------------------------------------------------------------
COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand(
        "model", "/model [SPEC]", "pick a model, or switch to SPEC (provider/model)", _model
    ),
    SlashCommand(
        "routing", "/routing", "role -> model -> fallbacks: change, apply a preset, save", _routing
    ),
    SlashCommand(
        "effort", "/effort [LEVEL]", "reasoning effort: low, medium, high, max or default", _effort
    ),
    SlashCommand("compact", "/compact", "summarise the conversation to free context", _compact),
    SlashCommand(
        "clear", "/clear", "start a new session (the old one stays saved)", _clear, ("new",)
    ),
    SlashCommand("resume", "/resume [ID]", "open an earlier session of this project", _resume),
    SlashCommand(
        "undo", "/undo", "take back the last turn's file changes (again: the one before)", undo.undo
    ),
    SlashCommand(
        "rewind", "/rewind [N]", "go back to before a turn: code, conversation or both", undo.rewind
    ),
    SlashCommand("fork", "/fork", "go on in a copy of this session (this one is kept)", undo.fork),
    SlashCommand("cost", "/cost", "tokens and cost so far, per model and per role", _cost),
    SlashCommand(
        "permissions",
        "/permissions [MODE]",
        "show or set the permission mode: ask, edits, yolo, plan",
        _permissions,
    ),
    SlashCommand(
        "jobs", "/jobs", "background jobs: command, runtime, state, last lines; stop one", _jobs
    ),
    SlashCommand("mcp", "/mcp", "MCP servers: state, tools; turn one on or off, reconnect", _mcp),
    SlashCommand("hooks", "/hooks", "the hooks in effect: event, matcher, command, file", _hooks),
    SlashCommand("help", "/help", "this list, and the keys", _help, ("?",)),
    SlashCommand("exit", "/exit", "quit (prints how to resume)", _exit, ("quit", "q")),
)


def dynamic(chat: ChatScreen | None) -> list[SlashCommand]:
    """Commands that come and go with the session: each MCP server prompt (``tui/mcp.py``),
    then the custom commands found so far (``tui/custom.py``)."""
    if chat is None:
        return []
    from . import custom

    rows = custom.command_rows(chat)
    if getattr(chat, "mcp", None) is not None:
        from . import mcp

        rows = [*mcp.prompt_commands(chat), *rows]
    return [SlashCommand(*row) for row in rows]


def builtin_names() -> frozenset[str]:
    """The built-in commands' names and aliases: no custom command may take one."""
    return frozenset(n for c in COMMANDS for n in (c.name, *c.aliases))


def find(name: str, chat: ChatScreen | None = None) -> SlashCommand | None:
    name = name.lower()
    for c in [*COMMANDS, *dynamic(chat)]:
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


def complete(prefix: str, chat: ChatScreen | None = None) -> list[SlashCommand]:
    """Commands whose name (or an alias) starts with ``prefix`` (without the slash)."""
    p = prefix.lower()
    return [
        c
        for c in [*COMMANDS, *dynamic(chat)]
        if c.name.startswith(p) or any(a.startswith(p) for a in c.aliases)
    ]


async def run(chat: ChatScreen, name: str, arg: str) -> None:
    """Run ``/name arg`` typed in ``chat``. An unknown name, a LarikError or a bug in a handler
    is a line in the conversation, never a traceback."""
    cmd = find(name, chat)
    if cmd is None:
        from . import custom

        handler = await custom.find(chat, name, builtin_names())  # a file added since, /short
        if handler is not None:
            await _guarded(chat, name, handler, arg)
            return
        chat.say(f"unknown command /{name}", "error")
        chat.say(help_markdown(chat, commands_only=True), as_markdown=True)
        return
    await _guarded(chat, cmd.name, cmd.handler, arg)


async def _guarded(chat: ChatScreen, name: str, handler: Handler, arg: str) -> None:
    try:
        await handler(chat, arg)
    except LarikError as e:
        chat.say(f"/{name}: {e}", "error")
    except Exception as e:  # a bug must not take the session down: one line, no traceback
        chat.say(f"/{name} failed: {type(e).__name__}: {e}", "error")


KEYS = (
    ("Enter", "send (during a turn: queued, sent when it ends)"),
    ("Ctrl+U", "clear the prompt before the cursor"),
    ("Shift+Enter, Ctrl+J", "new line"),
    ("Up / Down", "prompt history"),
    ("PageUp / PageDown, Ctrl+Home / Ctrl+End", "scroll the conversation"),
    ("Tab", "complete; else go to the newest tool card (Enter opens it)"),
    ("@path", "attach a file (images too)"),
    ("@server:URI", "attach an MCP server's resource"),
    ("!command", "run a shell command here and show its output"),
    ("Esc", "interrupt the running turn"),
    ("Ctrl+C twice", "quit"),
)


def help_markdown(chat: ChatScreen | None = None, *, commands_only: bool = False) -> str:
    """The commands; then, unless ``commands_only``, the keys and how to set API keys."""
    rows = "\n".join(f"| `{c.usage}` | {c.summary} |" for c in [*COMMANDS, *dynamic(chat)])
    if commands_only:
        return f"| command | does |\n|---|---|\n{rows}\n"
    keys = "\n".join(f"| {k} | {v} |" for k, v in KEYS)
    return (
        f"| command | does |\n|---|---|\n{rows}\n\n| key | does |\n|---|---|\n{keys}\n\n"
        + api_keys_markdown()
    )


def api_keys_markdown() -> str:
    """How a hosted provider's models become usable: the key variables (from the registry)."""
    try:
        from .screens.no_model import key_rows

        rows = key_rows()
    except Exception:  # only a hint
        rows = []
    names = ", ".join(f"`{env.split(' or ')[0]}` ({name})" for name, env in rows)
    return (
        f"**API keys.** A hosted model needs its provider's key in the environment: {names}; "
        "or `api_key_env` / `api_key` under `[providers.NAME]` in your config. Local servers "
        "(Ollama, LM Studio, llama.cpp, vLLM) need none. `/model` lists what is usable now.\n"
    )


def cost_markdown(agent: AgentLike, config: Any = None) -> str:
    """Tokens and cost per model (``provider/model``) and per role; a cost reads as the status
    line's does (``cost_text``: ``$0.0000`` for a priced model before its first reply)."""
    from .widgets.status_bar import cost_text, model_priced  # Textual: not for print mode

    usage = agent.usage
    providers = getattr(usage, "providers", {})
    rows = [
        "| model | input | output | cache read | cache write | cost |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for model, u in usage.by_model.items():
        provider = providers.get(model) or (agent.provider_name if model == agent.model else "")
        name = f"{provider}/{model}" if provider and not model.startswith(f"{provider}/") else model
        cost = cost_text(usage.cost_by_model.get(model), u.total)
        rows.append(
            f"| {name} | {u.input} | {u.output} | {u.cache_read} | {u.cache_write} | {cost} |"
        )
    t = usage.total
    total = cost_text(usage.total_cost, t.total, model_priced(agent, config))
    rows.append(
        f"| **total** | {t.input} | {t.output} | {t.cache_read} | {t.cache_write} | **{total}** |"
    )
    out = "\n".join(rows)
    if usage.by_role:
        out += "\n\n| role | tokens |\n|---|---:|\n" + "\n".join(
            f"| {role or 'main'} | {u.total} |" for role, u in usage.by_role.items()
        )
    from ..llm.signin.quota import describe, latest

    plans = latest()
    if plans:  # a signed-in plan's models cost nothing per token: its windows are the cost
        out += "\n\n**Plan usage:** " + "; ".join(
            f"{name}: {describe(q)}" for name, q in sorted(plans.items())
        )
    return out
