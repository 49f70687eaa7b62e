"""``larik bench`` on a scripted model over every task: the harness's own time, and --jobs.

    .venv/bin/python benchmarks/bench_overhead.py              # 4 rounds × 3 runs a task, ~1.5 min
    .venv/bin/python benchmarks/bench_overhead.py --rounds 6 --repeat 2 --no-cli

The model is the scripted provider playing, for each task, the task's reference solution:
one reply that writes every file of the task's ``solution/`` with ``write_file``, then
"Done." (as tests/bench/test_bench_agent.py does). A scripted reply costs no model time, so
everything a run takes is the harness: copying the repo, building the agent (``Agent.create``,
yolo), the agent loop and its tools, laying the check over the work, the pytest check (a
subprocess) and removing the directory.

* **per task** — ``run_bench`` over all tasks with ``--jobs 1``: wall time per run, split into
  the agent part and the pytest check, against the check alone run on the solution (the floor
  for a run that must run pytest). Target: ≤ 2 s per task beyond the model, check included.
* **--jobs 2 ÷ --jobs 1** — the whole bench (every task ``--repeat`` times), each in a new
  process, alternating, several rounds. Target ≥ 1.7× faster. The CPU time of the bench
  process itself (the event loop: the agent, the tools, the harness) and of its children (the
  pytest checks) tells how much of the work could overlap at all; and the same checks run
  alone, 1 and 2 at a time in the same rounds, tell what this machine gives two pytest
  processes at once right now (its cores are shared with whatever else runs).
* **the real command** (unless ``--no-cli``) — ``larik bench -m scripted/FILE --jobs 1`` once,
  end to end, for what the CLI adds (start-up, progress display, results file).

The benchmark calls ``larik.bench.runner.run_bench`` with ``larik.bench.agent_run.
make_agent_runner`` — what ``larik bench`` runs — with a resolver that gives every run its own
scripted provider for its task. ``larik bench -m scripted/FILE`` plays one script per process
for all runs (so a conversation and its subagents share it), which only works with --jobs 1:
concurrent runs would take each other's turns.
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import TableRow, machine_lines, print_table, stat

PY = sys.executable
HERE = Path(__file__).resolve()
TARGET_PER_TASK = 2.0
TARGET_SPEEDUP = 1.7


def solution_turns(task: Any) -> list[dict[str, Any]]:
    calls = [
        {
            "name": "write_file",
            "input": {"path": str(p.relative_to(task.solution)), "content": p.read_text()},
        }
        for p in sorted(task.solution.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    ]
    return [{"text": "Applying the fix.", "tool_calls": calls}, {"text": "Done."}]


# -- one bench (in a child process) -----------------------------------------------------------


async def bench_once(jobs: int, repeat: int, runs_dir: Path) -> dict[str, Any]:
    from larik.bench.agent_run import make_agent_runner
    from larik.bench.runner import run_bench
    from larik.bench.tasks import load_tasks
    from larik.config import Config
    from larik.llm.providers.scripted import ScriptedProvider
    from larik.routing import Resolved

    tasks = load_tasks()
    scripts = {t.name: solution_turns(t) for t in tasks}
    current: contextvars.ContextVar[Any] = contextvars.ContextVar("task")

    def resolver_for(spec: str) -> Any:
        task = current.get()
        provider = ScriptedProvider(scripts[task.name], name="scripted")

        def resolve(_: str) -> Resolved:
            return Resolved(
                provider=provider,
                model="solver",
                provider_name="scripted",
                role=None,
                spec="scripted/solver",
            )

        return resolve

    inner = make_agent_runner(Config(), runs_dir, resolver_for)

    async def run_agent(task: Any, workdir: Path, spec: str, outcome: Any) -> None:
        current.set(task)  # each run is its own asyncio task: its own context
        await inner(task, workdir, spec, outcome)

    cpu0 = time.process_time()
    kids0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    results = await run_bench(["scripted/solver"], tasks, run_agent, jobs=jobs, repeat=repeat)
    wall = time.perf_counter() - t0
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "jobs": jobs,
        "wall": wall,
        "cpu_self": time.process_time() - cpu0,
        "cpu_children": (kids.ru_utime + kids.ru_stime) - (kids0.ru_utime + kids0.ru_stime),
        "runs": [
            {
                "task": r.task,
                "passed": r.passed,
                "reason": r.reason,
                "detail": r.detail,
                "wall": r.wall,
                "agent": r.agent_seconds,
                "check": r.check_seconds,
            }
            for r in results
        ],
    }


def checks_once(jobs: int, repeat: int) -> dict[str, Any]:
    """The checks alone, ``jobs`` at a time, each on a copy of the repo with the solution laid
    over: the floor for a run that must run pytest, and (1 against 2 at a time) how much the
    machine lets this work overlap right now."""
    import shutil
    from concurrent.futures import ThreadPoolExecutor

    from larik.bench.tasks import load_tasks, prepare_workdir, run_check

    def one(task: Any) -> tuple[str, float]:  # a task, its time
        workdir = prepare_workdir(task, with_solution=True)
        try:
            t = time.perf_counter()
            check = run_check(task, workdir)
            if not check.passed:
                raise RuntimeError(f"{task.name}: the solution fails its check")
            return task.name, time.perf_counter() - t
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

    kids0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        done = list(pool.map(one, [t for _ in range(repeat) for t in load_tasks()]))
    per_task: dict[str, list[float]] = {}
    for name, seconds in done:
        per_task.setdefault(name, []).append(seconds)
    wall = time.perf_counter() - t0
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "jobs": jobs,
        "wall": wall,
        "per_task": per_task,
        "cpu_children": (kids.ru_utime + kids.ru_stime) - (kids0.ru_utime + kids0.ru_stime),
    }


def child(args: list[str]) -> None:
    what, value, repeat = args
    # what the CLI has imported by the time it runs the bench
    import larik.agent.agent
    import larik.bench.agent_run  # noqa: F401

    if what == "checks":
        print(json.dumps(checks_once(int(value), int(repeat))))
        return
    with tempfile.TemporaryDirectory(prefix="larik-bench-overhead-") as tmp:
        print(json.dumps(asyncio.run(bench_once(int(value), int(repeat), Path(tmp)))))


# -- the parent -------------------------------------------------------------------------------


def run_child(*args: str, env: dict[str, str]) -> Any:
    done = subprocess.run(
        [PY, str(HERE), "--child", *args], env=env, capture_output=True, text=True, timeout=900
    )
    if done.returncode:
        raise RuntimeError(f"child {args}: {done.stderr.strip()[-1500:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def cli_once(env: dict[str, str], tmp: Path) -> tuple[float, int]:
    """``larik bench`` itself, on one script that writes every task's solution in each run."""
    from larik.bench.tasks import load_tasks

    tasks = load_tasks()
    calls = [c for t in tasks for c in solution_turns(t)[0]["tool_calls"]]
    turns = [{"text": "Applying the fixes.", "tool_calls": calls}, {"text": "Done."}] * len(tasks)
    script = tmp / "all.json"
    script.write_text(json.dumps({"turns": turns}))
    larik = str(Path(PY).parent / "larik")
    t = time.perf_counter()
    done = subprocess.run(
        [larik, "bench", "-m", f"scripted/{script}", "--jobs", "1"],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    wall = time.perf_counter() - t
    if done.returncode:
        raise RuntimeError(f"larik bench: {(done.stdout + done.stderr).strip()[-1500:]}")
    return wall, len(tasks)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=4, help="rounds (default 4)")
    p.add_argument("--no-cli", action="store_true", help="skip the end-to-end `larik bench`")
    p.add_argument("--repeat", type=int, default=3, help="runs of every task per bench (default 3)")
    p.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child(args.child)
        return
    if args.rounds < 1 or args.repeat < 1:
        p.error("--rounds and --repeat must be at least 1")

    with tempfile.TemporaryDirectory(prefix="larik-bench-overhead-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env["LARIK_HOME"] = str(home)
        found: dict[int, list[dict[str, Any]]] = {1: [], 2: []}
        checks: dict[int, list[dict[str, Any]]] = {1: [], 2: []}
        order = [("bench", 1), ("bench", 2), ("checks", 1), ("checks", 2)]
        for r in range(args.rounds):
            k = r % len(order)
            for what, jobs in order[k:] + order[:k]:
                into = found if what == "bench" else checks
                into[jobs].append(run_child(what, str(jobs), str(args.repeat), env=env))
        cli = None if args.no_cli else cli_once(env, Path(tmp))
    report(found, checks, cli, args.rounds, args.repeat)


def report(
    found: dict[int, list[dict[str, Any]]],
    checks: dict[int, list[dict[str, Any]]],
    cli: tuple[float, int] | None,
    rounds: int,
    repeat: int,
) -> None:
    floor = {
        name: stat([x for c in checks[1] for x in c["per_task"][name]]).median
        for name in checks[1][0]["per_task"]
    }
    print("bench_overhead: `larik bench` on a scripted model over every task")
    for line in machine_lines(("larik", "pytest")):
        print(line)
    failed = [
        (run["task"], run["reason"], run["detail"])
        for rs in found.values()
        for b in rs
        for run in b["runs"]
        if not run["passed"]
    ]
    tasks = list(dict.fromkeys(run["task"] for run in found[1][0]["runs"]))
    print(
        f"{len(tasks)} tasks × {repeat} runs per bench; {rounds} rounds of --jobs 1, --jobs 2 "
        f"and the checks alone (1 and 2 at a time), a new process each, alternating; every run "
        f"passed: {not failed}"
    )
    for f in failed[:5]:
        print(f"  failed: {f}")
    print()

    rows = []
    per_task_wall: list[float] = []
    for name in tasks:
        runs = [run for b in found[1] for run in b["runs"] if run["task"] == name]
        wall = stat([r["wall"] for r in runs])
        agent = stat([r["agent"] for r in runs]).median
        check = stat([r["check"] for r in runs]).median
        per_task_wall.append(wall.median)
        rows.append(
            TableRow(
                [
                    name,
                    f"{wall.median:.2f}",
                    f"{wall.low:.2f}–{wall.high:.2f}",
                    f"{agent:.2f}",
                    f"{check:.2f}",
                    f"{floor[name]:.2f}",
                    f"{wall.median - floor[name]:+.2f}",
                ]
            )
        )
    all_walls = [run["wall"] for b in found[1] for run in b["runs"]]
    s = stat(all_walls)
    rows.append(
        TableRow(
            [
                "every task",
                f"{s.median:.2f}",
                f"{s.low:.2f}–{s.high:.2f}",
                f"{stat([run['agent'] for b in found[1] for run in b['runs']]).median:.2f}",
                f"{stat([run['check'] for b in found[1] for run in b['runs']]).median:.2f}",
                f"{stat(list(floor.values())).median:.2f}",
                "",
            ],
            rule_before=True,
        )
    )
    print("Per task, --jobs 1 (seconds; agent = repo copy + Agent.create + the loop and its")
    print("tools; check = laying the check over the work + pytest; floor = the check alone on")
    print("the solution, one at a time):")
    print()
    print_table(["task", "wall", "min–max", "agent", "check", "floor", "wall − floor"], rows)
    worst = max(per_task_wall)
    ok = "meets" if worst <= TARGET_PER_TASK else "MISSES"
    print(
        f"\nharness time per task beyond the model: median {s.median:.2f} s, worst task "
        f"{worst:.2f} s -> {ok} the ≤ {TARGET_PER_TASK:g} s target"
    )

    print("\nThe whole bench, --jobs 2 against --jobs 1, and the checks alone 1 and 2 at a time:")
    print()
    rows = []
    speedups = {}
    for what, data in (("bench", found), ("checks alone", checks)):
        ref = stat([b["wall"] for b in data[1]]).median
        for jobs in (1, 2):
            bs = data[jobs]
            w = stat([b["wall"] for b in bs])
            cpu_self = stat([b.get("cpu_self", 0.0) for b in bs]).median
            cpu_kids = stat([b["cpu_children"] for b in bs]).median
            speedups[(what, jobs)] = ref / w.median
            target = "ref" if jobs == 1 else (f"≥ {TARGET_SPEEDUP}×" if what == "bench" else "info")
            rows.append(
                TableRow(
                    [
                        f"{what}, {'--jobs' if what == 'bench' else 'at a time'} {jobs}",
                        f"{w.median:.2f}",
                        f"{w.low:.2f}–{w.high:.2f}",
                        f"{ref / w.median:.2f}×",
                        f"{cpu_self:.2f}" if what == "bench" else "-",
                        f"{cpu_kids:.2f}",
                        f"{(cpu_self + cpu_kids) / w.median * 100:.0f}",
                        target,
                    ],
                    rule_before=what != "bench" and jobs == 1,
                )
            )
    print_table(
        [
            "run",
            "wall s",
            "min–max",
            "speed-up",
            "CPU bench s",
            "CPU pytest s",
            "CPU % of 1 core",
            "target",
        ],
        rows,
    )
    speedup = speedups[("bench", 2)]
    ceiling = speedups[("checks alone", 2)]
    ref = stat([b["wall"] for b in found[1]]).median
    serial = stat([b["cpu_self"] for b in found[1]]).median
    total_cpu = serial + stat([b["cpu_children"] for b in found[1]]).median
    print(
        f"\n--jobs 2: {speedup:.2f}× --jobs 1 -> "
        f"{'meets' if speedup >= TARGET_SPEEDUP else 'MISSES'} the ≥ {TARGET_SPEEDUP}× target. "
        f"The same checks alone, 2 at a time\nagainst 1, in the same rounds: {ceiling:.2f}× "
        "(what the CPU left free by other work on this machine allowed)."
    )
    print(
        f"CPU in --jobs 1: {total_cpu:.1f} s in {ref:.1f} s ({total_cpu / ref * 100:.0f}% of one "
        f"core), {total_cpu - serial:.1f} s of it in the pytest subprocesses; the bench process "
        f"itself (the one part that cannot run on two cores at once) {serial:.2f} s."
    )
    if cli is not None:
        wall, n = cli
        print(
            f"\n`larik bench -m scripted/FILE --jobs 1`, end to end: {wall:.1f} s for {n} tasks "
            f"({wall / n:.2f} s a task, CLI start-up, progress display and results file "
            "included; its script writes every task's solution in each run)."
        )


if __name__ == "__main__":
    main()
