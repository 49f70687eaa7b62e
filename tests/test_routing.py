"""resolve(), roles, fallbacks, saving /routing, suggest_routing. One test per rule."""

from __future__ import annotations

import asyncio
import json
import threading
import tomllib

import pytest

from larik import routing
from larik.config import Config, ConfigError, load_config, user_config_path
from larik.llm import catalog, registry
from larik.llm.errors import MissingKeyError, ResolveError
from larik.llm.fallback import FallbackProvider
from larik.llm.providers.scripted import ScriptedProvider
from larik.llm.retry import RetryingProvider
from larik.llm.timeout import TimeoutProvider
from larik.llm.types import Block, EventType, Message, Request
from larik.routing import Evidence, resolve, suggest_routing, target


class FakeAdapter:
    """Stands in for every adapter: records what it was built with."""

    built: list[FakeAdapter] = []

    def __init__(self, endpoint, **options):
        self.name = endpoint.name
        self.endpoint = endpoint
        self.kw = {
            "api_key": endpoint.api_key,
            "base_url": endpoint.base_url,
            "headers": dict(endpoint.headers) or None,
            **options,
        }
        FakeAdapter.built.append(self)

    async def stream(self, request):  # pragma: no cover - never streamed here
        raise AssertionError("fake adapter")
        yield


@pytest.fixture(autouse=True)
def fake_adapters(monkeypatch):
    FakeAdapter.built = []
    monkeypatch.setattr(
        registry, "load_factory", lambda f: FakeAdapter if isinstance(f, str) else f
    )


def bare(provider):
    """The adapter inside the timeout/retry wrappers."""
    while hasattr(provider, "inner"):
        provider = provider.inner
    return provider


def cfg(**data) -> Config:
    return Config.model_validate(data)


# --------------------------------------------------------------------- resolve branches


def test_empty_spec_uses_the_config_model(monkeypatch):
    monkeypatch.setenv("GROQ_API_KEY", "gsk-1")
    r = resolve("", cfg(model="groq/qwen/qwen3-32b"))
    assert (r.provider_name, r.model, r.spec) == ("groq", "qwen/qwen3-32b", "groq/qwen/qwen3-32b")
    assert r.role is None


@pytest.mark.parametrize(
    ("keys", "provider"),
    [
        (["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY"], "anthropic"),
        (["OPENAI_API_KEY", "GEMINI_API_KEY"], "openai"),
        (["GOOGLE_API_KEY"], "gemini"),
    ],
)
def test_empty_spec_without_a_model_takes_the_first_provider_with_a_key(
    monkeypatch, keys, provider
):
    for k in keys:
        monkeypatch.setenv(k, "k-123")
    r = resolve("", cfg())
    assert r.provider_name == provider
    assert r.model == catalog.default_model(provider)


def test_a_key_in_config_counts_for_the_empty_spec():
    r = resolve("", cfg(providers={"openai": {"api_key": "sk-cfg"}}))
    assert r.provider_name == "openai" and bare(r.provider).kw["api_key"] == "sk-cfg"


def test_empty_spec_with_no_model_and_no_key_names_the_variables():
    with pytest.raises(MissingKeyError) as e:
        resolve("", cfg())
    msg = str(e.value)
    assert "ANTHROPIC_API_KEY" in msg and "OPENAI_API_KEY" in msg and "GEMINI_API_KEY" in msg


def test_head_slash_rest_splits_on_the_first_slash_only(monkeypatch):
    monkeypatch.setenv("OPENROUTER_API_KEY", "or-1")
    r = resolve("openrouter/anthropic/claude-sonnet-4.5", cfg())
    assert (r.provider_name, r.model) == ("openrouter", "anthropic/claude-sonnet-4.5")


def test_a_configured_provider_is_a_valid_head():
    config = cfg(
        providers={"box": {"type": "openai-compatible", "base_url": "http://127.0.0.1:9/v1"}}
    )
    r = resolve("box/my-model", config)
    assert (r.provider_name, r.model) == ("box", "my-model")
    assert bare(r.provider).kw["base_url"] == "http://127.0.0.1:9/v1"


