"""``[prefer] ROLE = "subscription"``: a role goes to a signed-in plan's model first (issue 27)."""

from __future__ import annotations

import time

import pytest

from larik.config import Config
from larik.llm.errors import ConfigError, ResolveError
from larik.llm.signin import quota as quotas
from larik.llm.signin.store import AccountStore
from larik.routing import plan, resolve, suggest_routing
from larik.routing.prefer import plan_choice, signed_in_plans
from larik.routing.suggest import available_models
from tests.llm.providers.kits.chatgpt import sign_in


def _config(**kw) -> Config:
    return Config.model_validate(kw)


def test_a_role_preferring_a_subscription_goes_to_the_signed_in_plan_then_its_own_model(
    monkeypatch,
):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    sign_in("chatgpt")
    config = _config(
        roles={"worker": "openai/gpt-5.4-mini"},
        fallbacks={"worker": ["ollama/qwen3-coder:30b"]},
        prefer={"worker": "subscription"},
    )
    r = resolve("worker", config)
    assert r.provider_name == "chatgpt" and r.role == "worker"
    assert r.fallbacks == ("openai/gpt-5.4-mini", "ollama/qwen3-coder:30b")
    p = plan("worker", config)
    assert p.target is not None and p.target.provider_name == "chatgpt"
    assert [s for s, _ in p.fallbacks] == ["openai/gpt-5.4-mini", "ollama/qwen3-coder:30b"]


def test_a_role_without_the_preference_or_without_a_plan_routes_as_before(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    config = _config(roles={"worker": "openai/gpt-5.4-mini"}, prefer={"worker": "subscription"})
    assert resolve("worker", config).spec == "openai/gpt-5.4-mini"  # nobody signed in
    sign_in("chatgpt")
    config = _config(roles={"worker": "openai/gpt-5.4-mini"})
    assert resolve("worker", config).spec == "openai/gpt-5.4-mini"  # no preference
    assert resolve("explore", _config(model="openai/gpt-5.4-mini")).provider_name == "openai"


def test_an_unset_role_preferring_a_plan_falls_back_to_the_main_model(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    sign_in("copilot", host="github.com")
    config = _config(model="openai/gpt-5.4-mini", prefer={"explore": "subscription"})
    r = resolve("explore", config)
    assert r.provider_name == "copilot" and r.fallbacks == ("openai/gpt-5.4-mini",)
    assert r.role == "explore"


def test_a_plan_alone_serves_a_preferring_role_when_no_key_is_set():
    sign_in("chatgpt")
    r = resolve("worker", _config(prefer={"worker": "subscription"}))
    assert r.provider_name == "chatgpt" and r.fallbacks == ()
    with pytest.raises(ResolveError):  # no plan, no key: the usual error
        resolve("worker", _config())


def test_a_plan_whose_window_is_spent_is_skipped_until_its_reset(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    account = sign_in("chatgpt")
    store = AccountStore(Config().accounts_dir)
    resets = time.time() + 7200
    spent = quotas.Quota((quotas.Window("primary", 100.0, 300, resets),), "plus", time.time())
    quotas.save(store, account, spent)
    config = _config(roles={"worker": "openai/gpt-5.4-mini"}, prefer={"worker": "subscription"})
    r = resolve("worker", config)
    assert r.spec == "openai/gpt-5.4-mini"
    assert any(s.startswith("chatgpt: usage window spent until") for s in r.skipped)
    why = dict(plan("worker", config).fallbacks)["chatgpt"]  # larik routing says so too
    assert why.startswith("usage window spent until")
    # once the reset time has passed, the plan is back
    refilled = quotas.Quota((quotas.Window("primary", 100.0, 300, time.time() - 1),), "plus")
    quotas.save(store, account, refilled)
    assert resolve("worker", config).provider_name == "chatgpt"


def test_the_plan_pick_follows_the_role_policy():
    sign_in("chatgpt")
    config = _config(prefer={"smart": "subscription", "review": "subscription"})
    specs, skipped = signed_in_plans(config)
    assert specs and all(s.startswith("chatgpt/") for s in specs) and skipped == []
    smart = plan_choice("smart", config, config.routing())
    assert smart is not None and smart.spec == suggest_routing(specs, config=config).roles["smart"]
    own = plan_choice("review", config, config.routing())  # a role of your own: the first ranked
    assert own is not None and own.spec == suggest_routing(specs, config=config).ranked[0].spec
    assert plan_choice("worker", config, config.routing()) is None


def test_prefer_takes_only_known_preferences(tmp_path):
    with pytest.raises(ConfigError, match="prefer.worker: should be 'subscription'"):
        from larik.config.files import _validate

        _validate({"prefer": {"worker": "cheapest"}}, tmp_path / "config.toml")


def test_signed_in_plans_are_candidates_for_routing_suggestions(monkeypatch):
    """/routing's preset and larik routing --suggest rank a signed-in plan's models right
    after local ones, before pay-per-token models."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert not any(s.startswith("chatgpt/") for s in available_models(Config()))
    sign_in("chatgpt")
    models = available_models(Config())
    assert any(s.startswith("chatgpt/") for s in models)
    s = suggest_routing(models, config=Config())
    assert s.roles["worker"].startswith("chatgpt/")
    assert "subscription plan" in s.reasons["worker"]
    assert s.fallbacks["worker"][0].startswith("openai/")  # the key after the plan
