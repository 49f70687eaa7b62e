"""What a checkpoint costs: a snapshot of a generated project, by project size and by how many
files changed since the last snapshot.

    .venv/bin/python benchmarks/checkpoints.py                      # 1,000 / 5,000 / 20,000 files
    .venv/bin/python benchmarks/checkpoints.py --files 5000 --rounds 30
    .venv/bin/python benchmarks/checkpoints.py --profile            # time per git command

The target (issue 14): a checkpoint costs at most 50 ms on a 5,000-file project, and grows with
what changed, not with the project.

For each project size a tree is generated in a temporary folder: files of 40–120 lines spread
over folders two levels deep (about 14 files a folder, as in a real source tree), plus a
``.gitignore``. The shadow repository (``larik.agent.checkpoints.ShadowRepo``, the code the
agent uses) is set up with a first snapshot, timed on its own (it stores every file). Then each
round, for each variant in a rotating order, the named number of files is modified (appended
to, so the size changes too) and one snapshot is timed: the wall time of ``snapshot()``, which
is what a turn waits for before its first change, and the CPU time it took (this process and
the git commands together: less sensitive than wall time to a busy machine). ``undo 10`` times ``plan`` + ``apply`` of a
step that changed 10 files (what ``/undo`` does after its own snapshot).
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import TableRow, machine_lines, print_table, stat

from larik.agent.checkpoints import ShadowRepo, Step

CHANGES = (0, 1, 10, 100)


def generate(root: Path, n: int, seed: int = 1) -> list[Path]:
    rnd = random.Random(seed)
    files = []
    per_dir = 14
    for i in range(n):
        d = root / f"pkg{i // (per_dir * 10)}" / f"mod{(i // per_dir) % 10}"
        d.mkdir(parents=True, exist_ok=True)
        f = d / f"file_{i}.py"
        lines = rnd.randint(40, 120)
        f.write_text("".join(f"value_{i}_{k} = {k} * {rnd.random():.6f}\n" for k in range(lines)))
        files.append(f)
    (root / ".gitignore").write_text("build/\n*.log\n")
    return files


def touch(files: list[Path], k: int, rnd: random.Random) -> None:
    for f in rnd.sample(files, k):
        with f.open("a") as fh:
            fh.write(f"# changed {rnd.random()}\n")


def measure(n: int, rounds: int, profile: bool) -> list[TableRow]:
    rnd = random.Random(7)
    with tempfile.TemporaryDirectory(prefix="larik-ckpt-") as tmp:
        root, store = Path(tmp) / "project", Path(tmp) / "store"
        root.mkdir()
        files = generate(root, n)
        repo = ShadowRepo(root, store)
        t = time.perf_counter()
        repo.snapshot()
        first = time.perf_counter() - t
        repo.snapshot()  # settles the index's stat cache (racily clean entries)
        times: dict[str, list[float]] = {f"{k} changed": [] for k in CHANGES}
        times["undo 10"] = []
        names = list(times)
        cpu: dict[str, list[float]] = {name: [] for name in names}
        for r in range(rounds):
            order = names[r % len(names) :] + names[: r % len(names)]
            for name in order:
                if name == "undo 10":
                    before = repo.snapshot()
                    touch(files, 10, rnd)
                    after = repo.snapshot()
                    c = _cpu()
                    t = time.perf_counter()
                    repo.apply(repo.plan([Step(before.tree, after.tree)], after))
                    times[name].append(time.perf_counter() - t)
                    cpu[name].append(_cpu() - c)
                    continue
                touch(files, int(name.split()[0]), rnd)
                c = _cpu()
                t = time.perf_counter()
                repo.snapshot()
                times[name].append(time.perf_counter() - t)
                cpu[name].append(_cpu() - c)
        if profile:
            _profile(repo, files, rnd)
    first_row = [f"{n:,} files", "first snapshot", f"{first * 1000:.0f}", "", "", ""]
    rows = [TableRow(first_row, True)]
    for name in names:
        s, c = stat(times[name]), stat(cpu[name])
        cells = [f"{n:,} files", name, f"{s.median * 1000:.1f}", f"{s.low * 1000:.1f}"]
        rows.append(TableRow([*cells, f"{s.high * 1000:.1f}", f"{c.median * 1000:.1f}"]))
    return rows


def _cpu() -> float:
    """CPU seconds used so far by this process and the git commands it waited for."""
    me, kids = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _profile(repo: ShadowRepo, files: list[Path], rnd: random.Random) -> None:
    orig = repo._git

    def timed(*args: str, stdin: bytes | None = None) -> bytes:
        t = time.perf_counter()
        out = orig(*args, stdin=stdin)
        print(f"    git {args[0]:<13} {(time.perf_counter() - t) * 1000:6.1f} ms")
        return out

    repo._git = timed  # type: ignore[method-assign]
    for k in (0, 10):
        print(f"  snapshot after {k} changed:")
        touch(files, k, rnd)
        repo.snapshot()
    repo._git = orig  # type: ignore[method-assign]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", type=int, nargs="*", default=[1000, 5000, 20000])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    rows = []
    for n in args.files:
        rows += measure(n, args.rounds, args.profile)
    print_table(["project", "snapshot", "median ms", "min", "max", "cpu ms"], rows)
    print()
    print("\n".join(machine_lines()))


if __name__ == "__main__":
    main()
