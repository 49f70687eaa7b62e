"""Resuming a 10,000-message session: load and render to an interactive screen, and memory.

    .venv/bin/python benchmarks/resume.py                  # 10,000 messages, 3 rounds, ~1 min
    .venv/bin/python benchmarks/resume.py --messages 2000 --rounds 5
    .venv/bin/python benchmarks/resume.py --profile        # cProfile of one resume

The session is a real transcript file, written with ``larik.agent.transcript.Transcript``
(its per-line fsync skipped while building: the bytes are the same) in the layout the agent
writes: a user prompt, then model calls — thinking now and then, a line of text, a tool call —
each answered by a tool result (a file of 60–120 lines, a test run, a grep), with a ``usage``
record after each model call, and a closing reply per prompt. Tool results are long, as they
are in real sessions.

Each round runs, in a new process each, alternating:

* **new session** (the reference): the TUI started with no session to resume;
* **resume**: the TUI started with ``resume=ID`` on that file.

Both build the agent as ``larik`` does (``Agent.create`` from the real config, in the app's
worker after the first frame; the model is a scripted one, so no SDK), headless 100×30 with
``App.run_test``. The figure is the time from the app's start to an **interactive screen**:
the conversation is mounted and painted (the frame after the agent was handed to the app),
and a key press sent after that has been handled by the prompt. The older history is then
drawn into the conversation's archive on idle: the run goes on until it is all drawn, and
reports when that was and the longest event-loop stall meanwhile. Memory is the peak resident
set size of the process (``ru_maxrss``), and the growth of the Python heap (``tracemalloc``,
in a separate run, since tracing slows everything down) when ``--tracemalloc`` is given.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import TableRow, machine_lines, print_table, stat

PY = sys.executable
HERE = Path(__file__).resolve()
SIZE = (100, 30)
SESSION = "20261130-120000-bench0"
TARGET = 1.0
TAIL = 40  # messages drawn by the "newest messages only" variant

# -- the session ------------------------------------------------------------------------------

_CODE_LINE = "    value = compute(item, options={{'retries': 3, 'timeout': 2.5}})  # line {n}\n"
_TEST_LINE = "tests/test_module_{n}.py::test_case_{n} PASSED{pad}[{pct:3d}%]\n"


def _file_body(rng: random.Random, n: int) -> str:
    lines = rng.randint(60, 120)
    head = f'"""Module {n}."""\n\nimport os\n\n\ndef handler_{n}(items, options):\n'
    return head + "".join(_CODE_LINE.format(n=i) for i in range(lines))


def _test_output(rng: random.Random, n: int) -> str:
    count = rng.randint(20, 40)
    lines = [_TEST_LINE.format(n=i, pad=" " * 20, pct=(i + 1) * 100 // count) for i in range(count)]
    return (
        "============================= test session starts ==============================\n"
        + "".join(lines)
        + f"============================== {count} passed in 0.{n % 90 + 10}s ===============\n"
    )


def _grep_output(rng: random.Random, n: int) -> str:
    return "".join(
        f"src/pkg/module_{i}.py:{rng.randint(1, 400)}:    result = handler_{n}(items, options)\n"
        for i in range(rng.randint(10, 30))
    )


def session_messages(count: int, seed: int = 8) -> list[tuple[Any, dict | None]]:
    """(message, usage record after it or None), ``count`` messages in all."""
    from larik.llm.types import Block, Message

    rng = random.Random(seed)
    out: list[tuple[Any, dict | None]] = []
    call = 0
    turn = 0
    while len(out) < count:
        turn += 1
        out.append((Message.user(f"Prompt {turn}: fix the failing tests in module {turn}."), None))
        for _ in range(rng.randint(4, 10)):
            if len(out) >= count:
                break
            call += 1
            kind = call % 3
            blocks = []
            if call % 4 == 0:
                blocks.append(
                    Block.thinking_block(
                        f"I should check module {call} first; the failure mentions handler_"
                        f"{call} and the options it receives. " * 3,
                        signature=f"sig-{call}",
                        provider="anthropic",
                    )
                )
            blocks.append(Block.text_block(f"Looking at step {call} of the change."))
            tool_id = f"toolu_{call:06d}"
            if kind == 0:
                blocks.append(Block.tool_use(tool_id, "read_file", {"path": f"src/m{call}.py"}))
                result = _file_body(rng, call)
            elif kind == 1:
                blocks.append(Block.tool_use(tool_id, "bash", {"command": "pytest -q"}))
                result = _test_output(rng, call)
            else:
                blocks.append(
                    Block.tool_use(tool_id, "grep", {"pattern": f"handler_{call}", "path": "src"})
                )
                result = _grep_output(rng, call)
            usage = {
                "kind": "usage",
                "model": "claude-sonnet-4-5",
                "provider": "anthropic",
                "role": "main",
                "usage": {"input": 1200 + call, "output": 180, "cache_read": 40_000},
                "cost": 0.0123,
            }
            out.append((Message(role="assistant", blocks=blocks, model="claude-sonnet-4-5"), usage))
            if len(out) >= count:
                break
            out.append((Message(role="user", blocks=[Block.tool_result(tool_id, result)]), None))
        if len(out) < count:
            reply = (
                f"Done with prompt {turn}. The fix:\n\n```python\ndef handler_{turn}(items):\n"
                f"    return [i for i in items if i]\n```\n\nAll tests pass now."
            )
            out.append(
                (Message(role="assistant", blocks=[Block.text_block(reply)], model="c"), None)
            )
    return out[:count]


def build_session(home: Path, project: Path, count: int, script: Path) -> Path:
    """Write the transcript where ``larik --resume SESSION`` in ``project`` finds it."""
    os.environ["LARIK_HOME"] = str(home)
    from larik.agent import transcript as tr
    from larik.agent.sessions import project_dir

    path = project_dir(project) / f"{SESSION}.jsonl"
    real_fsync = tr.os.fsync
    tr.os.fsync = lambda fd: None  # the same bytes, without 20,000 disk flushes
    try:
        t = tr.Transcript.create(path, cwd=project, session_id=SESSION, model=f"scripted/{script}")
        with t:
            for message, usage in session_messages(count):
                t.append_message(message)
                if usage is not None:
                    t.append(usage)
    finally:
        tr.os.fsync = real_fsync
    return path


# -- a run (in the child) ---------------------------------------------------------------------


async def run(project: Path, resume: str | None, mode: str, cap: float) -> dict[str, Any]:
    import resource

    from textual import events

    import larik.tui.app as tui_app
    from larik.agent import Agent
    from larik.config import load_config
    from larik.tui.widgets.conversation import ConversationView
    from larik.tui.widgets.prompt_input import PromptInput

    if mode == "tail":  # the lower bound of a fix: only the newest TAIL messages are drawn
        real_show = ConversationView.show_history

        def show_tail(self: Any, messages: list[Any]) -> None:
            real_show(self, messages[-TAIL:])

        ConversationView.show_history = show_tail  # type: ignore[method-assign]

    config = load_config(project)
    marks: dict[str, float] = {}
    key_handled: list[float] = []

    real_key = PromptInput._on_key

    async def on_key(self: Any, event: Any) -> None:
        await real_key(self, event)
        if event.key == "x":
            key_handled.append(time.perf_counter())

    PromptInput._on_key = on_key  # type: ignore[method-assign]

    async def factory(*, approver: Any, model: str = "", resume: str | None = None) -> Any:
        t = time.perf_counter()
        agent = await Agent.create(
            cwd=project, config=config, model=model, approver=approver, resume=resume
        )
        marks["agent_create"] = time.perf_counter() - t
        return agent

    from larik.tui.screens.chat import ChatScreen

    real_use = ChatScreen.use_agent

    async def use_agent(self: ChatScreen, agent: Any, **kw: Any) -> None:
        t = time.perf_counter()
        await real_use(self, agent, **kw)
        marks["show_history"] = time.perf_counter() - t
        marks["ready"] = time.perf_counter()

    ChatScreen.use_agent = use_agent  # type: ignore[method-assign]

    class App(tui_app.LarikApp):
        CSS_PATH = str(Path(tui_app.__file__).parent / "app.tcss")
        frames: list[float] = []

        def _after_first_frame(self) -> None:
            marks.setdefault("first_frame", time.perf_counter())
            super()._after_first_frame()

        def _display(self, screen: Any, renderable: Any) -> None:
            if renderable is not None:
                self.frames.append(time.perf_counter())
            super()._display(screen, renderable)

    if cap:
        threading.Thread(target=_bail_out, args=(cap, marks), daemon=True).start()
    prof = None
    if mode == "profile":
        import cProfile

        prof = cProfile.Profile()
        prof.enable()
    limit = cap or 900.0
    stalls: list[tuple[float, float]] = []

    async def probe() -> None:
        while True:
            t = time.perf_counter()
            await asyncio.sleep(0.005)
            stalls.append((t, time.perf_counter() - t - 0.005))

    start = time.perf_counter()
    app = App(lambda **kw: factory(**kw), cwd=project, config=config, resume=resume)
    async with app.run_test(size=SIZE):
        prober = asyncio.create_task(probe())
        while "ready" not in marks and time.perf_counter() < start + limit:
            await asyncio.sleep(0.001)
        key_at = time.perf_counter()
        app._driver.send_message(events.Key("x", "x"))
        while not key_handled and time.perf_counter() < start + limit:
            await asyncio.sleep(0.001)
        while not any(f > marks["ready"] for f in app.frames):
            await asyncio.sleep(0.001)
        painted = next(f for f in app.frames if f > marks["ready"])
        interactive = max(key_handled[0], painted)
        messages = len(app.chat.agent.messages) if app.chat.agent else 0
        widgets = len(app.chat.conv.items)
        archived = app.chat.conv.archive.item_count
        rss_interactive = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        # the older history is drawn into the archive on idle, after the screen is interactive
        archive = app.chat.conv.archive
        while getattr(archive, "pending", 0) and time.perf_counter() < start + limit:
            await asyncio.sleep(0.005)
        drawn = time.perf_counter()
        archive_stall = max((s for t, s in stalls if interactive <= t + s <= drawn), default=0.0)
        archive_lines = len(archive.plain_lines())
        prober.cancel()
        app.exit()
    if prof is not None:
        prof.disable()
        import pstats

        pstats.Stats(prof, stream=sys.stderr).sort_stats("cumulative").print_stats(45)
    return {
        "interactive": interactive - start,
        "first_frame": marks["first_frame"] - start,
        "agent_create": marks["agent_create"],
        "show_history": marks["show_history"],
        "painted": painted - start,
        "key": key_handled[0] - key_at,
        "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "rss_interactive_mb": rss_interactive,
        "archive_drawn": drawn - start,
        "archive_stall": archive_stall,
        "archive_lines": archive_lines,
        "messages": messages,
        "widgets": widgets,
        "archived": archived,
        "capped": 0,
    }


def _bail_out(cap: float, marks: dict[str, float]) -> None:
    """Past the cap, report what is known and end the process (drawing the history blocks the
    event loop, so this runs in a thread)."""
    import resource

    time.sleep(cap)
    result = {
        "capped": cap,
        "interactive": float("nan"),
        "first_frame": float("nan"),
        "agent_create": marks.get("agent_create", float("nan")),
        "show_history": float("nan"),
        "painted": float("nan"),
        "key": float("nan"),
        "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "rss_interactive_mb": float("nan"),
        "archive_drawn": float("nan"),
        "archive_stall": float("nan"),
        "archive_lines": float("nan"),
        "messages": 0,
        "widgets": float("nan"),
        "archived": float("nan"),
        "process": float("nan"),
    }
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()
    os._exit(0)


def child(args: list[str]) -> None:
    project, resume, mode, cap = args
    t0 = time.perf_counter()
    if mode == "tracemalloc":
        import tracemalloc

        tracemalloc.start()
    result = asyncio.run(run(Path(project), resume or None, mode, float(cap)))
    if mode == "tracemalloc":
        import tracemalloc

        current, peak = tracemalloc.get_traced_memory()
        result["heap_mb"] = current / 2**20
        result["heap_peak_mb"] = peak / 2**20
    result["process"] = time.perf_counter() - t0
    print(json.dumps(result))


# -- the parent -------------------------------------------------------------------------------


def run_child(
    env: dict[str, str], project: Path, resume: str, mode: str = "", cap: float = 0.0
) -> dict[str, Any]:
    argv = [PY, str(HERE), "--child", str(project), resume, mode, str(cap)]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=cap + 900)
    if done.returncode:
        raise RuntimeError(f"resume child: {done.stderr.strip()[-1500:]}")
    if mode == "profile":
        print(done.stderr)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--messages", type=int, default=10_000, help="session length (10,000)")
    p.add_argument("--rounds", type=int, default=3, help="rounds (default 3)")
    p.add_argument("--tracemalloc", action="store_true", help="also measure the Python heap")
    p.add_argument("--profile", action="store_true", help="cProfile one resume instead")
    p.add_argument(
        "--cap",
        type=float,
        default=20.0,
        help="give up on a resume after this many seconds (default 20; 0: never)",
    )
    p.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child(args.child)
        return
    if args.rounds < 1 or args.messages < 1:
        p.error("--rounds and --messages must be at least 1")

    with tempfile.TemporaryDirectory(prefix="larik-resume-") as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        home.mkdir()
        project.mkdir()
        script = Path(tmp) / "model.json"
        script.write_text(json.dumps({"turns": [{"text": "ok"}]}))
        (home / "config.toml").write_text(f'model = "scripted/{script}"\n')
        t = time.perf_counter()
        path = build_session(home, project, args.messages, script)
        built = time.perf_counter() - t
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env["LARIK_HOME"] = str(home)
        size = path.stat().st_size
        if args.profile:
            r = run_child(env, project, SESSION, "profile")
            print(json.dumps(r, indent=1))
            return
        variants = [
            ("new session", "", ""),
            ("resume", SESSION, ""),
            (f"resume, newest {TAIL} messages only", SESSION, "tail"),
        ]
        found: dict[str, list[dict[str, Any]]] = {label: [] for label, _, _ in variants}
        for r in range(args.rounds):
            k = r % len(variants)
            for label, resume, mode in variants[k:] + variants[:k]:
                found[label].append(run_child(env, project, resume, mode, args.cap))
        heap = {}
        if args.tracemalloc:
            for label, resume, _ in variants[:2]:
                heap[label] = run_child(env, project, resume, "tracemalloc", args.cap)
        report(args, found, heap, size, built)


def report(
    args: argparse.Namespace,
    found: dict[str, list[dict[str, Any]]],
    heap: dict[str, dict[str, Any]],
    size: int,
    built: float,
) -> None:
    print("resume: a long session to an interactive screen (headless, 100×30)")
    for line in machine_lines(("larik", "textual", "pydantic")):
        print(line)
    done = [r for rs in found.values() for r in rs if not r["capped"]]
    loaded = max((r["messages"] for r in done), default=0)
    print(
        f"session: {args.messages:,} messages ({loaded:,} in the resumed agent), "
        f"{size / 2**20:.1f} MB of JSONL, written in {built:.1f} s; {args.rounds} rounds, "
        "a new process each, alternating"
    )
    print()

    def col(label: str, key: str, scale: float = 1e3, fmt: str = "{:.0f}") -> str:
        values = [r[key] * scale for r in found[label] if r[key] == r[key]]
        return fmt.format(stat(values).median) if values else "-"

    def capped(label: str) -> bool:
        return any(r["capped"] for r in found[label])

    ref = stat([r["interactive"] for r in found["new session"]]).median
    rows = []
    for label in found:
        values = [r["interactive"] for r in found[label] if not r["capped"]]
        if capped(label) or not values:
            med = f"> {args.cap * 1e3:.0f}"
            span = f"capped {sum(r['capped'] > 0 for r in found[label])}/{len(found[label])}"
            ratio = "-"
        else:
            s = stat(values)
            med, span = f"{s.median * 1e3:.0f}", f"{s.low * 1e3:.0f}–{s.high * 1e3:.0f}"
            ratio = f"{s.median / ref:.2f}×"
        rows.append(
            TableRow(
                [
                    label,
                    med,
                    span,
                    ratio,
                    col(label, "agent_create"),
                    col(label, "show_history"),
                    col(label, "key"),
                    col(label, "widgets", 1),
                    col(label, "archive_drawn"),
                    col(label, "archive_stall"),
                    col(label, "rss_interactive_mb", 1),
                    col(label, "maxrss_mb", 1),
                    "ref"
                    if label == "new session"
                    else (f"≤ {TARGET * 1e3:.0f}" if label == "resume" else "info"),
                ]
            )
        )
    print_table(
        [
            "variant",
            "interactive ms",
            "min–max",
            "× ref",
            "Agent.create",
            "history",
            "key",
            "widgets",
            "archive drawn",
            "stall",
            "RSS then MB",
            "max RSS MB",
            "target",
        ],
        rows,
    )
    print(
        "\ninteractive: app start to a painted conversation and a handled key press (the "
        "first frame comes\nbefore the agent, ~50 ms in); Agent.create: load + rebuild of "
        "the transcript (ms); history: the app\ndrawing it (ConversationView.show_history, "
        "ms); key: a key sent once it is drawn, to handled (ms);\nwidgets: conversation "
        "items mounted as widgets; archive drawn: app start to the older history all drawn "
        "into\nthe archive (on idle, after the screen is interactive; ms); stall: the longest "
        "event-loop stall meanwhile\n(a 5 ms probe; ms); RSS then: peak RSS when interactive; "
        "max RSS: the process's peak, archive drawn (MB)."
    )
    if capped("resume"):
        print(
            f"resume was stopped at the {args.cap:g} s cap (drawing the history blocks the "
            "event loop); run with --cap 0 for the full time."
        )
    new_rss = stat([x["maxrss_mb"] for x in found["new session"]]).median
    res_rss = stat([x["maxrss_mb"] for x in found["resume"]]).median
    print(
        f"memory: peak RSS {res_rss:.0f} MB resumed vs {new_rss:.0f} MB new: "
        f"+{res_rss - new_rss:.0f} MB for the session"
        + (" (at the cap, still growing)" if capped("resume") else "")
    )
    if heap:
        for label, h in heap.items():
            if h.get("capped"):
                print(f"tracemalloc, {label}: capped")
                continue
            print(
                f"tracemalloc, {label}: heap {h['heap_mb']:.0f} MB at the end, "
                f"peak {h['heap_peak_mb']:.0f} MB"
            )
    values = [x["interactive"] for x in found["resume"] if not x["capped"]]
    if capped("resume") or not values:
        print(f"\nresume to interactive: > {args.cap:g} s -> MISSES the ≤ {TARGET:g} s target")
    else:
        verdict = stat(values).median
        ok = "meets" if verdict <= TARGET else "MISSES"
        print(f"\nresume to interactive: {verdict:.2f} s -> {ok} the ≤ {TARGET:g} s target")


if __name__ == "__main__":
    main()
