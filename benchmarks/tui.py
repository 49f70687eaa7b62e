"""The conversation view under a streaming reply: CPU, lag behind the stream, keys, a flood.

    .venv/bin/python benchmarks/tui.py                     # all three scenarios, ~2 min
    .venv/bin/python benchmarks/tui.py --rounds 3 --only flood
    .venv/bin/python benchmarks/tui.py --profile flood     # cProfile of one larik flood run

The real app (``larik.tui.app.LarikApp``, so the real ``ConversationView``, prompt and status
line) runs headless with ``App.run_test`` at 100×30, on an agent that plays a long Markdown
reply (a heading, a paragraph with inline markup, a list and a Python code block per section;
deltas of about a word) as ``TEXT_DELTA`` events, paced or as fast as it can. Headless Textual
skips turning each frame into escape sequences; here every frame is turned into them (and
thrown away), so a frame costs what it costs on a terminal, minus the write.

Scenarios (issue 8, item 3), each run in a new process, variants alternating round by round:

* **paced** — deltas at 100/s: process CPU time over wall time (target ≤ 25% of one core);
  against the naive approach, a Textual ``Markdown`` updated with the whole text per delta.
* **fast** — 10,000 deltas at 1,000/s: how far the screen is behind the stream (for every
  delta, the time from its arrival to the first frame that shows it; target: never more than
  0.25 s), and key presses sent every ~0.2 s from another thread, as a terminal driver sends
  them, timed until the prompt has handled them (target ≤ 50 ms) and until they are on screen.
* **flood** — 20,000 deltas as fast as they come: time until the frame that shows the last
  one (target ≤ 3 s), and the cost of a frame (the view's own paint plus Textual's layout,
  compositing and escape sequences) in the first and the last quarter of the reply: it must
  not grow with the reply. Against Textual's ``MarkdownStream`` (``Markdown.get_stream``, the
  best plain-Textual approach) on the same 20,000 deltas and the naive per-delta update on
  the first ``--naive-deltas`` of them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import TableRow, machine_lines, print_table, stat

PY = sys.executable
HERE = Path(__file__).resolve()
SIZE = (100, 30)
KEY_EVERY = 0.2  # seconds between key presses in the fast scenario

# -- the reply --------------------------------------------------------------------------------

_SECTION = """\
## Section {i}: {topic}

