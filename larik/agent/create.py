"""How an agent is made: :func:`prepare` works an :class:`AgentSettings` out of the config, the
project and the front end's :class:`~.options.AgentOptions` (the model resolved, the permission
policy and sandbox built, skills and hooks found, a resumed session reopened);
:meth:`Agent.create <larik.agent.agent.Agent.create>` builds the agent from it and opens it.
This module does not know the Agent class."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import sandbox
from ..modes import parse_mode
from ..sandbox import programs as program_sandbox
from .jobs import JobTable
from .permissions import PermissionPolicy
from .session_hooks import configured_hooks
from .session_log import session_path
from .sessions import Rebuilt, check_session_id, project_dir, rebuild
from .settings import AgentSettings
from .skills import discover_skills
from .transcript import Transcript, new_session_id

if TYPE_CHECKING:
    from ..config import Config
    from ..routing import Resolved
    from .events import Approver
    from .options import AgentOptions
    from .tools import ToolSource

__all__ = ["Opening", "prepare"]


@dataclass
class Opening:
    """What an agent is built from and opened with."""

    settings: AgentSettings
    resolved: Resolved  # the model to start on
    transcript: Transcript | None = None  # a resumed session's, reopened
    rebuilt: Rebuilt | None = None  # a resumed session's conversation, as rebuilt
    records: list[dict[str, Any]] = field(default_factory=list)  # its records (checkpoints)
    notes: list[str] = field(default_factory=list)  # start-up warnings (sandbox, skills)
    main: list[Callable[[], str]] = field(default_factory=list)
    """The agent's spec once it exists: unset roles (compact, worker…) follow the model in
    use (the default resolver's ``main``)."""


def prepare(
    cwd: Path,
    config: Config,
    options: AgentOptions,
    approver: Approver | None = None,
    tool_source: ToolSource | None = None,
) -> Opening:
    """A new session's settings (or ``options.resume``'s, reopened). ``approver``: asked when
    the permission policy asks; ``tool_source``: tools beyond the built-in ones (the MCP
    servers'). A field of ``options`` left at its default takes the config's value."""
    o = options
    root = Path(cwd).resolve()
    main: list[Callable[[], str]] = []
    resolver = o.resolver
    if resolver is None:
        from ..routing import resolve

        def resolver(spec: str) -> Resolved:
            return resolve(spec, config, main=main[0]() if main else "")

    mode = parse_mode(o.permission_mode or config.permissions.mode)
    box, box_notes = sandbox.for_session(config, root)
    if box is not None:  # the session's commands and jobs share a /tmp and a loopback
        box = replace(box, space=sandbox.Space())
    if box is not None:  # a project's hook or MCP server asking to leave the sandbox: said once
        box_notes += program_sandbox.refused(config)
    policy = PermissionPolicy(
        root, mode, config.permissions.allow, config.permissions.deny, approver, box
    )
    transcript, rebuilt, path, records = None, None, None, []
    if o.resume is not None:
        path = session_path(root, o.resume)
        transcript, loaded = Transcript.reopen(path)
        rebuilt = rebuild(loaded.header, loaded.records, loaded.problems)
        records = loaded.records
    try:
        resolved = resolver(o.model or (rebuilt.model if rebuilt else ""))
    except BaseException:
        if transcript is not None:
            transcript.close()
        raise
    if transcript is not None:
        session_id = transcript.session_id
    else:  # an id names a file in the project's folder, and nothing else
        session_id = check_session_id(o.session_id) if o.session_id else new_session_id()
    settings = AgentSettings(
        root=root,
        config=config,
        resolver=resolver,
        policy=policy,
        effort=o.effort if o.effort is not None else config.effort,  # type: ignore[arg-type]  # checked by the agent
        max_turns=o.max_turns or config.max_turns,
        session_id=session_id,
        transcript_path=path or (o.transcript_dir or project_dir(root)) / f"{session_id}.jsonl",
        checkpoints=o.checkpoints and config.checkpoints,
        tool_source=tool_source,
        skills=discover_skills(root, policy.denies_path) if o.skills else None,
        hooks=configured_hooks(config.hooks, root, box) if o.hooks else None,
        jobs=JobTable(config.jobs.max, config.jobs.output_buffer),
        editor=o.editor,
    )
    notes = [*box_notes, *getattr(settings.skills, "problems", ())]  # None: no skills
    return Opening(settings, resolved, transcript, rebuilt, records, notes, main)
