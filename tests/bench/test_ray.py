"""larik bench --ray on a real local Ray cluster (2 CPUs, one for the whole module).

Without Ray these skip — except in CI (``LARIK_CI=1``), where they fail: scripts/ci-extra.sh
installs the ``ray`` extra. The cluster's workers are started with a private LARIK_HOME and no
provider keys, as every test here runs. They take about a minute (the cluster's start is a
third of it); ``pytest -m "not ray"`` leaves them out of a quick local run.
"""

import asyncio
import contextlib
import json
import os
import pickle
import re
import secrets
import socket
import stat
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from larik import sandbox as sb
from larik.bench.ray_run import (
    PackedTask,
    RayBench,
    _run_remote,
    connect,
    pack_task,
    ray_missing,
    unpack_task,
    worker_env,
)
from larik.bench.suite import load_suite, suite_folder
from larik.cli import app
from larik.config import Config, ProviderConfig
from larik.llm.errors import ConfigError
from tests.bench.hostile import ANTHROPIC, GITHUB, KEY, planted
from tests.conftest import _KEY_VARS
from tests.loopback import LoopbackServer, Reply
from tests.patience import WAIT

SUITE = Path(__file__).resolve().parents[2] / "suites" / "aider-polyglot-python"
SOLVED = ["affine-cipher", "wordy"]  # the script writes these references
UNSOLVED = "beer-song"  # ... not this one: a first try, a retry, a failure
FAKE_KEY = "sk-fake-0123456789abcdef-never-print-me"


@pytest.fixture(scope="module")
def ray_home(tmp_path_factory) -> Path:
    """The cluster's $HOME, holding a Ray token that others may read (0644: as Ray writes it)."""
    home = tmp_path_factory.mktemp("ray-home")
    (home / ".ray").mkdir()
    (home / ".ray" / "auth_token").write_text(secrets.token_hex(32))
    (home / ".ray" / "auth_token").chmod(0o644)
    return home


@pytest.fixture(scope="module")
def ray_cluster(tmp_path_factory, ray_home):
    """A local cluster as ``larik bench --ray`` starts one (``connect``), for the whole module."""
    try:
        import ray  # noqa: F401
    except ImportError:
        if os.environ.get("LARIK_CI"):
            pytest.fail("Ray is not installed; CI must run these (scripts/ci-extra.sh)")
        pytest.skip("Ray is not installed: pip install 'larik[ray]'")
    home = tmp_path_factory.mktemp("ray-worker-home")
    with contextlib.ExitStack() as stack:
        with pytest.MonkeyPatch.context() as env:  # what the cluster's workers inherit
            for var in _KEY_VARS:
                env.delenv(var, raising=False)
            env.delenv("RAY_ADDRESS", raising=False)
            env.setenv("HOME", str(ray_home))
            env.setenv("LARIK_HOME", str(home))
            env.setenv("XDG_STATE_HOME", str(home / "xdg-state"))
            env.setenv("XDG_CONFIG_HOME", str(home / "xdg-config"))
            cluster = stack.enter_context(connect(None, num_cpus=2))
        yield cluster


def _references_script(path: Path, names: list[str]) -> Path:
    """One reply that reads and writes the reference solution of each of ``names`` (each
    exercise has its own file, so the one script solves exactly those in every run)."""
    tasks = {t.name: t for t in load_suite(suite_folder(str(SUITE)))}
    reads, writes = [], []
    for name in names:
        for f in sorted(p for p in tasks[name].solution.rglob("*") if p.is_file()):
            rel = str(f.relative_to(tasks[name].solution))
            reads.append({"name": "read_file", "input": {"path": rel}})
            writes.append({"name": "write_file", "input": {"path": rel, "content": f.read_text()}})
    turns = [{"text": "Applying.", "tool_calls": reads + writes}, {"text": "Done."}]
    path.write_text(json.dumps({"turns": [*turns, {"text": "Still done."}]}))
    return path


def _comparable(runs: list[dict]) -> list[dict]:
    drop = {"wall", "agent_seconds", "check_seconds", "finished", "bench_id"}
    rows = [{k: v for k, v in r.items() if k not in drop} for r in runs]
    for row in rows:  # pytest's summary says how long it took
        row["detail"] = re.sub(r" in [\d.]+s\b", " in Ns", row["detail"])
    return sorted(rows, key=lambda r: (r["model"], r["task"], r["repeat"]))