Some **bold** text, a `code span` and a [link](https://example.com/{i}) in a paragraph that \
runs on for a while, as model replies do, with a few more words about {topic} so that it wraps.

- first point about {topic}
- second point, with `inline code` and *emphasis*
- third point

```python
def handler_{i}(request):
    \"\"\"Handle {topic}.\"\"\"
    items = [x * {i} for x in range(10)]
    if not items:
        raise ValueError("empty")
    return {{"count": len(items), "total": sum(items)}}
```

That is all for {topic}; the next section follows.

"""
_TOPICS = ("parsing", "caching", "retries", "streaming", "layout", "testing", "packaging")


def reply_deltas(n: int) -> list[str]:
    """n deltas of about a word each (whitespace leads, as in model tokens)."""
    out: list[str] = []
    i = 0
    while len(out) < n:
        text = _SECTION.format(i=i, topic=_TOPICS[i % len(_TOPICS)])
        out += re.findall(r"\s*\S+", text)
        i += 1
    return out[:n]


# -- measuring inside the child ---------------------------------------------------------------


class Probe:
    """What a run records: arrivals, painted characters per frame, frame costs, keys."""

    def __init__(self, deltas: list[str]) -> None:
        self.deltas = deltas
        self.ends: list[int] = []  # cumulative characters after each delta
        total = 0
        for d in deltas:
            total += len(d)
            self.ends.append(total)
        self.arrivals: list[float] = []
        self.handled_chars = 0  # characters handed to the view so far
        self.painted_chars = 0  # characters in the view's last paint
        self.frames: list[tuple[float, int, float]] = []  # (time, painted chars, cost s)
        self.frame_gc: list[float] = []  # collector time inside each frame's cost (s)
        self.cost_since_frame = 0.0
        self.gc_since_frame = 0.0
        self.gc_times: list[tuple[float, float, int]] = []  # (end, seconds, generation)
        self._gc_start = 0.0
        self.in_update = False
        self.key_sent: list[float] = []
        self.key_handled: list[float] = []
        self.started = 0.0
        self.cpu_start = 0.0


def install_frame_hooks(probe: Probe) -> None:
    """Time each screen update (layout, compositing, escape sequences) and note the frames;
    note the garbage collector's passes too (a full one can land inside a frame)."""
    import gc

    from textual.screen import Screen

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        now = time.perf_counter()
        if phase == "start":
            probe._gc_start = now
        elif probe._gc_start:
            took = now - probe._gc_start
            probe.gc_times.append((now, took, info["generation"]))
            probe.gc_since_frame += took

    gc.callbacks.append(on_gc)

    real = Screen._on_timer_update

    def timed(self: Any) -> None:
        t = time.perf_counter()
        probe.in_update = True
        try:
            real(self)
        finally:
            probe.in_update = False
            cost = time.perf_counter() - t
            if probe.frames and probe.frames[-1][0] >= t:  # a frame was shown in this update
                when, painted, _ = probe.frames[-1]
                probe.frames[-1] = (when, painted, probe.cost_since_frame + cost)
                probe.frame_gc.append(probe.gc_since_frame)
                probe.cost_since_frame = probe.gc_since_frame = 0.0
            else:
                probe.cost_since_frame += cost

    Screen._on_timer_update = timed  # type: ignore[method-assign]


class MeasuredApp:
    """Mixin: render every frame to escape sequences as a terminal driver would, and note it."""

    probe: Probe

    def _display(self, screen: Any, renderable: Any) -> None:
        from textual._compositor import CompositorUpdate

        if renderable is not None:
            if isinstance(renderable, CompositorUpdate):
                renderable.render_segments(self.console)  # type: ignore[attr-defined]
            probe = self.probe
            if probe.frames and len(probe.frame_gc) < len(probe.frames):
                probe.frame_gc.append(0.0)  # the previous frame was shown outside an update
            probe.frames.append((time.perf_counter(), probe.painted_chars, 0.0))
        super()._display(screen, renderable)  # type: ignore[misc]


async def paced(probe: Probe, rate: float):
    """Yield the deltas at ``rate`` per second (0: as fast as the consumer takes them)."""
    t0 = time.perf_counter()
    probe.started = t0
    probe.cpu_start = time.process_time()
    for i, piece in enumerate(probe.deltas):
        if rate:
            due = t0 + i / rate
            now = time.perf_counter()
            if due > now:
                await asyncio.sleep(due - now)
            probe.arrivals.append(due)
        else:
            await asyncio.sleep(0)  # a flood still lets the event loop turn between deltas
            probe.arrivals.append(time.perf_counter())
        yield piece


# -- the larik variant ------------------------------------------------------------------------


class BenchAgent:
    """Plays the reply as the agent's events; the slice of larik.agent.Agent the TUI uses."""

    def __init__(self, probe: Probe, rate: float) -> None:
        from larik.agent.usage import Accounting

        self.probe, self.rate = probe, rate
        self.model, self.provider_name, self.role = "reply", "bench", None
        self.effort, self.permission_mode = "", "ask"
        self.messages: list[Any] = []
        self.usage = Accounting()
        self.context_tokens, self.context_window = 0, 200_000
        self.session_id = "bench"
        self.transcript_path = Path("/nonexistent/bench.jsonl")

    def set_model(self, spec: str) -> Any:
        raise NotImplementedError

    async def close(self) -> None:
        pass

    def compact(self) -> Any:
        raise NotImplementedError

    async def run_turn(self, prompt: Any) -> Any:
        from larik.agent.events import AgentEvent, AgentEventType
        from larik.llm.types import Block, Message, StopReason

        E = AgentEventType
        async for piece in paced(self.probe, self.rate):
            yield AgentEvent(E.TEXT_DELTA, text=piece)
        text = "".join(self.probe.deltas)
        yield AgentEvent(
            E.MESSAGE, message=Message(role="assistant", blocks=[Block.text_block(text)])
        )
        yield AgentEvent(E.TURN_END, stop_reason=StopReason.END_TURN)


def larik_app(probe: Probe, rate: float) -> Any:
    import larik.tui.app as tui_app
    from larik.agent.events import AgentEventType
    from larik.tui.widgets.conversation import ConversationView
    from larik.tui.widgets.prompt_input import PromptInput
    from larik.tui.widgets.streaming_markdown import StreamingMarkdown

    real_handle = ConversationView.handle
    text_delta = AgentEventType.TEXT_DELTA

    def handle(self: Any, ev: Any) -> None:
        real_handle(self, ev)
        if ev.type is text_delta:
            probe.handled_chars += len(ev.text)

    real_flush = StreamingMarkdown.flush

    async def flush(self: Any) -> None:
        t = time.perf_counter()
        await real_flush(self)
        probe.painted_chars = probe.handled_chars  # a flush paints everything written so far
        if not probe.in_update:
            probe.cost_since_frame += time.perf_counter() - t

    real_key = PromptInput._on_key

    async def on_key(self: Any, event: Any) -> None:
        await real_key(self, event)
        if event.key == "x":
            probe.key_handled.append(time.perf_counter())

    ConversationView.handle = handle  # type: ignore[method-assign]
    StreamingMarkdown.flush = flush  # type: ignore[method-assign]
    PromptInput._on_key = on_key  # type: ignore[method-assign]

    class App(MeasuredApp, tui_app.LarikApp):
        CSS_PATH = str(Path(tui_app.__file__).parent / "app.tcss")

    async def factory(**_: Any) -> Any:
        return BenchAgent(probe, rate)

    app = App(factory, cwd=Path.cwd(), config=None)
    app.probe = probe
    return app


async def start_larik(app: Any) -> None:
    while app.chat.agent is None:
        await asyncio.sleep(0.01)
    app.chat.conv.add_user("Write a long answer with code.")
    app.chat.start_turn("Write a long answer with code.")


# -- the plain-Textual variants ---------------------------------------------------------------


def textual_app(probe: Probe, rate: float, how: str) -> Any:
    from textual.app import App, ComposeResult
    from textual.containers import VerticalScroll
    from textual.widgets import Markdown, Static, TextArea

    class Plain(MeasuredApp, App):
        CSS = "VerticalScroll { height: 1fr; } TextArea { height: 3; } Static { height: 1; }"

        def compose(self) -> ComposeResult:
            with VerticalScroll():
                yield Markdown()
            yield TextArea()
            yield Static("status")

        def on_mount(self) -> None:
            self.query_one(VerticalScroll).anchor()
            self.query_one(TextArea).focus()

        async def consume(self) -> None:
            md = self.query_one(Markdown)
            if how == "naive":
                text = ""
                async for piece in paced(probe, rate):
                    text += piece
                    await md.update(text)
                    probe.painted_chars = len(text)
            else:
                real_append = md.append

                async def append(fragment: str) -> None:
                    await real_append(fragment)
                    probe.painted_chars += len(fragment)

                md.append = append  # type: ignore[method-assign,assignment]
                stream = Markdown.get_stream(md)
                async for piece in paced(probe, rate):
                    await stream.write(piece)
                await stream.stop()

    app = Plain()
    app.probe = probe
    return app


# -- a run (in the child) ---------------------------------------------------------------------


def send_keys(app: Any, probe: Probe, stop: threading.Event) -> None:
    """A key press every KEY_EVERY seconds, from another thread, as a terminal driver does."""
    from textual import events

    while not stop.wait(KEY_EVERY):
        key = events.Key("x", "x")
        probe.key_sent.append(time.perf_counter())
        app._driver.send_message(key)


async def run(variant: str, n: int, rate: float, keys: bool, limit: float) -> dict[str, Any]:
    probe = Probe(reply_deltas(n))
    install_frame_hooks(probe)
    app = larik_app(probe, rate) if variant == "larik" else textual_app(probe, rate, variant)
    total = probe.ends[-1]
    stop = threading.Event()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        if variant == "larik":
            await start_larik(app)
        else:
            app.run_worker(app.consume())
        while not probe.started:
            await asyncio.sleep(0.005)
        keyer = None
        if keys:
            keyer = threading.Thread(target=send_keys, args=(app, probe, stop), daemon=True)
            keyer.start()
        deadline = probe.started + limit
        while time.perf_counter() < deadline:
            if probe.frames and probe.frames[-1][1] >= total:
                break
            await asyncio.sleep(0.01)
        end = time.perf_counter()
        cpu = time.process_time() - probe.cpu_start
        stop.set()
        if keyer is not None:
            keyer.join()
            await asyncio.sleep(0.2)  # let the last key arrive
        app.exit()
    return summarize(probe, end, cpu)


def summarize(probe: Probe, end: float, cpu: float) -> dict[str, Any]:
    """Lag per delta (arrival to the first frame showing it), over the deltas that got shown."""
    frames = probe.frames
    lags: list[float] = []
    f = 0
    for i, arrived in enumerate(probe.arrivals):
        need = probe.ends[i]
        while f < len(frames) and (frames[f][1] < need or frames[f][0] < arrived):
            f += 1
        if f == len(frames):
            break
        lags.append(frames[f][0] - arrived)
    shown = len(lags)
    wall = end - probe.started
    stream_frames = [fr for fr in frames if fr[0] >= probe.started]
    total = probe.ends[-1]
    quarter = total // 4
    quarters = [
        [c for _, p, c in stream_frames if k * quarter < p <= (k + 1) * quarter and c > 0]
        for k in range(4)
    ]
    first_q, last_q = quarters[0], quarters[3]
    # frame cost per 1,000 newly shown characters, first half of the reply against the second
    # (frames that showed at least 1,000 new characters; the first paint, which also loads
    # the syntax highlighter, left out), without the collector's passes that fell in a frame
    per_kchar_first: list[float] = []
    per_kchar_last: list[float] = []
    before = 0
    first_paint = True
    gcs = probe.frame_gc + [0.0] * (len(frames) - len(probe.frame_gc))
    for (t, p, c), g in zip(frames, gcs, strict=True):
        if t < probe.started:
            continue
        if p > before and c > 0:
            if not first_paint and p - before >= 1000:
                per = (c - g) * 1000 / (p - before)
                (per_kchar_first if p <= total // 2 else per_kchar_last).append(per)
            first_paint = False
        before = max(before, p)
    run_gc = [(took, gen) for when, took, gen in probe.gc_times if probe.started <= when <= end]
    key_lat = [h - s for s, h in zip(probe.key_sent, probe.key_handled, strict=False)]
    key_screen = []
    for s, h in zip(probe.key_sent, probe.key_handled, strict=False):
        nxt = next((t for t, _, _ in frames if t >= h), None)
        if nxt is not None:
            key_screen.append(nxt - s)
    return {
        "deltas": len(probe.deltas),
        "chars": total,
        "shown": shown,
        "complete": shown == len(probe.deltas),
        "wall": wall,
        "cpu": cpu,
        "frames": len(stream_frames),
        "lag_max": max(lags, default=float("nan")),
        "lag_p50": _pct(lags, 0.5),
        "lag_p99": _pct(lags, 0.99),
        "lag_end": lags[-1] if lags else float("nan"),
        "rate_reached": shown / wall if wall else 0.0,
        "frame_cost_first": _pct(first_q, 0.5),
        "frame_cost_last": _pct(last_q, 0.5),
        "frame_cost_max": max((c for _, _, c in stream_frames), default=float("nan")),
        "frame_cost_quarters": [_pct(q, 0.5) for q in quarters],
        "kchar_cost_first": per_kchar_first,
        "kchar_cost_last": per_kchar_last,
        "gc_full": sum(1 for _, gen in run_gc if gen == 2),
        "gc_seconds": sum(took for took, _ in run_gc),
        "gc_max": max((took for took, _ in run_gc), default=0.0),
        "keys_sent": len(probe.key_sent),
        "keys_handled": len(probe.key_handled),
        "key_p50": _pct(key_lat, 0.5),
        "key_max": max(key_lat, default=float("nan")),
        "key_screen_p50": _pct(key_screen, 0.5),
        "key_screen_max": max(key_screen, default=float("nan")),
    }


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def child(args: list[str]) -> None:
    variant, n, rate, keys, limit = args
    result = asyncio.run(run(variant, int(n), float(rate), keys == "1", float(limit)))
    print(json.dumps(result))


# -- the parent -------------------------------------------------------------------------------


def scenarios(paced_s: float, stream_deltas: int, naive_deltas: int) -> dict[str, list[tuple]]:
    """scenario -> [(label, variant, deltas, rate, keys, time limit)]; the first is the ref."""
    paced_n = int(100 * paced_s)
    return {
        "paced": [
            ("naive Markdown.update per delta", "naive", paced_n, 100.0, False, paced_s + 2),
            ("larik", "larik", paced_n, 100.0, False, paced_s * 4),
        ],
        "fast": [
            ("larik", "larik", 10_000, 1000.0, True, 40.0),
        ],
        "flood": [
            ("larik", "larik", 20_000, 0.0, False, 60.0),
            ("Textual MarkdownStream", "stream", stream_deltas, 0.0, False, 60.0),
            ("naive Markdown.update per delta", "naive", naive_deltas, 0.0, False, 20.0),
        ],
    }


def run_child(variant: str, n: int, rate: float, keys: bool, limit: float) -> dict[str, Any]:
    argv = [PY, str(HERE), "--child", variant, str(n), str(rate), "1" if keys else "0"]
    argv.append(str(limit))
    done = subprocess.run(argv, capture_output=True, text=True, timeout=limit + 60)
    if done.returncode:
        raise RuntimeError(f"{variant}: {done.stderr.strip()[-1500:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def bench(plan: dict[str, list[tuple]], rounds: int) -> dict[str, dict[str, list[dict]]]:
    out: dict[str, dict[str, list[dict]]] = {s: {v[0]: [] for v in vs} for s, vs in plan.items()}
    for r in range(rounds):
        for scenario, variants in plan.items():
            k = r % len(variants)
            for label, variant, n, rate, keys, limit in variants[k:] + variants[:k]:
                out[scenario][label].append(run_child(variant, n, rate, keys, limit))
    return out


def med(rs: list[dict], key: str) -> float:
    return stat([r[key] for r in rs if r[key] == r[key]]).median


def span(rs: list[dict], key: str, scale: float = 1.0, fmt: str = "{:.0f}") -> str:
    s = stat([r[key] * scale for r in rs if r[key] == r[key]])
    return (fmt + "–" + fmt).format(s.low, s.high)


def report(plan: dict[str, list[tuple]], found: dict[str, dict[str, list[dict]]]) -> None:
    if "paced" in found:
        rs_all = found["paced"]
        n = plan["paced"][0][2]
        print(f"\n(a) paced: {n:,} deltas at 100/s; CPU = process CPU time / wall time")
        print()
        ref = None
        rows = []
        for label, *_ in plan["paced"]:
            rs = rs_all[label]
            cpu = [r["cpu"] / r["wall"] * 100 for r in rs]
            c = stat(cpu)
            ref = ref or c.median
            rows.append(
                TableRow(
                    [
                        label,
                        f"{c.median:.1f}",
                        f"{c.low:.1f}–{c.high:.1f}",
                        f"{c.median / ref:.2f}×",
                        f"{med(rs, 'lag_max') * 1e3:.0f}",
                        f"{med(rs, 'frames') / med(rs, 'wall'):.0f}",
                        "≤ 25%" if label == "larik" else "ref",
                    ]
                )
            )
        print_table(
            ["variant", "CPU %", "min–max", "× ref", "lag max ms", "frames/s", "target"], rows
        )
    if "fast" in found:
        rs = found["fast"]["larik"]
        print("\n(b) fast: 10,000 deltas at 1,000/s, a key press every 0.2 s")
        print()
        rows = [
            TableRow(
                [
                    "lag, delta to the frame showing it: max",
                    f"{med(rs, 'lag_max') * 1e3:.0f}",
                    span(rs, "lag_max", 1e3),
                    "≤ 250",
                ]
            ),
            TableRow(["  p99", f"{med(rs, 'lag_p99') * 1e3:.0f}", span(rs, "lag_p99", 1e3), ""]),
            TableRow(["  p50", f"{med(rs, 'lag_p50') * 1e3:.0f}", span(rs, "lag_p50", 1e3), ""]),
            TableRow(
                [
                    "key press to handled: max",
                    f"{med(rs, 'key_max') * 1e3:.0f}",
                    span(rs, "key_max", 1e3),
                    "≤ 50",
                ]
            ),
            TableRow(
                ["  p50", f"{med(rs, 'key_p50') * 1e3:.1f}", span(rs, "key_p50", 1e3, "{:.1f}"), ""]
            ),
            TableRow(
                [
                    "key press to on screen: max",
                    f"{med(rs, 'key_screen_max') * 1e3:.0f}",
                    span(rs, "key_screen_max", 1e3),
                    "",
                ]
            ),
            TableRow(
                [
                    "  p50",
                    f"{med(rs, 'key_screen_p50') * 1e3:.0f}",
                    span(rs, "key_screen_p50", 1e3),
                    "",
                ]
            ),
            TableRow(
                ["CPU % of one core", f"{med(rs, 'cpu') / med(rs, 'wall') * 100:.0f}", "", ""]
            ),
            TableRow(["frames per second", f"{med(rs, 'frames') / med(rs, 'wall'):.0f}", "", ""]),
        ]
        print_table(["measure", "median ms", "min–max", "target"], rows)
        keys = [(r["keys_sent"], r["keys_handled"]) for r in rs]
        print(
            f"keys sent/handled per run: {keys}; every run complete: "
            f"{all(r['complete'] for r in rs)}"
        )
    if "flood" in found:
        print("\n(c) flood: deltas as fast as they come, to the frame showing the last one")
        print()
        rows = []
        ref = None
        for label, variant, n, *_ in plan["flood"]:
            rs = found["flood"][label]
            rate = med(rs, "rate_reached")
            ref = ref or rate
            done = all(r["complete"] for r in rs)
            rows.append(
                TableRow(
                    [
                        label,
                        f"{n:,}",
                        f"{med(rs, 'shown'):,.0f}",
                        f"{med(rs, 'wall'):.2f}" + ("" if done else "*"),
                        span(rs, "wall", 1, "{:.2f}"),
                        f"{rate:,.0f}",
                        f"{rate / ref:.3f}×" if rate / ref < 0.1 else f"{rate / ref:.2f}×",
                        "≤ 3 s" if variant == "larik" else "",
                    ]
                )
            )
        print_table(
            ["variant", "deltas", "shown", "s", "min–max", "deltas/s", "× larik", "target"],
            rows,
        )
        print(
            "* stopped at its time limit before showing every delta; s is then the limit.\n"
            "MarkdownStream and the naive update run on the first deltas only (the reply\n"
            "grows more slowly, which flatters them: their cost per delta grows with it)."
        )
        rs = found["flood"]["larik"]
        q1 = stat([x for r in rs for x in r["kchar_cost_first"]]).median
        q4 = stat([x for r in rs for x in r["kchar_cost_last"]]).median
        print(
            f"\nlarik in the flood: {med(rs, 'frames'):.0f} frames, each showing all that came "
            f"since the last one; the longest took {med(rs, 'frame_cost_max') * 1e3:.0f} ms.\n"
            f"Frame cost per 1,000 new characters (the collector's passes left out; median over "
            f"the frames of every\nround): first half of the reply {q1 * 1e3:.1f} ms, second "
            f"half {q4 * 1e3:.1f} ms ({q4 / q1:.2f}×).\n"
            f"Garbage collection during the flood: {med(rs, 'gc_full'):.0f} full passes, "
            f"{med(rs, 'gc_seconds') * 1e3:.0f} ms in all, the longest "
            f"{med(rs, 'gc_max') * 1e3:.0f} ms (medians over the rounds)."
        )
    if "fast" in found:
        rs = found["fast"]["larik"]
        by_q = [stat([r["frame_cost_quarters"][k] for r in rs]).median * 1e3 for k in range(4)]
        print(
            "larik at 1,000 deltas/s (about the same new text every frame): median frame cost "
            "by quarter of\nthe reply: " + ", ".join(f"{q:.1f}" for q in by_q) + " ms "
            f"(last ÷ first: {by_q[3] / by_q[0]:.2f}×)"
        )


def profile(scenario: str, plan: dict[str, list[tuple]], top: int) -> None:
    import cProfile
    import pstats

    label, variant, n, rate, keys, limit = next(v for v in plan[scenario] if v[1] == "larik")
    prof = cProfile.Profile()
    prof.enable()
    result = asyncio.run(run(variant, n, rate, keys, limit))
    prof.disable()
    print(json.dumps(result, indent=1))
    pstats.Stats(prof).sort_stats("cumulative").print_stats(top)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=2, help="rounds (default 2)")
    p.add_argument("--only", default="", help="comma-separated: paced,fast,flood")
    p.add_argument("--paced-seconds", type=float, default=8.0, help="paced run length (8)")
    p.add_argument(
        "--stream-deltas", type=int, default=5000, help="MarkdownStream flood length (5000)"
    )
    p.add_argument("--naive-deltas", type=int, default=300, help="naive flood length (300)")
    p.add_argument("--profile", default="", metavar="SCENARIO", help="cProfile larik's run")
    p.add_argument("--top", type=int, default=40)
    p.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child(args.child)
        return
    plan = scenarios(args.paced_seconds, args.stream_deltas, args.naive_deltas)
    if args.profile:
        profile(args.profile, plan, args.top)
        return
    if args.only:
        wanted = args.only.split(",")
        unknown = set(wanted) - set(plan)
        if unknown:
            p.error(f"unknown scenario(s): {', '.join(sorted(unknown))}")
        plan = {k: v for k, v in plan.items() if k in wanted}
    print("tui: the conversation view under a streaming reply (headless, 100×30)")
    for line in machine_lines(("larik", "textual", "rich")):
        print(line)
    doc = "".join(reply_deltas(20_000))
    print(f"reply: {len(doc):,} characters in 20,000 deltas, {doc.count('```') // 2} code blocks")
    report(plan, bench(plan, args.rounds))


if __name__ == "__main__":
    main()
