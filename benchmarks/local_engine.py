"""The embedded engine: ``larik`` to the first token with a model Larik runs itself, and the
first frame with such a model chosen (issue 29 item 4).

    .venv/bin/python benchmarks/local_engine.py --gguf PATH.gguf      # ~1-2 min with the 0.5B
    .venv/bin/python benchmarks/local_engine.py --gguf PATH --rounds 3 --frames 10

``PATH`` is the Qwen2.5-Coder 0.5B GGUF (``/work/shared/tools/local-llm.sh install --model
qwen-coder`` puts it in that script's folder; ``larik local pull qwen2.5-coder-0.5b`` in the
Hugging Face cache). It is pulled by path (a hard link) into a sandbox's Larik home, with no
key and no config, so plain ``larik`` uses it — the first run of a new user who pulled it.

1. **Engine start.** ``Engine.start`` in this process: spawn to ``/health`` = 200 (the model
   loaded), then stop — what every ``larik`` pays once before its first token.
2. **First token.** ``larik -p PROMPT --output-format stream-json`` in an empty project, a new
   process each round: spawn to the first streamed event of the reply (text, thinking or a
   tool call), and to the end of the turn. Engine start, prompt processing and the reply are all
   in it; nothing is left running after (checked).
3. **First frame.** ``larik`` on a pseudo-terminal with that model as its default, beside a
   bare Textual app (the reference of docs/performance.md) and ``larik`` with a hosted model's
   key (first_paint.py's sandbox): the engine starts after the first frame, so the ratio holds.
   Whether an engine process existed when the frame was drawn is recorded too.

Only loopback: the engine listens on 127.0.0.1. Short on purpose: other work needs the CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parents[1]))

from _common import machine_lines, stat  # noqa: E402
from first_paint import BARE_APP, PY, Sandbox, larik_binary, on_pty  # noqa: E402

MARK = "LARIK_BENCH_ENGINE"
PROMPT = "What does hello.py print? Answer in one short sentence."


def show(values: list[float]) -> str:
    s = stat(values)
    return f"median {s.median:.2f}s (min {s.low:.2f}, max {s.high:.2f}; {s.n} runs)"


def sandbox(gguf: Path) -> tuple[Path, Path, dict[str, str]]:
    root = Path(tempfile.mkdtemp(prefix="larik-engine-"))
    home, project = root / "home", root / "project"
    home.mkdir()
    project.mkdir()
    (project / "hello.py").write_text("print('hi')\n")
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    env.update(LARIK_HOME=str(home), TERM="xterm-256color", COLORTERM="truecolor")
    env[MARK] = str(root)
    env["CLAUDE_CONFIG_DIR"] = str(root / "claude")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(root / "pycache")
    pulled = subprocess.run(
        [larik_binary(), "local", "pull", str(gguf)], env=env, capture_output=True, text=True
    )
    if pulled.returncode:
        sys.exit(f"local_engine.py: pull failed: {pulled.stderr.strip()}")
    return home, project, env


def engines(mark: str) -> list[int]:
    """Engine processes started under this sandbox (by the mark in their environment)."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            env = (proc / "environ").read_bytes().split(b"\0")
            cmd = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        if f"{MARK}={mark}".encode() in env and b"larik.llm.local.child" in cmd:
            found.append(int(proc.name))
    return found


def engine_start(home: Path, rounds: int) -> list[float]:
    os.environ["LARIK_HOME"] = str(home)
    from larik.config import Config
    from larik.llm.local.engine import Engine, fit
    from larik.llm.local.store import Store

    store = Store(Config().local_dir)
    entry = store.default()
    assert entry is not None
    out = []
    for _ in range(rounds):
        e = Engine(fit(entry, store))
        t0 = time.perf_counter()
        e.start()
        out.append(time.perf_counter() - t0)
        e.stop()
    return out


def first_token(project: Path, env: dict[str, str]) -> tuple[float, float, str]:
    argv = [larik_binary(), "-p", PROMPT, "--output-format", "stream-json", "--max-turns", "3"]
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        argv, cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    first = end = 0.0
    text = ""
    assert proc.stdout is not None
    for line in proc.stdout:
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        if not first and ev.get("type") in ("text_delta", "thinking_delta", "tool_start"):
            first = time.perf_counter() - t0
        if ev.get("type") == "text_delta":
            text += ev.get("text", "")
        if ev.get("type") == "turn_end":
            end = time.perf_counter() - t0
    proc.wait(timeout=60)
    if not first:
        raise RuntimeError(f"no reply: {proc.stderr.read() if proc.stderr else ''}")
    return first, end, text.strip()


def frame_with_engine_check(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, bool]:
    """on_pty's figure, and whether an engine was running when the frame was seen."""
    t = on_pty(argv, b"commands", env, cwd, timeout=60)
    return t, bool(engines(env[MARK]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--gguf", type=Path, required=True, help="the Qwen2.5-Coder 0.5B GGUF")
    ap.add_argument("--rounds", type=int, default=3, help="first-token rounds (default 3)")
    ap.add_argument("--frames", type=int, default=8, help="first-frame rounds (default 8)")
    a = ap.parse_args()
    home, project, env = sandbox(a.gguf)
    for line in machine_lines():
        print(line)

    starts = engine_start(home, a.rounds)
    print(f"\nengine start (spawn to /health 200): {show(starts)}")

    firsts, ends = [], []
    for r in range(a.rounds):
        first, end, text = first_token(project, env)
        firsts.append(first)
        ends.append(end)
        left = engines(env[MARK])
        print(f"  round {r + 1}: first token {first:.2f}s, turn end {end:.2f}s; {text[:60]!r}")
        if left:
            sys.exit(f"local_engine.py: engine processes left running: {left}")
    print(f"larik -p to the first token (engine start included): {show(firsts)}")
    print(f"larik -p to the end of the turn: {show(ends)}")

    keyed = Sandbox()
    bare, local, hosted, running = [], [], [], 0
    larik = larik_binary()
    on_pty([PY, "-c", BARE_APP], b"marker", keyed.env, keyed.project)  # warm-up
    frame_with_engine_check([larik], env, project)
    on_pty([larik], b"commands", keyed.env, keyed.project)
    for _ in range(a.frames):
        bare.append(on_pty([PY, "-c", BARE_APP], b"marker", keyed.env, keyed.project))
        t, up = frame_with_engine_check([larik], env, project)
        local.append(t)
        running += up
        hosted.append(on_pty([larik], b"commands", keyed.env, keyed.project))
    keyed.close()
    ref = stat(bare).median
    print("\nfirst frame (median s, ratio to the bare Textual app):")
    print(f"  bare Textual app                      {ref:.3f}  1.00x")
    for label, times in (
        ("larik, embedded model (no key)", local),
        ("larik, hosted model", hosted),
    ):
        m = stat(times).median
        print(f"  {label:<37} {m:.3f}  {m / ref:.2f}x")
    print(f"  engine running when larik's first frame was drawn: {running} of {a.frames} rounds")
    time.sleep(0.5)
    if engines(env[MARK]):
        sys.exit("local_engine.py: an engine outlived its larik")


if __name__ == "__main__":
    main()
