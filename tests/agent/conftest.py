"""Agents on the scripted provider, in a throwaway project."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from larik import sandbox as sb
from larik.agent import Agent
from larik.agent.events import AgentEvent, AgentEventType, Approval, PermissionRequest
from larik.config import Config, state_dir, user_config_path
from larik.llm.providers.scripted import ScriptedProvider
from larik.routing import Resolved

from .sandbox_kit import SECRET

E = AgentEventType


def resolved(provider: Any, model: str = "m", role: str | None = None) -> Resolved:
    return Resolved(
        provider=provider,
        model=model,
        provider_name=provider.name,
        role=role,
        spec=f"{provider.name}/{model}",
    )


class Roles:
    """A resolver: spec or role name -> provider. "" is the main model."""

    def __init__(self, main: Any, **by_name: Any) -> None:
        self.main = main
        self.by_name = by_name
        self.asked: list[str] = []

    def __call__(self, spec: str) -> Resolved:
        self.asked.append(spec)
        if spec in self.by_name:
            p = self.by_name[spec]
            role = spec if spec in ("smart", "worker", "explore", "compact") else None
            return resolved(p, model=getattr(p, "model_id", spec), role=role)
        if spec == "compact":  # unset role: the main model
            return resolved(self.main, role="compact")
        return resolved(self.main)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    return root


@pytest.fixture
def git_project(project: Path) -> Path:
    subprocess.run(["git", "init", "-q", "-b", "main", str(project)], check=True)
    return project


def script(*turns: dict[str, Any]) -> ScriptedProvider:
    return ScriptedProvider(list(turns))


AgentMaker = Callable[..., Awaitable[Agent]]


@pytest.fixture
def make_agent(project: Path):
    made: list[Agent] = []

    async def make(
        provider: Any = None,
        *,
        config: Config | None = None,
        resolver: Any = None,
        cwd: Path | None = None,
        **kw: Any,
    ) -> Agent:
        resolver = resolver or Roles(provider)
        kw.setdefault("permission_mode", "yolo")
        agent = await Agent.create(
            cwd=cwd or project, config=config or Config(), resolver=resolver, **kw
        )
        made.append(agent)
        return agent

    yield make
    for a in made:
        a.log.close()


async def run(agent: Agent, prompt: str = "go") -> list[AgentEvent]:
    return [ev async for ev in agent.run_turn(prompt)]


def of(events: list[AgentEvent], kind: AgentEventType) -> list[AgentEvent]:
    return [e for e in events if e.type is kind]


def approver(*answers: Approval):
    """An Approver that gives ``answers`` in order and records what it was asked."""
    asked: list[PermissionRequest] = []
    queue = list(answers)

    async def approve(req: PermissionRequest) -> Approval:
        asked.append(req)
        return queue.pop(0) if queue else Approval(allow=False)

    approve.asked = asked  # type: ignore[attr-defined]
    return approve


def valid_conversation(messages) -> None:
    """What every provider needs: every tool call answered in the next message, by id."""
    for i, m in enumerate(messages):
        ids = [b.id for b in m.tool_uses()]
        if ids:
            nxt = messages[i + 1] if i + 1 < len(messages) else None
            assert nxt is not None and nxt.role == "user", f"message {i}: tool calls unanswered"
            got = [b.id for b in nxt.blocks if b.type == "tool_result"]
            assert got == ids, f"message {i}: results {got} for calls {ids}"


# ------------------------------------------------------------ the sandbox tests' (sandbox_kit)


@pytest.fixture
def needs_bwrap() -> None:
    """Real bubblewrap, or a skip — except in CI (``LARIK_CI=1``), where it fails."""
    why = sb.probe()
    if why:
        if os.environ.get("LARIK_CI"):
            pytest.fail(f"CI must test the sandbox, but {why}")
        pytest.skip(f"no OS sandbox here: {why}")


@pytest.fixture
def outside() -> Iterator[Path]:
    """A host folder outside /tmp and outside the project (the sandbox's private /tmp would
    hide a /tmp one anyway, proving nothing)."""
    here = Path(__file__).resolve().parent
    # a checkout under /tmp (CI clones there) would be hidden too: then /var/tmp
    base = Path("/var/tmp") if here.is_relative_to("/tmp") else here
    path = Path(tempfile.mkdtemp(prefix=".sbx-outside-", dir=base))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def home(monkeypatch, outside) -> Path:
    """A fake $HOME with keys in it, outside /tmp (see ``outside``)."""
    home = outside / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(SECRET)
    (home / ".aws").mkdir()
    (home / ".aws" / "credentials").write_text(SECRET)
    (home / ".config" / "gcloud").mkdir(parents=True)
    (home / ".config" / "gcloud" / "creds.json").write_text(SECRET)
    (home / ".netrc").write_text(SECRET)
    (home / "notes.txt").write_text("ordinary file")
    monkeypatch.setenv("HOME", str(home))
    for larik_dir in (user_config_path().parent, state_dir()):
        larik_dir.mkdir(parents=True, exist_ok=True)
        (larik_dir / "secret.toml").write_text(SECRET)
    return home


@pytest.fixture
def small_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small models keep the tool loop: for the tests of what the small profile's loop does
    (its prompt, tools, answer tool, runaway watch), now that a small model's default is the
    edit workflow (profile.SMALL_WORKFLOW)."""
    from larik.agent import profile

    monkeypatch.setattr(profile, "SMALL_WORKFLOW", "loop")
