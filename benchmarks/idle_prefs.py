"""Idle CPU of the TUI: the process's CPU time while the chat screen waits for a key, with a
default config and with the TUI made yours (a theme of your own, vim mode, a keybindings.toml)
— issue 26: none of it may cost anything while nothing happens.

    .venv/bin/python benchmarks/idle_prefs.py              # 3 rounds of 10 s each variant
    .venv/bin/python benchmarks/idle_prefs.py --seconds 20 --rounds 5

Each round runs each variant (alternating, the order rotating) headless (``App.run_test``) on
a scripted model: once the agent is ready and the screen has settled (2 s), the CPU time the
process spends over ``--seconds`` of doing nothing is the figure, as a percentage of one core.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import machine_lines

KEYS = 'send = "ctrl+s"\nnewline = ["enter", "shift+enter"]\n\n[commands]\n"f2" = "/theme"\n'
MINE = {
    "tui": {
        "theme": "mine",
        "vim": True,
        "themes": {"mine": {"base": "larik-light", "diff_added": "#112233", "code": "dracula"}},
    }
}


async def idle_cpu(config: dict[str, Any], keys: str, seconds: float) -> float:
    from larik.config import Config
    from larik.tui.app import LarikApp

    home = Path(tempfile.mkdtemp(prefix="larik-idle-"))
    os.environ["LARIK_HOME"] = str(home)
    if keys:
        (home / "keybindings.toml").write_text(keys)
    project = home / "project"
    project.mkdir()
    script = home / "model.json"
    script.write_text('{"turns": [{"text": "ok"}]}')
    app = LarikApp(cwd=project, config=Config.model_validate(config), model=f"scripted/{script}")
    async with app.run_test(size=(100, 30)) as pilot:
        while app.chat.agent is None:
            await pilot.pause(0.05)
        await asyncio.sleep(2.0)  # the start-up's own work (warm-up, first collection) over
        if config:  # what is measured is the TUI made yours
            assert app.theme == "mine" and app.chat.prompt.vim is not None
            assert app.prefs.keymap is not None and not app.prefs.keymap.problems
        cpu, wall = time.process_time(), time.monotonic()
        await asyncio.sleep(seconds)
        used = time.process_time() - cpu
        elapsed = time.monotonic() - wall
    return 100 * used / elapsed


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    variants = {"default config": ({}, ""), "theme + vim + keybindings.toml": (MINE, KEYS)}
    got: dict[str, list[float]] = {name: [] for name in variants}
    names = list(variants)
    for r in range(args.rounds):
        for name in names[r % 2 :] + names[: r % 2]:
            config, keys = variants[name]
            got[name].append(asyncio.run(idle_cpu(config, keys, args.seconds)))
    print("idle: CPU of the chat screen waiting for a key (% of one core)")
    print("\n".join(machine_lines(["textual"])))
    ref = statistics.median(got[names[0]])
    print(f"\n{'variant':<34} {'median %':>9} {'min–max %':>12} {'× ref':>6}")
    for name, values in got.items():
        med = statistics.median(values)
        ratio = med / ref if ref else float("nan")
        print(f"{name:<34} {med:>9.2f} {min(values):>5.2f}–{max(values):<6.2f} {ratio:>5.2f}×")


if __name__ == "__main__":
    main()
