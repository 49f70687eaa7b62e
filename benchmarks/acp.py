"""``larik acp``: how soon ``initialize`` is answered, and the CPU a streamed reply costs per delta.

    .venv/bin/python benchmarks/acp.py                   # 20 rounds, 20,000 deltas, 3 rounds
    .venv/bin/python benchmarks/acp.py --rounds 40 --deltas 40000 --stream-rounds 5

1. **initialize**: a new ``larik acp`` process is sent ``initialize`` at once and timed until its
   answer arrives, against ``larik --help`` timed from spawn to exit; each round runs both, the
   order alternating. Target: ≤ 1.3× (medians). The answer goes out before the SDK's schema is
   imported (larik/acp/server.py); tests/acp/test_imports.py checks no vendor SDK is loaded
   by then.
2. **CPU per delta**: a reply of N text deltas from the scripted model (docs/scripted.md, 8
   characters a delta, ``delay`` 0: each delta still its own turn of the event loop) is
   streamed to the end, once through ``larik acp`` (a plain JSON-lines client in this process
   sends ``initialize``, ``session/new``, ``session/prompt`` and reads every update) and once
   through print mode (``larik -p … --output-format stream-json``, one JSON line a delta, and
   ``text``). Each is also run with a one-delta reply; the CPU of the Larik process
   (``wait4``: user + system) of the long run minus the short one's, divided by N − 1, is the
   cost per delta — start-up and the SDK import cancel out. Target: ACP ≤ 1.1× print mode.

No key, no network: the scripted model plays a file; LARIK_HOME is a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import TableRow, machine_lines, print_table, stat

PY = sys.executable
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}


def larik_binary() -> str:
    beside = Path(PY).parent / "larik"
    if beside.exists():
        return str(beside)
    found = shutil.which("larik")
    if not found:
        sys.exit("acp.py: no `larik` command found; run `.venv/bin/pip install -e .` first")
    return found


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(LARIK_HOME=str(home), XDG_STATE_HOME=str(home / "state"), NO_COLOR="1")
    return env


# -- 1. initialize ------------------------------------------------------------------------------


def time_help(larik: str, env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run([larik, "--help"], stdout=subprocess.DEVNULL, env=env, check=True)
    return time.perf_counter() - t0


def time_initialize(larik: str, env: dict[str, str], cwd: Path) -> float:
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [larik, "acp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, env=env, cwd=cwd,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(INIT).encode() + b"\n")
    proc.stdin.flush()
    line = proc.stdout.readline()
    took = time.perf_counter() - t0
    assert json.loads(line)["result"]["protocolVersion"] == 1, line
    proc.stdin.close()
    proc.wait(timeout=60)
    return took


# -- 2. CPU per delta -------------------------------------------------------------------------


def _script(path: Path, deltas: int) -> str:
    path.write_text(json.dumps({"turns": [{"text": "abcdefgh" * deltas}]}))
    return f"scripted/{path}"


def _cpu(proc: subprocess.Popen[bytes]) -> float:
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime


def cpu_acp(larik: str, env: dict[str, str], cwd: Path, model: str) -> tuple[float, int]:
    """CPU seconds of a ``larik acp`` process that streams one reply; the updates received."""
    proc = subprocess.Popen(
        [larik, "acp", "-m", model], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, env=env, cwd=cwd,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None

    def send(message: dict) -> None:
        proc.stdin.write(json.dumps(message).encode() + b"\n")  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]

    def answer(request_id: int) -> tuple[dict, int]:
        updates = 0
        while True:
            message = json.loads(proc.stdout.readline())  # type: ignore[union-attr]
            if message.get("id") == request_id and "method" not in message:
                return message, updates
            updates += message.get("method") == "session/update"

    send(INIT)
    answer(1)
    send(
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "session/new",
            "params": {"cwd": str(cwd), "mcpServers": []},
        }
    )
    sid = answer(2)[0]["result"]["sessionId"]
    prompt = [{"type": "text", "text": "go"}]
    send(
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "session/prompt",
            "params": {"sessionId": sid, "prompt": prompt},
        }
    )
    done, updates = answer(3)
    assert done["result"]["stopReason"] == "end_turn", done
    proc.stdin.close()
    return _cpu(proc), updates


def cpu_print(larik: str, env: dict[str, str], cwd: Path, model: str, fmt: str) -> float:
    proc = subprocess.Popen(
        [larik, "-p", "go", "-m", model, "--output-format", fmt],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env=env, cwd=cwd,
    )  # fmt: skip
    cpu = _cpu(proc)
    assert proc.returncode == 0, f"print mode exited {proc.returncode}"
    return cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=20, help="initialize rounds")
    ap.add_argument("--deltas", type=int, default=20_000)
    ap.add_argument("--stream-rounds", type=int, default=3)
    args = ap.parse_args()
    larik = larik_binary()
    with tempfile.TemporaryDirectory() as tmp:
        home, cwd = Path(tmp) / "home", Path(tmp) / "proj"
        cwd.mkdir()
        env = _env(home)
        time_help(larik, env), time_initialize(larik, env, cwd)  # warm the caches and .pyc
        helps, inits = [], []
        for r in range(args.rounds):
            pair = [lambda: helps.append(time_help(larik, env)),
                    lambda: inits.append(time_initialize(larik, env, cwd))]  # fmt: skip
            for run in pair if r % 2 == 0 else pair[::-1]:
                run()
        long, short = (
            _script(Path(tmp) / "long.json", args.deltas),
            _script(Path(tmp) / "one.json", 1),
        )
        runs: dict[str, list[float]] = {"acp": [], "stream-json": [], "text": []}
        updates = 0
        for r in range(args.stream_rounds):
            order = ["acp", "stream-json", "text"]
            for face in order[r % 3 :] + order[: r % 3]:
                if face == "acp":
                    (cpu_n, updates), (cpu_1, _) = (
                        cpu_acp(larik, env, cwd, long),
                        cpu_acp(larik, env, cwd, short),
                    )
                else:
                    cpu_n, cpu_1 = (
                        cpu_print(larik, env, cwd, long, face),
                        cpu_print(larik, env, cwd, short, face),
                    )
                runs[face].append((cpu_n - cpu_1) / (args.deltas - 1))
    report(args, helps, inits, runs, updates)


def report(args, helps, inits, runs, updates) -> None:  # type: ignore[no-untyped-def]
    print("\n".join(machine_lines(["agent-client-protocol", "pydantic"])))
    h, i = stat(helps), stat(inits)
    print(f"\n1. initialize answered, {args.rounds} rounds (median, min–max):")
    rows = [
        TableRow(["larik --help (spawn to exit)", f"{h.median * 1000:.0f} ms", f"{h.low * 1000:.0f}–{h.high * 1000:.0f}", ""]),
        TableRow(["larik acp: initialize answered", f"{i.median * 1000:.0f} ms", f"{i.low * 1000:.0f}–{i.high * 1000:.0f}", f"{i.median / h.median:.2f}×"]),
    ]  # fmt: skip
    print_table(["", "median", "range", "÷ --help"], rows)
    verdict = "met" if i.median / h.median <= 1.3 else "MISSED"
    print(f"target ≤ 1.3×: {verdict}")
    print(f"\n2. CPU per delta, {args.deltas:,} deltas, {args.stream_rounds} rounds (µs, median):")
    base = stat(runs["stream-json"]).median
    rows = []
    for face, label in (
        ("acp", "larik acp (session/update)"),
        ("stream-json", "print mode, stream-json"),
        ("text", "print mode, text"),
    ):
        s = stat(runs[face])
        rows.append(TableRow([label, f"{s.median * 1e6:.1f}", f"{s.low * 1e6:.1f}–{s.high * 1e6:.1f}", f"{s.median / base:.2f}×"]))  # fmt: skip
    print_table(["", "µs/delta", "range", "÷ stream-json"], rows)
    ratio = stat(runs["acp"]).median / base
    print(
        f"updates sent for {args.deltas:,} deltas: {updates:,} (deltas that arrive together go as one)"
    )
    print(
        f"target ACP ≤ 1.1× print mode (stream-json): {'met' if ratio <= 1.1 else 'MISSED'} ({ratio:.2f}×)"
    )


if __name__ == "__main__":
    main()
