"""CPU time the TUI uses while nothing happens, side by side with a bare Textual app.

    .venv/bin/python benchmarks/idle.py                  # 30 s per variant, 2 rounds, ~5 min
    .venv/bin/python benchmarks/idle.py --seconds 10 --rounds 1
    .venv/bin/python benchmarks/idle.py --timers         # which timers fire while idle (larik)

Each variant runs as a new process on a pseudo-terminal (100×30, ``TERM=xterm-256color``),
its output read and thrown away as a terminal would. Once its screen is up (and a turn done,
for the second larik variant) and ``--settle`` seconds have passed, the figure is the process's
user + system CPU time (``/proc/PID/stat``) over ``--seconds`` seconds of nothing, per 30 s:

* a bare Textual ``App`` with one ``Static`` (the reference), and the same with a focused
  ``TextArea`` (a blinking cursor, as Larik's prompt has; for information);
* ``larik`` at its first screen, on a scripted model (no key, no network);
* ``larik "hello"``: the same after a finished turn (the reply on screen).

Target (docs/performance.md): larik ≤ 0.02 s per 30 s idle at the first screen and after a
finished turn. ``--timers`` lists what fired in larik during the idle window (Textual timers by
name and callback, counted by wrapping ``Timer._tick``), to find what still ticks.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import select
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import TableRow, machine_lines, print_table, stat

PY = sys.executable
COLS, ROWS = 100, 30
TICKS = os.sysconf("SC_CLK_TCK")

BARE = """
from textual.app import App
from textual.widgets import Static
class Bare(App):
    def compose(self):
        yield Static("bare textual ready")
Bare().run()
"""
BARE_PROMPT = """
from textual.app import App
from textual.widgets import Static, TextArea
class Bare(App):
    def compose(self):
        yield Static("bare textual ready")
        yield TextArea(id="p")
    def on_mount(self):
        self.query_one(TextArea).focus()
Bare().run()
"""
# larik with a wrapper that counts Textual timer callbacks after the idle window starts
TIMERS = """
import collections, json, os, signal, sys, time
from textual import timer as _t
counts = collections.Counter()
start = [None]
real = _t.Timer._tick
async def _tick(self, **kw):
    if start[0] is not None:
        cb = getattr(self._callback, "__qualname__", repr(self._callback))
        target = type(getattr(self, "_target", None) or self.target).__name__
        counts[f"{self.name} {target} {cb}"] += 1
    return await real(self, **kw)
_t.Timer._tick = _tick
def begin(*_):
    start[0] = time.monotonic()
def dump(*_):
    with open(os.environ["IDLE_TIMERS_OUT"], "w") as f:
        json.dump(dict(counts), f)
signal.signal(signal.SIGUSR1, begin)
signal.signal(signal.SIGUSR2, dump)
sys.argv = ["larik", *sys.argv[1:]]
from larik._entry import main
main()
"""


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


class Box:
    """LARIK_HOME whose model is a scripted one (a file), an empty project, no key."""

    def __init__(self) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="larik-idle-")
        root = Path(self._tmp.name)
        self.home, self.project = root / "home", root / "project"
        self.home.mkdir()
        self.project.mkdir()
        script = root / "reply.json"
        script.write_text(json.dumps({"turns": [{"text": "Hello there, idle reply."}] * 50}))
        (self.home / "config.toml").write_text(f'model = "scripted/{script}"\n')
        env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
        env.update(LARIK_HOME=str(self.home), TERM="xterm-256color", COLORTERM="truecolor")
        env["CLAUDE_CONFIG_DIR"] = str(root / "claude")
        env["PYTHONPYCACHEPREFIX"] = str(root / "pycache")
        self.env = env
        self.root = root

    def close(self) -> None:
        self._tmp.cleanup()


def idle_cpu(
    argv: list[str], marker: bytes, box: Box, seconds: float, settle: float, timers: bool = False
) -> tuple[float, dict[str, int]]:
    """Spawn ``argv`` on a pty, wait for ``marker`` and ``settle`` s, then its CPU seconds over
    ``seconds`` s (and, with ``timers``, the timer callbacks counted in that window)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
    out = box.root / "timers.json"
    env = {**box.env, "IDLE_TIMERS_OUT": str(out)}
    proc = subprocess.Popen(
        argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=box.project,
        start_new_session=True,
    )  # fmt: skip
    os.close(slave)

    def drain(until: float, want: bytes | None = None) -> bool:
        seen = b""
        while time.monotonic() < until:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    return False
                seen = (seen + chunk)[-4096:]
                if want is not None and want in seen:
                    return True
            elif proc.poll() is not None:
                return False
        return want is None

    try:
        if not drain(time.monotonic() + 60, marker):
            raise RuntimeError(f"{' '.join(argv)[-60:]!r}: {marker!r} not seen within 60 s")
        drain(time.monotonic() + settle)
        if timers:
            os.kill(proc.pid, 10)  # SIGUSR1: count from here
        before = cpu_seconds(proc.pid)
        drain(time.monotonic() + seconds)
        used = cpu_seconds(proc.pid) - before
        found: dict[str, int] = {}
        if timers:
            os.kill(proc.pid, 12)  # SIGUSR2: write the counts
            end = time.monotonic() + 5
            while not out.exists() and time.monotonic() < end:
                drain(time.monotonic() + 0.1)
            found = json.loads(out.read_text()) if out.exists() else {}
        return used * 30 / seconds, found
    finally:
        proc.kill()
        proc.wait()
        os.close(master)


def variants(box: Box, timers: bool) -> list[tuple[str, list[str], bytes]]:
    larik = [PY, "-c", TIMERS] if timers else [PY, "-m", "larik._entry"]
    return [
        ("bare Textual app (one Static)", [PY, "-c", BARE], b"ready"),
        ("bare Textual app + focused TextArea", [PY, "-c", BARE_PROMPT], b"ready"),
        ("larik, first screen", larik, b"/help"),
        ("larik, after a finished turn", [*larik, "hello"], b"idle reply"),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--settle", type=float, default=8.0, help="after the screen is up (s)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--timers", action="store_true", help="count larik's timer callbacks")
    args = ap.parse_args()
    box = Box()
    try:
        runs = variants(box, args.timers)
        found: dict[str, list[float]] = {label: [] for label, _, _ in runs}
        for r in range(args.rounds):
            for label, argv, marker in runs[r % len(runs) :] + runs[: r % len(runs)]:
                cpu, fired = idle_cpu(argv, marker, box, args.seconds, args.settle, args.timers)
                found[label].append(cpu)
                if fired:
                    print(f"{label}: timers fired in {args.seconds:g} s:", fired)
    finally:
        box.close()
    print("\n".join(machine_lines()))
    print(f"CPU seconds per 30 s idle ({args.seconds:g} s measured, {args.rounds} rounds)")
    rows = [
        TableRow([label, f"{stat(v).median:.3f}", f"{min(v):.3f}–{max(v):.3f}"])
        for label, v in found.items()
    ]
    print_table(["variant", "median", "range"], rows)


if __name__ == "__main__":
    main()
