"""The status line: every field stays on screen, the cost reads the same before and after a
reply."""

from __future__ import annotations

from larik.tui.widgets.notice import Notice
from larik.tui.widgets.status_bar import elide_spec

from .conftest import ready, screen_text, send, turn_done

GGUF = "llamacpp//home/someone/models/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"


def status_line(app) -> str:
    return screen_text(app).rstrip().splitlines()[-1].strip()


async def test_a_long_model_name_is_shortened_so_cost_and_mode_still_show(harness):
    long_path = "llamacpp/" + "/work/" + "x" * 80 + "/SmolLM2-135M-Instruct.Q4_1.gguf"
    app = harness.app([{"text": "ok", "usage": {"input": 1200, "output": 300}}], model=long_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "hi")
        await turn_done(pilot)
        line = status_line(app)
        assert line.startswith("llamacpp/…/SmolLM2-135M-Instruct.Q4_1.gguf · effort default")
        assert line.endswith("· 1.5k tok · $0.0000 · ask")
        await pilot.resize_terminal(70, 30)
        await pilot.pause()
        assert status_line(app).endswith("· 1.5k tok · $0.0000 · ask")


def test_a_model_name_folds_its_directories_then_is_cut_in_the_middle():
    assert elide_spec("openai/gpt-5", 20) == "openai/gpt-5"
    assert elide_spec(GGUF, 50) == "llamacpp/…/SmolLM2-135M-Instruct.Q4_1.gguf"
    assert elide_spec(GGUF, 30) == "llamacpp/…M-Instruct.Q4_1.gguf"
    assert elide_spec("openrouter/" + "m" * 60 + "-4.5", 20) == "openrouter/…mmmm-4.5"
    assert elide_spec("a-very-long-provider/" + "m" * 60, 14) == "a-ve…mmmmmmmmm"


async def test_a_local_models_cost_reads_zero_before_the_first_reply(tmp_path):
    from .test_real_agent import Real

    real = Real(tmp_path)  # the real Agent, on the scripted (local) provider
    app = real.app([{"text": "ok", "usage": {"input": 10, "output": 2}}])
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await pilot.pause()
        assert real.agents[0].usage.total_cost is None  # nothing has answered yet
        assert "· $0.0000 · ask" in status_line(app)
        await send(pilot, "hi")
        await turn_done(pilot)
        assert "· $0.0000 · ask" in status_line(app)


async def test_an_unknown_price_reads_a_dash_before_and_after_a_reply(harness):
    app = harness.app([{"text": "ok", "usage": {"input": 10, "output": 2}}], model="openai/x-1")
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        harness.agent.reply_cost = None  # what the agent reports for a model with no price
        await pilot.pause()
        assert status_line(app).endswith(" tok · — · ask")
        await send(pilot, "hi")
        await turn_done(pilot)
        assert status_line(app).endswith("12 tok · — · ask")
        await send(pilot, "/cost")
        await pilot.pause()
        table = app.query(Notice).last().text
        assert "| openai/x-1 | 10 | 2 | 0 | 0 | — |" in table and "**—**" in table


async def test_a_plans_usage_windows_show_on_the_status_line_and_in_slash_cost(harness):
    """The session's plan figures (``Session.plan_status``): after a reply from a signed-in
    plan's model the status line shows its windows, and /cost a table of them (issue 27)."""
    from larik.llm.signin import quota as quotas

    headers = {
        "x-codex-primary-used-percent": "37",
        "x-codex-primary-window-minutes": "300",
        "x-codex-primary-reset-after-seconds": "3600",
        "x-codex-secondary-used-percent": "12",
        "x-codex-secondary-window-minutes": "10080",
        "x-codex-plan-type": "plus",
    }
    app = harness.app(
        [{"text": "ok", "usage": {"input": 10, "output": 2}}], model="chatgpt/gpt-5.5"
    )
    quotas.forget()
    try:
        async with app.run_test(size=(140, 30)) as pilot:
            await ready(pilot)
            assert "plus 5h" not in status_line(app)
            found = quotas.from_headers(headers)
            assert found is not None
            quotas.record("chatgpt", found)  # what the chatgpt adapter does with each answer
            await send(pilot, "hi")
            await turn_done(pilot)
            assert "· plus 5h 37% · wk 12% · ask" in status_line(app)
            await send(pilot, "/cost")
            await pilot.pause()
            table = app.query(Notice).last().text
            assert "| chatgpt (plus) | 5h | 37% |" in table
            assert "| chatgpt (plus) | wk | 12% |" in table and "(in 59m)" in table
    finally:
        quotas.forget()
