"""scripts/tui-smoke.sh: the real `larik` in a real terminal (tmux), run as part of the suite."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_the_real_larik_streams_switches_model_and_quits_in_a_terminal():
    larik = Path(sys.executable).with_name("larik")
    if not larik.exists():
        pytest.skip("the larik console script is not installed in this environment")
    env = {**os.environ, "LARIK": str(larik)}
    run = subprocess.run(
        ["bash", str(ROOT / "scripts" / "tui-smoke.sh")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "tui-smoke: ok" in run.stdout
