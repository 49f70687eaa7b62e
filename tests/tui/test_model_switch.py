"""/model: switching mid-conversation, the picker, and the no-model paths."""

from __future__ import annotations

from larik.llm.errors import MissingKeyError
from larik.tui.local_servers import LocalModel
from larik.tui.screens.model_picker import ModelPickerScreen
from larik.tui.screens.no_model import NoModelScreen

from .conftest import ready, screen_text, send, turn_done, wait_for


async def test_slash_model_spec_sends_the_next_request_to_the_new_model_without_old_thinking(
    harness,
):
    turns = [{"thinking": "private reasoning of model a", "text": "first"}, {"text": "second"}]
    app = harness.app(turns)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "one")
        await turn_done(pilot)
        await send(pilot, "/model scripted/model-b")
        await wait_for(pilot, lambda: harness.agent.switches == ["scripted/model-b"])
        await send(pilot, "two")
        await turn_done(pilot)
        second = harness.provider.requests[1]
        assert second.model == "model-b"
        blocks = [b for m in second.messages for b in m.blocks]
        assert not any(b.type == "thinking" for b in blocks)
        assert [m.text() for m in second.messages] == ["one", "first", "two"]
        assert "scripted/model-b" in screen_text(app)


async def test_slash_model_opens_the_picker_with_local_models_and_switches_to_the_one_picked(
    harness,
):
    harness.local = [LocalModel("ollama", "qwen3-coder", "Ollama")]
    app = harness.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "/model")
        await wait_for(pilot, lambda: isinstance(app.screen, ModelPickerScreen))
        await wait_for(pilot, lambda: not app.screen.searching)
        await pilot.press(*"qwen")
        await pilot.press("enter")
        await wait_for(pilot, lambda: harness.agent.switches == ["ollama/qwen3-coder"])


async def test_switching_to_a_bad_spec_says_why_and_keeps_the_model(harness):
    app = harness.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "/model nonsense")
        await wait_for(pilot, lambda: "cannot switch to nonsense" in screen_text(app))
        assert harness.agent.model == "model-a"


async def test_without_a_key_or_local_server_the_no_model_screen_says_how_to_add_one(harness):
    harness.fail_with = MissingKeyError("anthropic", ["ANTHROPIC_API_KEY"])
    app = harness.app([])
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, NoModelScreen))
        await wait_for(pilot, lambda: "No model yet" in screen_text(app))
        shown = screen_text(app)
        for needle in ("No model yet", "ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
            assert needle in shown
        assert "Traceback" not in shown
        await pilot.press("end")  # the page scrolls under its pinned line of keys
        await wait_for(pilot, lambda: "127.0.0.1:11434" in screen_text(app))
        harness.fail_with = None
        await pilot.press("r")
        await ready(pilot)


async def test_without_a_key_but_with_a_local_server_the_picker_opens(harness):
    harness.fail_with = MissingKeyError("anthropic", ["ANTHROPIC_API_KEY"])
    harness.local = [LocalModel("ollama", "qwen3", "Ollama")]
    app = harness.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ModelPickerScreen))
        harness.fail_with = None
        await pilot.press("enter")
        await ready(pilot)
        assert harness.factory_calls[-1]["model"] == "ollama/qwen3"


async def test_the_first_frame_is_painted_before_the_agent_is_built(harness):
    app = harness.app([])
    painted = []
    harness.on_factory = lambda: painted.append(app.first_paint_done)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
    assert painted == [True]


async def test_picking_a_provider_entry_lets_the_user_type_the_model_id(harness):
    from larik.config import Config

    config = Config(
        providers={
            "mybox": {
                "type": "openai-compatible",
                "base_url": "https://llm.example.com/v1",
                "api_key": "k",
            }
        }
    )
    app = harness.app([], config=config)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "/model")
        await wait_for(pilot, lambda: isinstance(app.screen, ModelPickerScreen))
        await pilot.press(*"mybox", "enter")
        assert app.screen.query_one("#model-filter").value == "mybox/"
        await pilot.press(*"llama-3", "enter")
        await wait_for(pilot, lambda: harness.agent.switches == ["mybox/llama-3"])


async def test_the_no_model_picker_footer_says_what_the_finished_search_found(harness):
    harness.fail_with = MissingKeyError("anthropic", ["ANTHROPIC_API_KEY"])
    harness.local = [LocalModel("ollama", "qwen3", "Ollama")]
    app = harness.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ModelPickerScreen))
        await pilot.pause()
        footer = str(app.screen.query_one("#picker-status").render())
        assert "looking for local servers" not in footer
        assert "1 local model found" in footer


async def test_a_long_local_model_name_keeps_its_price_and_tag_on_its_line(harness):
    path = "/home/someone/" + "models/" * 12 + "SmolLM2-135M-Instruct.Q4_1.gguf"
    harness.local = [LocalModel("llamacpp", path, "llama.cpp")]
    app = harness.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "/model")
        await wait_for(pilot, lambda: isinstance(app.screen, ModelPickerScreen))
        await wait_for(pilot, lambda: not app.screen.searching)
        await pilot.press(*"smol")
        await pilot.pause()
        row = next(line for line in screen_text(app).splitlines() if "SmolLM2" in line)
        assert "llamacpp/…/SmolLM2-135M-Instruct.Q4_1.gguf" in row
        assert "free" in row and "local" in row
        await pilot.press("enter")
        await wait_for(pilot, lambda: harness.agent.switches == [f"llamacpp/{path}"])
