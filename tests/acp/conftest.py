"""Fixtures of the ACP tests: a project folder; the client side is tests/acp/client.py."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    return root
