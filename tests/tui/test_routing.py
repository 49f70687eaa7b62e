"""/routing: change a role, apply a suggested preset (with bench evidence), save."""

from __future__ import annotations

import json
import tomllib

import pytest

from larik.config import Config, state_dir, user_config_path
from larik.tui.local_servers import LocalModel
from larik.tui.screens.model_picker import ModelPickerScreen
from larik.tui.screens.routing import RoutingScreen
from larik.tui.widgets.notice import Notice

from .conftest import ready, screen_text, send, wait_for


async def test_slash_routing_changes_a_role_now_and_s_saves_it_to_the_user_config(harness):
    config = Config()
    harness.local = [LocalModel("ollama", "qwen3-coder", "Ollama")]
    app = harness.app([], config=config)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot)
        await send(pilot, "/routing")
        await wait_for(pilot, lambda: isinstance(app.screen, RoutingScreen))
        routing_screen = app.screen
        assert routing_screen.role_names[1] == "worker"
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ModelPickerScreen))
        await pilot.press(*"qwen3", "enter")
        await wait_for(pilot, lambda: app.screen is routing_screen)
        assert config.roles["worker"] == "ollama/qwen3-coder"  # live for this session
        assert not user_config_path().exists()
        await pilot.press("s")
        await wait_for(pilot, lambda: user_config_path().exists())
        saved = tomllib.loads(user_config_path().read_text())
        assert saved["roles"] == {"worker": "ollama/qwen3-coder"}
        assert "fallbacks" not in saved  # no fallbacks: no empty [fallbacks] (issue 19 item 27)
        assert "[fallbacks]" not in user_config_path().read_text()
        await wait_for(pilot, lambda: "saved to" in screen_text(app))


async def test_closing_routing_says_in_one_line_what_changed(harness):
    config = Config()
    harness.local = [LocalModel("ollama", "qwen3-coder", "Ollama")]
    app = harness.app([], config=config)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot)
        await send(pilot, "/routing")
        await wait_for(pilot, lambda: isinstance(app.screen, RoutingScreen))
        routing_screen = app.screen
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ModelPickerScreen))
        await pilot.press(*"qwen3", "enter")
        await wait_for(pilot, lambda: app.screen is routing_screen)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, RoutingScreen))
        await pilot.pause()
        assert (
            "routing: worker → ollama/qwen3-coder (this session only: s in /routing saves it)"
            in [n.text for n in app.query(Notice)]
        )


async def test_a_suggested_preset_shows_bench_evidence_and_y_applies_it(harness, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    results = state_dir() / "bench" / "results.jsonl"
    results.parent.mkdir(parents=True, exist_ok=True)
    rows = [{"model": "anthropic/claude-haiku-5-5", "passed": True, "cost": 0.01}] * 3
    results.write_text("".join(json.dumps(r) + "\n" for r in rows))
    config = Config()
    app = harness.app([], config=config)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "/routing")
        await wait_for(pilot, lambda: isinstance(app.screen, RoutingScreen))
        screen = app.screen
        await pilot.press("p")
        await wait_for(pilot, lambda: screen.suggestion is not None)
        # the box's lines, once laid out (its first line can show before the rest)
        await wait_for(pilot, lambda: "bench 3/3 passed" in screen_text(app))
        suggested = dict(screen.suggestion.roles)
        await pilot.press("y")
        await pilot.pause()
        assert all(config.roles[r] == spec for r, spec in suggested.items())
        assert screen.changed >= set(suggested)


