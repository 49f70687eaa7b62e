"""The copilot kind in the shapes Copilot serves (Chat Completions, Responses, Messages), its
/models listing, X-Initiator, and reasoning replayed per account (issue 27 item 4).
Copilot's backend is faked on loopback with the wire bodies of the three kits."""

from __future__ import annotations

import json
import time

import pytest

from larik.config import Config
from larik.llm.endpoint import resolve_endpoint
from larik.llm.errors import SignInError
from larik.llm.providers.copilot import CopilotProvider, initiator
from larik.llm.signin import copilot_models
from larik.llm.signin.copilot_models import Listing, parse, shape_for
from larik.llm.signin.store import AccountStore
from larik.llm.types import Block, Message, Request, Usage
from tests.llm.providers.conformance import drain, only_done
from tests.llm.providers.kits.anthropic import KIT as MESSAGES
from tests.llm.providers.kits.chatgpt import sign_in
from tests.llm.providers.kits.openai_compat import KIT as CHAT
from tests.llm.providers.kits.openai_responses import Stream
from tests.loopback import Reply

TOKEN = "tid=copilot-token-777;exp=1"
LISTING = {
    "data": [
        {
            "id": "claude-sonnet-4.5",
            "name": "Claude Sonnet 4.5",
            "supported_endpoints": ["/chat/completions", "/v1/messages"],
            "capabilities": {
                "family": "claude-sonnet-4.5",
                "limits": {"max_context_window_tokens": 144000, "max_output_tokens": 16000},
                "supports": {"tool_calls": True, "vision": True},
            },
            "model_picker_enabled": True,
        },
        {"id": "gpt-5.5", "supported_endpoints": ["/responses"], "capabilities": {}},
        {"id": "gpt-4.1", "supported_endpoints": ["/chat/completions"], "capabilities": {}},
        {"id": "grok-code-fast-1", "capabilities": {"supports": {"tool_calls": True}}},
        {"id": "old-model", "policy": {"state": "disabled"}},
        {"id": "../../etc/passwd"},
        {"id": 7},
        "not an object",
    ]
}


def provider(loopback, account_id: str = "github.com:1") -> CopilotProvider:
    sign_in("copilot", token=TOKEN, base_url=loopback.url, host="github.com", account_id=account_id)
    return CopilotProvider(resolve_endpoint("copilot", Config()))


def req(model: str, messages: list[Message] | None = None, **kw) -> Request:
    return Request(
        model=model, system=["Be brief."], messages=messages or [Message.user("hi")], **kw
    )


def test_each_model_goes_to_the_shape_copilot_serves_it_in():
    # OpenCode's rule, without a listing: GPT-5 and later on Responses, but gpt-5-mini
    assert shape_for("gpt-5.5") == "responses" and shape_for("gpt-5.1-codex") == "responses"
    assert shape_for("gpt-5-mini") == "chat" and shape_for("gpt-4.1") == "chat"
    assert shape_for("claude-sonnet-4.5") == "chat"  # unlisted: Chat Completions
    # the listing decides when it names endpoints
    assert shape_for("claude-sonnet-4.5", ["/chat/completions", "/v1/messages"]) == "anthropic"
    assert shape_for("o9", ["/responses"]) == "responses"
    assert shape_for("gpt-5.5", ["/chat/completions"]) == "chat"


def test_a_listing_keeps_only_well_formed_enabled_entries():
    models = {m.id: m for m in parse(LISTING)}
    assert set(models) == {"claude-sonnet-4.5", "gpt-5.5", "gpt-4.1", "grok-code-fast-1"}
    claude = models["claude-sonnet-4.5"]
    assert claude.shape == "anthropic" and claude.context_window == 144000 and claude.vision
    assert parse({"data": "nope"}) == () and parse([1, 2]) == ()
    many = {"data": [{"id": f"m{i}"} for i in range(5000)]}
    assert len(parse(many)) == copilot_models.MAX_MODELS


