"""``larik local`` as a user runs it: real processes, a fake Hub on loopback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from larik.config import Config
from larik.llm.errors import LocalModelError
from larik.llm.local import engine
from larik.llm.local.store import Store
from tests.patience import WAIT

from .conftest import need_engine
from .fakehub import FakeHub, File

ROOT = Path(__file__).resolve().parents[3]


def larik(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "larik.cli", "local", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
    )


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    h = FakeHub().start()
    yield h
    h.stop()


def test_pull_a_file_list_it_and_rm_it(tmp_path: Path):
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF" + (3).to_bytes(4, "little") + bytes(16) + b"weights")
    out = larik("pull", str(gguf))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "local/tiny ready (1 MB): larik -m local/tiny"
    listed = json.loads(larik("list", "--json").stdout)
    assert {"name": "tiny", "pulled": True}.items() <= listed[-1].items()
    assert sum(r.get("recommended", False) for r in listed) == 1
    assert larik("rm", "tiny").returncode == 0 and gguf.exists()
    gone = larik("rm", "tiny")
    assert gone.returncode == 1 and gone.stderr.count("\n") == 1 and "no local model" in gone.stderr


def test_a_hub_pull_lands_in_hf_home_and_a_404_is_one_line(hub: FakeHub, tmp_path: Path):
    hub.files["someone/tiny-GGUF/tiny-q4.gguf"] = File(b"GGUF" + bytes(5000))
    env = {"HF_ENDPOINT": hub.url, "HF_HOME": str(tmp_path / "hf-home")}
    out = larik("pull", "someone/tiny-GGUF/tiny-q4.gguf", env=env)
    assert out.returncode == 0, out.stderr
    entry = Store(Config().local_dir).get("tiny-q4")
    assert entry is not None and entry.path.startswith(str(tmp_path / "hf-home"))
    missing = larik("pull", "someone/tiny-GGUF/other.gguf", env=env)
    assert missing.returncode == 1 and "HTTP 404" in missing.stderr
    assert missing.stderr.strip().count("\n") == 1  # the "pulling …" line, then the error
    assert "Traceback" not in missing.stderr


def test_nothing_is_downloaded_from_a_plain_http_hub(tmp_path: Path):
    out = larik("pull", "qwen2.5-coder-0.5b", env={"HF_ENDPOINT": "http://hub.example.com"})
    assert out.returncode == 1 and "HF_ENDPOINT" in out.stderr and "https" in out.stderr


@pytest.mark.integration
def test_serve_runs_in_the_foreground_and_larik_uses_it_instead_of_starting_one(tmp_path: Path):
    gguf = need_engine()
    assert larik("pull", str(gguf)).returncode == 0
    store = Store(Config().local_dir)
    entry = store.default()
    assert entry is not None
    proc = subprocess.Popen(
        [sys.executable, "-m", "larik.cli", "local", "serve"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith(f"{entry.spec} on http://127.0.0.1:"), proc.stderr.read()
        url = line.split(" on ", 1)[1].split("/v1", 1)[0]
        key = proc.stdout.readline().rsplit(" ", 1)[1].strip()
        assert engine.running(store, entry) == (url, key)  # larik's local/NAME goes there
        assert oct(engine.run_file(store, entry.name).stat().st_mode & 0o777) == "0o600"
        import httpx2

        assert httpx2.get(f"{url}/v1/models", timeout=WAIT).status_code == 401  # no key: no model
        ok = httpx2.get(
            f"{url}/v1/models", headers={"Authorization": f"Bearer {key}"}, timeout=WAIT
        )
        assert ok.status_code == 200
        run = json.loads(engine.run_file(store, entry.name).read_text())
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=WAIT) == 0
        assert not engine.run_file(store, entry.name).exists()
        assert engine.running(store, entry) == ("", "")
        with pytest.raises(ProcessLookupError):
            os.kill(run["pid"], 0)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_broken_index_is_one_line_naming_it():
    index = Config().local_dir / "models.json"
    index.parent.mkdir(parents=True, exist_ok=True)
    index.write_text("{not json")
    out = larik("list")
    assert out.returncode == 1 and str(index) in out.stderr and out.stderr.count("\n") == 1
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize("text", ['{"models": 5}', '{"models": "ab"}', "[1, 2]", "[" * 100_000])
def test_an_index_of_the_wrong_shape_lists_nothing_and_raises_nothing(text: str):
    index = Config().local_dir / "models.json"
    index.parent.mkdir(parents=True, exist_ok=True)
    index.write_text(text)
    try:
        assert Store(Config().local_dir).entries() == []
    except LocalModelError as e:  # too deep to parse: one line naming the file
        assert str(index) in str(e)


def test_entries_of_the_wrong_shape_in_the_index_are_left_out(tmp_path: Path):
    index = Config().local_dir / "models.json"
    index.parent.mkdir(parents=True, exist_ok=True)
    real = tmp_path / "ok.gguf"
    real.write_bytes(b"GGUF")
    rows = [{"name": 3, "path": []}, {"name": "x"}, {"name": "ok", "path": str(real)}, "junk"]
    index.write_text(json.dumps({"models": rows}))
    assert [e.name for e in Store(Config().local_dir).entries()] == ["ok"]
