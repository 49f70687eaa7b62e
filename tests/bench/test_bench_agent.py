"""larik bench end to end on the scripted provider, through the real agent (yolo, tools)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from larik.bench.agent_run import make_agent_runner
from larik.bench.runner import (
    CHECK_FAILED,
    PROVIDER_ERROR,
    STUCK,
    TIMEOUT,
    TURN_LIMIT,
    run_bench,
)
from larik.bench.tasks import load_tasks
from larik.cli import app
from larik.config import Config
from larik.llm.providers.scripted import ScriptedProvider
from larik.routing import Resolved

TASKS = {t.name: t for t in load_tasks()}


def _solution_turns(task) -> list[dict]:
    files = [p.relative_to(task.solution) for p in sorted(task.solution.rglob("*")) if p.is_file()]
    # a file is replaced only after it was read (no blind overwrite)
    reads = [
        {"name": "read_file", "input": {"path": str(rel)}}
        for rel in files
        if (task.repo / rel).is_file()
    ]
    writes = [
        {
            "name": "write_file",
            "input": {"path": str(rel), "content": (task.solution / rel).read_text()},
        }
        for rel in files
    ]
    return [{"text": "Applying the fix.", "tool_calls": reads + writes}, {"text": "Done."}]


def scripted(scripts: dict[str, list[dict]]):
    """One fresh ScriptedProvider per run, chosen by the model spec."""

    def resolver_for(spec):
        provider = ScriptedProvider(scripts[spec], name="scripted")

        def resolve(s):
            return Resolved(
                provider=provider,
                model=spec,
                provider_name="scripted",
                role=None,
                spec=f"scripted/{spec}",
            )

        return resolve

    return resolver_for


def runner(tmp_path: Path, scripts):
    return make_agent_runner(Config(), tmp_path / "runs", scripted(scripts))


async def test_applying_the_reference_change_passes(tmp_path):
    task = TASKS["rename-across-files"]
    res = await run_bench(["solver"], [task], runner(tmp_path, {"solver": _solution_turns(task)}))
    assert res[0].passed and res[0].reason == "" and res[0].turns == 2
    assert res[0].input_tokens > 0 and list((tmp_path / "runs").glob("*.jsonl"))


async def test_a_bench_run_cannot_fetch_from_the_web(tmp_path):
    task = TASKS["implement-stub"]
    fetch = {"name": "web_fetch", "input": {"url": "https://example.org/answer"}}
    provider = ScriptedProvider([{"tool_calls": [fetch]}, {"text": "ok"}], name="scripted")
    resolve = lambda s: Resolved(provider, "m", "scripted", None, "scripted/m")  # noqa: E731
    run = make_agent_runner(Config(), tmp_path / "runs", lambda spec: resolve)
    await run_bench(["m"], [task], run)
    result = provider.requests[1].messages[-1].blocks[0]
    assert result.is_error and "denied by the rule 'web_fetch'" in result.content


async def test_doing_nothing_fails(tmp_path):
    task = TASKS["implement-stub"]
    res = await run_bench(["idle"], [task], runner(tmp_path, {"idle": [{"text": "Looks fine."}]}))
    assert not res[0].passed and res[0].reason == CHECK_FAILED


async def test_passing_by_editing_or_deleting_the_tests_still_fails(tmp_path):
    task = TASKS["fix-failing-test"]
    cheat_edit = [
        {
            "tool_calls": [
                {
                    "name": "write_file",
                    "input": {
                        "path": "tests/test_stats.py",
                        "content": "def test_ok():\n    assert True\n",
                    },
                }
            ]
        },
        {"text": "Tests pass now."},
    ]
    cheat_delete = [
        {
            "tool_calls": [
                {
                    "name": "bash",
                    "input": {"command": "rm -rf tests && echo 'import pytest' > conftest.py"},
                }
            ]
        },
        {"text": "No failing tests left."},
    ]
    res = await run_bench(
        ["edit", "delete"], [task], runner(tmp_path, {"edit": cheat_edit, "delete": cheat_delete})
    )
    assert [(r.model, r.passed, r.reason) for r in res] == [
        ("edit", False, CHECK_FAILED),
        ("delete", False, CHECK_FAILED),
    ]


async def test_provider_error_and_time_out_are_recorded_with_their_reason(tmp_path, monkeypatch):
    task = TASKS["fix-failing-test"]
    # 3 s: the broken run's start (a session, its checkpoint) fits however loaded the machine
    # (1 s did not, at load 5); the slow one streams for 50 s, in text that is no runaway
    monkeypatch.setattr(task.spec, "time_limit", 3.0)
    slow = " ".join(f"word{i}" for i in range(400))
    scripts = {
        "broken": [{"error": {"status": 401, "message": "invalid key"}}],
        "slow": [{"text": slow, "delay": 50 / (len(slow) / 8)}],
    }
    res = await run_bench(["broken", "slow"], [task], runner(tmp_path, scripts))
    assert res[0].reason == PROVIDER_ERROR and "401" in res[0].detail
    assert res[1].reason == TIMEOUT


async def test_turn_limit_is_recorded(tmp_path, monkeypatch):
    task = TASKS["fix-failing-test"]
    monkeypatch.setattr(task.spec, "max_turns", 2)
    loop = [{"tool_calls": [{"name": "read_file", "input": {"path": "stats.py"}}]}] * 3
    res = await run_bench(["looper"], [task], runner(tmp_path, {"looper": loop}))
    assert res[0].reason == TURN_LIMIT and res[0].turns == 2


async def test_a_looping_model_ends_stuck_not_at_the_turn_limit_and_bad_calls_count(tmp_path):
    task = TASKS["fix-failing-test"]
    bad = {"tool_calls": [{"name": "read_file", "input": '{"path": '}]}
    loop = [bad, *[{"tool_calls": [{"name": "read_file", "input": {"path": "stats.py"}}]}] * 40]
    res = await run_bench(["looper"], [task], runner(tmp_path, {"looper": loop}))
    assert res[0].reason == STUCK and res[0].stop == "stuck" and res[0].turns == 5
    assert res[0].bad_calls == 1 and "stuck" in res[0].detail
    assert res[0].tool_calls == 5 and res[0].tool_errors == 1  # the bad call is an error too


async def test_two_models_several_tasks_jobs_four_equals_jobs_one(tmp_path):
    """The real agent, two models, two tasks: 8 real checks (a third task made 12, and proved
    nothing the harness's own jobs test does not)."""
    tasks = [TASKS[n] for n in ("fix-failing-test", "rename-across-files")]
    # the solver writes every task's solution files: unrelated files do not hurt a task
    turns = [
        {"tool_calls": [c for t in tasks for c in _solution_turns(t)[0]["tool_calls"]]},
        {"text": "done"},
    ]
    scripts = {"solver": turns, "idle": [{"text": "nothing to do"}]}
    one = await run_bench(["solver", "idle"], tasks, runner(tmp_path / "a", scripts), jobs=1)
    four = await run_bench(["solver", "idle"], tasks, runner(tmp_path / "b", scripts), jobs=4)
    key = [(r.model, r.task, r.passed, r.reason) for r in one]
    assert key == [(r.model, r.task, r.passed, r.reason) for r in four]
    assert [r.passed for r in one] == [True, True, False, False]


def test_cli_list_and_validate():
    r = CliRunner().invoke(app, ["bench", "--list"])
    assert r.exit_code == 0 and "fix-failing-test" in r.output
    r = CliRunner().invoke(app, ["bench", "--validate", "--task", "seed"])
    assert r.exit_code == 0 and "3 of 3 tasks valid" in r.output


def test_cli_runs_a_scripted_model_and_keeps_history(tmp_path):
    task = TASKS["rename-across-files"]
    script = tmp_path / "solve.json"
    script.write_text(json.dumps({"turns": _solution_turns(task)}))
    out = tmp_path / "out.json"
    r = CliRunner().invoke(
        app, ["bench", "-m", f"scripted/{script}", "--task", task.name, "--json", str(out)]
    )
    assert r.exit_code == 0, r.output
    data = json.loads(out.read_text())
    assert data[0]["passed"] is True and data[0]["task"] == task.name
    r = CliRunner().invoke(app, ["bench", "--report"])
    assert r.exit_code == 0 and "100%" in r.output


def test_cli_unknown_model_or_task_is_one_line_exit_2():
    r = CliRunner().invoke(app, ["bench", "-m", "nosuchprovider/x"])
    assert r.exit_code == 2
    r = CliRunner().invoke(app, ["bench", "--task", "no-such-task", "--list"])
    assert r.exit_code == 2


def test_cli_every_run_of_a_scripted_model_plays_its_script_from_the_start(tmp_path):
    task = TASKS["rename-across-files"]
    script = tmp_path / "solve.json"
    script.write_text(json.dumps({"turns": _solution_turns(task)}))
    out = tmp_path / "out.json"
    argv = ["bench", "-m", f"scripted/{script}", "--task", task.name, "--repeat", "3"]
    r = CliRunner().invoke(app, [*argv, "--jobs", "2", "--json", str(out)])
    assert r.exit_code == 0, r.output
    assert [run["passed"] for run in json.loads(out.read_text())] == [True, True, True]


def test_cli_list_shows_every_task_name_whole_in_80_columns():
    r = CliRunner().invoke(app, ["bench", "--list"], env={"COLUMNS": "80"})
    assert r.exit_code == 0
    for name in TASKS:
        assert name in r.output


def test_cli_report_shows_the_model_names_in_80_columns(tmp_path):
    task = TASKS["rename-across-files"]
    script = tmp_path / "a-rather-long-script-name.json"
    script.write_text(json.dumps({"turns": _solution_turns(task)}))
    r = CliRunner().invoke(app, ["bench", "-m", f"scripted/{script}", "--task", task.name])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(app, ["bench", "--report"], env={"COLUMNS": "80"})
    assert r.exit_code == 0
    assert max(len(line) for line in r.output.splitlines()) <= 80
    assert "scripted//tmp" in r.output  # the name starts whole, the rest folds
    assert "(1/1)" in r.output and "21–100%" in r.output  # passes/runs, the Wilson interval
    for header in ("pass rate", "median wall", "errors", "last run"):
        assert header in r.output


def test_cli_warns_up_front_about_a_model_that_cannot_call_tools_and_still_runs_it(
    tmp_path, monkeypatch
):
    import os

    task = TASKS["implement-stub"]
    script = tmp_path / "chat-only.json"
    script.write_text(json.dumps({"turns": [{"text": "I can only talk."}]}))
    config = Path(os.environ["LARIK_HOME"]) / "config.toml"
    config.write_text(f'[models."scripted/{script}"]\ntools = false\n')
    out = tmp_path / "out.json"
    r = CliRunner().invoke(
        app, ["bench", "-m", f"scripted/{script}", "--task", task.name, "--json", str(out)]
    )
    assert r.exit_code == 0, r.output
    warnings = [line for line in r.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "does not support tools" in warnings[0]
    assert f"scripted/{script}" in warnings[0]
    assert len(json.loads(out.read_text())) == 1  # run all the same


async def test_a_local_server_that_says_the_model_takes_no_tools_is_warned_about():
    from larik.bench.agent_run import tool_warnings

    class NoTools(ScriptedProvider):
        async def context_window(self, model):
            return None

        async def supports_tools(self, model):
            return False

    def resolver_for(spec):
        provider = NoTools([], name="llamacpp") if spec == "llamacpp/small" else None
        provider = provider or ScriptedProvider([], name="scripted")
        name, model = spec.split("/", 1)
        return lambda s: Resolved(
            provider=provider, model=model, provider_name=name, role=None, spec=spec
        )

    lines = await tool_warnings(["scripted/able", "llamacpp/small"], Config(), resolver_for)
    assert len(lines) == 1 and lines[0].startswith("llamacpp/small does not support tools")


async def test_attempts_the_first_try_fails_the_second_passes_from_the_same_files(tmp_path):
    """``--attempts 3`` (issue 24 item 6): try 1 breaks the code differently and leaves a stray
    file, its own test run fails; try 2 starts from the task's files again (real git snapshot),
    fixes it and its tests pass: it is kept, pass@1 is False and the run passes."""
    task = TASKS["fix-failing-test"]
    solution = _solution_turns(task)[0]["tool_calls"]
    test = {"name": "bash", "input": {"command": "python -m pytest -q"}}
    stray = {"name": "write_file", "input": {"path": "stray.py", "content": "x = 1\n"}}
    broken = {"name": "write_file", "input": {"path": "stats.py", "content": "x = 1\n"}}
    read = {"name": "read_file", "input": {"path": "stats.py"}}
    script = [
        {"tool_calls": [read, broken, stray]},
        {"tool_calls": [test]},
        {"text": "try one"},
        {"tool_calls": solution},
        {"tool_calls": [test]},
        {"text": "try two"},
    ]
    seen: list[list[str]] = []

    run = make_agent_runner(Config(), tmp_path / "runs", scripted({"m": script}), attempts=3)

    async def watched(t, workdir, spec, outcome):
        await run(t, workdir, spec, outcome)
        seen.append(sorted(str(p.relative_to(workdir)) for p in workdir.glob("*.py")))

    [res] = await run_bench(["m"], [task], watched, attempts=3)
    assert res.passed and res.first_try is False and res.tries == 2
    assert seen == [["stats.py"]]  # the stray file went with try 1's reset
    assert len(list((tmp_path / "runs").glob("*.jsonl"))) == 2  # a transcript per try


@pytest.mark.parametrize(("configured", "temps"), [(0.2, [0.2, 0.7]), (None, [None, None])])
async def test_a_later_try_samples_hotter_where_the_profile_sets_a_temperature(
    tmp_path, configured, temps
):
    """Measured (qwen2.5-coder-1.5b, ``--attempts 3`` at its profile's 0.2): the tries were near
    copies, and pass@3 was pass@1. Every try after the first asks at least 0.7; a model whose
    profile sends no temperature keeps its provider's default in every try."""
    from larik.config.providers import ModelOverride
    from larik.session.attempts import TRY_TEMPERATURE

    assert TRY_TEMPERATURE == 0.7
    task = TASKS["fix-failing-test"]
    test = {"name": "bash", "input": {"command": "python -m pytest -q"}}
    script = [{"tool_calls": [test]}, {"text": "try one"}, {"tool_calls": [test]}, {"text": "two"}]
    provider = ScriptedProvider(script, name="scripted")

    def resolver_for(spec):
        return lambda s: Resolved(
            provider=provider, model="m", provider_name="scripted", role=None, spec="scripted/m"
        )

    config = Config(models={"scripted/m": ModelOverride(temperature=configured)})
    run = make_agent_runner(config, tmp_path / "runs", resolver_for, attempts=2)
    [res] = await run_bench(["scripted/m"], [task], run, attempts=2)
    assert res.tries == 2
    assert [r.temperature for r in provider.requests] == [temps[0]] * 2 + [temps[1]] * 2


def test_cli_list_piped_shows_each_summary_on_one_line():
    """Piped, Rich guessed 80 columns and wrapped each summary into 16 of them."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    r = subprocess.run(
        [sys.executable, "-m", "larik.cli", "bench", "--list"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert r.returncode == 0, r.stderr
    header = next(line for line in r.stdout.splitlines() if "summary" in line)
    summary = next(cell for cell in header.split("┃") if "summary" in cell)
    assert len(summary) >= 60  # a sentence a line, not two words
    assert "Add alignment options to a table formatter without breaking its current output." in (
        r.stdout
    )
