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
import ast
import asyncio
import gc
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
    ap.add_argument(
        "--attempts",
        type=int,
        default=1,
        help="up to N independent tries per run, as larik bench --attempts (pass@N; the first "
        "try's own result is recorded too: pass@1)",
    )
    ap.add_argument(
        "--workflow",
        choices=("loop", "edit", "default"),
        default="default",
        help="[models] workflow for the model (default: the profile's own choice)",
    )
    ap.add_argument(
        "--time-scale",
        type=float,
        default=1.0,
        help="multiply every task's time limit (a loaded machine: say so in the table)",
    )
    ap.add_argument(
        "--aider",
        type=Path,
        help="run aider (this executable, from its own venv) on the tasks instead of Larik",
    )
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help='a [models."llamacpp/MODEL"] setting, VALUE as TOML: line_numbers=false, '
        "temperature=0.7 (repeatable; recorded in the results)",
    )
    ap.add_argument(
        "--lsp",
        choices=("on", "off", "default"),
        default="default",
        help="[lsp] enabled = true/false (on: this Python's bin folder goes on PATH, so its "
        "pylsp and ruff are found; default: no [lsp], servers only in a trusted project)",
    )
    ap.add_argument("--out", type=Path)
    ap.add_argument("--table", nargs="+", type=Path, help="print the table of result files")
    args = ap.parse_args()
    if args.table:
        print_table([json.loads(p.read_text()) for p in args.table], args.table)
        return
    if args.out is None:
        ap.error("--out is required to run")
    for item in args.set:
        if "=" not in item:
            ap.error(f"--set wants KEY=VALUE, not {item!r}")
    data = run(args)
    print_table([data], [args.out])


def throwaway_config(args: argparse.Namespace) -> str:
    """The run's ``config.toml``: the llamacpp provider, and the model's and ``[lsp]`` settings."""
    config = f'[providers.llamacpp]\nbase_url = "{args.base_url}"\n'
    model = [f"{k.strip()} = {v.strip()}" for k, v in (s.split("=", 1) for s in args.set)]
    if args.workflow != "default":
        model.insert(0, f'workflow = "{args.workflow}"')
    if model:
        config += f'\n[models."llamacpp/{args.model}"]\n' + "".join(f"{m}\n" for m in model)
    if args.lsp != "default":
        config += f"\n[lsp]\nenabled = {'true' if args.lsp == 'on' else 'false'}\n"
    return config


def run(args: argparse.Namespace) -> dict[str, Any]:
    home = Path(tempfile.mkdtemp(prefix="larik-small-", dir=args.out.resolve().parent))
    (home / "config.toml").write_text(throwaway_config(args), encoding="utf-8")
    os.environ["LARIK_HOME"] = str(home)
    if args.lsp == "on":  # the servers of this Python's venv (pylsp, ruff), as a user has them
        bindir = str(Path(sys.executable).parent)
        os.environ["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")
    sys.path.insert(0, str(args.larik.resolve()))
    import larik
    from larik.bench.agent_run import make_agent_runner
    from larik.bench.runner import run_bench
    from larik.bench.tasks import load_tasks
    from larik.config import load_config

    assert Path(larik.__file__).resolve().is_relative_to(args.larik.resolve()), larik.__file__
    tasks = {t.name: t for t in load_tasks()}
    for t in tasks.values():
        t.spec.time_limit *= args.time_scale
    names = list(tasks) if args.tasks == "all" else args.tasks.split(",")
    config = load_config(home)
    spec = f"llamacpp/{args.model}"
    runs: list[dict[str, Any]] = []
    harness = f"aider {args.aider}" if args.aider else str(args.larik.resolve())
    out = {"larik": harness, "model": spec, "workflow": args.workflow, "runs": runs}
    out.update(time_scale=args.time_scale, set=args.set, lsp=args.lsp, home=str(home))
    out["attempts"] = args.attempts
    out["commit"] = _commit(args.larik)
    for rep in range(1, args.repeat + 1):
        for name in names:
            folder = home / "runs" / f"{name}-{rep}"
            started = time.monotonic()
            if args.aider:
                row = run_aider(args, tasks[name], folder)
            else:
                broken: list[str] = []
                tries = {"attempts": args.attempts} if args.attempts > 1 else {}
                runner = _watch(make_agent_runner(config, folder, **tries), broken)
                [res] = asyncio.run(
                    _closed(run_bench([spec], [tasks[name]], runner, repeat=1, jobs=1, **tries))
                )
                row = {"passed": res.passed, "reason": res.reason}
                if tries:
                    row.update(first_try=res.first_try, tries=res.tries)
                row.update(read_transcripts(folder), unparsable=broken)
                row["stop"] = getattr(res, "stop", "") or row.pop("stop_seen", "")
                row.pop("stop_seen", None)
            row = {"task": name, "repeat": rep, **row, "wall": round(time.monotonic() - started, 1)}
            runs.append(row)
            print(json.dumps(row), flush=True)
            # after every run, not at the end: a run stopped or a machine lost keeps its rows
            args.out.write_text(json.dumps(out, indent=1))
    return out


