"""``larik bench``: judge models by outcome on self-checking coding tasks (docs/bench.md).

Imports nothing heavy at module level: ``larik --help`` loads this module.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from ..llm import jsontext
from ..terminal_text import output_width, safe, terminal
from ..words import count


def register(app: typer.Typer) -> None:
    app.command("bench", help="Run coding tasks on models and grade them by their tests.")(bench)


def bench(
    model: list[str] = typer.Option(
        [],
        "--model",
        "-m",
        metavar="SPEC",
        help="Model spec to bench (repeat for several; none: the model larik starts on).",
    ),
    task: list[str] = typer.Option(
        [], "--task", "-t", metavar="NAME|TAG", help="Task name or tag (repeatable)."
    ),
    repeat: int = typer.Option(
        1, "--repeat", "-k", min=1, metavar="K", help="Runs per (model, task)."
    ),
    attempts: int = typer.Option(
        1,
        "--attempts",
        min=1,
        metavar="N",
        help="Up to N independent tries per run, the first whose own tests pass kept "
        "(pass@1 and pass@N in the report).",
    ),
    jobs: int = typer.Option(
        0, "--jobs", "-j", min=0, metavar="N", help="Runs at once (0: automatic)."
    ),
    json_out: Path | None = typer.Option(
        None, "--json", metavar="FILE", help="Also write the results here."
    ),
    list_tasks: bool = typer.Option(False, "--list", help="List the tasks and exit."),
    validate: bool = typer.Option(
        False, "--validate", help="Prove every task: repo fails, solution passes."
    ),
    report: bool = typer.Option(False, "--report", help="Show past results side by side."),
    fmt: str = typer.Option(
        "table",
        "--format",
        metavar="table|md|json|csv",
        help="The report's form (--report, --merge): a table here, or a file's.",
    ),
    out: Path | None = typer.Option(
        None, "--out", metavar="FILE", help="Write the report here (md: the chart beside it)."
    ),
    trust_project: bool = typer.Option(
        False, "--trust-project", help="Apply this project's settings that need trust."
    ),
    shard: str | None = typer.Option(
        None, "--shard", metavar="K/N", help="Run only shard K of N (for CI matrices)."
    ),
    merge: list[Path] = typer.Option(
        [], "--merge", metavar="FILE", help="Join shards' --json files into one report."
    ),
    suite: str | None = typer.Option(
        None,
        "--suite",
        metavar="PATH",
        help="Run an Exercism-style practice folder (Aider's polyglot format) instead.",
    ),
    ray: bool = typer.Option(
        False,
        "--ray",
        help="Run on a Ray cluster (RAY_ADDRESS, else a local one): Larik's ray extra.",
    ),
    ray_address: str | None = typer.Option(
        None, "--ray-address", metavar="ADDRESS", help="The Ray cluster to run on (implies --ray)."
    ),
) -> None:
    from ..llm.errors import LarikError

    try:
        code = _bench(
            model,
            task,
            repeat,
            jobs,
            json_out,
            list_tasks,
            validate,
            report,
            trust_project,
            suite,
            shard,
            merge,
            ray_address if ray_address is not None else ("" if ray else None),
            fmt,
            out,
            attempts,
        )
    except LarikError as e:
        print(f"larik bench: {e}", file=terminal(sys.stderr))
        raise typer.Exit(2) from None
    raise typer.Exit(code)


def _bench(
    models: list[str],
    wanted: list[str],
    repeat: int,
    jobs: int,
    json_out: Path | None,
    list_tasks: bool,
    validate: bool,
    report: bool,
    trust_project: bool = False,
    suite: str | None = None,
    shard: str | None = None,
    merge: list[Path] | None = None,
    ray: str | None = None,
    fmt: str = "table",
    out: Path | None = None,
    attempts: int = 1,
) -> int:
    from rich.console import Console

    from ..bench.runner import parse_shard
    from ..bench.tasks import load_tasks, select_tasks

    console = Console(highlight=False, width=output_width())
    _check_format(fmt, out, bool(report or merge))
    if merge:
        return _merge(console, merge, json_out, fmt, out)
    shard_pair = parse_shard(shard) if shard else None
    if suite is not None:
        from ..bench.suite import load_suite, suite_folder

        tasks = select_tasks(load_suite(suite_folder(suite)), wanted)
    else:
        tasks = select_tasks(load_tasks(), wanted)
    if list_tasks:
        return _list(console, tasks)
    if validate:
        return _validate(console, tasks)
    if report:
        return _report(console, json_out, fmt, out)
    if ray is not None:
        if attempts > 1:
            print("larik bench: --attempts does not run on Ray yet", file=sys.stderr)
            return 2
        from ..bench.ray_run import import_ray

        import_ray()  # without Ray: one line saying how to install it, before anything runs
    return _run(
        console, models, tasks, repeat, jobs, json_out, trust_project, shard_pair, ray, attempts
    )


def _list(console, tasks) -> int:
    from rich.table import Table

    from ..bench.report import shown

    table = Table(title=count(len(tasks), "bench task"), title_justify="left")
    longest = max((len(t.name) for t in tasks), default=4)
    table.add_column("task", no_wrap=True, min_width=longest)  # the name --task takes: whole
    for col in ("difficulty", "tags", "summary"):
        table.add_column(col)
    for t in tasks:
        table.add_row(
            *map(shown, (t.name, t.spec.difficulty, ", ".join(t.spec.tags), t.spec.summary))
        )
    console.print(table)
    return 0


def _say_unsandboxed() -> None:
    """The one line saying that checks run here unsandboxed, and why (none when sandboxed)."""
    from ..bench.confine import unsandboxed

    if line := unsandboxed():
        print(f"larik bench: {line}", file=terminal(sys.stderr))


def _validate(console, tasks) -> int:
    from concurrent.futures import ThreadPoolExecutor

    from rich.text import Text

    from ..bench.tasks import validate_task

    _say_unsandboxed()
    with ThreadPoolExecutor(max_workers=4) as pool:
        found = list(pool.map(validate_task, tasks))
    bad = 0
    for t, problems in zip(tasks, found, strict=True):
        if problems:
            bad += 1
            for p in problems:
                console.print(Text.assemble(("✗", "red"), " ", safe(p)))
        else:
            line = f"{t.name}: repo fails its check, solution passes"
            console.print(Text.assemble(("✓", "green"), " ", safe(line)))
    console.print(f"{len(tasks) - bad} of {count(len(tasks), 'task')} valid")
    return 1 if bad else 0


def _check_format(fmt: str, out: Path | None, reporting: bool) -> None:
    from ..bench.formats import FORMATS
    from ..llm.errors import ConfigError

    if fmt != "table" and fmt not in FORMATS:
        raise ConfigError(f"--format {fmt}: expected table, " + ", ".join(FORMATS))
    if (fmt != "table" or out is not None) and not reporting:
        raise ConfigError("--format and --out shape a report: give --report or --merge FILE")
    if out is not None and fmt == "table":
        raise ConfigError("--out FILE needs --format md, json or csv")


def _pricer():
    """Prices a run recorded without a cost from its tokens, with the user's model prices."""
    from ..bench.summary import run_cost
    from ..config import load_config

    config = load_config()
    return lambda r: run_cost(r, config)


