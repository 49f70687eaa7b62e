"""The behaviour suite's fixture: each scenario runs once per face (tests/session/faces.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from .faces import FACES, Face


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    return root


@pytest.fixture(params=sorted(FACES))
async def face(request: pytest.FixtureRequest, project: Path) -> AsyncIterator[Face]:
    driver = FACES[request.param](project)
    yield driver
    await driver.close()