async def test_gpt5_goes_to_responses_with_the_editor_headers_and_x_initiator(loopback):
    p = provider(loopback)
    loopback.add(
        Stream().created().reasoning(["hm"], encrypted="ENC-1").message(["ok"]).completed()
    )
    done = only_done(await drain(p, req("gpt-5.5")))
    sent = loopback.requests[0]
    assert sent.path == "/responses"
    h = sent.headers
    assert h["authorization"] == f"Bearer {TOKEN}" and h["x-initiator"] == "user"
    assert (
        h["copilot-integration-id"] == "vscode-chat" and h["openai-intent"] == "conversation-edits"
    )
    assert "copilot-vision-request" not in h
    stamped = {b.provider for b in done.message.blocks if b.provider}
    assert f"copilot:{p.account.key}" in stamped  # type: ignore[union-attr]
    assert all(s.startswith(f"copilot:{p.account.key}") for s in stamped)  # type: ignore[union-attr]


async def test_a_tool_result_or_a_subagent_call_is_the_agents(loopback):
    p = provider(loopback)
    call = Message(role="assistant", blocks=[Block.tool_use("c1", "read_file", {"path": "a"})])
    result = Message(role="user", blocks=[Block.tool_result("c1", "text")])
    for _ in range(3):
        loopback.add(CHAT.text_reply(["ok"], Usage()))
    await drain(p, req("gpt-4.1", [Message.user("go"), call, result]))
    await drain(p, req("gpt-4.1", [Message.user("look into it")], initiator="agent"))
    image = Message(role="user", blocks=[Block.image("image/png", "aGk=")])
    await drain(p, req("gpt-4.1", [image]))
    paths = [r.path for r in loopback.requests]
    assert paths == ["/chat/completions"] * 3
    initiators = [r.headers["x-initiator"] for r in loopback.requests]
    assert initiators == ["agent", "agent", "user"]
    assert loopback.requests[2].headers["copilot-vision-request"] == "true"
    assert initiator(req("m", [Message.user("hi")])) == "user"


async def test_claude_goes_to_the_messages_api_with_a_bearer_and_never_an_api_key(
    loopback, monkeypatch
):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-the-users-own-key")
    p = provider(loopback)
    store = AccountStore(Config().accounts_dir)
    copilot_models.save(store, p.account, Listing(parse(LISTING), time.time()))  # type: ignore[arg-type]
    loopback.add(MESSAGES.thinking_reply("thought", "SIG-1", "hello"))
    done = only_done(await drain(p, req("claude-sonnet-4.5")))
    sent = loopback.requests[0]
    assert sent.path == "/v1/messages"
    h = sent.headers
    assert h["authorization"] == f"Bearer {TOKEN}" and "x-api-key" not in h
    assert "sk-ant-the-users-own-key" not in json.dumps(h)
    assert h["anthropic-beta"] == "interleaved-thinking-2025-05-14" and h["x-initiator"] == "user"
    assert done.message.text() == "hello"
    thinking = [b for b in done.message.blocks if b.type == "thinking"]
    assert thinking and thinking[0].provider == f"copilot:{p.account.key}"  # type: ignore[union-attr]


async def test_reasoning_is_replayed_only_to_the_same_account(loopback):
    first = provider(loopback, "github.com:1")
    loopback.add(Stream().created().reasoning(["a"], encrypted="ENC-A").message(["a"]).completed())
    done = only_done(await drain(first, req("gpt-5.5")))
    history = [Message.user("hi"), done.message, Message.user("more")]
    other = provider(loopback, "github.com:2")  # signed in last: another account
    loopback.add(Stream().created().message(["b"]).completed())
    await drain(other, req("gpt-5.5", history))
    assert "ENC-A" not in loopback.requests[1].body.decode()
    same = CopilotProvider(resolve_endpoint("copilot", Config()))
    same.account = first.account  # the first account again
    loopback.add(Stream().created().message(["c"]).completed())
    await drain(same, req("gpt-5.5", history))
    assert "ENC-A" in loopback.requests[2].body.decode()


