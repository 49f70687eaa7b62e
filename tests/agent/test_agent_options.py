"""The agent's options are one dataclass, passed whole from a face to the agent's settings: a
new option is one field of ``AgentOptions``, and a test here fails until it reaches the agent."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path
from typing import Any

import pytest

from larik.agent.agent import Agent
from larik.agent.create import Opening, prepare
from larik.agent.options import AgentOptions
from larik.config import Config
from larik.hooks.config import HooksConfig
from larik.session.core import Session
from larik.session.options import SessionOptions

from .conftest import resolved, run, script

LARIK = Path(__file__).resolve().parents[2] / "larik"
PROVIDER = script({"text": "hi"})


def by_spec(spec: str):
    return resolved(PROVIDER, model=spec or "m")


def other_resolver(spec: str):
    return resolved(PROVIDER, model="from-the-other-resolver")


EDITOR = object()
# a value other than the default for each option: a new option needs one here
SAMPLES: dict[str, Any] = {
    "model": "another",
    "effort": "high",
    "permission_mode": "plan",
    "resume": "latest",
    "max_turns": 3,
    "transcript_dir": Path("elsewhere"),
    "checkpoints": False,
    "skills": False,
    "hooks": False,
    "resolver": other_resolver,
    "editor": EDITOR,
    "session_id": "given-id",
}


def test_every_option_is_a_described_field_and_every_session_option_carries_them():
    source = (LARIK / "agent" / "options.py").read_text()
    body = next(n for n in ast.parse(source).body if getattr(n, "name", "") == "AgentOptions")
    fields = [n.target.id for n in body.body if isinstance(n, ast.AnnAssign)]  # type: ignore[attr-defined]
    described = {
        body.body[i - 1].target.id  # type: ignore[attr-defined]
        for i, n in enumerate(body.body)
        if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant) and i > 0
    }
    assert fields == [f.name for f in dataclasses.fields(AgentOptions)]
    assert set(fields) == described == set(SAMPLES)
    assert issubclass(SessionOptions, AgentOptions)  # a face's options are the agent's, whole


async def test_the_session_hands_the_agent_every_option_it_was_given(tmp_path, monkeypatch):
    given = SessionOptions(**SAMPLES, max_budget_usd=1.0)
    got: list[AgentOptions] = []

    async def create(cls: type, *, options: AgentOptions, **kw: Any) -> object:
        got.append(options)
        return object()

    monkeypatch.setattr(Agent, "create", classmethod(create))
    session = Session(tmp_path, Config(), given)
    await session._create_agent(approver=None, model=given.model, resume=given.resume)
    for name in SAMPLES:
        assert getattr(got[0], name) == SAMPLES[name], name


def _seen(o: Opening) -> dict[str, Any]:
    """What an opening says, option by option's reach."""
    s = o.settings
    return {
        "model": o.resolved.spec,
        "effort": s.effort,
        "mode": s.policy.mode,
        "resumed": o.rebuilt is not None,
        "max_turns": s.max_turns,
        "transcript": s.transcript_path,
        "checkpoints": s.checkpoints,
        "skills": s.skills is not None,
        "hooks": s.hooks is not None,
        "editor": s.editor,
        "session_id": s.session_id,
    }


@pytest.mark.parametrize("name", sorted(SAMPLES))
async def test_each_option_reaches_the_agents_settings(name, make_agent, project, tmp_path):
    first = await make_agent(PROVIDER)
    await run(first)
    await first.close()  # a session to resume, written by one agent at a time
    config = Config(hooks=HooksConfig.model_validate({"SessionEnd": [{"command": "true"}]}))
    base = AgentOptions(resolver=by_spec, session_id="base-id")
    if name == "transcript_dir":
        base.session_id = ""  # a new session's file: under the directory given
    openings = []
    for options in (base, dataclasses.replace(base, **{name: SAMPLES[name]})):
        opening = prepare(project, config, options)
        if opening.transcript is not None:
            opening.transcript.close()
        openings.append(_seen(opening))
    assert openings[0] != openings[1], name
