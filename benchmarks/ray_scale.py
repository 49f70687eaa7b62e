"""``larik bench`` on Aider's 34 Python exercises: local ``--jobs 1`` and ``--jobs 2`` against a
local Ray cluster of 1 and 2 CPUs (issue 18 item 5; docs/performance.md, "Bench on Ray").

    .venv/bin/python benchmarks/ray_scale.py                  # 3 rounds, ~20 min on 2 vCPUs
    .venv/bin/python benchmarks/ray_scale.py --rounds 1 --modes local:1,ray:1

The model is the scripted provider playing the reference solutions: one reply that reads and
writes every exercise's reference file (each exercise has its own file, so the one script
solves whichever exercise a run is given), then "Done.". A scripted reply costs no model time,
so a run's time is the harness: copying the exercise, building the agent, the tools, the check
(pytest, a subprocess). Every run must pass; a failure stops the benchmark.

Each mode runs in a fresh child process, modes alternating within a round, and calls what
``larik bench`` calls: ``run_bench`` with ``make_agent_runner`` and ``fresh_scripts`` locally,
and with ``RayBench.execute`` / ``RayBench.limit`` after ``ray_run.connect`` on Ray (a local
cluster started by the child with ``num_cpus`` 1 or 2). Measured per mode:

* **start** — connecting (Ray: starting the local cluster) before the first run;
* **runs** — the 34 runs, first submission to last result;
* **per run** — the median run's own wall time (``RunResult.wall``, measured inside
  ``run_one`` wherever it ran);
* **Ray's share per run** — on Ray, each ``execute`` call's round trip minus the run's own wall
  time: shipping the task, scheduling, the worker's set-up and the result coming back (the
  median, and the largest: a worker process starting for the first runs).

From 1 and 2 Ray workers the script fits ``T(N) = S + R * (t + o) / N`` (R runs, S the serial
part, t + o a run on a worker) and prints T and throughput for more workers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import TableRow, machine_lines, print_table

PY = sys.executable
HERE = Path(__file__).resolve()
ROOT = HERE.parents[1]
SUITE = ROOT / "suites" / "aider-polyglot-python"
MODES = ("local:1", "local:2", "ray:1", "ray:2")
RUNS = 34


def write_script(tasks: list[Any], path: Path) -> Path:
    reads, writes = [], []
    for t in tasks:
        for f in sorted(p for p in t.solution.rglob("*") if p.is_file()):
            rel = str(f.relative_to(t.solution))
            reads.append({"name": "read_file", "input": {"path": rel}})
            writes.append({"name": "write_file", "input": {"path": rel, "content": f.read_text()}})
    turns = [{"text": "Applying.", "tool_calls": reads + writes}, {"text": "Done."}]
    path.write_text(json.dumps({"turns": turns}))
    return path


async def _bench(mode: str, n: int, tmp: Path) -> dict[str, Any]:
    from larik.bench.agent_run import fresh_scripts, make_agent_runner
    from larik.bench.runner import run_bench
    from larik.bench.suite import load_suite
    from larik.config import Config

    tasks = load_suite(SUITE)
    spec = f"scripted/{write_script(tasks, tmp / 'solve.json')}"
    config = Config()
    out: dict[str, Any] = {"mode": mode, "workers": n, "start": 0.0, "stop": 0.0, "ray": []}
    if mode == "local":
        run_agent = make_agent_runner(config, tmp / "runs", fresh_scripts(config))
        t0, c0 = time.perf_counter(), time.process_time()
        results = await run_bench([spec], tasks, run_agent, jobs=n)
        out["runs_wall"] = time.perf_counter() - t0
        out["driver_cpu"] = time.process_time() - c0
    else:
        from larik.bench.ray_run import RayBench, connect

        t0 = time.perf_counter()
        with connect(None, num_cpus=n) as ray:
            rb = RayBench(ray, config, [spec], bench_id="scale", transcripts=tmp / "runs")
            out["start"] = time.perf_counter() - t0

            async def timed(task: Any, model: str, rep: int) -> Any:
                t = time.perf_counter()
                r = await rb.execute(task, model, rep)
                out["ray"].append(time.perf_counter() - t - r.wall)
                return r

            t1, c1 = time.perf_counter(), time.process_time()
            results = await run_bench(
                [spec], tasks, None, jobs=n, execute=timed, provider_limit=rb.limit
            )
            out["runs_wall"] = time.perf_counter() - t1
            out["driver_cpu"] = time.process_time() - c1
            t2 = time.perf_counter()
        out["stop"] = time.perf_counter() - t2
    bad = [f"{r.task}: {r.reason} {r.detail}" for r in results if not r.passed]
    if bad:
        raise SystemExit("runs failed: " + "; ".join(bad[:3]))
    out["run_walls"] = [r.wall for r in results]
    out["total"] = out["start"] + out["runs_wall"] + out["stop"]
    return out


def child(mode_n: str) -> None:
    mode, n = mode_n.split(":")
    with tempfile.TemporaryDirectory(prefix="larik-ray-scale-") as tmp:
        os.environ["LARIK_HOME"] = str(Path(tmp) / "home")
        print(json.dumps(asyncio.run(_bench(mode, int(n), Path(tmp)))))


def run_child(mode: str) -> dict[str, Any]:
    done = subprocess.run(
        [PY, str(HERE), "--child", mode], capture_output=True, text=True, timeout=1800
    )
    if done.returncode:
        raise RuntimeError(f"{mode}: {(done.stdout + done.stderr).strip()[-1500:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def med(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0


def model(summary: dict[str, dict[str, float]]) -> None:
    """T(N) = S + R * max((t + o) / min(N, L), d): a run takes t + o on a worker (measured
    with one worker), N workers share the runs, but one provider has at most L in flight
    (the per-provider limit) and the driver spends d of CPU on each run, one at a time."""
    from larik.bench.runner import PER_PROVIDER

    one, two = summary["ray:1"], summary["ray:2"]
    t = one["runs"] / RUNS  # seconds a run holds a worker (its wall time and Ray's share)
    d = one["driver_cpu"]
    start = one["start"]
    print(
        f"model: T(N) = {start:.0f} s + {RUNS} × max({t:.2f} s / min(N, L), {d * 1000:.0f} ms)"
        f"   (start, runs × max(a run on a worker over the workers it can use, driver CPU))"
    )
    print(
        f"measured with 2 workers: {two['runs']:.1f} s for the runs, the model says "
        f"{RUNS * t / 2:.1f} s: {RUNS * t / 2 / two['runs']:.0%} of the ideal on this machine"
    )
    for n in (1, 2, 4, 8, 16, 32, 64):
        one_provider = start + RUNS * max(t / min(n, PER_PROVIDER), d)
        many = start + RUNS * max(t / n, d)
        print(
            f"  N={n:>2}: one provider (L={PER_PROVIDER}) {one_provider:6.1f} s "
            f"{RUNS / (one_provider - start) * 60:6.1f} runs/min;  "
            f"N/{PER_PROVIDER}+ providers {many:6.1f} s {RUNS / (many - start) * 60:6.1f} runs/min"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--child")
    ap.add_argument("--out", type=Path, help="also write the raw figures here (JSON)")
    ap.add_argument("--table", type=Path, help="print the table of an --out file and stop")
    args = ap.parse_args()
    if args.child:
        child(args.child)
        return
    if args.table:
        saved = json.loads(args.table.read_text())
        report(saved["runs"], saved["loads"])
        return
    modes = args.modes.split(",")
    found: dict[str, list[dict[str, Any]]] = {m: [] for m in modes}
    loads: list[float] = []
    for r in range(args.rounds):
        for mode in modes:
            loads.append(os.getloadavg()[0])
            found[mode].append(run_child(mode))
            print(f"round {r + 1} {mode}: {found[mode][-1]['total']:.1f}s", file=sys.stderr)
            if args.out:
                args.out.write_text(json.dumps({"runs": found, "loads": loads}, indent=2))
    report(found, loads)


def report(found: dict[str, list[dict[str, Any]]], loads: list[float]) -> None:
    modes = list(found)
    for line in machine_lines(["ray"]):
        print(line)
    print(
        f"load average (1 min) at each child's start: median {med(loads):.1f}, max {max(loads):.1f}"
    )
    rows = []
    summary: dict[str, dict[str, float]] = {}
    for mode in modes:
        got = found[mode]
        runs = [g["runs_wall"] for g in got]
        s = {
            "total": med([g["total"] for g in got]),
            "start": med([g["start"] for g in got]),
            "runs": med(runs),
            "runs_min": min(runs),
            "runs_max": max(runs),
            "per_run": med([med(g["run_walls"]) for g in got]),
            "driver_cpu": med([g["driver_cpu"] / len(g["run_walls"]) for g in got]),
            "ray": med([med(g["ray"]) for g in got]),
            "ray_first": med([max(g["ray"], default=0.0) for g in got]),
        }
        summary[mode] = s
        on_ray = mode.startswith("ray")
        rows.append(
            TableRow(
                [
                    mode,
                    f"{s['total']:.1f} s",
                    f"{s['start']:.1f} s",
                    f"{s['runs']:.1f} s",
                    f"{s['runs_min']:.0f}–{s['runs_max']:.0f} s",
                    f"{RUNS / s['runs'] * 60:.1f}",
                    f"{s['per_run']:.2f} s",
                    f"{s['driver_cpu'] * 1000:.0f} ms",
                    f"{s['ray']:.2f} s" if on_ray else "—",
                    f"{s['ray_first']:.1f} s" if on_ray else "—",
                ]
            )
        )
    print_table(
        [
            "mode",
            "total",
            "start",
            "34 runs",
            "min–max",
            "runs/min",
            "median run",
            "driver CPU/run",
            "Ray's share/run",
            "largest share",
        ],
        rows,
    )
    if "ray:1" in summary and "ray:2" in summary:
        model(summary)


if __name__ == "__main__":
    main()