def test_the_listing_is_read_with_the_token_and_the_sign_in_rules(loopback):
    account = sign_in("copilot", token=TOKEN, base_url=loopback.url, host="github.com")
    loopback.route("/models", Reply(body=json.dumps(LISTING), content_type="application/json"))
    listing = copilot_models.fetch(account, loopback.url, loopback.url)
    assert {m.id for m in listing.models} >= {"gpt-5.5", "claude-sonnet-4.5"}
    h = loopback.requests[0].headers
    assert h["authorization"] == f"Bearer {TOKEN}" and h["editor-version"].startswith("vscode/")


@pytest.mark.parametrize(
    ("reply", "words"),
    [
        (Reply(body="x" * (3 * 1024 * 1024), content_type="application/json"), "larger than"),
        (Reply(status=302, headers={"Location": "https://evil.example/models"}), "redirect"),
        (Reply(body="<html>", content_type="text/html"), "not JSON"),
        (
            Reply(status=401, body='{"message": "bad token"}', content_type="application/json"),
            "bad",
        ),
    ],
)
def test_a_hostile_listing_is_one_line_and_no_token(loopback, reply, words):
    account = sign_in("copilot", token=TOKEN, base_url=loopback.url, host="github.com")
    loopback.route("/models", reply)
    with pytest.raises(SignInError) as ei:
        copilot_models.fetch(account, loopback.url, loopback.url)
    text = str(ei.value)
    assert words in text and "\n" not in text and TOKEN not in text


async def test_a_stale_listing_is_read_again_and_a_failure_keeps_the_old_one(loopback, monkeypatch):
    monkeypatch.setenv("LARIK_COPILOT_AUTH_URL", loopback.url)  # the fake GitHub: http allowed
    p = provider(loopback)
    store = AccountStore(Config().accounts_dir)
    old = Listing(
        parse({"data": [{"id": "gpt-5.5", "supported_endpoints": ["/chat/completions"]}]}), 1.0
    )
    copilot_models.save(store, p.account, old)  # type: ignore[arg-type]
    loopback.route("/models", Reply(status=500, body="{}", content_type="application/json"))
    loopback.add(CHAT.text_reply(["ok"], Usage()))
    await drain(p, req("gpt-5.5"))  # the old listing says Chat Completions
    assert [r.path for r in loopback.requests] == ["/models", "/chat/completions"]
    fresh = CopilotProvider(resolve_endpoint("copilot", Config()))
    loopback.route("/models", Reply(body=json.dumps(LISTING), content_type="application/json"))
    loopback.add(Stream().created().message(["ok"]).completed())
    await drain(fresh, req("gpt-5.5"))
    assert [r.path for r in loopback.requests][-2:] == ["/models", "/responses"]
    kept = copilot_models.load(store, p.account)  # type: ignore[arg-type]
    assert kept is not None and not kept.stale and kept.get("claude-sonnet-4.5") is not None


def test_larik_models_lists_the_seats_own_models_the_catalog_lacks(loopback, capsys):
    from larik.commands.models import models

    account = sign_in("copilot", token=TOKEN, base_url=loopback.url, host="github.com")
    store = AccountStore(Config().accounts_dir)
    copilot_models.save(store, account, Listing(parse(LISTING), time.time()))
    models(json_out=True, provider="copilot", available=False)
    rows = {r["model"]: r for r in json.loads(capsys.readouterr().out)["models"]}
    seat = rows["grok-code-fast-1"]
    assert seat["available"] and seat["access"].startswith("signed in")
    assert "Copilot seat" in seat["note"] and "../../etc/passwd" not in rows
    assert rows["claude-sonnet-4.5"]["note"] != seat["note"]  # the catalog's row stays