def test_an_unknown_provider_lists_the_known_ones_and_the_closest():
    with pytest.raises(ResolveError) as e:
        target("openruoter/some-model", cfg())
    msg = str(e.value)
    assert "did you mean openrouter" in msg
    assert "anthropic" in msg and "ollama" in msg and "groq" in msg


def test_a_catalog_id_containing_a_slash_needs_no_provider():
    t = target("moonshotai/kimi-k2-instruct-0905", cfg())
    assert (t.provider_name, t.model) == ("groq", "moonshotai/kimi-k2-instruct-0905")


@pytest.mark.parametrize(
    ("spec", "provider"),
    [
        ("claude-sonnet-4-5", "anthropic"),
        ("claude-haiku-4-5-20251001", "anthropic"),
        ("gemini-3.1-pro-preview", "gemini"),
        ("deepseek-v4-pro", "deepseek"),
        ("qwen3-coder:30b", "ollama"),
    ],
)
def test_a_bare_id_goes_to_the_catalogs_provider(spec, provider):
    t = target(spec, cfg())
    assert (t.provider_name, t.model) == (provider, spec)


@pytest.mark.parametrize(
    ("spec", "provider"),
    [
        ("claude-future-9", "anthropic"),
        ("gemini-9-ultra", "gemini"),
        ("gpt-7", "openai"),
        ("o3-mega", "openai"),
        ("o4-turbo", "openai"),
        ("super-codex-max", "openai"),
        ("deepseek-v9", "deepseek"),
    ],
)
def test_a_bare_id_not_in_the_catalog_goes_by_naming_convention(spec, provider):
    assert target(spec, cfg()).provider_name == provider


def test_an_unknown_bare_id_says_to_write_provider_slash_model():
    with pytest.raises(ResolveError, match="provider/model"):
        target("wizardcoder-xl", cfg())


def test_a_provider_name_alone_says_a_model_is_missing():
    with pytest.raises(ResolveError, match="ollama/MODEL"):
        target("ollama", cfg())


def test_scripted_spec_plays_that_file_one_instance_per_path(tmp_path):
    script = tmp_path / "demo.json"
    script.write_text(json.dumps({"turns": [{"text": "hello"}]}))
    a = resolve(f"scripted/{script}", cfg())
    b = resolve(f"scripted/{script}", cfg())
    assert isinstance(bare(a.provider), ScriptedProvider)
    assert bare(a.provider) is bare(b.provider)
    assert (a.provider_name, a.model) == ("scripted", str(script))


# ------------------------------------------------------------------------------- keys


def test_a_missing_key_names_the_variable():
    with pytest.raises(MissingKeyError, match="ANTHROPIC_API_KEY"):
        resolve("anthropic/claude-opus-5", cfg())
    with pytest.raises(MissingKeyError, match="GEMINI_API_KEY or GOOGLE_API_KEY"):
        resolve("gemini/gemini-3.5-flash", cfg())


def test_the_key_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-env")
    r = resolve("anthropic/claude-opus-5", cfg())
    assert bare(r.provider).kw["api_key"] == "sk-ant-env"


def test_config_api_key_env_names_another_variable(monkeypatch):
    config = cfg(providers={"groq": {"api_key_env": "WORK_GROQ"}})
    with pytest.raises(MissingKeyError, match="WORK_GROQ"):
        resolve("groq/qwen/qwen3-32b", config)
    monkeypatch.setenv("WORK_GROQ", "gsk-work")
    adapter = bare(resolve("groq/qwen/qwen3-32b", config).provider)
    assert adapter.kw["api_key"] == "gsk-work" and adapter.endpoint.key_env == "WORK_GROQ"


def test_local_providers_need_no_key():
    r = resolve("ollama/qwen3-coder", cfg())
    assert bare(r.provider).kw["api_key"] is None
    assert bare(r.provider).kw["base_url"] == "http://127.0.0.1:11434"


def test_presets_pass_their_reasoning_history_and_key_variable(monkeypatch):
    monkeypatch.setenv("DEEPSEEK_API_KEY", "ds-1")
    adapter = bare(resolve("deepseek/deepseek-v4-pro", cfg()).provider)
    assert adapter.kw["reasoning_history"] in ("inline", "field", "strip")
    assert adapter.endpoint.key_env == "DEEPSEEK_API_KEY"
    assert "reasoning_history" not in bare(resolve("ollama/x", cfg()).provider).kw