async def test_slash_routing_suggests_a_signed_in_plan_and_shows_a_role_preferring_one(
    harness, monkeypatch
):
    """A ChatGPT plan signed in: /routing's preset puts its models first (after local ones),
    priced "plan"; a role with ``[prefer] worker = "subscription"`` says so (issue 27)."""
    from tests.llm.providers.kits.chatgpt import sign_in

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    sign_in("chatgpt")
    config = Config.model_validate({"prefer": {"explore": "subscription"}})
    app = harness.app([], config=config)
    async with app.run_test(size=(160, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "/routing")
        await wait_for(pilot, lambda: isinstance(app.screen, RoutingScreen))
        screen = app.screen
        assert "a signed-in plan first" in screen.row("explore").plain
        assert "a signed-in plan first" not in screen.row("worker").plain
        await pilot.press("p")
        await wait_for(pilot, lambda: screen.suggestion is not None)
        await wait_for(pilot, lambda: "Suggested preset" in screen_text(app))
        ranked = [(r.spec.partition("/")[0], r.tier) for r in screen.suggestion.ranked]
        plans = [i for i, (p, _) in enumerate(ranked) if p == "chatgpt"]
        keyed = [i for i, (p, _) in enumerate(ranked) if p == "openai"]
        assert plans and keyed and max(plans) < min(keyed)  # the plan before the key
        assert {t for p, t in ranked if p == "chatgpt"} == {1}
        # the harness's model is a script, a test double never suggested (issue 43 item 6):
        # the plan is the worker, the key its fallback
        worker = screen.suggestion.roles["worker"]
        worker_fallback = screen.suggestion.fallbacks["worker"][0]
        assert worker.startswith("chatgpt/") and worker_fallback.startswith("openai/")
        await wait_for(pilot, lambda: f"→ {worker_fallback}" in screen_text(app))  # laid out
        await pilot.press("y")
        await pilot.pause()
        assert config.roles["worker"] == worker
        assert config.fallbacks["worker"] == [worker_fallback]
        assert f"{worker} plan" in " ".join(screen.row("worker").plain.split())


async def test_a_preset_of_small_local_models_says_what_it_did_in_plain_words(harness):
    """issue 25 item 25: it said "dearest candidate" (of free models: the smallest one); the
    8k window's wording: tests/test_routing.py."""
    from larik.config import ModelOverride

    small = {"context_window": 8192}
    config = Config(
        models={
            "ollama/qwen2.5-coder:1.5b": ModelOverride(**small),
            "ollama/qwen2.5-coder:7b": ModelOverride(**small),
        }
    )
    harness.local = [
        LocalModel("ollama", "qwen2.5-coder:1.5b", "Ollama", 8192),
        LocalModel("ollama", "qwen2.5-coder:7b", "Ollama", 8192),
    ]
    app = harness.app([], config=config)
    async with app.run_test(size=(160, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "/routing")
        await wait_for(pilot, lambda: isinstance(app.screen, RoutingScreen))
        screen = app.screen
        await pilot.press("p")
        await wait_for(pilot, lambda: screen.suggestion is not None)
        await wait_for(pilot, lambda: "Suggested preset" in screen_text(app))
        shown = screen_text(app)
        assert "dearest" not in shown and "large window" not in shown, shown
        assert screen.suggestion.roles["smart"] == "ollama/qwen2.5-coder:7b"
        assert "largest model (7B; a guess" in screen.suggestion.reasons["smart"]


def test_larik_routing_shows_an_unset_claude_role_as_its_catalog_default():
    from typer.testing import CliRunner

    from larik.cli import app as cli
    from larik.routing import role_default

    said = CliRunner().invoke(cli, ["routing"]).stdout
    line = next(x for x in said.splitlines() if x.startswith("opus "))
    assert role_default("opus") == "anthropic/claude-opus-5-5" and role_default("opus") in line


async def test_routing_shows_an_unset_claude_role_as_larik_routing_does(harness):
    """``larik routing`` said ``opus → anthropic/claude-opus-5-5``; ``/routing`` said
    ``opus (main model)``: an unset Claude role is the catalog's current model, in both."""
    from larik.routing import role_default

    app = harness.app([], config=Config())
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot)
        await send(pilot, "/routing")
        await wait_for(pilot, lambda: isinstance(app.screen, RoutingScreen))
        rows = {r: app.screen.row(r).plain for r in ("opus", "sonnet", "haiku", "worker")}
        for role in ("opus", "sonnet", "haiku"):
            assert rows[role].split()[1] == role_default(role), rows[role]
        assert "(main model)" in rows["worker"]
        await wait_for(pilot, lambda: role_default("opus") in screen_text(app), timeout=60)


# ------------------------------------------- issue 43 item 6: /routing tells the truth locally


def _joined(text: str) -> str:
    """The screen's words in one line (a reason wrapped over lines reads whole)."""
    return " ".join(text.replace("│", " ").replace("▎", " ").replace("▊", " ").split())


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_preset_of_one_small_local_model_says_only_what_larik_measured(harness, size):
    """A new user with one 0.5B model on a local server (8k window loaded), no key: it was
    "cheapest with at least a 128k window", "largest (a guess at the strongest)", and the
    scripted test double was the worker and every fallback; at 80x24 a reason was cut."""
    harness.local = [LocalModel("ollama", "qwen2.5-coder:0.5b", "Ollama", 8192)]
    app = harness.app([], config=Config())
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await send(pilot, "/routing")
        await wait_for(pilot, lambda: isinstance(app.screen, RoutingScreen))
        screen = app.screen
        await pilot.press("p")
        await wait_for(pilot, lambda: screen.suggestion is not None, timeout=60)
        await wait_for(pilot, lambda: "Suggested preset" in screen_text(app), timeout=60)
        s = screen.suggestion
        picked = [*s.roles.values(), *(f for fbs in s.fallbacks.values() for f in fbs)]
        assert not any(p.startswith("scripted/") for p in picked), picked
        assert "worker" not in s.roles  # a 0.5B is no worker, and nothing else is usable
        assert "128k window" not in s.reasons["compact"].replace("none has a 128k", "")
        assert "8k window" in s.reasons["compact"], s.reasons
        assert "largest" not in s.reasons["smart"], s.reasons
        shown = _joined(screen_text(app))
        preset = shown.partition("Suggested preset")[2].partition("main model:")[0]
        assert "scripted" not in preset, preset


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_every_reason_of_a_preset_is_on_the_screen_whole(harness, size):
    """At 80x24 the preset's reasons ran off the dialog, cut mid-sentence."""
    harness.local = [
        LocalModel("ollama", "qwen2.5-coder:7b", "Ollama", 32768),
        LocalModel("llamacpp", "qwen2.5-coder-14b-instruct", "llama.cpp", 16384),
    ]
    app = harness.app([], config=Config())
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await send(pilot, "/routing")
        await wait_for(pilot, lambda: isinstance(app.screen, RoutingScreen))
        screen = app.screen
        await pilot.press("p")
        await wait_for(pilot, lambda: screen.suggestion is not None, timeout=60)
        await wait_for(pilot, lambda: "Suggested preset" in screen_text(app), timeout=60)
        await pilot.pause()
        reasons = screen.suggestion.reasons
        await wait_for(
            pilot,
            lambda: all(_joined(r) in _joined(screen_text(app)) for r in reasons.values()),
            timeout=60,
        )
