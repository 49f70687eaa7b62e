"""The no-model screen offers the model Larik runs itself, with its size, and downloads it only
when asked (``d``): from a loopback fake of the Hub, into the test's Hugging Face cache; then
the agent starts again, and routing's default is that model."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from larik.config import Config
from larik.llm.errors import MissingKeyError
from larik.llm.local import catalog
from larik.llm.local.store import Store
from larik.routing import target
from larik.tui.screens import no_model
from larik.tui.screens.no_model import NoModelScreen
from tests.llm.local.fakehub import FakeHub, File

from .conftest import screen_text, wait_for

pytest.importorskip("huggingface_hub")

BODY = b"GGUF" + random.Random(3).randbytes(300_000)


@pytest.fixture
def hub(monkeypatch, tmp_path):
    from huggingface_hub import constants

    row = replace(catalog.row("qwen2.5-coder-0.5b"), sha256=File(BODY).sha256, size=len(BODY))
    monkeypatch.setattr(catalog, "_BY_NAME", {**catalog._BY_NAME, row.name: row})
    monkeypatch.setattr(no_model, "embedded_offer", lambda: (row, ""))
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hf"))
    h = FakeHub().start()
    h.files[f"{row.repo}/{row.file}"] = File(BODY)
    monkeypatch.setenv("HF_ENDPOINT", h.url)
    yield h
    h.stop()


async def test_the_screen_offers_the_embedded_model_and_pulls_it_only_when_asked(harness, hub):
    harness.fail_with = MissingKeyError("anthropic", ["ANTHROPIC_API_KEY"])
    app = harness.app([])
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, NoModelScreen))
        await wait_for(pilot, lambda: "qwen2.5-coder-0.5b" in screen_text(app))
        shown = " ".join(screen_text(app).split())
        assert "press d to download qwen2.5-coder-0.5b (1 MB download" in shown  # its size
        assert "set ANTHROPIC_API_KEY" in shown and "ollama serve" in " ".join(
            no_model.no_model_text(offer=(catalog.row("qwen2.5-coder-0.5b"), "")).split()
        )  # next to "set a key" and "start Ollama"
        assert hub.requests == []  # nothing downloaded without the user asking
        await pilot.press("d")
        await wait_for(pilot, lambda: len(harness.factory_calls) == 2)
        entry = Store(Config().local_dir).get("qwen2.5-coder-0.5b")
        assert entry is not None and open(entry.path, "rb").read() == BODY
        assert target("").spec == "local/qwen2.5-coder-0.5b"  # plain larik now uses it


async def test_a_failed_download_is_one_line_on_the_screen_and_d_tries_again(harness, hub):
    hub.files.clear()  # the Hub answers 404
    harness.fail_with = MissingKeyError("anthropic", ["ANTHROPIC_API_KEY"])
    app = harness.app([])
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, NoModelScreen))
        await pilot.press("d")
        await wait_for(pilot, lambda: "HTTP 404" in screen_text(app))
        assert "(d: try again)" in screen_text(app) and "Traceback" not in screen_text(app)
        assert isinstance(app.screen, NoModelScreen) and len(harness.factory_calls) == 1


async def test_after_a_failed_download_the_keys_are_still_on_screen_at_80x24(harness, hub):
    """The failure's line was docked at the bottom over the keys' line: ``q: quit`` was gone."""
    hub.files.clear()  # the Hub answers 404
    harness.fail_with = MissingKeyError("anthropic", ["ANTHROPIC_API_KEY"])
    app = harness.app([])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, NoModelScreen))
        await wait_for(pilot, lambda: "q: quit" in screen_text(app), timeout=60)
        await pilot.press("d")
        await wait_for(pilot, lambda: "try again" in screen_text(app), timeout=60)
        shown = screen_text(app)
        assert "q: quit" in shown and "HTTP 404" in " ".join(shown.split())


def test_the_screen_says_how_to_use_a_gguf_already_on_this_machine():
    text = " ".join(no_model.no_model_text(offer=(catalog.row("qwen2.5-coder-0.5b"), "")).split())
    assert "larik local pull /path/to/model.gguf" in text