def test_a_new_provider_without_a_type_is_a_config_error():
    with pytest.raises(ConfigError, match=r"providers\.box\.type"):
        resolve("box/m", cfg(providers={"box": {"base_url": "https://box.example"}}))


# ------------------------------------------------------------------------- wrapping


def test_the_provider_is_wrapped_in_timeouts_then_retry():
    r = resolve("ollama/qwen3-coder", cfg(first_chunk_timeout=7, idle_timeout=3))
    assert isinstance(r.provider, RetryingProvider)
    assert isinstance(r.provider.inner, TimeoutProvider)
    assert (r.provider.inner.first_chunk, r.provider.inner.idle) == (7, 3)
    assert isinstance(r.provider.inner.inner, FakeAdapter)


def test_base_urls_are_checked_again_when_a_provider_is_built():
    name = "test-http-remote"
    registry.register(name, FakeAdapter, [], type="openai-compatible", base_url="http://x.example")
    try:
        with pytest.raises(ConfigError, match=rf"providers\.{name}\.base_url"):
            resolve(f"{name}/m", cfg())
    finally:
        registry.unregister(name)


def test_a_third_party_provider_is_built_with_its_factory_and_key(monkeypatch):
    name = "test-third-party"
    registry.register(name, FakeAdapter, ["THIRD_PARTY_KEY"])
    try:
        monkeypatch.setenv("THIRD_PARTY_KEY", "tp-1")
        adapter = bare(resolve(f"{name}/m", cfg()).provider)
        assert adapter.name == name and adapter.kw["api_key"] == "tp-1"
    finally:
        registry.unregister(name)


# -------------------------------------------------------------------------------- roles


def test_a_role_resolves_through_the_roles_table():
    r = resolve("worker", cfg(roles={"worker": "ollama/qwen3-coder"}))
    assert (r.role, r.spec) == ("worker", "ollama/qwen3-coder")


@pytest.mark.parametrize("role", routing.ROLES)
def test_an_unset_built_in_role_is_the_main_model(role):
    r = resolve(role, cfg(model="ollama/devstral"))
    assert (r.role, r.spec) == (role, "ollama/devstral")


@pytest.mark.parametrize("role", routing.ROLES)
def test_an_unset_role_follows_the_model_in_use_when_one_is_given(role):
    r = resolve(role, cfg(model="ollama/devstral"), main="llamacpp/local")
    assert (r.role, r.spec) == (role, "llamacpp/local")


def test_a_set_role_keeps_its_model_whatever_the_model_in_use():
    r = resolve("compact", cfg(roles={"compact": "ollama/qwen3:8b"}), main="llamacpp/local")
    assert r.spec == "ollama/qwen3:8b"


@pytest.mark.parametrize("role", ["opus", "sonnet", "haiku"])
def test_claude_roles_default_to_current_claude_models(monkeypatch, role):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant")
    r = resolve(role, cfg())
    assert r.provider_name == "anthropic" and r.model.startswith(f"claude-{role}-")
    assert r.role == role


def test_a_config_role_of_your_own_is_a_role():
    r = resolve("review", cfg(roles={"review": "ollama/gpt-oss:20b"}))
    assert (r.role, r.model) == ("review", "gpt-oss:20b")


def test_a_role_naming_a_role_is_an_error_that_says_so():
    config = Config.model_construct(roles={"worker": "explore"}, model="", fallbacks={})
    with pytest.raises(ResolveError, match="names the role 'explore'.*not another role"):
        target("worker", config)


def test_a_main_model_naming_an_unset_role_says_so():
    with pytest.raises(ResolveError, match="not set"):
        resolve("", cfg(model="worker"))


# ---------------------------------------------------------------------------- fallbacks


def test_fallbacks_for_the_role_wrap_the_provider(monkeypatch):
    monkeypatch.setenv("GROQ_API_KEY", "gsk")
    config = cfg(
        roles={"worker": "groq/qwen/qwen3-32b"},
        fallbacks={"worker": ["ollama/qwen3-coder"], "groq/qwen/qwen3-32b": ["ollama/never"]},
    )
    r = resolve("worker", config)
    assert isinstance(r.provider, FallbackProvider)
    assert [c.model for c in r.provider.candidates] == ["qwen/qwen3-32b", "qwen3-coder"]
    assert r.fallbacks == ("ollama/qwen3-coder",)


