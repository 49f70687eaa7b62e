"""A bench check is someone else's code (issue 22 item 12): a task's or a suite's tests that try
to steal keys, write outside their folder, reach the network and leave processes behind — run
by ``--validate`` (no model, no key) and by a real bench run with a scripted model.

Real bwrap and real processes. Without bwrap the sandboxed cases skip — except in CI
(``LARIK_CI=1``), where they fail; the unsandboxed case runs everywhere."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from larik import sandbox as sb
from larik.bench import confine
from larik.cli import app
from tests.bench.hostile import ANTHROPIC, GITHUB, KEY, RAY_TOKEN, Attack, pids, planted
from tests.patience import WAIT, grown_until

UNSANDBOXED = "bench checks run unsandboxed"


@pytest.fixture
def attack(monkeypatch, tmp_path) -> Iterator[Attack]:
    with planted(monkeypatch, tmp_path) as a:
        yield a


def _validate(a: Attack) -> str:
    r = CliRunner().invoke(app, ["bench", "--validate"])
    assert r.exit_code == 0 and "1 of 1 task valid" in r.output, r.output  # both checks ran
    return r.output


def _validate_suite(a: Attack) -> str:
    r = CliRunner().invoke(app, ["bench", "--suite", str(a.suite), "--validate"])
    assert r.exit_code == 0 and "1 of 1 task valid" in r.output, r.output
    return r.output


def _bench_run(a: Attack) -> str:
    script = a.home.parent / "done.json"
    script.write_text(json.dumps({"turns": [{"text": "Done."}]}))
    out = a.home.parent / "out.json"
    r = CliRunner().invoke(app, ["bench", "-m", f"scripted/{script}", "--json", str(out)])
    assert r.exit_code == 0, r.output
    (run,) = json.loads(out.read_text())
    assert run["reason"] == "check failed" and "1 failed" in run["detail"]  # the check ran
    return r.output


def _suite_run(a: Attack) -> str:
    """Aider's protocol: the first try's test output goes to the model in the retry."""
    script = a.home.parent / "done.json"
    script.write_text(json.dumps({"turns": [{"text": "Done."}] * 3}))
    out = a.home.parent / "out.json"
    argv = ["bench", "--suite", str(a.suite), "-m", f"scripted/{script}", "--json", str(out)]
    r = CliRunner().invoke(app, argv)
    assert r.exit_code == 0, r.output
    (run,) = json.loads(out.read_text())
    assert run["reason"] == "check failed" and run["tries"] == 2
    runs = Path(os.environ["LARIK_HOME"]) / "bench" / "runs"
    sent = "".join(p.read_text() for p in runs.rglob("*.jsonl"))
    assert "SEEN" in sent and "PATH" in sent  # what the check printed reached the model ...
    assert [s for s in (ANTHROPIC, GITHUB, KEY, RAY_TOKEN) if s in sent] == []  # ... no secret
    return r.output


WAYS = {
    "validate": _validate,
    "validate a suite": _validate_suite,
    "a bench run": _bench_run,
    "a suite's bench run": _suite_run,
}


@pytest.mark.parametrize("way", list(WAYS))
def test_a_hostile_check_gets_no_secret_no_write_no_network_and_leaves_nothing(attack, way):
    why = sb.probe()
    if why:
        if os.environ.get("LARIK_CI"):
            pytest.fail(f"CI must test the sandbox, but {why}")
        pytest.skip(f"no OS sandbox here: {why}")
    output = WAYS[way](attack)
    assert not attack.loot.exists()  # nothing written outside its folder, nothing read
    assert not attack.connected()  # no network, not even the host's loopback
    assert not (attack.home / "PWNED").exists()
    assert attack.left_running() == []  # the setsid'd sleep is gone with the check
    assert UNSANDBOXED not in output


def test_without_a_sandbox_a_check_still_gets_no_credential_and_leaves_nothing(attack, monkeypatch):
    """bwrap missing: said once; the environment is still credential-free and every process
    the checks started is still ended. (What the sandbox adds — the hidden key, the read-only
    host, no network — is not there: docs/security.md.)"""
    monkeypatch.setattr(sb, "probe", lambda: "bubblewrap (bwrap) is not installed")
    output = _validate(attack)
    assert output.count(UNSANDBOXED) == 1 and "bwrap" in output
    seen = attack.loot.read_text()  # unsandboxed, the check could write it
    assert "HOME" in seen and ANTHROPIC not in seen and GITHUB not in seen
    assert attack.left_running() == []


def _poll(until, seconds: float = WAIT) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if until():
            return True
        time.sleep(0.02)
    return until()


@pytest.fixture
def mark() -> Iterator[str]:
    mark = f"1000.{random.randrange(10**9)}"
    yield mark
    for pid in pids(f"sleep\0{mark}\0"):
        os.kill(pid, 9)


def test_a_check_out_of_time_is_ended_with_everything_it_started(tmp_path, mark):
    """Ended by the reaper at the check's time limit (its exit code says so: not the kill
    ``GRACE`` seconds later, nor the check's own end, which never comes)."""
    began = tmp_path / "began"
    argv = [
        "sh",
        "-c",
        f"setsid sleep {mark} </dev/null >/dev/null 2>&1 & touch {began}; exec sleep {10 * WAIT:g}",
    ]

    def attempt(timeout: float) -> confine.Ran | None:
        ran = confine.run(argv, tmp_path, dict(os.environ), timeout=timeout)
        return ran if began.exists() else None  # out of time before it started its child

    ran = grown_until(attempt, 1.0)
    assert ran.timed_out and ran.code == confine.TIMED_OUT
    assert pids(f"sleep\0{mark}\0") == []


def test_when_larik_dies_mid_check_the_checks_processes_die_too(tmp_path, mark):
    """Larik killed (SIGKILL) while a check runs: the reaper is told (its parent died) and ends
    what the check started, setsid'd ones included."""
    root = Path(__file__).resolve().parents[2]
    code = (
        "import os, sys\nfrom pathlib import Path\nfrom larik.bench import confine\n"
        f"argv = ['sh', '-c', 'setsid sleep {mark} </dev/null >/dev/null 2>&1 & exec sleep 60']\n"
        f"confine.run(argv, Path({str(tmp_path)!r}), dict(os.environ), timeout=60)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(root)}
    larik = subprocess.Popen([sys.executable, "-c", code], env=env)
    try:
        assert _poll(lambda: pids(f"sleep\0{mark}\0") != []), "the check never started"
    finally:
        larik.kill()
        larik.wait()
    assert _poll(lambda: pids(f"sleep\0{mark}\0") == [])