async def _closed(run: Any) -> Any:
    """``run``'s result, its model clients closed on its own event loop: each run has a loop
    of its own, and an SDK client collected on the next one closes its connection on a loop
    that is gone ("Task exception was never retrieved … Event loop is closed" on stderr)."""
    res = await run
    gc.collect()  # the clients' finalizers schedule their close on this loop
    await asyncio.sleep(0)  # and it runs here, before the loop ends
    await asyncio.sleep(0)
    return res


def _commit(checkout: Path) -> str:
    """The commit of the checkout measured (its rows say which harness they measured)."""
    import subprocess

    done = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    return done.stdout.strip()


def unparsable(workdir: Path) -> list[str]:
    """The Python files of ``workdir`` that do not parse (the bundled tasks' all do at first)."""
    out = []
    for path in sorted(workdir.rglob("*.py")):
        try:
            ast.parse(path.read_bytes())
        except (SyntaxError, ValueError):
            out.append(str(path.relative_to(workdir)))
    return out


def _watch(runner: Any, broken: list[str]) -> Any:
    """``runner``, and after it (finished, failed or timed out) the files it left unparsable."""

    async def run(task: Any, workdir: Path, spec: str, outcome: Any) -> None:
        try:
            await runner(task, workdir, spec, outcome)
        finally:
            broken.extend(unparsable(workdir))

    return run


def run_aider(args: argparse.Namespace, task: Any, folder: Path) -> dict[str, Any]:
    """aider on one task, as the issue has it: the prompt from a file, every file of the task's
    project in the chat, ``--yes-always --no-auto-commits`` (and no git repository, no update
    check, no analytics: nothing leaves loopback), the task's time limit; then the task's check."""
    import subprocess

    from larik.bench.tasks import prepare_workdir, run_check

    folder.mkdir(parents=True, exist_ok=True)
    workdir = folder / "work"
    prepare_workdir(task, workdir)
    prompt = folder / "prompt.txt"
    prompt.write_text(task.spec.prompt, encoding="utf-8")
    files = sorted(
        str(p.relative_to(workdir))
        for p in workdir.rglob("*")
        if p.is_file() and ".git" not in p.parts
    )
    cmd = [str(args.aider), "--message-file", str(prompt), "--yes-always", "--no-auto-commits"]
    cmd += ["--model", f"openai/{args.model}", "--openai-api-base", args.base_url]
    cmd += ["--openai-api-key", "x", "--no-git", "--no-check-update", "--analytics-disable"]
    cmd += ["--no-show-model-warnings", "--no-pretty", "--no-stream", *files]
    env = {**os.environ, "HOME": str(folder)}  # aider's own state in the run's folder
    timed_out = False
    with open(folder / "aider.log", "wb") as log:
        proc = subprocess.Popen(
            cmd,
            cwd=workdir,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
        )
        try:
            proc.wait(timeout=task.spec.time_limit)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(proc.pid, 9)
            proc.wait()
    said = (folder / "aider.log").read_text(encoding="utf-8", errors="replace")
    calls = len(re.findall(r"^Tokens: ", said, re.M))
    broken = unparsable(workdir)
    if timed_out:
        return {
            "passed": False,
            "reason": "time-out",
            "model_calls": calls,
            "bad_calls": 0,
            "text_calls": 0,
            "unparsable": broken,
            "stop": "",
        }
    check = run_check(task, workdir)
    reason = "" if check.passed else "check failed"
    return {
        "passed": check.passed,
        "reason": reason,
        "model_calls": calls,
        "bad_calls": 0,
        "text_calls": 0,
        "unparsable": broken,
        "stop": f"exit {proc.returncode}",
    }


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
    """One markdown row per result file: how its runs ended, and what they cost."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from larik.bench.summary import wilson

    head = (
        "| run | runs | passed (95% CI) | wall-clock limit | stuck | turn limit | check failed "
        "| other | files left unparsable | model calls (mean) | wall time, all runs |"
    )
    print(head)
    print("|---" * (head.count("|") - 1) + "|")
    for data, name in zip(datasets, names, strict=True):
        runs = data["runs"]
        n = len(runs)

        def count(key: str, value: object, runs: list[dict[str, Any]] = runs) -> int:
            return sum(1 for r in runs if r.get(key) == value)

        passed = count("passed", True)
        lo, hi = wilson(passed, n) if n else (0.0, 0.0)
        timeout = count("reason", "time-out")
        stuck = sum(1 for r in runs if r.get("stop") == "stuck" or r.get("reason") == "stuck")
        turn = count("reason", "turn limit")
        failed = count("reason", "check failed")
        other = n - passed - timeout - turn - failed - count("reason", "stuck")
        broken = sum(len(r.get("unparsable") or []) for r in runs)
        mean = statistics.mean(r["model_calls"] for r in runs) if runs else 0
        minutes = sum(r["wall"] for r in runs) / 60
        firsts = [r["first_try"] for r in runs if r.get("first_try") is not None]
        first = f"; 1st try {sum(firsts)}" if firsts else ""  # --attempts: pass@N; pass@1
        print(
            f"| {name.stem} | {n} | {passed} ({lo:.0%}-{hi:.0%}){first} | {timeout} | {stuck} "
            f"| {turn} "
            f"| {failed} | {other} | {broken} | {mean:.1f} | {minutes:.1f} min |"
        )


if __name__ == "__main__":
    main()
