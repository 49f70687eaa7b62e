"""Model profiles: a small model gets fewer tools and the short prompt; [models] sets tools,
max_turns and temperature; subagents get their own, lower turn limit."""

from __future__ import annotations

import pytest

from larik.config import Config, ConfigError, ModelOverride
from larik.llm.catalog import lookup
from larik.llm.types import StopReason

from .conftest import E, Roles, of, resolved, run, script

pytestmark = pytest.mark.usefixtures("small_loop")  # the small profile's loop

LOOP = {"tool_calls": [{"name": "glob", "input": {"pattern": "*"}}]}


def named(model: str, *turns):
    p = script(*turns)
    p.model_id = model
    return p


def resolver_for(p):
    return lambda spec: resolved(p, model=p.model_id)


async def test_a_small_model_gets_no_task_no_glob_no_web_fetch_and_the_short_prompt(make_agent):
    p = named("qwen2.5-coder-0.5b-instruct", {"text": "hi"})
    agent = await make_agent(p, resolver=resolver_for(p))
    events = await run(agent)
    sent = p.requests[0]
    names = [t.name for t in sent.tools]
    assert names == ["answer", "read_file", "write_file", "edit_file", "grep", "bash"]
    system = sent.system[0]
    assert "copy old_string exactly" in system and "Never repeat the same call" in system
    assert len(system) < 1000
    notes = [n.text for n in of(events, E.NOTICE)]
    assert any("is a small model (0.5B parameters)" in n for n in notes)
    assert sent.max_tokens == 2048  # a runaway reply ends, not the wall clock
    bash = next(t for t in sent.tools if t.name == "bash")  # no jobs: no background offered
    assert "background" not in bash.input_schema["properties"]
    assert "command" in bash.input_schema["properties"]


async def test_a_large_model_keeps_every_tool_and_the_full_prompt(make_agent):
    p = named("qwen2.5-coder-32b-instruct", {"text": "hi"})
    agent = await make_agent(p, resolver=resolver_for(p))
    await run(agent)
    assert {"task", "web_fetch"} <= {t.name for t in p.requests[0].tools}
    bash = next(t for t in p.requests[0].tools if t.name == "bash")
    assert "background" in bash.input_schema["properties"]
    assert "copy old_string exactly" not in p.requests[0].system[0]
    assert p.requests[0].max_tokens == 0  # the adapter's default


async def test_a_small_model_calling_task_anyway_gets_an_unknown_tool_error(make_agent):
    call = {"tool_calls": [{"name": "task", "input": {"role": "worker", "prompt": "x"}}]}
    p = named("tiny-1b", call, {"text": "ok"})
    agent = await make_agent(p, resolver=resolver_for(p))
    await run(agent)
    result = agent.messages[2].blocks[0]
    assert result.is_error and "unknown tool 'task'" in result.content


async def test_the_config_names_the_tools_for_a_model_in_its_order(make_agent):
    p = named("big-model", {"text": "hi"})
    cfg = Config(models={"scripted/big-model": ModelOverride(tools=["bash", "read_file"])})
    agent = await make_agent(p, resolver=resolver_for(p), config=cfg)
    events = await run(agent)
    assert [t.name for t in p.requests[0].tools] == ["bash", "read_file"]
    assert "Your tools: bash, read_file." in p.requests[0].system[0]
    assert any("tools from the config" in n.text for n in of(events, E.NOTICE))
    assert lookup("big-model", "scripted", cfg).tools is True  # a list means it takes tools


def test_an_unknown_tool_in_the_list_is_a_config_error():
    with pytest.raises(ValueError, match="unknown tool 'shell'"):
        ModelOverride(tools=["read_file", "shell"])
    from larik.config.files import _validate

    with pytest.raises(ConfigError, match="models.m.tools"):
        _validate({"models": {"m": {"tools": ["rm"]}}}, __import__("pathlib").Path("c.toml"))


async def test_a_models_max_turns_lowers_the_limit_and_its_temperature_is_sent(make_agent):
    p = named("m", *[LOOP] * 10)
    cfg = Config(models={"m": ModelOverride(max_turns=2, temperature=0.1)})
    agent = await make_agent(p, resolver=resolver_for(p), config=cfg, max_turns=50)
    end = of(await run(agent), E.TURN_END)[0]
    assert end.stop_reason is StopReason.MAX_TURNS and len(p.requests) == 2
    assert p.requests[0].temperature == 0.1
    cfg = Config(models={"m": ModelOverride(max_turns=500)})
    agent = await make_agent(named("m"), resolver=resolver_for(p), config=cfg, max_turns=7)
    assert agent.max_turns == 7  # never raised


async def test_a_subagent_gets_its_own_lower_turn_limit(make_agent):
    worker = script(
        *[{"tool_calls": [{"name": "glob", "input": {"pattern": f"{i}*"}}]} for i in range(40)]
    )
    worker.name, worker.model_id = "mid", "builder"
    main = script(
        {"tool_calls": [{"name": "task", "input": {"role": "worker", "prompt": "go"}}]},
        {"text": "ok"},
    )
    cfg = Config(subagent_max_turns=4)
    agent = await make_agent(main, resolver=Roles(main, worker=worker), config=cfg)
    await run(agent)
    assert len(worker.requests) == 4
    assert "max-turns limit" in agent.messages[2].blocks[0].content
    assert Config().subagent_max_turns == 30


