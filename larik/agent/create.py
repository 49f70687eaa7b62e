"""How an agent is made: :meth:`Agent.create <larik.agent.agent.Agent.create>` is this
module's :func:`create` (the agent's constructor takes a finished :class:`AgentSettings`; this
works the settings out of the config, the project and the options a front end passes)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import sandbox
from ..modes import parse_mode
from ..sandbox import programs as program_sandbox
from . import compaction
from .events import AgentEvent, AgentEventType, NoticeLevel
from .jobs import JobTable
from .permissions import PermissionPolicy
from .session_hooks import configured_hooks
from .session_log import session_path
from .sessions import Rebuilt, check_session_id, project_dir, rebuild
from .settings import AgentSettings
from .skills import discover_skills
from .transcript import Transcript, new_session_id

E = AgentEventType

if TYPE_CHECKING:
    from ..config import Config
    from ..llm.types import Effort
    from ..routing import Resolved
    from .agent import Agent
    from .events import Approver
    from .settings import Resolver
    from .tools import ToolSource
    from .tools._editor import Editor

__all__ = ["create"]


async def create(
    cls: type[Agent],
    *,
    cwd: Path,
    config: Config,
    model: str = "",
    effort: Effort | None = None,
    permission_mode: str | None = None,
    approver: Approver | None = None,
    resume: str | None = None,
    resolver: Resolver | None = None,
    max_turns: int | None = None,
    transcript_dir: Path | None = None,
    checkpoints: bool = True,
    tool_source: ToolSource | None = None,
    skills: bool = True,
    hooks: bool = True,
    editor: Editor | None = None,
    session_id: str = "",
) -> Agent:
    """A new session's agent (or ``resume``'s, reopened): the model resolved, the permission
    policy and sandbox built, skills and hooks found, the local server asked what it loaded.

    ``transcript_dir`` overrides where a new session's transcript goes (bench keeps its
    runs apart from the user's sessions); ``checkpoints=False`` takes none (bench);
    ``tool_source`` adds tools beyond the built-in ones (the MCP servers');
    ``skills=False``, ``hooks=False``: no skills, no hooks (bench); ``editor``: the editor
    doing the tools' file I/O and commands (ACP: ``tools/_editor.py``); ``session_id``: a new
    session's id ("" makes one: ACP keeps the id it gave a client when it rebuilds a session
    that has said nothing yet)."""
    root = Path(cwd).resolve()
    in_use: list[Agent] = []  # unset roles (compact, worker…) follow the model in use
    if resolver is None:
        from ..routing import resolve

        def resolver(spec: str) -> Resolved:
            return resolve(spec, config, main=in_use[0].spec if in_use else "")

    mode = parse_mode(permission_mode or config.permissions.mode)
    box, box_notes = sandbox.for_session(config, root)
    if box is not None:  # the session's commands and jobs share a /tmp and a loopback
        box = replace(box, space=sandbox.Space())
    if box is not None:  # a project's hook or MCP server asking to leave the sandbox: said once
        box_notes += program_sandbox.refused(config)
    policy = PermissionPolicy(
        root, mode, config.permissions.allow, config.permissions.deny, approver, box
    )
    transcript, rebuilt, path, records = None, None, None, []
    if resume is not None:
        path = session_path(root, resume)
        transcript, loaded = Transcript.reopen(path)
        rebuilt = rebuild(loaded.header, loaded.records, loaded.problems)
        records = loaded.records
    try:
        resolved = resolver(model or (rebuilt.model if rebuilt else ""))
    except BaseException:
        if transcript is not None:
            transcript.close()
        raise
    if transcript is not None:
        session_id = transcript.session_id
    else:  # an id names a file in the project's folder, and nothing else
        session_id = check_session_id(session_id) if session_id else new_session_id()
    settings = AgentSettings(
        root=root,
        config=config,
        resolver=resolver,
        policy=policy,
        effort=effort if effort is not None else config.effort,
        max_turns=max_turns or config.max_turns,
        session_id=session_id,
        transcript_path=path or (transcript_dir or project_dir(root)) / f"{session_id}.jsonl",
        checkpoints=checkpoints and config.checkpoints,
        tool_source=tool_source,
        skills=discover_skills(root, policy.denies_path) if skills else None,
        hooks=configured_hooks(config.hooks, root, box) if hooks else None,
        jobs=JobTable(config.jobs.max, config.jobs.output_buffer),
        editor=editor,
    )
    agent = cls(settings, resolved, transcript)
    in_use.append(agent)
    notes = [*box_notes, *getattr(settings.skills, "problems", ())]  # None: no skills
    await _open(agent, notes, rebuilt, records)
    return agent


async def _open(
    agent: Agent, notes: list[str], rebuilt: Rebuilt | None, records: list[dict[str, Any]]
) -> None:
    """The rest of :func:`create` once the agent exists: the start-up warnings, the resumed
    conversation and checkpoints, the local server's window, SessionStart."""
    for problem in notes:
        agent._notices.append(AgentEvent(E.NOTICE, text=problem, level=NoticeLevel.WARNING))
    if rebuilt is not None:
        _restore(agent, rebuilt)
        agent.checkpoints.load(records)
    await agent._probe_early()
    await agent._session_start("resume" if rebuilt is not None else "startup")


def _answer_dangling_calls(agent: Agent) -> None:
    """A session that crashed between a tool call and its result: answer the call."""
    from ..llm.types import Message
    from .runner import answer_all

    if not agent.messages or agent.messages[-1].role != "assistant":
        return
    uses = agent.messages[-1].tool_uses()
    if uses:
        note = "the session ended before this tool call finished"
        agent._append(Message(role="user", blocks=answer_all(uses, {}, note), interrupted=True))


def _restore(agent: Agent, rebuilt: Rebuilt) -> None:
    agent.messages, agent.restored = rebuilt.messages, rebuilt
    for model, role, usage, cost, provider in rebuilt.usage:
        agent.usage.add(model, role, usage, cost, provider)
    if rebuilt.model and rebuilt.model != agent.spec:
        agent._record_switch(rebuilt.model)
    _answer_dangling_calls(agent)
    if rebuilt.problems:  # shown (and recorded) when the next turn starts
        agent._notices.append(
            AgentEvent(E.NOTICE, text=rebuilt.report(), level=NoticeLevel.WARNING)
        )
    agent.context_tokens = rebuilt.shown.context or compaction.estimate_tokens(agent.messages)
    agent._counted = len(agent.messages)
