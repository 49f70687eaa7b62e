"""Snapshots of the main screens, as the text a terminal of 100x30 shows.

Each screen is compared with ``snapshots/NAME.txt`` (durations normalised to ``N.Ns``). Run
with ``LARIK_UPDATE_SNAPSHOTS=1`` to write them after a deliberate change, and read the diff;
that also writes ``NAME.svg``, the screen as a picture, which is not compared.
pytest-textual-snapshot is not used: it pins syrupy 4.8, which pins pytest below 9.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from larik import __version__
from larik.config import Config
from larik.llm.errors import MissingKeyError
from larik.tui.local_servers import LocalModel
from larik.tui.screens.model_picker import ModelPickerScreen
from larik.tui.screens.no_model import NoModelScreen
from larik.tui.screens.permission import PermissionScreen
from larik.tui.screens.routing import RoutingScreen

from .conftest import ready, screen_text, send, turn_done, wait_for

SNAPSHOTS = Path(__file__).with_name("snapshots")
SIZE = (100, 30)
DIFF = "--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n"
TURNS = [
    {
        "thinking": "The test fails because add subtracts.",
        "text": "The bug is in `add`:\n\n```python\ndef add(a, b):\n    return a - b\n```\n\nI will fix it.",
        "tool_calls": [
            {"name": "edit_file", "input": {"path": "calc.py", "diff": DIFF}, "id": "e1"}
        ],
        "usage": {"input": 5000, "output": 200},
    },
    {"text": "Fixed: **add** now adds.", "usage": {"input": 5400, "output": 20}},
]


def shown(app) -> str:
    """The screen as a snapshot holds it (durations, the home folder and the version made
    the same everywhere)."""
    text = re.sub(r"\d+\.\ds\b", "N.Ns", screen_text(app)) + "\n"
    text = text.replace(os.environ["LARIK_HOME"], "$LARIK_HOME")
    return text.replace(f"larik {__version__} ", "larik VERSION ")


async def check(pilot, name: str) -> None:
    """The screen is ``snapshots/NAME.txt``: looked at until it is (a loaded machine draws the
    last of it late), then compared, so a real difference fails with the diff."""
    app = pilot.app
    path = SNAPSHOTS / f"{name}.txt"
    if os.environ.get("LARIK_UPDATE_SNAPSHOTS"):
        path.write_text(shown(app), encoding="utf-8")
        # the picture, for people reviewing a change (not compared: styling details vary)
        path.with_suffix(".svg").write_text(app.export_screenshot(title=name), encoding="utf-8")
        return
    if not path.exists():
        pytest.fail(f"no snapshot {path.name}: run with LARIK_UPDATE_SNAPSHOTS=1 and review it")
    want = path.read_text(encoding="utf-8")
    with contextlib.suppress(AssertionError):  # not drawn so by the ceiling: the diff, below
        await wait_for(pilot, lambda: shown(app) == want, every=0.1)
    assert shown(app) == want


@pytest.fixture(autouse=True)
def _fixed_length_home(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """LARIK_HOME of one length wherever the suite runs (a pytest-xdist worker's tmp path is
    longer than a serial run's, and the no-model screen wraps around the path it shows)."""
    with tempfile.TemporaryDirectory(prefix="lh-") as home:
        monkeypatch.setenv("LARIK_HOME", home)
        yield


async def settle(pilot) -> None:
    await pilot.pause()
    await pilot.app.chat.conv.flush()
    await pilot.pause()


async def test_snapshot_conversation(harness):
    app = harness.app(TURNS)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "fix the failing test in calc.py")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await settle(pilot)
        await check(pilot, "permission")
        await pilot.press("y")
        await turn_done(pilot)
        await settle(pilot)
        await check(pilot, "conversation")


async def test_snapshot_slash_completion(harness):
    app = harness.app([])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("/")
        await settle(pilot)
        await check(pilot, "slash_completion")


async def test_snapshot_model_picker(harness):
    harness.local = [
        LocalModel("ollama", "qwen3-coder:30b", "Ollama"),
        LocalModel("vllm", "Qwen/Qwen3-8B", "vLLM"),
    ]
    app = harness.app([], config=Config())
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/model")
        await wait_for(
            pilot, lambda: isinstance(app.screen, ModelPickerScreen) and not app.screen.searching
        )
        await settle(pilot)
        await check(pilot, "model_picker")


async def test_snapshot_routing(harness):
    config = Config(
        roles={"worker": "ollama/qwen3-coder:30b"}, fallbacks={"worker": ["vllm/Qwen/Qwen3-8B"]}
    )
    app = harness.app([], config=config)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/routing")
        await wait_for(pilot, lambda: isinstance(app.screen, RoutingScreen))
        await settle(pilot)
        await check(pilot, "routing")


async def test_snapshot_no_model(harness, monkeypatch):
    from larik.llm.local import catalog
    from larik.tui.screens import no_model

    offer = (catalog.row("qwen2.5-coder-1.5b"), "")  # the same on every machine
    monkeypatch.setattr(no_model, "embedded_offer", lambda: offer)
    monkeypatch.setattr(no_model, "_machine", lambda: ("24 GB", 2))
    harness.fail_with = MissingKeyError("anthropic", ["ANTHROPIC_API_KEY"])
    app = harness.app([])
    async with app.run_test(size=(100, 50)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, NoModelScreen))
        await settle(pilot)
        await check(pilot, "no_model")