async def test_a_small_model_is_shown_the_projects_files(make_agent, project):
    for i in range(45):
        (project / f"m{i:02}.py").write_text("")
    p = named("coder-1.5b", {"text": "hi"})
    agent = await make_agent(p, resolver=resolver_for(p))
    await run(agent)
    system = p.requests[0].system[0]
    assert "The project's files:\ncalc.py\nm00.py" in system and "(and 6 more)" in system
    big = named("coder-70b", {"text": "hi"})
    agent = await make_agent(big, resolver=resolver_for(big))
    await run(agent)
    assert "The project's files" not in big.requests[0].system[0]


class SizedServer:
    """A local server that says how large its model is (llama.cpp's meta.n_params)."""

    name = "scripted"

    def __init__(self, params_b, *turns):
        self.inner, self.params_b = script(*turns), params_b

    def stream(self, request):
        return self.inner.stream(request)

    async def context_window(self, model):
        return 8192

    async def supports_tools(self, model):
        return True

    async def model_params(self, model):
        return self.params_b


@pytest.mark.parametrize(("params_b", "small"), [(0.63, True), (32.0, False), (None, False)])
async def test_a_model_the_server_reports_as_small_gets_the_small_profile(
    make_agent, params_b, small
):
    p = SizedServer(params_b, {"text": "hi"})
    agent = await make_agent(p, resolver=lambda spec: resolved(p, model="default"))
    await run(agent)
    names = [t.name for t in p.inner.requests[0].tools]
    assert ("task" not in names) is small


async def test_a_small_model_asks_for_constrained_tool_calls_unless_the_config_says_no(make_agent):
    small = named("qwen2.5-coder-0.5b-instruct", {"text": "hi"})
    await run(await make_agent(small, resolver=resolver_for(small)))
    assert small.requests[0].constrain_tools is True  # the adapter decides if the server can
    large = named("qwen2.5-coder-32b-instruct", {"text": "hi"})
    await run(await make_agent(large, resolver=resolver_for(large)))
    assert large.requests[0].constrain_tools is None
    off = named("qwen2.5-coder-0.5b-instruct", {"text": "hi"})
    cfg = Config(models={"qwen2.5-coder-0.5b-instruct": ModelOverride(constrained_tools=False)})
    await run(await make_agent(off, resolver=resolver_for(off), config=cfg))
    assert off.requests[0].constrain_tools is False


def test_every_argument_offered_only_beside_another_tool_names_real_tools_and_arguments():
    from larik.agent.tools import ALL_TOOLS, ARG_NEEDS, get_tool

    for (tool, arg), needed in ARG_NEEDS.items():
        assert tool in ALL_TOOLS and needed in ALL_TOOLS
        assert arg in get_tool(tool).args.model_fields


async def test_a_small_model_gets_the_small_sampling_and_the_config_replaces_each_value(
    make_agent,
):
    from larik.agent.profile import SMALL_SAMPLING

    small = named("qwen2.5-coder-1.5b-instruct", {"text": "hi"})
    await run(await make_agent(small, resolver=resolver_for(small)))
    sent = small.requests[0]
    assert (sent.temperature, sent.top_p, sent.repeat_penalty) == (
        SMALL_SAMPLING.temperature,
        SMALL_SAMPLING.top_p,
        SMALL_SAMPLING.repeat_penalty,
    )
    assert SMALL_SAMPLING.temperature is not None and SMALL_SAMPLING.repeat_penalty is not None
    tuned = named("qwen2.5-coder-1.5b-instruct", {"text": "hi"})
    cfg = Config(models={"qwen2.5-coder-1.5b-instruct": ModelOverride(top_p=0.8, temperature=0)})
    await run(await make_agent(tuned, resolver=resolver_for(tuned), config=cfg))
    sent = tuned.requests[0]
    assert (sent.temperature, sent.top_p) == (0, 0.8)
    assert sent.repeat_penalty == SMALL_SAMPLING.repeat_penalty  # not set: the profile's
    large = named("qwen2.5-coder-32b-instruct", {"text": "hi"})
    await run(await make_agent(large, resolver=resolver_for(large)))
    sent = large.requests[0]
    assert (sent.temperature, sent.top_p, sent.repeat_penalty) == (None, None, None)


async def test_a_small_models_sampling_reaches_a_real_server_in_the_request_body(
    make_agent, loopback
):
    from larik.llm.providers.openai_compat import OpenAICompatProvider
    from tests.llm.helpers import endpoint
    from tests.llm.providers.kits.openai_compat import chunk, reply
    from tests.loopback import Reply

    for probe in ("/props", "/v1/models", "/api/v0/models/qwen2.5-coder-1.5b-instruct"):
        loopback.route(probe, Reply(status=404, body="{}", content_type="application/json"))
    loopback.add(reply([chunk({"role": "assistant", "content": "hi"}), chunk(finish="stop")]))
    p = OpenAICompatProvider(endpoint("openai-compatible", f"{loopback.url}/v1"))
    cfg = Config(models={"qwen2.5-coder-1.5b-instruct": ModelOverride(top_p=0.9)})
    agent = await make_agent(
        p, resolver=lambda spec: resolved(p, model="qwen2.5-coder-1.5b-instruct"), config=cfg
    )
    await run(agent)
    body = next(r for r in loopback.requests if r.path.endswith("/chat/completions")).json()
    from larik.agent.profile import SMALL_SAMPLING as S

    got = (body.get("temperature"), body["top_p"], body.get("repeat_penalty"))
    assert got == (S.temperature, 0.9, S.repeat_penalty)
    assert body["max_tokens"] == 2048
