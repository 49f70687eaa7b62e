"""What the OS sandbox adds to a short command: bubblewrap around ``true`` and ``echo``.

    .venv/bin/python benchmarks/sandbox.py                 # 100 rounds, about 10 s
    .venv/bin/python benchmarks/sandbox.py --rounds 300
    chrt -f 10 .venv/bin/python benchmarks/sandbox.py  # a busy machine (root): the sandbox's
                                                       # own cost, not the queue for a core

The target (issue 17): the sandbox adds at most 30 ms to a short command.

Each round runs every variant once, in a rotating order, and times its wall clock from spawn to
exit (``subprocess.run``, output to a pipe, stdin closed — as the bash tool starts commands):

- ``bare``: ``bash -c CMD`` in a temporary project folder;
- ``bwrap``: the same argv through ``Sandbox().wrap`` (``larik/sandbox/__init__.py``: the default
  ``workspace-write`` sandbox — the file system read-only, the project writable, a private
  ``/tmp``, ``$HOME``'s secrets hidden, the network cut);
- ``bwrap+net``: the same with ``network = true`` (no new network namespace), to show what
  ``--unshare-net`` costs on its own;
- ``bwrap, session's space``: the same with the session's :class:`~larik.sandbox.Space`,
  as a session runs its commands (one ``/tmp`` folder and one loopback for all its commands and
  jobs: ``nsenter`` into the namespace, then bwrap without ``--unshare-net``);
- ``tool``: the real bash tool (``larik.agent.tools.bash.run``) with and without the sandbox, so
  the figure holds for the path the model's commands take (its own overhead included in both).

The table gives the median, the 90th percentile and the min–max of each variant, and the added
milliseconds (median and p90 of the sandboxed variant minus the bare one).
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import TableRow, machine_lines, print_table

from larik import sandbox as sb

TARGET_MS = 30.0
COMMANDS = ("true", "echo hello")


def p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10)[-1] if len(values) >= 2 else values[0]


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (ru.ru_utime + ru.ru_stime) * 1000


def time_argv(argv: list[str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU milliseconds (the child's, bwrap and bash included) of one command."""
    cpu, t = _children_cpu(), time.perf_counter()
    subprocess.run(argv, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, check=True)
    return (time.perf_counter() - t) * 1000, _children_cpu() - cpu


def time_tool(command: str, root: Path, box: sb.Sandbox | None) -> tuple[float, float]:
    from larik.agent.tools import ToolContext, get_tool

    tool = get_tool("bash")
    assert tool is not None
    args = tool.args.model_validate({"command": command})
    ctx = ToolContext(root=root, sandbox=box)
    cpu, t = _children_cpu(), time.perf_counter()
    result = asyncio.run(tool.run(args, ctx))
    took = (time.perf_counter() - t) * 1000, _children_cpu() - cpu
    assert result.data.get("exit_code") == 0 and result.data["sandboxed"] == (box is not None)
    return took


Timer = Callable[[], tuple[float, float]]


def variants(root: Path) -> dict[tuple[str, str], Timer]:
    box, net = sb.Sandbox(), sb.Sandbox(network=True)
    shared = sb.Sandbox(space=sb.Space())
    out: dict[tuple[str, str], Timer] = {}
    for cmd in COMMANDS:
        argv = ["bash", "-c", cmd]
        out[("bare", cmd)] = lambda a=argv: time_argv(a, root)
        out[("bwrap", cmd)] = lambda a=argv: time_argv(box.wrap(a, root), root)
        out[("bwrap, network on", cmd)] = lambda a=argv: time_argv(net.wrap(a, root), root)
        out[("bwrap, session's space", cmd)] = lambda a=argv: time_argv(shared.wrap(a, root), root)
    out[("bash tool", "true")] = lambda: time_tool("true", root, None)
    out[("bash tool in bwrap", "true")] = lambda: time_tool("true", root, box)
    return out


BASE = {
    "bwrap": "bare",
    "bwrap, network on": "bare",
    "bwrap, session's space": "bare",
    "bash tool in bwrap": "bash tool",
}


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--rounds", type=int, default=100)
    opts = ap.parse_args()
    why = sb.probe()
    if why:
        print(f"sandbox: {why}; nothing to measure", file=sys.stderr)
        return 1
    root = Path(tempfile.mkdtemp(prefix="larik-sandbox-bench-")).resolve()
    timers = variants(root)
    names = list(timers)
    wall: dict[tuple[str, str], list[float]] = {n: [] for n in names}
    cpu: dict[tuple[str, str], list[float]] = {n: [] for n in names}
    for name in names:  # warm-up: the page cache, bwrap's first start
        timers[name]()
    for r in range(opts.rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            w, c = timers[name]()
            wall[name].append(w)
            cpu[name].append(c)
    shutil.rmtree(root, ignore_errors=True)

    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(f"sandbox: wall time per command, {opts.rounds} rounds, variants alternating  ({stamp})")
    print()
    rows = []
    for name in names:
        kind, cmd = name
        v = wall[name]
        added = ""
        if kind in BASE:
            b = wall[(BASE[kind], cmd)]
            dm, dp = statistics.median(v) - statistics.median(b), p90(v) - p90(b)
            dc = statistics.median(cpu[name]) - statistics.median(cpu[(BASE[kind], cmd)])
            verdict = "met" if dm <= TARGET_MS else "MISSED"
            added = f"{dm:+.1f} / {dp:+.1f} / {dc:+.1f}  {verdict}"
        cells = [
            f"{kind}: {cmd}",
            f"{statistics.median(v):.1f}",
            f"{p90(v):.1f}",
            f"{min(v):.1f}–{max(v):.1f}",
            f"{statistics.median(cpu[name]):.1f}",
            added,
        ]
        rows.append(TableRow(cells, rule_before=kind in ("bare", "bash tool") and bool(rows)))
    head = ["command", "median ms", "p90 ms", "min–max ms", "CPU ms"]
    print_table([*head, f"added: median / p90 / CPU (target ≤ {TARGET_MS:g})"], rows)
    print()
    for line in machine_lines():
        print(line)
    print(f"bwrap:   {shutil.which('bwrap')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