def _show(console, summaries, fmt: str, out: Path | None, table) -> None:
    """The terminal table, or the report in ``fmt`` on stdout or in ``out``."""
    from ..bench.formats import write_report

    if fmt == "table":
        console.print(table)
        return
    text = write_report(fmt, summaries, out)
    if text is not None:  # as it is (no console markup), made safe on a terminal
        terminal(sys.stdout).write(text)
    else:
        chart = f" and {out.with_suffix('.svg')}" if fmt == "md" and out else ""
        print(f"report: {out}{chart}", file=terminal(sys.stderr))


def _report(console, json_out: Path | None = None, fmt: str = "table", out=None) -> int:

    from ..bench.report import load_results, render_report
    from ..bench.summary import ranked, summarize, summary_json
    from ..config import bench_results_path

    path = bench_results_path()
    results, problems = load_results(path)
    for p in problems:
        print(f"larik bench: {p}", file=terminal(sys.stderr))
    if not results:
        console.print(f"no bench results yet ({path}); run `larik bench -m MODEL`")
        return 0
    summaries = summarize(results, _pricer())
    _show(console, summaries, fmt, out, render_report(summaries))
    if json_out is not None:  # Aider's leaderboard names: pass_rate_1, pass_rate_2, ...
        models = [summary_json(s) for s in ranked(summaries)]
        json_out.write_text(jsontext.dumps({"models": models}, indent=2) + "\n")
    return 0


def _merge(console, paths: list[Path], json_out: Path | None, fmt: str = "table", out=None) -> int:

    from ..bench.report import merge_results, render_summary
    from ..bench.summary import ranked, summarize, summary_json

    results = merge_results(paths)
    if not results:
        console.print("no bench results in " + ", ".join(str(p) for p in paths))
        return 0
    summaries = summarize(results, _pricer())
    _show(console, summaries, fmt, out, render_summary(summaries))
    if json_out is not None:
        models = [summary_json(s) for s in ranked(summaries)]
        runs = [r.to_json() for r in results]
        json_out.write_text(jsontext.dumps({"models": models, "runs": runs}, indent=2) + "\n")
    return 0


