"""The bench harness on its own (agents faked): reasons, ordering, concurrency, Ctrl+C."""

import asyncio
import shutil

import pytest

from larik.bench.report import append_results, load_results, summarize
from larik.bench.runner import (
    CHECK_FAILED,
    PROVIDER_ERROR,
    TIMEOUT,
    TURN_LIMIT,
    run_bench,
)
from larik.bench.tasks import load_tasks
from larik.llm.types import Usage

TASKS = {t.name: t for t in load_tasks()}


def fake_agent(behaviour):
    """behaviour(model) -> 'solve' | 'nothing' | 'error' | 'hang' | 'limit'"""

    async def run(task, workdir, model, outcome):
        what = behaviour(model)
        outcome.turns = 2
        outcome.usage = Usage(input=100, output=20)
        outcome.cost = 0.01
        await asyncio.sleep(0)
        if what == "solve":
            shutil.copytree(task.solution, workdir, dirs_exist_ok=True)
        elif what == "error":
            outcome.error = "anthropic: HTTP 529: overloaded"
        elif what == "hang":
            await asyncio.sleep(60)
        elif what == "limit":
            outcome.turn_limit = True

    return run


async def test_solving_passes_doing_nothing_fails_with_check_failed():
    tasks = [TASKS["fix-failing-test"]]
    res = await run_bench(
        ["good/m", "lazy/m"], tasks, fake_agent(lambda m: "solve" if m == "good/m" else "nothing")
    )
    assert [(r.model, r.passed, r.reason) for r in res] == [
        ("good/m", True, ""),
        ("lazy/m", False, CHECK_FAILED),
    ]
    assert res[0].turns == 2 and res[0].input_tokens == 100 and res[0].cost == 0.01


async def test_provider_error_is_recorded_not_fatal():
    tasks = [TASKS["fix-failing-test"], TASKS["implement-stub"]]
    res = await run_bench(
        ["bad/m", "good/m"], tasks, fake_agent(lambda m: "error" if m == "bad/m" else "solve")
    )
    bad = [r for r in res if r.model == "bad/m"]
    assert all(r.reason == PROVIDER_ERROR and "529" in r.detail for r in bad)
    assert all(r.passed for r in res if r.model == "good/m")


async def test_time_out_is_recorded_with_what_was_spent(monkeypatch):
    task = TASKS["fix-failing-test"]
    monkeypatch.setattr(task.spec, "time_limit", 0.2)
    res = await run_bench(["slow/m"], [task], fake_agent(lambda m: "hang"))
    assert res[0].reason == TIMEOUT and res[0].turns == 2 and not res[0].passed


async def test_turn_limit_is_the_reason_when_the_check_then_fails():
    res = await run_bench(["x/m"], [TASKS["implement-stub"]], fake_agent(lambda m: "limit"))
    assert res[0].reason == TURN_LIMIT


async def test_jobs_four_gives_the_same_results_as_jobs_one():
    """Two models, two tasks, two repeats (each run a real check: 16 of them; a third task
    made it 24 and proved nothing more): the same results in the same order, model, task,
    repeat, however the four at once finished."""
    tasks = [TASKS[n] for n in ("fix-failing-test", "implement-stub")]
    beh = fake_agent(lambda m: "solve" if m.startswith("a") else "nothing")
    one = await run_bench(["a/m", "b/m"], tasks, beh, jobs=1, repeat=2)
    four = await run_bench(["a/m", "b/m"], tasks, beh, jobs=4, repeat=2)
    key = lambda r: (r.model, r.task, r.repeat, r.passed, r.reason)  # noqa: E731
    assert [key(r) for r in one] == [key(r) for r in four]
    assert [key(r) for r in one] == [
        (model, task.name, repeat, model == "a/m", "" if model == "a/m" else CHECK_FAILED)
        for model in ("a/m", "b/m")
        for task in tasks
        for repeat in (1, 2)
    ]


async def test_cancel_keeps_finished_results():
    finished = []
    tasks = [TASKS["fix-failing-test"], TASKS["implement-stub"]]

    def beh(model):
        return "solve" if model == "fast/m" else "hang"

    bench = asyncio.create_task(
        run_bench(["fast/m", "slow/m"], tasks, fake_agent(beh), jobs=4, on_result=finished.append)
    )
    while len(finished) < 2:
        await asyncio.sleep(0.05)
    bench.cancel()
    with pytest.raises(asyncio.CancelledError):
        await bench
    assert {(r.model, r.passed) for r in finished} == {("fast/m", True)}


def test_results_history_round_trips_and_skips_corrupt_lines(tmp_path):
    from larik.bench.runner import RunResult

    path = tmp_path / "results.jsonl"
    rs = [
        RunResult("a/m", "t1", 1, True, "", cost=0.02, wall=3.0),
        RunResult("a/m", "t2", 1, False, CHECK_FAILED, cost=0.03, wall=5.0),
    ]
    append_results(path, rs)
    with open(path, "a") as fh:
        fh.write("{broken\n")
    loaded, problems = load_results(path)
    assert loaded == rs and len(problems) == 1 and ":3:" in problems[0]
    (s,) = summarize(loaded)
    assert s.pass_rate == 0.5 and s.cost_per_pass == pytest.approx(0.05) and s.median_wall == 4.0


def test_summary_with_repeats_reports_mean_and_spread():
    from larik.bench.runner import RunResult

    rs = [
        RunResult("m", "t", 1, True, ""),
        RunResult("m", "u", 1, True, ""),
        RunResult("m", "t", 2, False, CHECK_FAILED),
        RunResult("m", "u", 2, True, ""),
    ]
    (s,) = summarize(rs)
    assert s.repeat_rates == [1.0, 0.5] and s.pass_rate == 0.75 and s.spread == pytest.approx(0.25)