def test_without_role_fallbacks_the_specs_fallbacks_apply():
    config = cfg(fallbacks={"ollama/qwen3-coder": ["ollama/devstral"]})
    r = resolve("ollama/qwen3-coder", config)
    assert r.fallbacks == ("ollama/devstral",)


def test_a_fallback_chain_skips_a_candidate_without_a_key():
    config = cfg(fallbacks={"ollama/qwen3-coder": ["groq/qwen/qwen3-32b", "ollama/devstral"]})
    r = resolve("ollama/qwen3-coder", config)
    assert r.fallbacks == ("ollama/devstral",)
    assert len(r.skipped) == 1 and "GROQ_API_KEY" in r.skipped[0]


def test_no_usable_fallback_leaves_the_plain_provider():
    config = cfg(fallbacks={"ollama/qwen3-coder": ["groq/qwen/qwen3-32b"]})
    assert isinstance(resolve("ollama/qwen3-coder", config).provider, RetryingProvider)


async def test_a_failing_primary_falls_back_to_the_next_candidate(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"turns": [{"error": {"status": 503, "message": "down"}}]}))
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"turns": [{"text": "from the fallback"}]}))
    config = cfg(fallbacks={f"scripted/{bad}": [f"scripted/{good}"]})
    r = resolve(f"scripted/{bad}", config)
    req = Request(model=r.model, messages=[Message(role="user", blocks=[Block.text_block("hi")])])
    events = [ev async for ev in r.provider.stream(req)]
    assert any(ev.type is EventType.NOTICE for ev in events)
    done = events[-1]
    assert done.type is EventType.DONE and done.message.blocks[0].text == "from the fallback"


# ---------------------------------------------------------------------- saving /routing


def test_save_routing_then_reload_keeps_unrelated_keys(tmp_path):
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        'model = "ollama/devstral"\n[tui]\ntheme = "dark"\n'
        '[providers.groq]\napi_key_env = "WORK_GROQ"\n[roles]\nreview = "ollama/x"\n'
    )
    routing.save_routing(
        {"worker": "ollama/qwen3-coder", "explore": "groq/qwen/qwen3-32b"},
        {"worker": ["ollama/devstral"]},
    )
    data = tomllib.loads(path.read_text())  # still valid TOML
    assert data["tui"] == {"theme": "dark"}
    assert data["providers"] == {"groq": {"api_key_env": "WORK_GROQ"}}
    config = load_config(tmp_path)
    assert config.roles == {
        "review": "ollama/x",
        "worker": "ollama/qwen3-coder",
        "explore": "groq/qwen/qwen3-32b",
    }
    assert config.fallbacks == {"worker": ["ollama/devstral"]}


def test_save_routing_unsets_a_role_given_as_empty(tmp_path):
    routing.save_routing({"worker": "ollama/qwen3-coder", "explore": "ollama/x"})
    routing.save_routing({"worker": ""})
    assert load_config(tmp_path).roles == {"explore": "ollama/x"}


def test_save_routing_updates_the_live_config():
    config = cfg(roles={"explore": "ollama/x"})
    routing.save_routing({"worker": "ollama/qwen3-coder"}, config=config)
    assert resolve("worker", config).spec == "ollama/qwen3-coder"
    assert config.roles["explore"] == "ollama/x"


def test_save_routing_rejects_a_role_naming_a_role():
    with pytest.raises(ConfigError, match="names the role"):
        routing.save_routing({"worker": "smart"})
    assert not user_config_path().exists()


