"""A real small model on the bundled bench tasks: how runs end, before and after a harness change.

Issue 13's acceptance: Qwen2.5-Coder-0.5B (served on loopback by llama.cpp, e.g.
``/work/shared/tools/local-llm.sh start --model qwen-coder``) on ``larik bench``'s tasks, a few
repeats each, one run at a time. For every run it records how the run ended (passed, the task's
check failed, the wall-clock limit, the turn limit, ``stuck``, a provider error), the model calls
(subagents' included), and the tool calls the harness could not use — read from each run's own
transcript, so an older checkout that does not count them is measured the same way:

* ``bad calls``: tool results saying the tool is unknown or the arguments are not a JSON object
  or do not validate;
* ``text calls``: a reply that ended the turn with a tool call written as text that no recovery
  turned into a call (``<tool_call>``, or ``"name"`` with ``"arguments"``).

Run it against any checkout (the harness is imported from ``--larik``, the tasks too)::

    python benchmarks/small_model.py --larik ../before --out /tmp/before.json
    python benchmarks/small_model.py --out /tmp/after.json
    python benchmarks/small_model.py --table /tmp/before.json /tmp/after.json

It writes a throwaway ``LARIK_HOME`` (config: the llamacpp provider at ``--base-url``) under the
output's folder. Loopback only; no key. Not a test: it takes hours on a small CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BAD_CALL = re.compile(
    r"^(unknown tool '|the arguments of \w+ are not a valid JSON object|invalid arguments for )"
)
TEXT_CALL = re.compile(r"<tool_call>|\"name\"\s*:\s*\"[\w.]+\"[^{}]*\"(arguments|parameters)\"")
DEFAULT_TASKS = "fix-failing-test,implement-stub,rename-across-files,cli-add-flags"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--larik", type=Path, default=Path(__file__).resolve().parents[1])
    ap.add_argument("--base-url", default="http://127.0.0.1:8765/v1")
    ap.add_argument("--model", default="qwen2.5-coder-0.5b-instruct")
    ap.add_argument("--tasks", default=DEFAULT_TASKS, help="comma-separated, or 'all'")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--table", nargs="+", type=Path, help="print the table of result files")
    args = ap.parse_args()
    if args.table:
        print_table([json.loads(p.read_text()) for p in args.table], args.table)
        return
    if args.out is None:
        ap.error("--out is required to run")
    data = run(args)
    args.out.write_text(json.dumps(data, indent=1))
    print_table([data], [args.out])


def run(args: argparse.Namespace) -> dict[str, Any]:
    home = Path(tempfile.mkdtemp(prefix="larik-small-", dir=args.out.resolve().parent))
    (home / "config.toml").write_text(
        f'[providers.llamacpp]\nbase_url = "{args.base_url}"\n', encoding="utf-8"
    )
    os.environ["LARIK_HOME"] = str(home)
    sys.path.insert(0, str(args.larik.resolve()))
    import larik
    from larik.bench.agent_run import make_agent_runner
    from larik.bench.runner import run_bench
    from larik.bench.tasks import load_tasks
    from larik.config import load_config

    assert Path(larik.__file__).resolve().is_relative_to(args.larik.resolve()), larik.__file__
    tasks = {t.name: t for t in load_tasks()}
    names = list(tasks) if args.tasks == "all" else args.tasks.split(",")
    config = load_config(home)
    spec = f"llamacpp/{args.model}"
    runs: list[dict[str, Any]] = []
    for rep in range(1, args.repeat + 1):
        for name in names:
            folder = home / "runs" / f"{name}-{rep}"
            runner = make_agent_runner(config, folder)
            started = time.monotonic()
            [res] = asyncio.run(run_bench([spec], [tasks[name]], runner, repeat=1, jobs=1))
            row = {"task": name, "repeat": rep, "passed": res.passed, "reason": res.reason}
            row.update(read_transcripts(folder), wall=round(time.monotonic() - started, 1))
            row["stop"] = getattr(res, "stop", "") or row.pop("stop_seen", "")
            row.pop("stop_seen", None)
            runs.append(row)
            print(json.dumps(row), flush=True)
    return {"larik": str(args.larik.resolve()), "model": spec, "runs": runs}


def read_transcripts(folder: Path) -> dict[str, Any]:
    calls = bad = text = 0
    stuck = False
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            kind = rec.get("kind")
            if kind == "usage":
                calls += 1
            elif kind == "notice" and "the model is stuck" in str(rec.get("text", "")):
                stuck = stuck or not rec.get("subagent")
            elif kind == "message":
                msg = rec.get("message") or {}
                blocks = msg.get("blocks") or []
                for b in blocks:
                    if b.get("type") == "tool_result" and BAD_CALL.search(str(b.get("content"))):
                        bad += 1
                if msg.get("role") == "assistant" and not any(
                    b.get("type") == "tool_use" for b in blocks
                ):
                    said = " ".join(str(b.get("text") or "") for b in blocks)
                    text += bool(TEXT_CALL.search(said))
    seen = "stuck" if stuck else ""
    return {"model_calls": calls, "bad_calls": bad, "text_calls": text, "stop_seen": seen}


def print_table(datasets: list[dict[str, Any]], names: list[Path]) -> None:
    head = (
        "| run | runs | passed | wall-clock limit | stuck | turn limit | check failed | "
        "other | bad calls | text calls | model calls (mean) |"
    )
    print(head)
    print("|---" * (head.count("|") - 1) + "|")
    for data, name in zip(datasets, names, strict=True):
        runs = data["runs"]
        n = len(runs)

        def count(key: str, value: object, runs: list[dict[str, Any]] = runs) -> int:
            return sum(1 for r in runs if r.get(key) == value)

        passed = count("passed", True)
        timeout = count("reason", "time-out")
        stuck = sum(1 for r in runs if r.get("stop") == "stuck" or r.get("reason") == "stuck")
        turn = count("reason", "turn limit")
        failed = count("reason", "check failed")
        other = n - passed - timeout - turn - failed - count("reason", "stuck")
        mean = statistics.mean(r["model_calls"] for r in runs) if runs else 0
        print(
            f"| {name.stem} | {n} | {passed} | {timeout} | {stuck} | {turn} | {failed} | {other} "
            f"| {sum(r['bad_calls'] for r in runs)} | {sum(r['text_calls'] for r in runs)} "
            f"| {mean:.1f} |"
        )


if __name__ == "__main__":
    main()
