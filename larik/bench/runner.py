"""The bench runner: every (model, task, repeat) in a fresh directory, graded by its tests.

Runs are concurrent (``jobs`` at once) with a per-provider limit, so a rate limit on one
provider does not starve the others. A run's provider error is recorded as that run's failure,
never fatal to the bench. Cancelling (Ctrl+C) stops the runs in flight; finished results are
kept (they were already handed to ``on_result``).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import re
import shutil
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..llm.types import Usage
from ..words import count
from .tasks import CheckResult, Task, prepare_workdir, run_check

__all__ = [
    "AgentOutcome",
    "Execute",
    "ProviderLimit",
    "RunAgent",
    "RunResult",
    "default_jobs",
    "in_shard",
    "parse_shard",
    "run_bench",
]

PASS = ""
CHECK_FAILED = "check failed"
TIMEOUT = "time-out"
TURN_LIMIT = "turn limit"
STUCK = "stuck"
PROVIDER_ERROR = "provider error"
HARNESS_ERROR = "harness error"


@dataclass
class AgentOutcome:
    """What the agent did on one task, before the check."""

    turns: int = 0
    usage: Usage = field(default_factory=Usage)
    cost: float | None = None
    error: str = ""  # a provider error that ended the run
    turn_limit: bool = False
    stop: str = ""  # the turn's stop reason ("end_turn", "max_turns", "stuck", …)
    bad_calls: int = 0  # tool calls whose name or arguments could not be used
    tool_calls: int = 0  # the agent's tool calls (a subagent's are its own)
    tool_errors: int = 0  # calls that came back as errors (bad calls, failed edits, ...)
    subagent_turns: int = 0  # model calls made by subagents
    # tasks with two tries (Aider's protocol): the runner's mid-run check, which lays the tests
    # in and says whether the first try passed; the agent runner calls it between tries
    midcheck: Callable[[], Awaitable[CheckResult]] | None = None
    first_passed: bool | None = None  # set by the mid-run check (or the first try's grade)
    tries: int = 0  # attempts the agent made
    # --attempts: the runner's grade of the files as they are now, on a copy (the workdir is
    # not touched, so a next try does not see the check's tests): pass@1 of the first try
    grade: Callable[[], Awaitable[bool]] | None = None
    attempts: int = 0  # independent tries made (--attempts)
    verify: dict[str, Any] | None = None  # the last turn's check of its edits (agent/verify.py)
    plan_spent: dict[str, float] = field(default_factory=dict)  # a plan's window -> % spent


@dataclass
class RunResult:
    model: str
    task: str
    repeat: int
    passed: bool
    reason: str  # "" when passed, else one of the constants above
    detail: str = ""
    turns: int = 0
    stop: str = ""  # how the agent's turn ended: its stop reason, "error", "" (time-out)
    bad_calls: int = 0  # tool calls with an unknown tool or arguments that did not parse/validate
    tool_calls: int = 0  # the agent's tool calls (not subagents'); 0 in records from before
    tool_errors: int = 0  # calls whose result was an error, bad calls included
    subagent_turns: int = 0  # model calls made by subagents (not in ``turns``)
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost: float | None = None
    plan_spent: dict[str, float] | None = None  # a signed-in plan's window ("5h", "wk") ->
    # percentage points of it the run spent (None: no plan reported any)
    first_try: bool | None = None  # passed on the first try (None in records from before tries)
    tries: int = 1
    wall: float = 0.0
    agent_seconds: float = 0.0
    check_seconds: float = 0.0
    bench_id: str = ""
    finished: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


# (task, workdir, model spec, outcome): runs the agent, filling ``outcome`` as it goes, so a
# time-out still knows the turns and tokens spent so far.
RunAgent = Callable[[Task, Path, str, AgentOutcome], Awaitable[None]]

# (task, model spec, repeat) -> the run's result. Locally ``run_one`` in this process; with
# ``--ray`` a Ray task that calls ``run_one`` on a worker (larik/bench/ray_run.py).
Execute = Callable[[Task, str, int], Awaitable[RunResult]]

# provider name -> held while one of its runs goes: an asyncio semaphore here, a named Ray actor
# shared by every bench on the cluster with ``--ray``.
ProviderLimit = Callable[[str], contextlib.AbstractAsyncContextManager[None]]


def default_jobs() -> int:
    """Runs are mostly waiting on the model, so more than the core count; capped to stay polite."""
    return max(2, min(8, (os.cpu_count() or 2) * 2))


PER_PROVIDER = 4  # runs of one provider at once, whatever --jobs says


def local_limits(per_provider: int) -> ProviderLimit:
    """``per_provider`` runs of a provider at once, counted in this process."""
    limits: dict[str, asyncio.Semaphore] = {}

    @contextlib.asynccontextmanager
    async def limit(provider: str) -> AsyncIterator[None]:
        at_once = 1 if plan_provider(provider) else per_provider
        async with limits.setdefault(provider, asyncio.Semaphore(at_once)):
            yield

    return limit


def plan_provider(provider: str) -> bool:
    """A signed-in plan's provider (chatgpt, copilot): its runs go one at a time, so the
    usage window a run spent is its own (``RunResult.plan_spent``), and a plan's tight rate
    limits are not hit four at once."""
    from ..llm import registry
    from ..llm.endpoint import kind_of

    kind = registry.kind(kind_of(provider))
    return bool(kind is not None and kind.signin)


def provider_of(spec: str) -> str:
    return spec.split("/", 1)[0] if "/" in spec else spec


async def run_one(
    task: Task,
    model: str,
    repeat: int,
    run_agent: RunAgent,
    *,
    bench_id: str = "",
    keep_dir: bool = False,
    attempts: int = 1,
) -> RunResult:
    """``attempts``: the agent makes up to this many tries (``--attempts``); the time limit is
    each try's, so the run may take ``attempts`` times the task's."""
    started = time.monotonic()
    workdir = Path(tempfile.mkdtemp(prefix=f"larik-bench-{task.name}-"))
    result = RunResult(
        model=model, task=task.name, repeat=repeat, passed=False, reason="", bench_id=bench_id
    )
    try:
        prepare_workdir(task, workdir)
        outcome = AgentOutcome()
        if task.spec.tries > 1:

            async def midcheck() -> CheckResult:
                check = await asyncio.to_thread(run_check, task, workdir)
                outcome.first_passed = check.passed
                return check

            outcome.midcheck = midcheck

        async def grade() -> bool:
            return await asyncio.to_thread(_grade_copy, task, workdir)

        outcome.grade = grade
        timed_out = False
        try:
            async with asyncio.timeout(task.spec.time_limit * attempts):
                await run_agent(task, workdir, model, outcome)
        except TimeoutError:
            timed_out = True
        result.agent_seconds = time.monotonic() - started
        _fill_usage(result, outcome)
        if timed_out:
            result.reason = TIMEOUT
            result.detail = f"the agent did not finish within {task.spec.time_limit * attempts:g}s"
        elif outcome.error:
            result.reason = PROVIDER_ERROR
            result.detail = outcome.error
        else:
            check = await asyncio.to_thread(run_check, task, workdir)
            result.check_seconds = check.seconds
            result.passed = check.passed
            if not check.passed:
                if outcome.turn_limit:
                    result.reason = TURN_LIMIT
                    result.detail = f"stopped after {count(outcome.turns, 'model call')}"
                elif outcome.stop == STUCK:
                    result.reason = STUCK
                    result.detail = f"stopped as stuck after {count(outcome.turns, 'model call')}"
                else:
                    result.reason = CHECK_FAILED
                    result.detail = _last_line(check.output)
        result.tries = max(1, outcome.tries, outcome.attempts)
        result.first_try = result.passed if outcome.first_passed is None else outcome.first_passed
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # a bug in the harness must not sink the whole bench
        result.reason = HARNESS_ERROR
        result.detail = f"{type(exc).__name__}: {exc}"
    finally:
        if not keep_dir:
            shutil.rmtree(workdir, ignore_errors=True)
    result.wall = time.monotonic() - started
    result.finished = datetime.now(UTC).isoformat(timespec="seconds")
    return result


def _grade_copy(task: Task, workdir: Path) -> bool:
    """The task's check on a copy of ``workdir`` as it is now (``workdir`` untouched)."""
    with tempfile.TemporaryDirectory(prefix=f"larik-bench-grade-{task.name}-") as tmp:
        copy = Path(tmp) / "work"
        shutil.copytree(workdir, copy, symlinks=True)
        return run_check(task, copy).passed