def test_concurrent_resolves_during_saves_see_old_or_new_roles_never_a_mix():
    old = {"roles": {"worker": "ollama/old-w"}, "fallbacks": {"worker": ["ollama/old-fb"]}}
    new = {"roles": {"worker": "ollama/new-w"}, "fallbacks": {"worker": ["ollama/new-fb"]}}
    config = cfg(**old)
    stop = threading.Event()
    seen: list[tuple[str, ...]] = []
    errors: list[BaseException] = []

    def resolver() -> None:
        try:
            while not stop.is_set():
                r = resolve("worker", config)
                seen.append((r.model, *(c.model for c in r.provider.candidates[1:])))
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=resolver) for _ in range(3)]
    for t in threads:
        t.start()
    for i in range(200):
        config.set_routing(**(new if i % 2 else old))
    stop.set()
    for t in threads:
        t.join()
    assert not errors
    assert seen and set(seen) <= {("old-w", "old-fb"), ("new-w", "new-fb")}


# -------------------------------------------------------------------------- plan / probe


def test_plan_reports_the_route_and_unusable_fallbacks_without_building():
    config = cfg(roles={"worker": "ollama/qwen3-coder"}, fallbacks={"worker": ["groq/x"]})
    p = routing.plan("worker", config)
    assert p.target.spec == "ollama/qwen3-coder" and p.error == ""
    assert p.fallbacks[0][0] == "groq/x" and "GROQ_API_KEY" in p.fallbacks[0][1]
    assert FakeAdapter.built == []


def test_local_servers_are_probed_on_loopback(loopback):
    config = cfg(providers={"box": {"type": "openai-compatible", "base_url": f"{loopback.url}/v1"}})
    assert "box" in routing.reachable_local_providers(config)


# ------------------------------------------------------------------------ suggest_routing


def priced(**prices: tuple[float, float]) -> Config:
    return cfg(
        providers={"p": {"type": "openai-compatible", "base_url": "https://p.example"}},
        models={f"p/{k}": {"input_price": i, "output_price": o} for k, (i, o) in prices.items()},
    )


def test_suggestions_rank_local_then_subscription_then_price():
    config = cfg(
        providers={"p": {"type": "openai-compatible", "base_url": "https://p.example"}},
        models={
            "p/plan-model": {"subscription": True, "input_price": 50, "output_price": 50},
            "p/cheap": {"input_price": 0.1, "output_price": 0.1},
        },
    )
    s = suggest_routing(["p/cheap", "p/plan-model", "ollama/qwen3-coder"], config=config)
    assert [r.spec for r in s.ranked] == ["ollama/qwen3-coder", "p/plan-model", "p/cheap"]


def test_price_is_weighted_towards_input():
    # a: 0.75*1 + 0.25*8 = 2.75; b: 0.75*3 + 0.25*3 = 3.0 (an even split would put b first)
    s = suggest_routing(["p/b", "p/a"], config=priced(a=(1, 8), b=(3, 3)))
    assert [r.spec for r in s.ranked] == ["p/a", "p/b"]


def test_unpriced_models_are_placed_by_a_guess_from_their_name():
    config = priced(mid=(2, 2))
    s = suggest_routing(["p/acme-opus-x", "p/mid", "p/acme-mini"], config=config)
    assert [r.spec for r in s.ranked] == ["p/acme-mini", "p/mid", "p/acme-opus-x"]
    assert s.ranked[0].guessed


def test_tool_less_models_are_skipped():
    s = suggest_routing(["ollama/gemma3:4b", "ollama/qwen3-coder"], config=cfg())
    assert "ollama/gemma3:4b" not in {r.spec for r in s.ranked}
    assert any("gemma3" in x for x in s.skipped)


def test_local_models_under_7b_are_never_worker():
    s = suggest_routing(["ollama/llama3.2:3b", "p/a"], config=priced(a=(1, 1)))
    assert s.roles["explore"] == "ollama/llama3.2:3b"
    assert s.roles["worker"] == "p/a"


def test_measured_pass_rate_outranks_price_for_worker_and_explore():
    config = priced(cheap=(0.1, 0.1), mid=(1, 1), dear=(10, 10))
    ev = {
        "p/cheap": Evidence(pass_rate=0.3, runs=10),
        "p/mid": Evidence(pass_rate=0.9, runs=10, cost_per_pass=0.02),
        "p/dear": Evidence(pass_rate=1.0, runs=10),
    }
    s = suggest_routing(["p/cheap", "p/mid", "p/dear"], config=config, evidence=ev)
    assert s.roles["worker"] == s.roles["explore"] == "p/mid"
    assert s.roles["smart"] == "p/dear"
    assert "bench 9/10 passed" in s.reasons["worker"]


