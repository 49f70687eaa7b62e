"""Who may fetch what: web_fetch is asked for per domain ("allow always" remembers the domain),
deny rules name domains, plan mode asks as ask mode does, print mode says which rule to add, and
a project cannot open the private network for itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from larik.agent.events import Approval
from larik.config import Config, PermissionsConfig, WebFetchConfig, load_config, user_config_path
from tests.loopback import Reply
from tests.patience import WAIT

from .conftest import approver, run, script


def cfg(mode="ask", allow=(), deny=()) -> Config:
    return Config(
        permissions=PermissionsConfig(mode=mode, allow=list(allow), deny=list(deny)),
        web_fetch=WebFetchConfig(allow_private=["127.0.0.1", "::1"], timeout=WAIT),
    )


def fetches(*urls: str):
    calls = [{"name": "web_fetch", "input": {"url": u}} for u in urls]
    return script({"tool_calls": calls}, {"text": "done"})


def page(server, path: str, text: str) -> str:
    server.route(path, Reply(body=text, content_type="text/plain"))
    return f"http://127.0.0.1:{server.port}{path}"


async def test_ask_mode_asks_once_per_domain_when_the_user_allows_it_always(make_agent, loopback):
    a, b = page(loopback, "/a", "first"), page(loopback, "/b", "second")
    other = f"http://localhost:{loopback.port}/a"
    ask = approver(Approval(allow=True, always=True), Approval(allow=False))
    agent = await make_agent(
        fetches(a, b, other), config=cfg(), permission_mode="ask", approver=ask
    )
    await run(agent)
    res = agent.messages[2].blocks
    assert [q.tool_name for q in ask.asked] == ["web_fetch", "web_fetch"]
    assert ask.asked[0].always == "fetches from 127.0.0.1"
    assert ask.asked[1].always == "fetches from localhost"  # another domain: asked again
    assert "first" in res[0].content and "second" in res[1].content
    assert res[2].is_error and "declined" in res[2].content
    assert sorted(r.path for r in loopback.requests) == ["/a", "/b"]  # reads run together


@pytest.mark.parametrize("mode", ["edits", "plan"])
async def test_edits_and_plan_mode_ask_for_a_fetch_too(make_agent, loopback, mode):
    url = page(loopback, "/p", "docs")
    ask = approver(Approval(allow=True))
    agent = await make_agent(fetches(url), config=cfg(mode), permission_mode=mode, approver=ask)
    await run(agent)
    assert [q.tool_name for q in ask.asked] == ["web_fetch"]
    assert "docs" in agent.messages[2].blocks[0].content


async def test_a_deny_rule_names_a_domain_and_wins_even_in_yolo(make_agent, loopback):
    url = page(loopback, "/p", "docs")
    config = cfg("yolo", deny=["web_fetch: 127.0.0.*"])
    agent = await make_agent(fetches(url), config=config, permission_mode="yolo")
    await run(agent)
    res = agent.messages[2].blocks[0]
    assert res.is_error and "web_fetch: 127.0.0.*" in res.content
    assert loopback.requests == []


async def test_an_allow_rule_for_the_domain_fetches_without_asking(make_agent, loopback):
    url = page(loopback, "/p", "docs")
    ask = approver()
    config = cfg(allow=["web_fetch: 127.0.0.1"])
    agent = await make_agent(fetches(url), config=config, permission_mode="ask", approver=ask)
    await run(agent)
    assert ask.asked == [] and "docs" in agent.messages[2].blocks[0].content


# -- print mode: a real CLI run on a scripted model -------------------------------------------
def _user_config(text: str) -> None:
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _print_run(tmp_path: Path, monkeypatch, url: str) -> list[dict]:
    from tests.test_printmode import larik, write_script

    root = tmp_path / "proj"
    root.mkdir()
    monkeypatch.chdir(root)
    model = write_script(
        tmp_path / "s.json",
        {"tool_calls": [{"name": "web_fetch", "input": {"url": url}}]},
        {"text": "read it"},
    )
    code, out, err = larik("-p", "read the docs", "-m", model, "--output-format", "stream-json")
    assert code == 0, err
    return [json.loads(x) for x in out.splitlines()]


def test_print_mode_denies_an_unlisted_domain_and_names_the_rule_to_add(
    tmp_path, monkeypatch, loopback
):
    url = page(loopback, "/docs", "the docs")
    _user_config('[web_fetch]\nallow_private = ["127.0.0.1"]\n')
    events = _print_run(tmp_path, monkeypatch, url)
    end = [e for e in events if e["type"] == "tool_end"][0]
    assert end["is_error"] and "'web_fetch: 127.0.0.1'" in end["text"]
    assert loopback.requests == []


def test_print_mode_fetches_a_domain_an_allow_rule_lists(tmp_path, monkeypatch, loopback):
    url = page(loopback, "/docs", "the docs")
    _user_config(
        '[permissions]\nallow = ["web_fetch: 127.0.0.1"]\n'
        '[web_fetch]\nallow_private = ["127.0.0.1"]\n'
    )
    events = _print_run(tmp_path, monkeypatch, url)
    end = [e for e in events if e["type"] == "tool_end"][0]
    assert not end["is_error"] and end["text"].endswith("the docs")


# -- trust ------------------------------------------------------------------------------------
def test_an_untrusted_project_cannot_open_private_addresses(tmp_path):
    (tmp_path / ".git").mkdir()
    cfg_file = tmp_path / ".larik" / "config.toml"
    cfg_file.parent.mkdir()
    cfg_file.write_text('[web_fetch]\nallow_private = ["169.254.169.254"]\ntimeout = 5\n')
    config = load_config(tmp_path)
    assert config.web_fetch.allow_private == [] and config.web_fetch.timeout == 5
    assert config.project_trust is not None and not config.project_trust.trusted
    trusted = load_config(tmp_path, trust_project=True)
    assert trusted.web_fetch.allow_private == ["169.254.169.254"]


async def test_an_address_web_fetch_will_not_reach_is_refused_before_the_user_is_asked(
    make_agent, loopback
):
    """The user was asked to allow a fetch of 127.0.0.1, said yes, and only then was it
    refused (a loopback address, not in allow_private): the answer counted for nothing."""
    url = page(loopback, "/p", "docs")
    ask = approver(Approval(allow=True))
    config = cfg()
    config.web_fetch = WebFetchConfig(allow_private=[], timeout=WAIT)
    agent = await make_agent(fetches(url), config=config, permission_mode="ask", approver=ask)
    await run(agent)
    res = agent.messages[2].blocks[0]
    assert ask.asked == []
    assert res.is_error and "a loopback address" in res.content and "allow_private" in res.content
    assert loopback.requests == []


async def test_allow_always_covers_a_fetch_that_was_waiting_to_ask_as_the_tui_answers(
    make_agent, loopback
):
    """Fetches run together; a user takes time to answer. Both questions were put before the
    first answer's "allow always" was recorded, so the second dialog asked for a domain the
    user had just allowed always."""
    import asyncio

    a, b = page(loopback, "/a", "first"), page(loopback, "/b", "second")
    asked = []

    async def slow_user(req):
        asked.append(req)
        await asyncio.sleep(0.05)
        return Approval(allow=True, always=True)

    agent = await make_agent(fetches(a, b), config=cfg(), permission_mode="ask", approver=slow_user)
    await run(agent)
    assert len(asked) == 1
    assert [r.is_error for r in agent.messages[2].blocks] == [False, False]