def _fill_usage(result: RunResult, outcome: AgentOutcome) -> None:
    result.turns = outcome.turns
    result.stop = outcome.stop
    result.bad_calls = outcome.bad_calls
    result.tool_calls = outcome.tool_calls
    result.tool_errors = outcome.tool_errors
    result.subagent_turns = outcome.subagent_turns
    result.input_tokens = outcome.usage.input
    result.output_tokens = outcome.usage.output
    result.cache_read_tokens = outcome.usage.cache_read
    result.cache_write_tokens = outcome.usage.cache_write
    result.cost = outcome.cost
    result.plan_spent = dict(outcome.plan_spent) or None


_SUMMARY = re.compile(r"\b\d+ (failed|passed|errors?|skipped)\b")


def _last_line(text: str) -> str:
    """pytest's closing summary ("2 failed, 1 passed in 0.1s"), else the last line."""
    lines = [x.strip("= ") for x in text.strip().splitlines() if x.strip()]
    for line in reversed(lines):
        if _SUMMARY.search(line):
            return line[:200]
    return lines[-1][:200] if lines else ""


def parse_shard(text: str) -> tuple[int, int]:
    """``K/N`` (1 <= K <= N) as a pair; a one-line error otherwise."""
    from ..llm.errors import ConfigError

    k, sep, n = text.partition("/")
    if not (sep and k.strip().isdigit() and n.strip().isdigit()):
        raise ConfigError(f"--shard {text!r}: expected K/N, e.g. 1/4")
    pair = int(k), int(n)
    if not 1 <= pair[0] <= pair[1]:
        raise ConfigError(f"--shard {text!r}: K must be between 1 and N")
    return pair


