"""The built-in slash commands an editor gets over ACP, each with its handler.

The rows are ``larik.session.commands.BUILTINS``' own (name, usage, help line: one table for
every face); :data:`HANDLERS` gives the ones that make sense in an editor a handler here, and
only those are advertised (``available_commands_update``, with the custom commands and the MCP
servers' prompts after them). The rest belong to the TUI's screens (``/routing``, ``/rewind``'s
picker) or to the editor's own (``/clear``, ``/resume``, ``/exit``: its thread list). A handler
answers with text, shown as the reply; ``/compact`` is a turn of its own.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..llm.effort import Effort
from ..llm.errors import LarikError
from ..modes import Mode
from ..session.commands import Builtin, builtin, forget_rule, rules_lines

if TYPE_CHECKING:
    from ..session import Turn
    from .conversation import Conversation

__all__ = ["COMMANDS", "HANDLERS", "run_builtin"]

Handler = Callable[["Conversation", str], Awaitable["str | Turn"]]


async def _model(conv: Conversation, args: str) -> str:
    if not args:
        listed = "\n".join(f"- `{value}` ({group})" for value, _, group in conv.models)
        return f"Model in use: `{conv.session.spec}`. Switch with `/model SPEC`:\n{listed}"
    spec = await conv.session.settings.switch_model(args)
    return f"Now on `{spec}`."


async def _effort(conv: Conversation, args: str) -> str:
    if not args:
        level = conv.session.status.effort
        return f"Reasoning effort: {level} ({Effort.words(last=' or ')})."
    conv.session.settings.set_effort(args)
    return f"Reasoning effort: {args}."


async def _permissions(conv: Conversation, args: str) -> str:
    """The mode and the rules in effect; ``MODE`` sets it; ``forget N`` takes back a rule an
    "allow always" answer added (the editor's own dialog cannot)."""
    if args.split()[:1] == ["forget"]:
        try:
            return forget_rule(conv.session, args.removeprefix("forget").strip())
        except ValueError as e:
            raise LarikError(str(e)) from None
    if not args:
        rows = "\n".join(f"- `{m}`: {m.description}" for m in Mode)
        rules = "\n".join(rules_lines(conv.session.settings.rules()))
        return f"Permission mode: `{conv.session.permission_mode}`.\n{rows}\n\nRules:\n{rules}"
    conv.session.settings.set_mode(args)
    return f"Permission mode: `{args}`."


async def _compact(conv: Conversation, args: str) -> Turn:
    return conv.session.compact()


async def _init(conv: Conversation, args: str) -> Turn:
    from ..session.init import init_turn

    return init_turn(conv.session)


async def _cost(conv: Conversation, args: str) -> str:
    status = conv.session.status
    usage = status.usage
    if usage is None or not usage.by_model:
        return "No model calls yet."
    lines = []
    for model, u in usage.by_model.items():
        cost = usage.cost_by_model.get(model)
        price = f"${cost:.4f}" if cost is not None else "price unknown"
        lines.append(f"- `{usage.spec(model)}`: {u.input:,} in, {u.output:,} out, {price}")
    total = usage.total_cost
    lines.append(f"Total: ${total:.4f}" if total is not None else "Total: price unknown")
    plans = status.plan_usage  # a signed-in plan's windows: what it cost the plan
    if plans:
        from ..llm.signin.quota import windows_table

        lines.append("\n" + windows_table(plans))
    return "\n".join(lines)


async def _undo(conv: Conversation, args: str) -> str:
    done = await conv.session.store.undo()
    return done.summary() if done is not None else "No turn of this session changed files."


async def _help(conv: Conversation, args: str) -> str:
    rows = [f"- `{b.usage}`: {b.summary}" for b in COMMANDS]
    rows += [f"- `{usage}`: {summary}" for _, usage, summary in conv.session.servers.command_rows()]
    return "Commands:\n" + "\n".join(rows)


HANDLERS: dict[str, Handler] = {
    "model": _model,
    "effort": _effort,
    "permissions": _permissions,
    "compact": _compact,
    "init": _init,
    "cost": _cost,
    "undo": _undo,
    "help": _help,
}


def _rows() -> tuple[Builtin, ...]:
    rows = []
    for name in HANDLERS:
        row = builtin(name)
        if row is None:  # tests/acp: every handler is one of the built-ins
            raise LarikError(f"/{name} is not a built-in command")
        rows.append(row)
    return tuple(rows)


COMMANDS = _rows()


async def run_builtin(conv: Conversation, name: str, args: str) -> Any:
    """The answer of built-in ``/name`` (text, or a turn); None when it is not one of
    :data:`HANDLERS` (a custom command, or text to send as it is)."""
    row = builtin(name)
    handler = HANDLERS.get(row.name) if row is not None else None
    return await handler(conv, args) if handler is not None else None
