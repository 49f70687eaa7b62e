"""``larik`` to its first painted frame, and the first request after it (issue 8, item 1).

    .venv/bin/python benchmarks/first_paint.py                 # ~1.5 min
    .venv/bin/python benchmarks/first_paint.py --rounds 30 --request-rounds 6
    .venv/bin/python benchmarks/first_paint.py --no-request    # the first frame only
    .venv/bin/python benchmarks/first_paint.py --only-request  # the first request only
    .venv/bin/python benchmarks/first_paint.py --commands 50 --skills 20  # with extensions
    .venv/bin/python benchmarks/first_paint.py --mcp 3 --mcp-oauth  # 3 servers, one with OAuth

1. **First frame.** Each command runs as a new process on a pseudo-terminal (100×30, no real
   terminal: headless), and the figure is the wall time from spawn to the moment its first
   frame has been written to the terminal (a word of that frame seen on the pty). The commands
   alternate, in an order that rotates from round to round:

   * a bare Textual app (an ``App`` with one ``Static``): the reference, target ≤ 1.3×;
   * the same with the kinds of widget Larik's screen has (a scrolling view, a ``TextArea``
     prompt, a status line): what the layout itself costs, for information;
   * ``larik`` (the installed console script, or ``--larik CMD``) in an empty project, with a
     config and a key.

   All of them run from bytecode after a warm-up round (``.pyc`` files kept in the sandbox),
   as an installed larik does, whatever ``PYTHONDONTWRITEBYTECODE`` says.

2. **Where the time goes.** ``larik`` with a hook that records, at the first frame, the time
   at each phase (the entry point, Textual, the TUI's modules, the app) and which heavy
   packages are in ``sys.modules``: no vendor SDK (nor pydantic, nor Typer) may be imported
   before the first paint; the config is loaded after it.

3. **The first request.** The TUI on a real agent (``Agent.create``, as ``larik`` builds it)
   whose model is Anthropic's adapter pointed at a loopback server; the prompt is sent a
   "typing time" after the first frame (``--typing``, default 2 s) and the figure is Enter to
   the first text of the reply on screen. Variants, each in a new process:

   * ``SDK imported before start``: the floor, a first request that waits for no import;
   * ``larik``: as it is — the app imports the session's SDK in a worker thread once the
     agent is ready (``ChatScreen.warm_up_sdk``);
   * the same with Enter pressed as soon as the agent is ready (no typing time): the first
     request then waits for whatever of the import is left;
   * ``without the warm-up thread``: ``warm_up_sdk`` disabled, so the adapter imports its
     SDK on the event loop at the first request (what larik did before it had the warm-up).

   Also the longest event-loop stall (a 5 ms probe) while "typing" and during the request:
   an import on the event loop freezes the screen and the keyboard for its whole length, and
   one in a thread holds the GIL in slices.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import re
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import termios
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _bodies import anthropic_body, pieces
from _common import BodyServer, TableRow, machine_lines, print_table, stat

PY = sys.executable
HERE = Path(__file__).resolve()
COLS, ROWS = 100, 30
TARGET = 1.3
KEY = "bench-key-not-a-secret"
MODEL = "anthropic/claude-sonnet-4-5"
HEAVY = (
    "anthropic",
    "openai",
    "google.genai",
    "mcp",
    "httpx2",
    "pydantic",
    "typer",
    "rich",
    "textual",
    "yaml",
    "larik.custom_commands",
    "larik.agent.skills",
    "larik.mcp.oauth",
)
SDKS = ("anthropic", "openai", "google.genai")
# --mcp N: the config also names N MCP servers (the tests' stdio server, written with the SDK)
MCP_SERVERS = [0]
# --mcp-oauth: the last of them is an HTTP server with auth = "oauth" (on a loopback port where
# nothing listens: what is measured is that its OAuth code is not loaded before the first frame)
MCP_OAUTH = [False]
MCP_SCRIPT = HERE.parents[1] / "tests" / "mcp" / "server_script.py"
# --commands N --skills M: N custom commands and M skills, half yours, half the project's
EXTENSIONS = {"commands": 0, "skills": 0}

BARE_APP = """\
from textual.app import App
from textual.widgets import Static

class Bare(App):
    def compose(self):
        yield Static("first frame marker")