def test_without_evidence_smart_is_the_main_model_when_it_is_a_candidate():
    config = priced(a=(1, 1), b=(5, 5))
    config.set_routing(model="p/a")
    assert suggest_routing(["p/a", "p/b"], config=config).roles["smart"] == "p/a"


def test_evidence_is_aggregated_from_bench_rows_and_loaded_from_the_state_dir():
    rows = [
        {"model": "p/a", "passed": True, "cost": 0.02},
        {"model": "p/a", "passed": False, "cost": 0.01},
        {"model": "p/b", "passed": True, "cost": None},
    ]
    ev = Evidence.from_results(rows)
    assert ev["p/a"] == Evidence(pass_rate=0.5, runs=2, cost_per_pass=pytest.approx(0.03))
    assert ev["p/b"].cost_per_pass is None
    from larik.config import bench_results_path

    path = bench_results_path()
    path.parent.mkdir(parents=True)
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\nnot json\n")
    assert routing.load_evidence() == ev


def test_evidence_recorded_under_a_bare_id_counts_for_the_canonical_spec():
    config = priced(a=(1, 1))
    ev = {
        "qwen3-coder:30b": Evidence(pass_rate=1.0, runs=2),
        "ollama/qwen3-coder:30b": Evidence(pass_rate=0.5, runs=2),
    }
    s = suggest_routing(["ollama/qwen3-coder:30b", "p/a"], config=config, evidence=ev)
    merged = next(r for r in s.ranked if r.spec == "ollama/qwen3-coder:30b").evidence
    assert merged == Evidence(pass_rate=0.75, runs=4)


def test_benched_models_are_candidates_when_their_provider_is_usable():
    ev = {"ollama/homebrew-coder:14b": Evidence(pass_rate=1.0, runs=3)}
    s = suggest_routing(config=cfg(), evidence=ev, reachable={"ollama"})
    assert s.roles["worker"] == "ollama/homebrew-coder:14b"


def test_ollama_host_is_honoured_when_no_base_url_is_configured(monkeypatch):
    from larik.config import Config
    from larik.routing import build_provider

    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:11500")
    p = build_provider("ollama", "qwen3", Config())
    assert p.kw["base_url"] == "http://127.0.0.1:11500"


def test_api_key_env_from_config_reaches_every_adapter_kind(monkeypatch):
    from larik.config import Config, ProviderConfig
    from larik.routing import build_provider

    monkeypatch.setenv("MY_CLAUDE_KEY", "k")
    cfg = Config(providers={"anthropic": ProviderConfig(api_key_env="MY_CLAUDE_KEY")})
    p = build_provider("anthropic", "claude-sonnet-4-5", cfg)
    assert p.endpoint.key_env == "MY_CLAUDE_KEY" and p.kw["api_key"] == "k"


# ------------------------------------------------------------------ one fact, one place


def test_the_role_policy_is_data_that_suggest_routing_walks(monkeypatch):
    from larik.routing import suggest

    assert [p.role for p in routing.ROLE_POLICIES] == ["worker", "explore", "smart", "compact"]
    table = (*routing.ROLE_POLICIES, routing.RolePolicy("review", strongest=True))
    monkeypatch.setattr(suggest, "ROLE_POLICIES", table)
    s = suggest_routing(["ollama/qwen3-coder:30b", "openai/gpt-5-mini"], config=cfg())
    assert list(s.roles) == ["worker", "explore", "smart", "compact", "review"]


def test_bench_and_routing_read_one_bench_results_path(monkeypatch, tmp_path):
    import larik.config
    from larik.commands import bench as bench_command

    path = tmp_path / "elsewhere.jsonl"
    path.write_text(json.dumps({"model": "p/a", "passed": True, "cost": 0.1}) + "\n")
    monkeypatch.setattr(larik.config, "bench_results_path", lambda: path)
    assert routing.load_evidence()["p/a"].runs == 1
    printed: list[str] = []

    class Console:
        def print(self, *a, **k):
            printed.append(" ".join(map(str, a)))

    bench_command._report(Console())  # the row is too thin for the report, but it is read there
    assert printed and str(path) in printed[0]


