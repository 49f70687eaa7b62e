"""What language-server diagnostics add to an edit: the wall time of ``after_write`` (what
edit_file and write_file wait for after writing), with a warm server, and the first edit's
cost (the server's start).

    .venv/bin/python benchmarks/lsp.py                  # each Python server found, 40 edits
    .venv/bin/python benchmarks/lsp.py --server pylsp --edits 60
    .venv/bin/python benchmarks/lsp.py --after-bash --files 2000   # what a command's check costs
    .venv/bin/python benchmarks/lsp.py --flood --edits 10  # a server publishing 60,000 a change

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

from larik.config.tables import LspConfig
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


async def after_bash(server: str, files: int, rounds: int) -> None:
    """What ``after_command`` adds to a shell command in a project of ``files`` Python files
    with checkpoints on (the snapshot that finds what the command changed): a command that
    changed nothing, one that wrote one broken file, and one that rewrote every file."""
    from larik.agent.checkpoints import ShadowRepo
    from larik.agent.rewind import Checkpointer

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "proj"
        for i in range(files):
            d = root / f"pkg{i // 100}"
            d.mkdir(parents=True, exist_ok=True)
            (d / f"m{i}.py").write_text(f"def f(x: int) -> int:\n    return x + {i}\n")
        others = [s.name for s in KNOWN if s.name != server]
        cfg = SimpleNamespace(
            lsp=LspConfig(enabled=True, disabled=others, wait_ms=5000, start_ms=20_000),
            project_trust=None,
            trusted_projects=[],
        )
        cp = Checkpointer(root, lambda _r: None, repo=ShadowRepo(root, Path(tmp) / "shadow"))
        cp.begin_turn("bench")
        await cp.before_change()
        session = LspSession(cfg, root, checkpoints=cp)
        (root / "warm.py").write_text("x = 1\n")
        await session.after_command()  # the server's start, out of the figures
        nothing, one = [], []
        for i in range(rounds):
            t = time.perf_counter()
            await session.after_command()
            nothing.append(time.perf_counter() - t)
            (root / f"new{i}.py").write_text("y = undefined_name\n")
            session.new_step()
            t = time.perf_counter()
            said = await session.after_command()
            one.append(time.perf_counter() - t)
            assert "undefined_name" in said, said
        for p in root.rglob("m*.py"):
            p.write_text(p.read_text() + "z = 1\n")
        t = time.perf_counter()
        said = await session.after_command()
        flood = time.perf_counter() - t
        await session.close()
    print(f"after a command · {server} · {files} files · {rounds} rounds")
    for name, xs in (("changed nothing", nothing), ("wrote one broken file", one)):
        print(
            f"{name}: median {statistics.median(xs) * 1000:.1f} ms · p90 {_p90(xs) * 1000:.1f} ms"
        )
    print(f"rewrote all {files}: {flood * 1000:.0f} ms · {said.splitlines()[-1]}")


async def flood(edits: int) -> None:
    """What a write costs when its server floods: ``tests/lsp/hostile_server.py flood`` answers
    each change with three publishes of 20,000 diagnostics; the report is cut to ``max_lines``
    (tests/lsp/test_lsp.py checks the cut; this times it — the test no longer does: a test
    never times anything). Each write is a new file: one wait, no baseline."""
    from larik.config.tables import LspServerConfig

    hostile = Path(__file__).resolve().parents[1] / "tests" / "lsp" / "hostile_server.py"
    server = LspServerConfig(command=[sys.executable, str(hostile), "flood"], languages=["python"])
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        cfg = SimpleNamespace(
            lsp=LspConfig(servers={"fake": server}, wait_ms=30_000, start_ms=60_000, max_lines=5),
            project_trust=SimpleNamespace(trusted=True),
            trusted_projects=[],
        )
        session = LspSession(cfg, root)
        t = time.perf_counter()
        await session.after_write(root / "a0.py", "", "x = 0\n", "a0.py")
        start = time.perf_counter() - t
        times = []
        for i in range(1, edits + 1):
            session.new_step()
            t = time.perf_counter()
            said = await session.after_write(root / f"a{i}.py", "", f"x = {i}\n", f"a{i}.py")
            times.append(time.perf_counter() - t)
        await session.close()
    print(f"a flooding server · {edits} writes · each report {len(said.splitlines())} lines")
    print(f"first edit (its start, and the first flood): {start * 1000:.0f} ms")
    print(
        f"edit: median {statistics.median(times) * 1000:.0f} ms · "
        f"p90 {_p90(times) * 1000:.0f} ms · max {max(times) * 1000:.0f} ms"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    python = [s.name for s in KNOWN if "python" in s.languages]
    ap.add_argument("--server", action="append", choices=python, help="again for more")
    ap.add_argument("--edits", type=int, default=40)
    ap.add_argument("--after-bash", action="store_true", help="time the check after a command")
    ap.add_argument("--files", type=int, default=2000, help="the project's files (--after-bash)")
    ap.add_argument("--flood", action="store_true", help="time edits a flooding server answers")
    args = ap.parse_args()
    bin_ = str(Path(sys.executable).parent)  # the servers pip put beside this Python
    os.environ["PATH"] = bin_ + os.pathsep + os.environ.get("PATH", "")
    for line in machine_lines(["pygls", "ruff", "python-lsp-server", "basedpyright"]):
        print(line)
    if args.after_bash:
        asyncio.run(after_bash((args.server or ["ruff"])[0], args.files, 20))
        return
    if args.flood:
        asyncio.run(flood(args.edits))
        return
    for server in args.server or python:
        asyncio.run(run(server, args.edits))


if __name__ == "__main__":
    main()