Bare().run()
"""

LAYOUT_APP = """\
from textual.app import App
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static, TextArea

class Layout(App):
    def compose(self):
        with VerticalScroll():
            yield Static("")
        with Vertical():
            yield TextArea("", id="prompt")
            yield Static("first frame marker")

Layout().run()
"""


# -- 1. first frame on a pty ------------------------------------------------------------------


@dataclass
class Command:
    label: str
    argv: list[str]
    marker: bytes
    reference: bool = False
    target: float | None = None


def larik_binary() -> str:
    beside = Path(PY).parent / "larik"
    if beside.exists():
        return str(beside)
    found = shutil.which("larik")
    if not found:
        sys.exit("first_paint.py: no `larik` command; run `.venv/bin/pip install -e .` first")
    return found


class Sandbox:
    """LARIK_HOME with a config whose model is Anthropic's adapter on 127.0.0.1, an empty
    project, and an environment without any real key."""

    def __init__(self, port: int = 9) -> None:
        servers = "".join(
            f'\n[mcp.servers.s{i}]\ncommand = "{PY}"\nargs = ["{MCP_SCRIPT}", "ok"]\n'
            for i in range(MCP_SERVERS[0] - MCP_OAUTH[0])
        )
        if MCP_OAUTH[0]:
            servers += '\n[mcp.servers.login]\nurl = "http://127.0.0.1:9/mcp"\nauth = "oauth"\n'
        self._tmp = tempfile.TemporaryDirectory(prefix="larik-fp-")
        root = Path(self._tmp.name)
        self.home = root / "home"
        self.project = root / "project"
        self.home.mkdir()
        self.project.mkdir()
        (self.home / "config.toml").write_text(
            f'model = "{MODEL}"\n\n[providers.anthropic]\n'
            f'base_url = "http://127.0.0.1:{port}/b/anthropic"\n' + servers
        )
        env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
        env.update(
            LARIK_HOME=str(self.home),
            ANTHROPIC_API_KEY=KEY,
            TERM="xterm-256color",
            COLORTERM="truecolor",
        )
        env["CLAUDE_CONFIG_DIR"] = str(root / "claude")  # not the real ~/.claude
        populate(self.home, self.project, EXTENSIONS["commands"], EXTENSIONS["skills"])
        env.pop("PYTHONPROFILEIMPORTTIME", None)
        # Every command runs from bytecode after the first round, as an installed larik does
        # (PYTHONDONTWRITEBYTECODE would have larik's modules compiled from source each run);
        # the .pyc files go to the sandbox, not into the source tree.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(root / "pycache")
        self.env = env

    def close(self) -> None:
        self._tmp.cleanup()


def populate(home: Path, project: Path, commands: int, skills: int) -> None:
    """``commands`` command files and ``skills`` skills, half in the user's folders (beside
    the config) and half in the project's ``.claude/``, a third of the commands namespaced."""
    for i in range(commands):
        base = home / "commands" if i % 2 else project / ".claude" / "commands"
        rel = f"team{i % 3}/cmd{i:02d}.md" if i % 3 == 0 else f"cmd{i:02d}.md"
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        head = f"---\ndescription: Command {i}: review what changed\nargument-hint: [path]\n---\n"
        path.write_text(head + "Review $ARGUMENTS for bugs, then summarise.\n" * 3)
    for i in range(skills):
        base = home / "skills" if i % 2 else project / ".claude" / "skills"
        folder = base / f"skill-{i:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        body = "\n".join(f"Step {k}: do it." for k in range(200))
        (folder / "SKILL.md").write_text(
            f"---\nname: skill-{i:02d}\ndescription: Skill {i}: when to use it.\n---\n{body}\n"
        )


