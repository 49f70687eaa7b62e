"""/model switches for the session; /model default (or the first pick, when there was no model)
is remembered for the next start; /routing agrees with /model and
its preset considers the local models /model lists (issue 19 item 9)."""

from __future__ import annotations

import json

from larik.config import Config
from larik.routing import remembered
from larik.tui.local_servers import LocalModel
from larik.tui.screens.routing import RoutingScreen
from larik.tui.widgets.notice import Notice

from .conftest import ready, screen_text, send, wait_for


async def test_a_switch_is_for_the_session_and_model_default_makes_it_the_next_start(
    harness, tmp_path
):
    """issue 25 item 32: a /model switch for a quick test became the next start's model."""
    history = tmp_path / "state" / "prompt-history.jsonl"
    saved = remembered.path()
    app = harness.app([], history_path=history)
    async with app.run_test(size=(100, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "/model scripted/model-b")
        await wait_for(pilot, lambda: any("model-b" in n.text for n in app.query(Notice)))
        said = "\n".join(n.text for n in app.query(Notice))
        assert "for this session only: /model default makes it the one larik starts on" in said
        assert not saved.exists()  # a switch is not remembered
        await send(pilot, "/model default")
        await wait_for(pilot, lambda: saved.exists())
        await wait_for(
            pilot,
            lambda: any("is where the next larik starts" in n.text for n in app.query(Notice)),
        )
        await send(pilot, "/exit")
    assert json.loads(saved.read_text()) == {"model": "scripted/model-b"}
    assert saved.stat().st_mode & 0o777 == 0o600

    again = harness.app([], history_path=history)
    async with again.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        assert harness.factory_calls[-1] == {"model": "scripted/model-b", "resume": None}
        said = [n.text for n in again.query(Notice)]
        assert f"model: scripted/model-b (the one you picked last, remembered in {saved}; " in (
            "\n".join(said)
        )

    asked = harness.app([], history_path=history, model="scripted/model-c")  # -m wins
    async with asked.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        assert harness.factory_calls[-1]["model"] == "scripted/model-c"


async def test_a_remembered_model_that_cannot_start_falls_back_and_says_so(harness, tmp_path):
    history = tmp_path / "prompt-history.jsonl"
    remembered.write("gone/model")

    def refuse_the_remembered() -> None:
        if harness.factory_calls[-1]["model"] == "gone/model":
            from larik.llm.errors import ResolveError

            raise ResolveError("unknown provider 'gone'")

    harness.on_factory = refuse_the_remembered
    app = harness.app([], history_path=history)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        said = "\n".join(n.text for n in app.query(Notice))
        assert "the model you picked last, gone/model, cannot start" in said
        assert harness.factory_calls[-1]["model"] == ""


async def test_slash_routing_names_the_model_in_use_and_its_preset_uses_local_models(harness):
    harness.local = [LocalModel("llamacpp", "/m/SmolLM2-135M-Instruct.Q4_1.gguf", "llama.cpp")]
    app = harness.app([], config=Config())
    async with app.run_test(size=(120, 35)) as pilot:
        await ready(pilot)
        await send(pilot, "/routing")
        await wait_for(pilot, lambda: isinstance(app.screen, RoutingScreen))
        await pilot.pause()
        assert "main model: scripted/model-a (in use)" in screen_text(app)
        assert "first provider with a key" not in screen_text(app)
        await pilot.press("p")
        await wait_for(pilot, lambda: "Suggested preset" in screen_text(app))
        await wait_for(
            pilot, lambda: "llamacpp//m/SmolLM2-135M-Instruct.Q4_1.gguf" in screen_text(app)
        )
