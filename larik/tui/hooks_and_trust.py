"""``/hooks`` and ``/trust``: what this folder's config runs, and whether the folder is trusted
to run it. The handlers read the config (``ui.config``) and answer in one notice; ``/trust
yes|no|forget`` records an answer as ``larik trust`` does (the same functions), for the next
start."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..llm.errors import LarikError

if TYPE_CHECKING:
    from ..session import Session
    from .ui import UI

__all__ = ["TRUST_ANSWERS", "hooks", "hooks_markdown", "trust"]


async def hooks(session: Session, ui: UI, arg: str) -> None:
    ui.say(hooks_markdown(ui.config), as_markdown=True)


def hooks_markdown(config: Any) -> str:
    """The hooks in effect, event by event (matcher, command, timeout, the file it came from),
    and a project's that do not run because it is not trusted."""
    from ..hooks.config import EVENTS

    configured = getattr(config, "hooks", None)
    lines = ["**hooks** (docs/hooks.md; edit them in your config, then start again)"]
    for event in EVENTS:
        entries = configured.entries(event) if configured is not None else []
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


#: /trust's answers: what larik trust yes|no|forget records (larik/session/trust.py)
TRUST_ANSWERS: dict[str, bool | None] = {"yes": True, "no": False, "forget": None}


async def trust(session: Session, ui: UI, arg: str) -> None:
    """What the folder asks for and who trusts it; ``yes``, ``no``, ``forget`` record an answer
    as ``larik trust`` does (the same functions), for the next start."""
    import asyncio

    from ..session import trust as folder

    words = arg.lower().split()
    verb = words[0] if words else "show"
    in_config = words[1:] == ["--in-config"] and verb == "yes"
    if verb not in ("show", *TRUST_ANSWERS) or (words[1:] and not in_config) or len(words) > 2:
        ui.say(
            f"/trust {arg}: use /trust, /trust yes [--in-config], /trust no or /trust forget",
            "error",
        )
        return
    try:
        if verb == "show":
            st = await asyncio.to_thread(folder.load, ui.cwd)
            ui.say("\n".join(folder.report(st, "/trust")))
            return
        done = await asyncio.to_thread(
            lambda: folder.answer(ui.cwd, TRUST_ANSWERS[verb], in_config=in_config)
        )
    except LarikError as e:
        ui.say(str(e), "error")
        return
    except OSError as e:
        ui.say(f"cannot record the answer: {e.strerror or e}", "error")
        return
    later = " This session goes on as it started: the answer applies from the next start here."
    ui.say(done.message + (later if done.recorded else ""))