def on_pty(
    argv: list[str],
    marker: bytes | None,
    env: dict[str, str],
    cwd: Path,
    timeout: float = 30.0,
    stderr: Any = None,
) -> float:
    """Spawn ``argv`` on a new pty; seconds until ``marker`` has been written to it (None:
    until the process exits)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        stdin=slave,
        stdout=slave,
        stderr=stderr or slave,
        env=env,
        cwd=cwd,
        start_new_session=True,
    )
    os.close(slave)
    seen = b""
    found = None
    try:
        end = t0 + timeout
        while found is None and time.perf_counter() < end:
            ready, _, _ = select.select([master], [], [], 0.2)
            if not ready:
                if proc.poll() is not None:
                    if marker is None:
                        found = time.perf_counter() - t0
                    break
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child is gone and the pty closed
                if marker is None:
                    proc.wait()
                    found = time.perf_counter() - t0
                break
            if marker is not None:
                seen = seen[-len(marker) :] + chunk
                if marker in seen:
                    found = time.perf_counter() - t0
    finally:
        proc.kill()
        proc.wait()
        os.close(master)
    if found is None:
        raise RuntimeError(f"{argv[-1][:40]!r}: no first frame within {timeout:g}s")
    return found


def first_frame(
    rounds: int, box: Sandbox, larik: str = ""
) -> tuple[list[Command], dict[str, list[float]]]:
    cmds = [
        Command("bare Textual app (1 Static)", [PY, "-c", BARE_APP], b"marker", reference=True),
        Command("Textual app, Larik's widget kinds", [PY, "-c", LAYOUT_APP], b"marker"),
        Command("larik", [larik or larik_binary()], b"commands", target=TARGET),
    ]
    for c in cmds:  # warm the page cache and .pyc files
        on_pty(c.argv, c.marker, box.env, box.project)
    times: dict[str, list[float]] = {c.label: [] for c in cmds}
    for r in range(rounds):
        order = cmds[r % len(cmds) :] + cmds[: r % len(cmds)]
        for c in order:
            times[c.label].append(on_pty(c.argv, c.marker, box.env, box.project))
    return cmds, times


# -- 2. where the time goes (child with a hook) -----------------------------------------------

PHASES = [
    ("python start-up", None),
    ("larik._entry + larik.interactive", "larik.interactive"),
    ("textual.app", "textual.app"),
    ("larik.tui.app (widgets, prompt, commands)", "larik.tui.app"),
]
REST_PHASE = "rest (entry point, run_tui, building the app)"
APP_PHASE = "app: mount, CSS, layout, first frame"


PHASES_CHILD = """\
import time
start = time.perf_counter()
import importlib, json, os, sys

marks = {"start": start}
for module in MODULES:
    importlib.import_module(module)
    marks[module] = time.perf_counter()

import larik.tui.app as tui_app

real_init = tui_app.LarikApp.__init__

def init(self, *a, **kw):
    marks["app built"] = time.perf_counter()
    real_init(self, *a, **kw)

def first(self):
    marks["first frame"] = time.perf_counter()
    loaded = sorted({p for p in HEAVY for m in sys.modules if m == p or m.startswith(p + ".")})
    with open(os.environ["FP_OUT"], "w") as f:
        json.dump({"marks": marks, "heavy": loaded}, f)
    os._exit(0)

tui_app.LarikApp.__init__ = init
tui_app.LarikApp._after_first_frame = first
sys.argv = ["larik"]
from larik._entry import main

main()
"""


BARE_PHASES_CHILD = """\
import time
start = time.perf_counter()
import json, os
from textual.app import App
from textual.widgets import Static

marks = {"start": start, "textual.app": time.perf_counter()}

class Bare(App):
    def compose(self):
        yield Static("first frame marker")

    def on_mount(self):
        self.call_after_refresh(self.first)

    def first(self):
        marks["first frame"] = time.perf_counter()
        with open(os.environ["FP_OUT"], "w") as f:
            json.dump({"marks": marks, "heavy": []}, f)
        os._exit(0)

