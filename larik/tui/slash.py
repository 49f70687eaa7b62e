"""Slash commands in the TUI: one small object per command, in one table, ``COMMANDS``.

The commands themselves — names, aliases, usage, help line — are the session's
(:data:`larik.session.commands.BUILTINS`, which every face reads); this table gives each its
TUI handler, ``async (session, ui, arg)``: the :class:`~larik.session.Session` it acts on and
the :class:`~larik.tui.ui.UI` it may touch (say, run a worker, and post a message — open a
modal, start a turn, … — that the chat screen handles: larik/tui/messages.py), never the screen. The table drives parsing, completion, ``/help`` and dispatch (:func:`run`),
and the tests walk it: every built-in has a handler, a help line and a test named
``test_slash_<name>_…`` (tests/tui/test_commands.py). Adding one is a row in ``BUILTINS``, a
handler and a row here, and that test (docs/architecture.md).

The screens handlers open are imported when opened, so none is imported before the first frame.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..llm.effort import Effort
from ..llm.errors import LarikError
from ..modes import Mode
from ..session.commands import BUILTINS, builtin, builtin_names, forget_rule, parse, rules_lines
from . import export, hooks_and_trust, undo
from .messages import Find, OpenScreen, Quit, Reopened, StartTurn
from .plan import CYCLE

if TYPE_CHECKING:  # annotations only: nothing of pydantic before the first frame
    from ..session import Session, SessionStatus
    from .ui import UI

__all__ = [
    "COMMANDS",
    "SlashCommand",
    "builtin_names",
    "complete",
    "cost_markdown",
    "find",
    "help_markdown",
    "parse",
    "run",
]

Handler = Callable[["Session", "UI", str], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class SlashCommand:
    name: str
    usage: str  # shown in the completion menu and /help: "/name [ARG]"
    summary: str  # the one help line
    handler: Handler
    aliases: tuple[str, ...] = ()


# -- the handlers -----------------------------------------------------------------------------
async def _model(session: Session, ui: UI, arg: str) -> None:
    if arg.strip() == "default":
        ui.models.make_default(session, ui)
    elif arg:
        await ui.models.switch(session, ui, arg)
    else:
        ui.models.open_picker(session, ui)


async def _init(session: Session, ui: UI, arg: str) -> None:
    if ui.need_agent() and ui.idle("/init"):
        from ..session.init import init_turn

        ui.post(StartTurn(init_turn(session)))


async def _routing(session: Session, ui: UI, arg: str) -> None:
    if ui.config is None:
        ui.say("routing needs a config", "error")
        return
    if ui.models.local is None:
        await ui.models.find_local(ui.config)
    from .screens.routing import RoutingScreen

    def closed(summary: str | None) -> None:
        if summary:
            ui.say(summary)

    entries = ui.models.entries(ui.config, lambda w: ui.say(w, "warning"))
    ui.post(OpenScreen(RoutingScreen(ui.config, entries, current=session.spec), closed))


async def _effort(session: Session, ui: UI, arg: str) -> None:
    if not ui.need_agent():
        return
    level = arg.lower()
    if not level:
        effort = session.status.effort
        ui.say(f"effort: {effort} (set with /effort {Effort.words('|')})")
        return
    try:
        was = session.settings.set_effort(level)
    except LarikError as e:
        ui.say(str(e), "error")
        return
    applies = session.status.effort_applies
    if level != "default" and applies is False:
        ui.say(
            f"effort: {level} (was {was}) — it has no effect on {session.spec}: the model "
            "takes no reasoning effort",
            "warning",
        )
        return
    if level != "default" and applies is None:
        ui.say(
            f"effort: {level} (was {was}) — kept, but Larik does not know whether "
            f"{session.spec} takes a reasoning effort: it is sent from the next turn and may "
            "be ignored",
            "warning",
        )
        return
    ui.say(f"effort: {level} (was {was}; from the next turn)")


async def _compact(session: Session, ui: UI, arg: str) -> None:
    if ui.need_agent() and ui.idle("/compact"):
        ui.post(StartTurn(session.compact()))  # the activity line says it is compacting


async def _clear(session: Session, ui: UI, arg: str) -> None:
    if ui.need_agent() and ui.idle("/clear"):
        await replace(session, ui, None)


async def replace(session: Session, ui: UI, resume: str | None) -> bool:
    """A new session (``resume`` None) or an earlier one in place of this one; effort and
    permission mode carry over. If it cannot be opened, this one goes on (False)."""
    try:
        if resume is None:
            await session.store.clear()
        else:
            await session.store.resume(resume)
    except LarikError as e:
        ui.say(str(e), "error")
        return False
    except Exception as e:  # one line, never a traceback; the old session goes on
        ui.say(f"could not open the session: {type(e).__name__}: {e}", "error")
        return False
    ui.post(Reopened())
    if resume is None:
        ui.say(f"new session {session.session_id}")
    elif not session.status.messages:
        ui.say(f"resumed session {session.session_id} (no messages yet)")
    return True


async def _resume(session: Session, ui: UI, arg: str) -> None:
    if not ui.need_agent() or not ui.idle("/resume"):
        return
    if arg:
        await replace(session, ui, arg)
        return
    try:
        sessions = session.store.sessions()
    except Exception as e:  # unreadable sessions: say so
        ui.say(f"cannot list sessions: {e}", "error")
        return
    if not [s for s in sessions if s.id != session.session_id]:
        ui.say("no earlier sessions in this project")
        return

    def picked(session_id: str | None) -> None:
        if session_id and session.ready:
            ui.run(replace(session, ui, session_id), "agent")

    from .screens.sessions import SessionPickerScreen

    ui.post(OpenScreen(SessionPickerScreen(sessions, current=session.session_id), picked))


async def _cost(session: Session, ui: UI, arg: str) -> None:
    if ui.need_agent():
        ui.say(
            cost_markdown(session.status, ui.config, session.settings.budget),
            as_markdown=True,
        )


async def _permissions(session: Session, ui: UI, arg: str) -> None:
    if not ui.need_agent():
        return
    mode = arg.lower()
    if mode.split()[:1] == ["forget"]:
        _forget_rule(session, ui, mode.removeprefix("forget").strip())
        return
    if mode:
        try:
            was = session.settings.set_mode(mode)
        except LarikError as e:
            ui.say(str(e), "error")
            return
        ui.say(f"permission mode: {mode} (was {was}): {Mode(mode).description}")
        return
    lines = [
        f"permission mode: **{session.permission_mode}** (set with `/permissions "
        f"{'|'.join(Mode)}`, or Shift+Tab)"
    ]
    lines.append("- " + " · ".join(f"{m}: {m.description}" for m in Mode))
    lines += rules_lines(session.settings.rules())
    ui.say("\n".join(lines), as_markdown=True)


def _forget_rule(session: Session, ui: UI, arg: str) -> None:
    try:
        ui.say(forget_rule(session, arg), as_markdown=True)
    except ValueError as e:
        ui.say(str(e), "error")


async def _help(session: Session, ui: UI, arg: str) -> None:
    ui.say(help_markdown(session), as_markdown=True)


async def _mcp(session: Session, ui: UI, arg: str) -> None:
    from . import mcp

    mcp.open_screen(session, ui)


async def _lsp(session: Session, ui: UI, arg: str) -> None:
    ui.say("language servers (docs/lsp.md)\n" + session.servers.lsp_status())


async def _jobs(session: Session, ui: UI, arg: str) -> None:
    table = session.servers.jobs
    if not ui.need_agent() or table is None:
        return
    from .screens.jobs import JobsScreen

    ui.post(OpenScreen(JobsScreen(table)))


async def _theme(session: Session, ui: UI, arg: str) -> None:
    from . import prefs  # the theme's code: not before the first frame

    await prefs.theme(session, ui, arg)


async def _keys(session: Session, ui: UI, arg: str) -> None:
    from . import prefs

    await prefs.keys(session, ui, arg)


async def _vim(session: Session, ui: UI, arg: str) -> None:
    from . import prefs

    await prefs.vim(session, ui, arg)


async def _find(session: Session, ui: UI, arg: str) -> None:
    ui.post(Find(arg))  # the search bar (Ctrl+F): larik/tui/find.py


async def _exit(session: Session, ui: UI, arg: str) -> None:
    ui.post(Quit())


# -- the table --------------------------------------------------------------------------------
HANDLERS: dict[str, Handler] = {
    "model": _model,
    "routing": _routing,
    "effort": _effort,
    "init": _init,
    "compact": _compact,
    "clear": _clear,
    "resume": _resume,
    "undo": undo.undo,
    "rewind": undo.rewind,
    "fork": undo.fork,
    "cost": _cost,
    "export": export.export,
    "copy": export.copy,
    "find": _find,
    "permissions": _permissions,
    "jobs": _jobs,
    "mcp": _mcp,
    "lsp": _lsp,
    "hooks": hooks_and_trust.hooks,
    "trust": hooks_and_trust.trust,
    "theme": _theme,
    "keys": _keys,
    "vim": _vim,
    "help": _help,
    "exit": _exit,
}
COMMANDS: tuple[SlashCommand, ...] = tuple(
    SlashCommand(b.name, b.usage, b.summary, HANDLERS[b.name], b.aliases) for b in BUILTINS
)


def dynamic(session: Session | None) -> list[SlashCommand]:
    """Commands that come and go with the session: each MCP server prompt, then the custom
    commands found so far (``Session.command_rows``); each runs as a turn."""
    if session is None:
        return []
    return [SlashCommand(*row, _as_turn(row[0])) for row in session.servers.command_rows()]


def _as_turn(name: str) -> Handler:
    async def handler(session: Session, ui: UI, arg: str) -> None:
        await run_as_turn(session, ui, name, arg)

    return handler


async def run_as_turn(session: Session, ui: UI, name: str, arg: str) -> bool:
    """``/name arg`` as a turn (a custom command, an MCP prompt); False: no such command."""
    from ..session import AmbiguousCommand

    if not ui.need_agent() or not ui.idle(f"/{name}"):
        return True
    try:
        turn = await session.run_command(name, arg)
    except AmbiguousCommand as e:
        ui.say(str(e), "warning")
        return True
    if turn is None:
        return False
    ui.post(StartTurn(turn))
    return True


def find(name: str, session: Session | None = None) -> SlashCommand | None:
    name = name.lower()
    for c in [*COMMANDS, *dynamic(session)]:
        if name == c.name or name in c.aliases:
            return c
    return None


def complete(prefix: str, session: Session | None = None) -> list[SlashCommand]:
    """Commands whose name (or an alias) starts with ``prefix`` (without the slash)."""
    p = prefix.lower()
    return [
        c
        for c in [*COMMANDS, *dynamic(session)]
        if c.name.startswith(p) or any(a.startswith(p) for a in c.aliases)
    ]


async def run(session: Session, ui: UI, name: str, arg: str) -> None:
    """Run ``/name arg``. An unknown name, a LarikError or a bug in a handler is a line in the
    conversation, never a traceback."""
    cmd = find(name, session)
    if cmd is None and builtin(name) is None:
        try:  # a command file added since, or a custom command's short name
            if await run_as_turn(session, ui, name, arg):
                return
        except Exception as e:
            ui.say(f"/{name} failed: {type(e).__name__}: {e}", "error")
            return
        ui.say(f"unknown command /{name}", "error")
        ui.say(help_markdown(session, commands_only=True), as_markdown=True)
        return
    if cmd is None:
        return
    try:
        await cmd.handler(session, ui, arg)
    except LarikError as e:
        ui.say(f"/{cmd.name}: {e}", "error")
    except Exception as e:  # a bug must not take the session down: one line, no traceback
        ui.say(f"/{cmd.name} failed: {type(e).__name__}: {e}", "error")


KEYS = (
    ("Enter", "send (during a turn: queued, sent when it ends)"),
    ("Ctrl+U", "clear the prompt before the cursor"),
    ("Shift+Enter, Ctrl+J", "new line"),
    ("Up / Down", "prompt history"),
    ("PageUp / PageDown, Ctrl+Home / Ctrl+End", "scroll the conversation"),
    (
        "Ctrl+F",
        "search the conversation (Enter, F3, Ctrl+G: next hit up; Shift+Enter, Shift+F3: down)",
    ),
    ("Tab", "complete; else go to the newest tool card (Enter opens it)"),
    ("@path", "attach a file (images too)"),
    ("@server:URI", "attach an MCP server's resource"),
    ("!command", "run a shell command here and show its output"),
    (
        "Shift+Tab",
        f"permission mode: {' → '.join(CYCLE)} (and yolo, when started in it); plan mode "
        f"{Mode.PLAN.description} (also /permissions plan)",
    ),
    ("Esc", "interrupt the running turn"),
    ("Ctrl+C twice", "quit"),
    ("/keys", "what each key is bound to; keybindings.toml changes them"),
)


def help_markdown(session: Session | None = None, *, commands_only: bool = False) -> str:
    """The commands; then, unless ``commands_only``, the keys and how to set API keys."""
    rows = "\n".join(f"| `{c.usage}` | {c.summary} |" for c in [*COMMANDS, *dynamic(session)])
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


def cost_markdown(status: SessionStatus, config: Any = None, budget: Any = None) -> str:
    """Tokens and cost per model (``provider/model``) and per role; a cost reads as the status
    line's does (``cost_text``: ``$0.0000`` for a priced model before its first reply); the
    signed-in plans' usage windows (``status.plan_usage``), a table of them; ``budget``: the
    session's budget, spent and left (``larik/session/budget.py``), when set."""
    from .widgets.status_bar import cost_text, model_priced  # Textual: not for print mode

    usage, plans = status.usage, status.plan_usage
    if usage is None:
        return "no model yet"
    rows = [
        "| model | input | output | cache read | cache write | cost |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for model, u in usage.by_model.items():
        name = usage.spec(model, status.provider if model == status.model else "")
        cost = cost_text(usage.cost_by_model.get(model), u.total)
        rows.append(
            f"| {name} | {u.input} | {u.output} | {u.cache_read} | {u.cache_write} | {cost} |"
        )
    t = usage.total
    total = cost_text(usage.total_cost, t.total, model_priced(status, config))
    rows.append(
        f"| **total** | {t.input} | {t.output} | {t.cache_read} | {t.cache_write} | **{total}** |"
    )
    out = "\n".join(rows)
    if usage.by_role:
        out += "\n\n| role | tokens |\n|---|---:|\n" + "\n".join(
            f"| {role or 'main'} | {u.total} |" for role, u in usage.by_role.items()
        )
    if budget is not None and (line := budget.describe()):
        out += f"\n\n**{line}**"
    if plans:  # a signed-in plan's models cost nothing per token: its windows are the cost
        from ..llm.signin.quota import windows_table

        out += "\n\n" + windows_table(plans)
    return out