async def test_one_discovery_tells_who_is_up_and_what_they_serve(loopback, monkeypatch):
    from larik.routing import local
    from tests.loopback import Reply

    loopback.route("/api/tags", Reply(body='{"models": [{"name": "qwen3:8b"}]}'))
    monkeypatch.setenv("OLLAMA_HOST", loopback.url)
    config = cfg(providers={"box": {"type": "openai-compatible", "base_url": f"{loopback.url}/v9"}})
    found = await local.discover(config)
    assert [m.spec for m in found] == ["ollama/qwen3:8b"]
    seen = await asyncio.to_thread(local.scan, config)
    assert {"ollama", "box"} <= seen.up  # box answered (a 500 on its list): up, lists nothing
    assert [m.spec for m in seen.models] == ["ollama/qwen3:8b"]


def test_the_routing_package_keeps_every_public_name_and_its_light_parts_stay_light():
    import pkgutil
    import subprocess
    import sys

    parts = {m.name for m in pkgutil.iter_modules(routing.__path__)}
    assert not parts & set(routing.__all__), "a submodule would shadow a public name"
    for name in routing.__all__:
        assert getattr(routing, name) is not None, name
    probe = (
        "import sys, larik.routing.local\n"
        "print(','.join(m for m in ('pydantic', 'larik.config', 'httpx2') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_a_compact_pick_without_a_large_window_says_so():
    """issue 25 item 25: "cheapest with a large window" was said of an 8k model."""
    from larik.config import Config, ModelOverride
    from larik.routing import suggest_routing

    specs = ["ollama/qwen2.5-coder:1.5b", "ollama/qwen2.5-coder:7b"]
    config = Config(models={s: ModelOverride(context_window=8192) for s in specs})
    got = suggest_routing(specs, config=config, evidence={})
    assert got.roles["compact"] == "ollama/qwen2.5-coder:7b"
    assert got.reasons["compact"].startswith("cheapest (none has a 128k window)")
    assert got.roles["smart"] == "ollama/qwen2.5-coder:7b"  # of equal prices, the larger
    assert got.reasons["smart"].startswith("largest model (7B; a guess at the strongest")


# ------------------------------------------------ issue 43 item 6: the truth about local models


def test_a_measured_window_beats_the_catalog_and_an_unknown_one_is_not_128k():
    """An 8k window loaded by the server was called "at least a 128k window" (the catalog's
    default for a model it does not know)."""
    from larik.config import Config
    from larik.routing import suggest_routing

    spec = "ollama/qwen2.5-coder:0.5b"
    measured = suggest_routing([spec], config=Config(), evidence={}, windows={spec: 8192})
    assert measured.reasons["compact"].startswith("cheapest (none has a 128k window)")
    assert "8k window" in measured.reasons["compact"]
    unknown = suggest_routing(["ollama/some-model"], config=Config(), evidence={})
    assert unknown.reasons["compact"].startswith("cheapest (none is known to have a 128k")


def test_the_scripted_test_double_is_never_suggested(tmp_path):
    from larik.config import Config
    from larik.routing import suggest_routing

    script = tmp_path / "s.json"
    script.write_text("[]")
    specs = [f"scripted/{script}", "ollama/qwen2.5-coder:7b"]
    got = suggest_routing(specs, config=Config(), evidence={})
    picked = [*got.roles.values(), *(f for fbs in got.fallbacks.values() for f in fbs)]
    assert picked and not any(p.startswith("scripted/") for p in picked), picked
    assert any(s.startswith("scripted/") for s in got.skipped)


def test_largest_is_said_only_of_known_sizes():
    """A 0.5B was "largest (a guess at the strongest)" beside a model of unknown size."""
    from larik.config import Config
    from larik.routing import suggest_routing

    got = suggest_routing(
        ["ollama/qwen2.5-coder:0.5b", "ollama/mystery"], config=Config(), evidence={}
    )
    assert "largest" not in got.reasons["smart"], got.reasons
    one = suggest_routing(["ollama/qwen2.5-coder:0.5b"], config=Config(), evidence={})
    assert one.reasons["smart"].startswith("the only model"), one.reasons