marks["app built"] = time.perf_counter()
Bare().run()
"""


def _larik_row(marks: dict[str, float], spawned: float) -> dict[str, float]:
    row = {"python start-up": marks["start"] - spawned}
    prev = marks["start"]
    for label, module in PHASES[1:]:
        row[label] = marks[module] - prev
        prev = marks[module]
    row[REST_PHASE] = marks["app built"] - prev
    row[APP_PHASE] = marks["first frame"] - marks["app built"]
    row["total"] = marks["first frame"] - spawned
    return row


def _bare_row(marks: dict[str, float], spawned: float) -> dict[str, float]:
    return {
        "python start-up": marks["start"] - spawned,
        "textual.app": marks["textual.app"] - marks["start"],
        APP_PHASE: marks["first frame"] - marks["app built"],
        "total": marks["first frame"] - spawned,
    }


def phases(rounds: int, box: Sandbox) -> tuple[dict[str, dict[str, list[float]]], list[str]]:
    """``larik`` and the bare app with a hook: the phases up to the first frame, and what
    ``larik`` imported by then.

    The larik child imports in ``larik``'s own order, one phase at a time, then runs the real
    entry point; at the first frame each child writes its marks (perf_counter is
    CLOCK_MONOTONIC, the same clock in every process) and exits. The two alternate."""
    larik_code = f"MODULES = {[m for _, m in PHASES[1:]]!r}\nHEAVY = {HEAVY!r}\n" + PHASES_CHILD
    kinds = [("larik", larik_code, _larik_row), ("bare", BARE_PHASES_CHILD, _bare_row)]
    found: dict[str, dict[str, list[float]]] = {"larik": {}, "bare": {}}
    heavy: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "marks.json"
        env = {**box.env, "FP_OUT": str(out)}
        for r in range(rounds):
            for kind, code, make_row in kinds[r % 2 :] + kinds[: r % 2]:
                spawned = time.perf_counter()
                on_pty([PY, "-c", code], None, env, box.project)
                data = json.loads(out.read_text())
                out.unlink()
                if kind == "larik":
                    heavy = data["heavy"]
                for k, v in make_row(data["marks"], spawned).items():
                    found[kind].setdefault(k, []).append(v)
    return found, heavy


_IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|(\s+)(\S+)")

HOOK_BARE = """\
import os, sys
from textual.app import App
from textual.widgets import Static

class Bare(App):
    def compose(self):
        yield Static("first frame marker")

    def on_mount(self):
        self.call_after_refresh(lambda: os._exit(0))