@pytest.mark.ray
def test_a_suite_run_on_ray_gives_the_same_results_as_a_local_run(ray_cluster, tmp_path):
    script = _references_script(tmp_path / "solve.json", SOLVED)
    argv = ["bench", "--suite", str(SUITE), "-m", f"scripted/{script}"]
    for name in [*SOLVED, UNSOLVED]:
        argv += ["--task", name]
    here, there = tmp_path / "local.json", tmp_path / "ray.json"
    r = CliRunner().invoke(app, [*argv, "--jobs", "2", "--json", str(here)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(app, [*argv, "--ray", "--json", str(there)])
    assert r.exit_code == 0, r.output
    assert "on Ray, 2 at once" in r.output  # the cluster's CPUs, one a run
    local, remote = json.loads(here.read_text()), json.loads(there.read_text())
    assert _comparable(remote) == _comparable(local)
    by_task = {x["task"]: x for x in remote}
    assert by_task["wordy"]["passed"] and by_task["wordy"]["first_try"]
    assert not by_task[UNSOLVED]["passed"] and by_task[UNSOLVED]["tries"] == 2
    # streamed into the same history, with the transcripts back in the runs folder
    home = Path(os.environ["LARIK_HOME"]) / "bench"
    history = [json.loads(x) for x in (home / "results.jsonl").read_text().splitlines()]
    assert len({x["bench_id"] for x in history}) == 2 and len(history) == 6
    ray_id = remote[0]["bench_id"]
    assert len(list((home / "runs" / ray_id).glob("*.jsonl"))) == 3


@pytest.mark.ray
def test_a_key_travels_to_the_worker_and_is_masked_everywhere(ray_cluster, tmp_path, monkeypatch):
    """A provider that echoes the key back in its error: the key reached the worker (it was
    sent), and it is in no output, result, history or transcript."""
    server = LoopbackServer().start()
    try:
        echo = json.dumps(
            {"error": {"message": f"bad key {FAKE_KEY}", "type": "invalid_request_error"}}
        )
        server.add(*[Reply(status=400, body=echo, content_type="application/json")] * 8)
        monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
        out = tmp_path / "out.json"
        argv = ["bench", "--suite", str(SUITE), "-t", "wordy", "-m", "openai/gpt-4.1-mini"]
        r = CliRunner().invoke(app, [*argv, "--ray", "--json", str(out)])
        assert r.exit_code == 0, r.output
        seen = [
            q.headers.get("Authorization", q.headers.get("authorization", ""))
            for q in server.requests
        ]
    finally:
        server.stop()
    assert seen and all(FAKE_KEY in h for h in seen)  # it did travel, as a variable
    (run,) = json.loads(out.read_text())
    assert run["reason"] == "provider error" and "***" in run["detail"]
    home = Path(os.environ["LARIK_HOME"]) / "bench"
    texts = [r.output, out.read_text(), (home / "results.jsonl").read_text()]
    texts += [p.read_text() for p in (home / "runs").rglob("*.jsonl")]
    assert len(texts) >= 4 and not [t for t in texts if FAKE_KEY in t]


@pytest.mark.ray
async def test_a_providers_limit_holds_across_benches_on_one_cluster(ray_cluster, tmp_path):
    """Two benches on one cluster share a provider's named limit actor: with a limit of 1,
    the second waits until the first lets go."""
    a, b = (
        RayBench(ray_cluster, Config(), [], bench_id=x, transcripts=tmp_path, per_provider=1)
        for x in "ab"
    )
    async with a.limit("groq"):
        waiting = asyncio.ensure_future(b.limit("groq").__aenter__())
        await asyncio.sleep(1.0)
        assert not waiting.done()
    await asyncio.wait_for(waiting, WAIT)
    async with a.limit("openai"):  # another provider's share is its own
        pass
    ray_cluster.kill(a._actors["groq"])  # as when the bench that made it ends first
    async with b.limit("groq"):  # made again, not an error
        pass


@pytest.mark.ray
def test_a_local_cluster_larik_starts_keeps_rays_files_from_other_users(ray_cluster, ray_home):
    """Ray makes ``/tmp/ray`` (sockets, logs, spilled objects) 0777 and writes its token 0644:
    the cluster Larik starts keeps its folder in a 0700 one, and its token 0600."""
    folder = Path(ray_cluster.get_runtime_context().get_temp_dir())
    assert folder.parent.name.startswith("larik-ray-")
    assert stat.S_IMODE(folder.parent.stat().st_mode) == 0o700
    assert folder.parent.stat().st_uid == os.getuid()
    token = ray_home / ".ray" / "auth_token"
    assert stat.S_IMODE(token.stat().st_mode) == 0o600


@pytest.mark.ray
def test_a_hostile_check_on_a_ray_worker_gets_no_secret_and_leaves_nothing(
    ray_cluster, ray_home, tmp_path, monkeypatch
):
    """The worker's side of a run (``_run_remote``, as RayBench sends it) of a suite exercise
    whose test steals, with keys and a fake $HOME in the run's runtime environment: the second
    try shows the check's output to the model, so the transcripts say what it could see."""
    why = sb.probe()
    if why:
        if os.environ.get("LARIK_CI"):
            pytest.fail(f"CI must test the sandbox, but {why}")
        pytest.skip(f"no OS sandbox here: {why}")
    token = (ray_home / ".ray" / "auth_token").read_text()
    with planted(monkeypatch, tmp_path) as a:
        (a.home / ".ray" / "auth_token").write_text(token)  # the worker's own Ray needs it
        (task,) = load_suite(a.suite, cache=tmp_path / "cache")
        script = json.dumps({"turns": [{"text": "Done."}] * 3}).encode()
        env = {"HOME": str(a.home), "ANTHROPIC_API_KEY": ANTHROPIC, "GITHUB_TOKEN": GITHUB}
        remote = ray_cluster.remote(num_cpus=1, max_retries=0)(_run_remote)
        args = (pack_task(task), "scripted/done.json", 1, "b", Config(), (".json", script))
        out = ray_cluster.get(remote.options(runtime_env={"env_vars": env}).remote(*args))
        run = out["result"]
        assert run["reason"] == "check failed" and run["tries"] == 2, run
        sent = "".join(t.decode() for t in out["transcripts"].values())
        assert "SEEN" in sent and "PATH" in sent  # what the check printed reached the model ...
        assert [s for s in (ANTHROPIC, GITHUB, KEY, token) if s in sent] == []  # ... no secret
        assert not a.loot.exists() and not a.connected() and not (a.home / "PWNED").exists()
        assert a.left_running() == []
        assert out["unsandboxed"] == ""


@pytest.mark.ray
def test_a_worker_whose_checks_ran_unsandboxed_is_said_once(ray_cluster, tmp_path, capsys):
    bench = RayBench(ray_cluster, Config(), [], bench_id="x", transcripts=tmp_path)
    line = "no OS sandbox: bubblewrap (bwrap) is not installed; bench checks run unsandboxed"
    for said in (line, "", line, line):  # what three workers' runs brought back
        bench._say_unsandboxed(said)
    err = capsys.readouterr().err
    assert err == f"larik bench: on a Ray worker: {line}\n"


def test_without_ray_the_flag_says_how_to_install_it(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "ray", None)  # as if not installed
    script = _references_script(tmp_path / "s.json", SOLVED)
    argv = ["bench", "--suite", str(SUITE), "-t", "wordy", "-m", f"scripted/{script}", "--ray"]
    r = CliRunner().invoke(app, argv)
    assert r.exit_code == 2
    assert r.output.strip() == f"larik bench: {ray_missing()}"
    assert "[ray]" in r.output  # the command for this installation (tests/llm/test_install.py)


def test_a_cluster_address_nothing_answers_at_is_one_line(tmp_path):
    pytest.importorskip("ray")
    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    script = tmp_path / "idle.json"
    script.write_text(json.dumps({"turns": [{"text": "Done."}]}))
    argv = ["bench", "-t", "implement-stub", "-m", f"scripted/{script}"]
    r = CliRunner().invoke(app, [*argv, "--ray-address", f"127.0.0.1:{port}"])
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert r.output.strip().startswith(
        f"larik bench: --ray: cannot reach a Ray cluster at 127.0.0.1:{port}"
    )


def test_a_config_key_travels_as_a_variable_not_inside_the_config():
    secret = "sk-in-the-config-file-0123456789"
    config = Config(
        providers={
            "box": ProviderConfig(type="openai", base_url="https://box.example/v1", api_key=secret)
        }
    )
    env, sent = worker_env(["box/some-model"], config)
    assert env == {"LARIK_RAY_KEY_BOX": secret}
    assert sent.providers["box"].api_key_env == "LARIK_RAY_KEY_BOX"
    assert secret.encode() not in pickle.dumps(sent)
    assert config.providers["box"].api_key == secret  # the user's config is left alone


@pytest.mark.parametrize(
    "rel", ["../escape.py", "repo/../../escape.py", "elsewhere/x.py", "/abs.py"]
)
def test_a_packed_task_cannot_write_outside_its_folder(tmp_path, rel):
    packed = PackedTask({"name": "t", "summary": "s", "prompt": "p"}, {rel: b"x"})
    with pytest.raises(ConfigError, match="outside the task folder"):
        unpack_task(packed, tmp_path / "task")
    assert not (tmp_path / "escape.py").exists()