def in_shard(model: str, task: str, repeat: int, shard: tuple[int, int] | None) -> bool:
    """Whether the run (model, task, repeat) belongs to shard K of N. A hash of the run itself,
    not its place in a list: the same on every machine, whatever models or tasks the other
    shards were given in whatever order."""
    if shard is None:
        return True
    k, n = shard
    key = f"{model}\0{task}\0{repeat}".encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "big") % n == k - 1


async def run_bench(
    models: list[str],
    tasks: list[Task],
    run_agent: RunAgent | None,
    *,
    repeat: int = 1,
    attempts: int = 1,
    jobs: int | None = None,
    per_provider: int = PER_PROVIDER,
    bench_id: str = "",
    on_start: Callable[[str, str, int], None] | None = None,
    on_result: Callable[[RunResult], None] | None = None,
    shard: tuple[int, int] | None = None,
    execute: Execute | None = None,
    provider_limit: ProviderLimit | None = None,
) -> list[RunResult]:
    """Run everything; results come back in a stable order (model, task, repeat), whatever
    order they finished in. ``execute`` runs one (default: ``run_one`` with ``run_agent`` in
    this process); ``provider_limit`` holds a provider's share (default: ``per_provider`` runs
    at once, counted here)."""
    jobs = jobs or default_jobs()
    overall = asyncio.Semaphore(jobs)

    async def here(task: Task, model: str, rep: int) -> RunResult:
        if run_agent is None:
            raise TypeError("run_bench needs run_agent or execute")
        return await run_one(task, model, rep, run_agent, bench_id=bench_id, attempts=attempts)

    run = execute or here

    limit = provider_limit or local_limits(per_provider)
    plan = [
        (m, t, r)
        for m in models
        for t in tasks
        for r in range(1, repeat + 1)
        if in_shard(m, t.name, r, shard)
    ]
    # interleave models so each provider's limit, not the plan order, decides who waits
    plan.sort(key=lambda x: (x[2], tasks.index(x[1]), models.index(x[0])))

    async def one(model: str, task: Task, rep: int) -> RunResult:
        async with limit(provider_of(model)), overall:
            if on_start:
                on_start(model, task.name, rep)
            res = await run(task, model, rep)
        if on_result:
            on_result(res)
        return res

    running = [asyncio.create_task(one(m, t, r)) for m, t, r in plan]
    try:
        results = await asyncio.gather(*running)
    except BaseException:
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
        raise
    order = {
        (m, t.name, r): i
        for i, (m, t, r) in enumerate(
            (m, t, r) for m in models for t in tasks for r in range(1, repeat + 1)
        )
    }
    return sorted(results, key=lambda x: order[(x.model, x.task, x.repeat)])
