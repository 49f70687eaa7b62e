"""Start-up time of the ``larik`` command against Python itself and against importing Typer.

    .venv/bin/python benchmarks/startup.py               # 30 rounds
    .venv/bin/python benchmarks/startup.py --rounds 60

Each round runs every command once, as a new process, in an order that rotates from round to
round; the figure is the wall time from spawn to exit (stdout to /dev/null). Ratios are taken
against each group's reference within the same run:

* ``larik --version`` against ``python -c pass`` (target ≤ 1.5×). For comparison, the same
  command through ``larik.cli`` (which imports Typer first), as the console script did before
  ``larik._entry``.
* ``larik --help`` against ``python -c "import typer"`` (target ≤ 1.3×).

Then, with ``-X importtime``, what ``larik --help`` imports beyond ``import typer``.
The TUI's first painted frame is measured by benchmarks/first_paint.py.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import TableRow, machine_lines, print_table, stat

PY = sys.executable
OLD_VERSION = "import sys; sys.argv = ['larik', '--version']; from larik.cli import main; main()"


@dataclass
class Command:
    label: str
    argv: list[str]
    group: str
    reference: bool = False
    target: float | None = None
    informational: bool = False


def larik_binary() -> str:
    beside = Path(PY).parent / "larik"
    if beside.exists():
        return str(beside)
    found = shutil.which("larik")
    if not found:
        sys.exit("startup.py: no `larik` command found; run `.venv/bin/pip install -e .` first")
    return found


def commands(larik: str) -> list[Command]:
    return [
        Command("python -c pass", [PY, "-c", "pass"], "version", reference=True),
        Command("larik --version", [larik, "--version"], "version", target=1.5),
        Command(
            "larik.cli --version (pre-_entry path)",
            [PY, "-c", OLD_VERSION],
            "version",
            informational=True,
        ),
        Command('python -c "import typer"', [PY, "-c", "import typer"], "help", reference=True),
        Command("larik --help", [larik, "--help"], "help", target=1.3),
    ]


#: Every command runs from bytecode, as an installed larik does (pip compiles it): the warm-up
#: round writes the .pyc files, whatever PYTHONDONTWRITEBYTECODE says here (without them each
#: run compiled larik's sources: 8 ms of `larik --help`'s 83).
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run_once(argv: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=_ENV)
    return time.perf_counter() - t0


def bench(cmds: list[Command], rounds: int) -> dict[str, list[float]]:
    for c in cmds:  # warm the page cache and .pyc files
        run_once(c.argv)
    times: dict[str, list[float]] = {c.label: [] for c in cmds}
    for r in range(rounds):
        shift = r % len(cmds)
        for c in cmds[shift:] + cmds[:shift]:
            times[c.label].append(run_once(c.argv))
    return times


_IMPORT_LINE = re.compile(r"^import time:\s+(\d+)\s+\|\s+(\d+)\s+\|(\s*)(\S+)")


def imported(argv: list[str]) -> dict[str, int]:
    """Module -> self import time (µs) from ``-X importtime`` (via PYTHONPROFILEIMPORTTIME)."""
    env = {**_ENV, "PYTHONPROFILEIMPORTTIME": "1"}
    out = subprocess.run(argv, capture_output=True, text=True, env=env, check=True)
    found: dict[str, int] = {}
    for line in out.stderr.splitlines():
        m = _IMPORT_LINE.match(line)
        if m:
            found[m.group(4)] = int(m.group(1))
    return found


def help_import_diff(larik: str, top: int = 8) -> list[str]:
    base = imported([PY, "-c", "import typer"])
    mine = imported([larik, "--help"])
    extra = {m: t for m, t in mine.items() if m not in base}
    total = sum(extra.values()) / 1000
    ranked = sorted(extra.items(), key=lambda kv: -kv[1])[:top]
    lines = [
        f"`larik --help` imports {len(extra)} modules beyond `import typer`, "
        f"{total:.1f} ms of self import time (-X importtime, inflated by the profiling):"
    ]
    lines += [f"  {t / 1000:6.1f} ms  {m}" for m, t in ranked]
    sdk = sorted(
        m
        for m in mine
        if m.split(".")[0] in ("anthropic", "openai", "textual", "pydantic", "httpx2", "rich")
        or m.startswith("google.genai")
    )
    lines.append("heavy packages imported by `larik --help`: " + (", ".join(sdk) or "none"))
    return lines


def report(cmds: list[Command], times: dict[str, list[float]], rounds: int, larik: str) -> None:
    rows: list[TableRow] = []
    verdicts: list[str] = []
    refs = {c.group: stat(times[c.label]).median for c in cmds if c.reference}
    last_group = ""
    for c in cmds:
        s = stat(times[c.label])
        ratio = s.median / refs[c.group]
        target = f"≤ {c.target}×" if c.target else ("ref" if c.reference else "info")
        rows.append(
            TableRow(
                [
                    c.label,
                    f"{s.median * 1e3:.1f}",
                    f"{s.low * 1e3:.1f}–{s.high * 1e3:.1f}",
                    f"{ratio:.2f}×",
                    target,
                ],
                rule_before=bool(last_group) and c.group != last_group,
            )
        )
        last_group = c.group
        if c.target:
            ok = "meets" if ratio <= c.target else "MISSES"
            verdicts.append(
                f"{c.label}: {ratio:.2f}× its reference -> {ok} the ≤ {c.target}× target"
            )
    print(f"startup: wall time per process, {rounds} rounds, commands alternating")
    for line in machine_lines(("larik", "typer")):
        print(line)
    print(f"larik:   {larik}")
    print()
    print_table(["command", "median ms", "min–max ms", "× ref", "target"], rows)
    print()
    for v in verdicts:
        print(v)
    print()
    for line in help_import_diff(larik):
        print(line)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=30, help="rounds (default 30)")
    args = p.parse_args()
    if args.rounds < 1:
        p.error("--rounds must be at least 1")
    larik = larik_binary()
    cmds = commands(larik)
    times = bench(cmds, args.rounds)
    report(cmds, times, args.rounds, larik)


if __name__ == "__main__":
    main()