Bare().run()
"""


def self_import_times(argv: list[str], env: dict[str, str], cwd: Path) -> dict[str, int]:
    """Module -> self import time (µs, from -X importtime) of a run that exits at its first
    frame."""
    with tempfile.TemporaryFile("w+") as err:
        on_pty(argv, None, {**env, "PYTHONPROFILEIMPORTTIME": "1"}, cwd, stderr=err)
        err.seek(0)
        found = {}
        for line in err.read().splitlines():
            m = _IMPORT_LINE.match(line)
            if m:
                found[m.group(4)] = int(m.group(1))
    return found


def import_diff(box: Sandbox, top: int = 14) -> list[str]:
    """What ``larik`` imports before its first frame that the bare app does not."""
    code = f"MODULES = []\nHEAVY = {HEAVY!r}\n" + PHASES_CHILD
    with tempfile.TemporaryDirectory() as tmp:
        env = {**box.env, "FP_OUT": str(Path(tmp) / "marks.json")}
        base = self_import_times([PY, "-c", HOOK_BARE], env, box.project)
        mine = self_import_times([PY, "-c", code], env, box.project)
    extra = {m: t for m, t in mine.items() if m not in base}
    groups: dict[str, int] = {}
    for m, t in extra.items():
        root = m.split(".")[0]
        key = ".".join(m.split(".")[:3]) if root == "larik" else root
        groups[key] = groups.get(key, 0) + t
    lines = [
        f"`larik` imports {len(extra)} modules before its first frame that the bare app does "
        f"not: {sum(extra.values()) / 1000:.0f} ms of self import time (-X importtime, "
        "inflated by the profiling), by package:"
    ]
    ranked = sorted(groups.items(), key=lambda kv: -kv[1])[:top]
    lines += [f"  {t / 1000:6.1f} ms  {m}" for m, t in ranked]
    return lines


# -- 3. the first request (child runs the TUI headless) ---------------------------------------


def request_child(variant: str, port: int, typing: float, home: str, project: str) -> None:
    import asyncio

    os.environ["LARIK_HOME"] = home
    os.environ["ANTHROPIC_API_KEY"] = KEY
    if variant == "preimport":
        import anthropic  # noqa: F401

    import importlib

    from larik.tui.app import LarikApp
    from larik.tui.screens.chat import ChatScreen
    from larik.tui.widgets.streaming_markdown import StreamingMarkdown

    cwd = Path(project)
    result: dict[str, Any] = {"variant": variant}
    built: list[Any] = []  # the app, for the factory

    def load() -> tuple[Any, None]:  # as larik.tui.run_tui: the config after the first frame
        from larik.config import load_config

        return load_config(cwd), None

    async def factory(*, approver: Any, model: str = "", resume: str | None = None) -> Any:
        # the same as larik.tui.run_tui's factory
        await asyncio.to_thread(importlib.import_module, "larik.agent.agent")
        from larik.agent import Agent

        return await Agent.create(
            cwd=cwd, config=built[0].config, model=model, approver=approver, resume=resume
        )

    real_use, real_warm = ChatScreen.use_agent, ChatScreen.warm_up_sdk

    async def use_agent(self: ChatScreen, agent: Any, **kw: Any) -> None:
        await real_use(self, agent, **kw)
        result["agent_ready"] = time.perf_counter()
        result["sdk_at_ready"] = "anthropic" in sys.modules

    def warm_up_sdk(self: ChatScreen) -> None:
        if variant != "no-warmup":
            real_warm(self)

    ChatScreen.use_agent = use_agent  # type: ignore[method-assign]
    ChatScreen.warm_up_sdk = warm_up_sdk  # type: ignore[method-assign]

    class App(LarikApp):
        CSS_PATH = str(Path(sys.modules[LarikApp.__module__].__file__ or "").parent / "app.tcss")
        shown_at = 0.0
        painted_at = 0.0

        def _after_first_frame(self) -> None:
            self.painted_at = time.perf_counter()
            super()._after_first_frame()

        def post_display_hook(self) -> None:
            if not self.shown_at:
                for w in self.chat.conv.query(StreamingMarkdown):
                    if w.frames:
                        self.shown_at = time.perf_counter()

    stalls: list[tuple[float, float]] = []

    async def probe() -> None:
        while True:
            t = time.perf_counter()
            await asyncio.sleep(0.005)
            stalls.append((t, time.perf_counter() - t - 0.005))

    async def main() -> None:
        app = App(factory, cwd=cwd, model=MODEL, config_loader=load)
        built.append(app)
        prober = asyncio.create_task(probe())
        async with app.run_test(size=(COLS, ROWS)) as pilot:
            while not app.painted_at:
                await asyncio.sleep(0.002)
            painted = app.painted_at
            while app.chat.agent is None and time.perf_counter() < painted + 30:
                await asyncio.sleep(0.001)
            await asyncio.sleep(max(0.0, painted + typing - time.perf_counter()))
            result["sdk_at_enter"] = "anthropic" in sys.modules
            app.chat.prompt.load_text("hello")
            enter = time.perf_counter()
            await pilot.press("enter")
            while not app.shown_at and time.perf_counter() < enter + 30:
                await asyncio.sleep(0.002)
            result["first_text_s"] = app.shown_at - enter
            result["ready_after_paint_s"] = result["agent_ready"] - painted
            # a stall counts where it ends (when the loop could run again)
            result["stall_typing_ms"] = 1000 * max(
                (s for t, s in stalls if painted <= t + s < enter), default=0.0
            )
            ready = result["agent_ready"]
            result["stall_warmup_ms"] = 1000 * max(
                (s for t, s in stalls if ready + 0.001 < t + s < enter), default=0.0
            )
            result["stall_request_ms"] = 1000 * max(
                (s for t, s in stalls if enter <= t + s <= app.shown_at), default=0.0
            )
            await app.quit_app()
        prober.cancel()

    asyncio.run(main())
    print(json.dumps(result))


# (label, variant, Enter at the typing time or as soon as the agent is ready)
VARIANTS = [
    ("SDK imported before start (floor)", "preimport", True),
    ("larik (SDK imported in a thread)", "as-is", True),
    ("larik, Enter as soon as it is ready", "as-is", False),
    ("larik without the warm-up thread", "no-warmup", True),
]


def first_request(rounds: int, typing: float) -> dict[str, list[dict[str, Any]]]:
    body = anthropic_body(pieces(200))
    out: dict[str, list[dict[str, Any]]] = {label: [] for label, _, _ in VARIANTS}
    with BodyServer({"anthropic": ("text/event-stream", body)}) as server:
        box = Sandbox(server.port)
        try:
            for r in range(rounds):
                order = VARIANTS[r % len(VARIANTS) :] + VARIANTS[: r % len(VARIANTS)]
                for label, variant, wait in order:
                    argv = [PY, str(HERE), "--request-child", variant, str(server.port)]
                    argv += [str(typing if wait else 0.0), str(box.home), str(box.project)]
                    done = subprocess.run(
                        argv, env=box.env, capture_output=True, text=True, timeout=60
                    )
                    if done.returncode:
                        raise RuntimeError(f"{variant}: {done.stderr.strip()[-800:]}")
                    out[label].append(json.loads(done.stdout.strip().splitlines()[-1]))
        finally:
            box.close()
    return out


# -- report -----------------------------------------------------------------------------------


def ms(values: list[float]) -> tuple[str, str]:
    s = stat(values)
    return f"{s.median * 1e3:.0f}", f"{s.low * 1e3:.0f}–{s.high * 1e3:.0f}"


def report_first_frame(cmds: list[Command], times: dict[str, list[float]], rounds: int) -> float:
    ref = stat(next(times[c.label] for c in cmds if c.reference)).median
    rows = []
    ratio = 0.0
    for c in cmds:
        med, span = ms(times[c.label])
        r = stat(times[c.label]).median / ref
        target = f"≤ {c.target}×" if c.target else ("ref" if c.reference else "info")
        rows.append(TableRow([c.label, med, span, f"{r:.2f}×", target]))
        if c.target:
            ratio = r
    print(f"First frame on a {COLS}×{ROWS} pty: spawn to frame, {rounds} rounds, alternating")
    print()
    print_table(["command", "median ms", "min–max ms", "× ref", "target"], rows)
    ok = "meets" if ratio <= TARGET else "MISSES"
    print(f"\nlarik: {ratio:.2f}× a bare Textual app's first frame -> {ok} the ≤ {TARGET}× target")
    return ratio


def report_phases(found: dict[str, dict[str, list[float]]], heavy: list[str], rounds: int) -> None:
    print(
        f"\nWhere the time to the first frame goes ({rounds} runs each with a hook, "
        "alternating; medians):"
    )
    print()
    rows = []
    totals = {"larik": 0.0, "bare": 0.0}
    order = [
        "python start-up",
        *[label for label, _ in PHASES[1:]],
        REST_PHASE,
        APP_PHASE,
    ]
    for label in order:
        cells = [label]
        for kind in ("larik", "bare"):
            values = found[kind].get(label)
            if values:
                totals[kind] += stat(values).median
                cells.append(f"{stat(values).median * 1e3:.0f}")
            else:
                cells.append("-")
        cells.append(
            f"{(stat(found['larik'][label]).median - (stat(found['bare'][label]).median if label in found['bare'] else 0)) * 1e3:+.0f}"
        )
        rows.append(TableRow(cells))
    rows.append(
        TableRow(
            [
                "sum of medians",
                f"{totals['larik'] * 1e3:.0f}",
                f"{totals['bare'] * 1e3:.0f}",
                f"{(totals['larik'] - totals['bare']) * 1e3:+.0f}",
            ],
            rule_before=True,
        )
    )
    lt, bt = stat(found["larik"]["total"]).median, stat(found["bare"]["total"]).median
    rows.append(
        TableRow(
            [
                "spawn to first frame (hooked runs)",
                f"{lt * 1e3:.0f}",
                f"{bt * 1e3:.0f}",
                f"{(lt - bt) * 1e3:+.0f}",
            ]
        )
    )
    print_table(["phase", "larik ms", "bare app ms", "larik − bare"], rows)
    sdk = [h for h in heavy if h in SDKS]
    print(f"\nheavy packages loaded at larik's first frame: {', '.join(heavy) or 'none'}")
    print(f"vendor SDKs loaded at larik's first frame: {', '.join(sdk) or 'none'}")


def report_request(found: dict[str, list[dict[str, Any]]], typing: float) -> None:
    rounds = min(len(v) for v in found.values())
    print(
        f"\nFirst request: Enter {typing:g} s after the first frame, to the first text on "
        f"screen (Anthropic adapter, loopback server), {rounds} rounds, a new process each:"
    )
    print()
    ref = stat([r["first_text_s"] for r in found[VARIANTS[0][0]]]).median
    rows = []
    for label, _, _ in VARIANTS:
        rs = found[label]
        med, span = ms([r["first_text_s"] for r in rs])
        ratio = stat([r["first_text_s"] for r in rs]).median / ref
        ready, _ = ms([r["ready_after_paint_s"] for r in rs])
        st_typing = stat([r["stall_typing_ms"] / 1e3 for r in rs]).median
        st_warm = stat([r["stall_warmup_ms"] / 1e3 for r in rs]).median
        st_req = stat([r["stall_request_ms"] / 1e3 for r in rs]).median
        at_enter = sum(r["sdk_at_enter"] for r in rs)
        rows.append(
            TableRow(
                [
                    label,
                    med,
                    span,
                    f"{ratio:.2f}×",
                    ready,
                    f"{at_enter}/{len(rs)}",
                    f"{st_typing * 1e3:.0f}",
                    f"{st_warm * 1e3:.0f}",
                    f"{st_req * 1e3:.0f}",
                ]
            )
        )
    print_table(
        [
            "variant",
            "first text ms",
            "min–max",
            "× floor",
            "agent ready ms",
            "SDK at Enter",
            "stall typing",
            "after ready",
            "stall request",
        ],
        rows,
    )
    print(
        "\nfirst text: Enter to the frame showing the reply's first text; agent ready: after "
        "the first frame;\nSDK at Enter: rounds where the SDK was already imported when Enter "
        "was pressed;\nstall (ms): the longest event-loop stall (5 ms probe) from the first "
        "frame to Enter (building the\nagent included), from the agent being ready to Enter "
        "(the warm-up's share), and from Enter\nto the first text."
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=20, help="first-frame rounds (default 20)")
    p.add_argument("--phase-rounds", type=int, default=5, help="hooked runs (default 5)")
    p.add_argument("--request-rounds", type=int, default=4, help="per variant (default 4)")
    p.add_argument("--typing", type=float, default=2.0, help="seconds before Enter (default 2)")
    p.add_argument("--no-request", action="store_true", help="skip the first-request part")
    p.add_argument("--only-request", action="store_true", help="only the first-request part")
    p.add_argument(
        "--larik",
        default="",
        metavar="CMD",
        help="the larik command whose first frame is timed (default: the venv's console script;"
        " e.g. a script running another checkout, for a before/after)",
    )
    p.add_argument(
        "--mcp",
        type=int,
        default=0,
        metavar="N",
        help="configure N MCP servers (they start after the first frame)",
    )
    p.add_argument(
        "--mcp-oauth",
        action="store_true",
        help='the last of the --mcp servers is an HTTP one with auth = "oauth"',
    )
    p.add_argument("--commands", type=int, default=0, metavar="N", help="N custom commands")
    p.add_argument("--skills", type=int, default=0, metavar="N", help="N skills")
    p.add_argument("--request-child", nargs=5, help=argparse.SUPPRESS)
    args = p.parse_args()
    MCP_SERVERS[0] = args.mcp
    MCP_OAUTH[0] = args.mcp_oauth and args.mcp > 0
    EXTENSIONS.update(commands=args.commands, skills=args.skills)
    if args.request_child:
        variant, port, typing, home, project = args.request_child
        request_child(variant, int(port), float(typing), home, project)
        return
    if min(args.rounds, args.phase_rounds, args.request_rounds) < 1:
        p.error("rounds must be at least 1")

    print("first_paint: `larik` to its first frame, and its first request")
    for line in machine_lines(("larik", "textual", "typer", "pydantic", "anthropic")):
        print(line)
    print()
    if args.only_request:
        report_request(first_request(args.request_rounds, args.typing), args.typing)
        return
    box = Sandbox()
    try:
        cmds, times = first_frame(args.rounds, box, args.larik)
        report_first_frame(cmds, times, args.rounds)
        found, heavy = phases(args.phase_rounds, box)
        report_phases(found, heavy, args.phase_rounds)
        print()
        for line in import_diff(box):
            print(line)
    finally:
        box.close()
    if not args.no_request:
        report_request(first_request(args.request_rounds, args.typing), args.typing)


if __name__ == "__main__":
    main()