def _default_model(config) -> str:
    """The model plain ``larik`` starts on (``routing.targets.default_model``), said on stderr;
    a ConfigError naming what this machine has when there is none."""
    import asyncio

    from ..llm.errors import ConfigError
    from ..routing.no_model import explain
    from ..routing.targets import NoModelError, default_model

    try:
        chosen = default_model(config)
    except NoModelError as e:
        raise ConfigError(asyncio.run(explain(e, config, "larik bench -m {spec}"))) from None
    print(f"larik bench: no -m: benching {chosen.spec}, {chosen.why}", file=terminal(sys.stderr))
    return chosen.spec


def _run(
    console,
    models,
    tasks,
    repeat,
    jobs,
    json_out,
    trust_project=False,
    shard=None,
    ray=None,
    attempts=1,
) -> int:
    """``ray``: None runs here; else the Ray cluster's address ("" for RAY_ADDRESS or local)."""
    import asyncio
    import contextlib
    import uuid
    from datetime import UTC, datetime

    from rich.live import Live
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from ..bench.agent_run import fresh_adapters, make_agent_runner, tool_warnings
    from ..bench.report import append_results, render_summary, summarize
    from ..bench.runner import default_jobs, in_shard, run_bench
    from ..bench.summary import run_cost
    from ..config import bench_dir, bench_results_path, load_config
    from ..routing import resolve

    config = load_config(trust_project=trust_project)
    if config.project_trust and not config.project_trust.trusted:
        print(config.project_trust.ignored_line(), file=terminal(sys.stderr))
    models = models or [_default_model(config)]  # none asked for: the one every face starts on
    specs = [resolve(m, config).spec for m in models]  # fail fast: unknown model, missing key
    bench_id = datetime.now(UTC).strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:4]
    folder = bench_dir()
    history = bench_results_path()
    runs = folder / "runs" / bench_id
    run_agent = make_agent_runner(config, runs, fresh_adapters(config), attempts=attempts)
    for line in asyncio.run(tool_warnings(specs, config)):  # before the runs: saves a wasted bench
        print(f"larik bench: warning: {line}", file=terminal(sys.stderr))
    mine = [(s, t.name, r) for s in specs for t in tasks for r in range(1, repeat + 1)]
    mine = [run for run in mine if in_shard(*run, shard)]
    total = len(mine)
    stack = contextlib.ExitStack()
    on_ray = None
    if ray is not None:
        from ..bench.ray_run import RayBench, connect

        try:
            cluster = stack.enter_context(connect(ray or None))
            transcripts = folder / "runs" / bench_id
            on_ray = RayBench(cluster, config, specs, bench_id=bench_id, transcripts=transcripts)
        except BaseException:
            stack.close()
            raise
    if on_ray is None:
        _say_unsandboxed()  # on Ray each worker's checks: said by RayBench
    jobs = jobs or (on_ray.cpus if on_ray else default_jobs())
    finished = []

    progress = Progress(  # no markup: a task's name and a run's reason are text (safe)
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[status]}", markup=False),
        console=console,
        transient=False,
    )
    overall = progress.add_task(
        f"bench {bench_id}"
        + (f" on Ray, {jobs} at once" if on_ray else "")
        + f" · {count(len(specs), 'model')} × {count(len(tasks), 'task')} × {repeat}"
        + (f" · shard {shard[0]}/{shard[1]}: {count(total, 'run')}" if shard else ""),
        total=total,
        status="",
    )
    per_model = {
        s: progress.add_task(safe(f"  {s}"), total=sum(m == s for m, _, _ in mine), status="")
        for s in specs
    }
    passes = dict.fromkeys(specs, 0)

    def on_result(r) -> None:
        finished.append(r)
        append_results(history, [r])  # kept even if the bench is stopped
        passes[r.model] += r.passed
        mark = "✓" if r.passed else f"✗ {r.task}: {r.reason}"
        status = safe(f"{passes[r.model]} passed · {mark}")
        progress.update(per_model[r.model], advance=1, status=status)
        progress.update(overall, advance=1)

    interrupted = False
    with stack, Live(progress, console=console, refresh_per_second=8, transient=False):
        try:
            asyncio.run(
                run_bench(
                    specs,
                    tasks,
                    run_agent,
                    repeat=repeat,
                    attempts=attempts,
                    jobs=jobs,
                    bench_id=bench_id,
                    on_result=on_result,
                    shard=shard,
                    execute=on_ray.execute if on_ray else None,
                    provider_limit=on_ray.limit if on_ray else None,
                )
            )
        except KeyboardInterrupt:
            interrupted = True
    console.print()
    summaries = summarize(finished, lambda r: run_cost(r, config))
    if finished:
        console.print(render_summary(summaries))
    if json_out is not None:
        json_out.write_text(jsontext.dumps([r.to_json() for r in finished], indent=2) + "\n")
    console.print(f"results: {history}   transcripts: {folder / 'runs' / bench_id}")
    if interrupted:
        console.print(f"stopped: kept {len(finished)} of {count(total, 'run')}")
        return 130
    return 0
