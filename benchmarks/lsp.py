"""What language-server diagnostics add to an edit: the wall time of ``after_write`` (what
edit_file and write_file wait for after writing), with a warm server, and the first edit's
cost (the server's start).

    .venv/bin/python benchmarks/lsp.py                  # each Python server found, 40 edits
    .venv/bin/python benchmarks/lsp.py --server pylsp --edits 60

The target (issue 28): at most 300 ms median beyond the edit with a warm server, reported with
p90. Each edit changes one line of a 200-line Python file, alternately introducing an undefined
name and fixing it, so half the edits report a diagnostic and half report nothing — the
session waits for the server's publish (or pull's answer) either way. The file's functions
are annotated, so a type checker's "standard" checks find nothing until the edit. Servers run
unsandboxed here (the bwrap wrap adds a few ms once, at start: benchmarks/sandbox.py). A server
not found (on PATH or beside this Python) is said and skipped, never timed as 0 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import machine_lines

from larik.config.schema import LspConfig
from larik.lsp.servers import KNOWN, find
from larik.lsp.session import LspSession


def _p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10)[-1] if len(values) >= 2 else values[0]


async def run(server: str, edits: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        spec = next(s for s in KNOWN if s.name == server)
        if find(spec, root) is None:
            print(f"server: {server} · not found (on PATH: {spec.command[0]}); skipped")
            return
        others = [s.name for s in KNOWN if s.name != server]
        cfg = SimpleNamespace(
            lsp=LspConfig(enabled=True, disabled=others, wait_ms=5000, start_ms=20_000),
            project_trust=None,
            trusted_projects=[],
        )
        session = LspSession(cfg, root)
        path = root / "m.py"
        body = "".join(f"def f{i}(x: int) -> int:\n    return x + {i}\n" for i in range(100))
        good, bad = body + "y = f1(2)\n", body + "y = f1(undefined_name)\n"
        path.write_text(good)
        t = time.perf_counter()
        first = await session.after_write(path, "", good, "m.py")
        start = time.perf_counter() - t
        times, reported = [], 0
        old = good
        for i in range(edits):
            new = bad if i % 2 == 0 else good
            path.write_text(new)
            session.new_step()  # each edit a step of its own: its error is said again
            t = time.perf_counter()
            out = await session.after_write(path, old, new, "m.py")
            times.append(time.perf_counter() - t)
            reported += bool(out)
            old = new
        await session.close()
    print(f"server: {server} · {edits} edits · {reported} reported · first edit said: {first!r}")
    print(f"first edit (server start + initialize + first diagnostics): {start * 1000:.0f} ms")
    print(
        f"warm edit: median {statistics.median(times) * 1000:.1f} ms · "
        f"p90 {_p90(times) * 1000:.1f} ms · max {max(times) * 1000:.1f} ms"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    python = [s.name for s in KNOWN if "python" in s.languages]
    ap.add_argument("--server", action="append", choices=python, help="again for more")
    ap.add_argument("--edits", type=int, default=40)
    args = ap.parse_args()
    bin_ = str(Path(sys.executable).parent)  # the servers pip put beside this Python
    os.environ["PATH"] = bin_ + os.pathsep + os.environ.get("PATH", "")
    for line in machine_lines(["pygls", "ruff", "python-lsp-server", "basedpyright"]):
        print(line)
    for server in args.server or python:
        asyncio.run(run(server, args.edits))


if __name__ == "__main__":
    main()
