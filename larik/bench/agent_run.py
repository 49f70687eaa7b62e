"""The agent side of a bench run: a Session (``larik/session/``, built as every face builds
one) in yolo mode on one model, no MCP servers, skills, hooks or checkpoints, in the task's
throwaway directory, with the task's turn limit. Its transcript is kept under the bench folder of
the state directory (one file per run), so a failure can be read afterwards.

Before the runs, ``tool_warnings`` names the models that cannot call tools (the catalog's word,
or a local server's): every task needs tools, so their runs will fail, and a line up front saves
waiting for that."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..config import Config
from ..llm.errors import APIError, LarikError
from ..llm.types import StopReason
from .runner import AgentOutcome, RunAgent
from .suite import retry_prompt
from .tasks import Task

__all__ = ["fresh_adapters", "make_agent_runner", "model_kind", "tool_warnings"]

PROBE_TIMEOUT = 3.0  # seconds a local server may take to say whether a model takes tools


def make_agent_runner(
    config: Config,
    transcripts: Path,
    resolver_for: Callable[[str], Callable[[str], object] | None] | None = None,
    attempts: int = 1,
) -> RunAgent:
    """``resolver_for(spec)`` may give each run its own resolver (tests use scripted providers);
    by default the agent resolves through routing with ``config``. A run gets no web_fetch (a
    deny rule): it measures the model on the task, not on looking the answer up (the sandbox
    keeps its commands off the network too). ``attempts``: ``--attempts N``, up to N
    independent tries from the task's files (larik/session/attempts.py), the first that its
    own check passes kept; the runner's grade of the first try's files is pass@1."""
    perms = config.permissions
    deny = perms.model_copy(update={"deny": [*perms.deny, "web_fetch"]})
    config = config.model_copy(update={"permissions": deny})

    async def run(task: Task, workdir: Path, spec: str, outcome: AgentOutcome) -> None:
        resolver = resolver_for(spec) if resolver_for else None  # one per run: tries share it
        if attempts <= 1:
            await one(task, workdir, spec, outcome, resolver)
            return
        import shutil
        import tempfile

        from ..session.attempts import Tries

        store = Path(tempfile.mkdtemp(prefix="larik-bench-tries-"))
        try:
            tries = await asyncio.to_thread(Tries, workdir, store / "git")
            for n in range(1, attempts + 1):
                if n > 1:
                    await tries.areset()
                outcome.attempts = n
                passed = await one(task, workdir, spec, outcome, resolver, n)
                if n == 1 and outcome.grade is not None:
                    outcome.first_passed = await outcome.grade()
                if passed or outcome.error:
                    break
        finally:
            shutil.rmtree(store, ignore_errors=True)

    async def one(
        task: Task, workdir: Path, spec: str, outcome: AgentOutcome, resolver: Any, n: int = 1
    ) -> bool | None:
        """One try in a session of its own; its check's verdict (with ``attempts``)."""
        from ..session import Session, SessionOptions

        transcripts.mkdir(parents=True, exist_ok=True)
        options = SessionOptions(
            model=spec,
            permission_mode="yolo",
            max_turns=task.spec.max_turns,
            resolver=resolver,
            transcript_dir=transcripts,
            checkpoints=False,  # a throwaway folder: nothing to take back
            skills=False,  # the task's prompt alone, whatever skills the user has
            hooks=False,  # the user's hooks are for their sessions, not for measuring models
            mcp=False,  # nor their MCP servers
            commands=False,  # a task's prompt is sent as written
        )
        session = Session(workdir, config, options)
        try:
            await session.start()
        except LarikError as e:
            outcome.error = str(e)
            await session.close()
            return None
        passed = None
        if attempts > 1:
            from ..session.attempts import warm

            warm(session, n)
        plan = _PlanMeter(session, config)

        def counted(ev: Any) -> None:
            _count(ev, outcome)
            plan.saw(ev)

        try:
            prompt = task.spec.prompt
            for attempt in range(task.spec.tries):
                outcome.tries = attempt + 1
                await session.send(prompt).run(counted)
                last = attempt + 1 == task.spec.tries
                if last or outcome.midcheck is None or outcome.error or outcome.turn_limit:
                    break
                check = await outcome.midcheck()  # lays the tests in, as Aider's harness does
                if check.passed:
                    break
                prompt = retry_prompt(task, check, workdir)
            if attempts > 1 and not outcome.error:
                from ..session.attempts import judge

                passed, _ = await judge(session, task.spec.prompt, outcome.verify)
        except APIError as e:
            outcome.error = str(e)
        finally:
            plan.add_to(outcome)
            await session.close()
        return passed

    return run


