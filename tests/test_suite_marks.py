"""The suite's own tables (tests/conftest.py): every module named as slow or as needing one
worker exists, so a renamed file cannot quietly fall out of them."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import ONE_WORKER, SLOW

ROOT = Path(__file__).resolve().parents[1]


def test_every_module_named_slow_or_one_worker_exists():
    assert [m for m in sorted(SLOW | set(ONE_WORKER)) if not (ROOT / m).is_file()] == []


def test_a_module_kept_on_one_worker_is_slow_too():
    assert set(ONE_WORKER) <= SLOW


def test_the_tests_of_a_one_worker_group_run_on_one_worker(tmp_path):
    """``keep_on_one_worker`` under ``-n 2 --dist loadgroup``: every test of the group on the
    same worker (with pytest 9.2 and xdist 3.8 the group was lost and they spread)."""
    import os
    import subprocess
    import sys

    record = "import os\n\n" + "".join(
        f"def test_{i}():\n"
        f"    with open({str(tmp_path / 'ran')!r}, 'a') as f:\n"
        f"        f.write(__name__ + ' ' + os.environ['PYTEST_XDIST_WORKER'] + '\\n')\n\n"
        for i in range(6)
    )
    (tmp_path / "test_a.py").write_text(record)
    (tmp_path / "test_b.py").write_text(record)
    (tmp_path / "conftest.py").write_text(
        "import pytest\n"
        "from tests.conftest import keep_on_one_worker\n\n"
        "@pytest.hookimpl(tryfirst=True)\n"
        "def pytest_collection_modifyitems(items):\n"
        "    for item in items:\n"
        "        if item.path.name == 'test_a.py':\n"
        "            keep_on_one_worker(item, 'a')\n"
    )
    # a bare pytest with xdist alone: the venv's other plugins (asyncio, anyio, platformdirs)
    # cost each of the three processes 0.2-0.4 s, and under a loaded suite this test once took
    # 40 s; xdist's workers inherit the environment and the ``-p xdist``
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "xdist", "-n", "2", "--dist", "loadgroup"]
    argv += ["-p", "no:cacheprovider", "-c", os.devnull, "--rootdir", str(tmp_path), str(tmp_path)]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    ran = [line.split() for line in (tmp_path / "ran").read_text().splitlines()]
    assert len(ran) == 12
    assert len({worker for module, worker in ran if module == "test_a"}) == 1, ran
