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