class _PlanMeter:
    """How much of a signed-in plan's usage windows one session spent: the figures kept
    beside the account when it began, the first its own answers brought, the last
    (``quota.spent``). A plan's runs go one at a time (``runner.plan_provider``), so the
    difference is the run's."""

    def __init__(self, session: Any, config: Config) -> None:
        from ..session.plans import stored_usage

        self.session = session
        self.before = stored_usage(config)
        self.first: dict[str, Any] = {}

    def saw(self, ev: Any) -> None:
        from ..agent.events import AgentEventType as T

        if ev.type is T.USAGE:
            for provider, q in self.session.settings.plan_usage.items():
                self.first.setdefault(provider, q)

    def add_to(self, outcome: AgentOutcome) -> None:
        from ..llm.signin.quota import spent

        for provider, after in self.session.settings.plan_usage.items():
            if provider not in self.first:
                continue  # no answer of this session's came from that plan
            got = spent(self.before.get(provider), after, self.first[provider])
            for label, points in got.items():
                outcome.plan_spent[label] = round(outcome.plan_spent.get(label, 0.0) + points, 3)


def _count(ev: Any, outcome: AgentOutcome) -> None:
    """What one event of a run adds to its outcome."""
    from ..agent.events import AgentEventType as T

    if ev.type is T.USAGE and ev.usage is not None:
        if ev.subagent:
            outcome.subagent_turns += 1
        else:
            outcome.turns += 1
        outcome.usage = outcome.usage + ev.usage
        if ev.cost is not None:
            outcome.cost = (outcome.cost or 0.0) + ev.cost
    elif ev.type is T.ERROR:
        outcome.error, outcome.stop = ev.text, "error"
    elif ev.type is T.TOOL_END:
        outcome.tool_calls += 1
        outcome.tool_errors += ev.is_error
        outcome.bad_calls += bool(ev.data.get("bad_call"))
    elif ev.type is T.TURN_END and not ev.subagent:
        outcome.turn_limit = ev.stop_reason is StopReason.MAX_TURNS
        outcome.stop = str(ev.stop_reason or "")
        outcome.verify = ev.data.get("verify")


async def tool_warnings(
    specs: list[str],
    config: Config,
    resolver_for: Callable[[str], Callable[[str], object] | None] | None = None,
) -> list[str]:
    """One line per model in ``specs`` that cannot call tools, in order. A local server is
    asked (``ModelProber``) within ``PROBE_TIMEOUT``; a cloud model is the catalog's word."""
    from ..agent.probe import capabilities, no_tools_warning, probe
    from ..routing import resolve

    async def check(spec: str) -> str:
        resolver = resolver_for(spec) if resolver_for else None
        resolved: Any = resolver(spec) if resolver else resolve(spec, config)
        caps = capabilities(resolved, config)
        if caps.tools:
            try:
                caps = await asyncio.wait_for(probe(resolved, caps), PROBE_TIMEOUT)
            except TimeoutError:
                return ""
        if caps.tools:
            return ""
        return f"{no_tools_warning(spec)}; its runs will likely fail (running them anyway)"

    found = await asyncio.gather(*(check(s) for s in specs))
    return [line for line in found if line]


def model_kind(spec: str, config: Config) -> Any:
    """The registered kind of ``spec``'s provider (None: unknown, or not a ``NAME/MODEL``)."""
    from ..llm import registry
    from ..llm.endpoint import kind_of

    name, sep, _ = spec.partition("/")
    return registry.kind(kind_of(name, config)) if sep else None


def fresh_adapters(
    config: Config, paths: dict[str, Path] | None = None
) -> Callable[[str], Callable[[str], Any] | None]:
    """A resolver per run for a model whose kind is ``fresh_per_run`` (``scripted``: it plays
    its script from the first turn in every run; routing keeps one adapter per model, which
    runs in turn or at once would share); None for the rest.

    ``paths`` maps a bench spec to where its model file is on this machine when that is not
    the spec's own path (a Ray worker gets a ``model_file`` kind's file as data and writes it
    to its own folder)."""
    from ..routing import build_provider, resolve

    def resolver_for(spec: str) -> Callable[[str], Any] | None:
        kind = model_kind(spec, config)
        if kind is None or not kind.fresh_per_run:
            return None
        name = spec.partition("/")[0]
        here = f"{name}/{paths[spec]}" if paths and spec in paths else spec
        main = resolve(here, config)
        adapter = build_provider(main.provider_name, main.model, config, fresh=True)

        def resolver(s: str) -> Any:
            r = resolve(here if s == spec else s, config, main=here)
            if r.provider_name == main.provider_name and r.model == main.model:
                r.provider = adapter
                if here != spec:  # named as the bench names it, so the runs are the same
                    r.spec, r.model = spec, spec.partition("/")[2]
            return r

        return resolver

    return resolver_for
