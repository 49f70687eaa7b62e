"""A bench of a signed-in plan's model reports the usage windows spent per pass next to the
dollars (issue 27): the real agent on the chatgpt kind, its backend faked on loopback."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from larik.bench.agent_run import make_agent_runner
from larik.bench.formats import report_csv, report_json, report_md
from larik.bench.runner import RunResult, plan_provider, run_bench
from larik.bench.summary import summarize
from larik.bench.tasks import load_tasks
from larik.config import Config
from larik.llm.signin import quota as quotas
from larik.llm.signin.store import AccountStore
from tests.llm.providers.kits.chatgpt import sign_in
from tests.llm.providers.kits.openai_responses import Stream

TASK = {t.name: t for t in load_tasks()}["fix-failing-test"]
FIVE_H = time.time() + 3 * 3600
WEEK = time.time() + 4 * 86400


@pytest.fixture(autouse=True)
def _fresh_quota() -> Iterator[None]:
    quotas.forget()
    yield
    quotas.forget()


def _windows(five_h: float, week: float) -> dict[str, str]:
    return {
        "x-codex-primary-used-percent": str(five_h),
        "x-codex-primary-window-minutes": "300",
        "x-codex-primary-reset-at": str(int(FIVE_H)),
        "x-codex-secondary-used-percent": str(week),
        "x-codex-secondary-window-minutes": "10080",
        "x-codex-secondary-reset-at": str(int(WEEK)),
        "x-codex-plan-type": "plus",
    }


def _solve(loopback, five_h: tuple[float, float], week: tuple[float, float]) -> None:
    """The backend's two answers for the task: read and write the fix, then done."""
    source = (TASK.solution / "stats.py").read_text()
    calls = (
        Stream()
        .created()
        .call("c1", "read_file", [json.dumps({"path": "stats.py"})])
        .call("c2", "write_file", [json.dumps({"path": "stats.py", "content": source})])
        .completed()
    )
    done = Stream().created().message(["Done."]).completed()
    for reply, a, b in ((calls, five_h[0], week[0]), (done, five_h[1], week[1])):
        reply.headers.update(_windows(a, b))
        loopback.add(reply)


def test_quota_spent_counts_from_the_figures_before_the_work():
    def q(used: float, resets: float | None) -> quotas.Quota:
        return quotas.Quota((quotas.Window("primary", used, 300, resets),))

    assert quotas.spent(q(10, FIVE_H), q(12.5, FIVE_H + 5)) == {"5h": 2.5}  # jitter: one window
    assert quotas.spent(None, q(12.5, FIVE_H), q(11, FIVE_H)) == {"5h": 1.5}  # from the first
    assert quotas.spent(q(90, FIVE_H - 18000), q(4, FIVE_H), q(1, FIVE_H)) == {"5h": 3.0}
    assert quotas.spent(q(90, FIVE_H - 18000), q(4, FIVE_H)) == {"5h": 4.0}  # refilled: from 0
    assert quotas.spent(None, q(4, FIVE_H)) == {}  # nothing to count from
    assert quotas.spent(q(4, FIVE_H), None) == {}


async def test_a_bench_on_a_plan_reports_the_windows_spent_per_pass(
    loopback, monkeypatch, tmp_path
):
    account = sign_in("chatgpt", token="bench-plan-token")
    monkeypatch.setenv("LARIK_CHATGPT_BASE_URL", f"{loopback.url}/backend-api/codex")
    before = quotas.from_headers(_windows(10, 3))
    assert before is not None
    quotas.save(AccountStore(Config().accounts_dir), account, before)  # an earlier process's
    _solve(loopback, five_h=(11, 12.5), week=(3.1, 3.25))
    runner = make_agent_runner(Config(), tmp_path / "transcripts")
    [result] = await run_bench(["chatgpt/gpt-5.5"], [TASK], runner)
    assert result.passed, result.detail
    assert result.plan_spent == {"5h": 2.5, "wk": 0.25}
    assert result.cost == 0.0  # a plan's model costs nothing per token
    [s] = summarize([result, RunResult("chatgpt/gpt-5.5", TASK.name, 2, False, "check failed")])
    assert s.plan_per_pass == {"5h": 2.5, "wk": 0.25}  # one pass, one run without figures
    md = report_md([s])
    assert "| $ / pass | plan / pass |" in md and "| 5h 2.5% · wk 0.2% |" in md
    assert json.loads(report_json([s]))["models"][0]["plan_per_pass"] == "5h 2.5% · wk 0.2%"
    assert "plan_per_pass" in report_csv([s]).splitlines()[0]
    assert "bench-plan-token" not in md + report_json([s])
    from rich.console import Console

    from larik.bench.report import render_summary

    console = Console(record=True, width=200)
    console.print(render_summary([s]))
    table = console.export_text()
    assert "plan / pass" in table and "5h 2.5% · wk 0.2%" in table


def test_a_plans_runs_go_one_at_a_time_and_a_keyed_providers_do_not():
    assert plan_provider("chatgpt") and plan_provider("copilot")
    assert not plan_provider("openai") and not plan_provider("scripted")


def test_a_results_file_with_a_hostile_plan_figure_is_read_as_no_figure():
    rows = [
        RunResult("chatgpt/gpt-5.5", "t", 1, True, "", plan_spent={"5h": "lots"}),  # type: ignore[dict-item]
        RunResult("chatgpt/gpt-5.5", "t", 2, True, "", plan_spent=["5h"]),  # type: ignore[arg-type]
        RunResult("chatgpt/gpt-5.5", "t", 3, True, "", plan_spent={"5h": float("inf")}),
        RunResult("chatgpt/gpt-5.5", "t", 4, True, "", plan_spent={"x" * 500: 1.0}),
    ]
    [s] = summarize(rows)
    assert s.plan_spent == {"x" * 12: 1.0} and s.plan_per_pass == {"x" * 12: 0.25}
