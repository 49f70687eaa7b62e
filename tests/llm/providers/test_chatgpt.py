"""The chatgpt and copilot kinds: how their backends are reached, what their errors become,
what a project may not change, and what leaves the process."""

from __future__ import annotations

import io
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from larik.config import Config, load_config
from larik.llm import secrets
from larik.llm.endpoint import resolve_endpoint
from larik.llm.errors import ConfigError, LoginExpired, NotSignedIn, QuotaExceeded
from larik.llm.fallback import CooldownTable, cooldown_for, with_fallback
from larik.llm.providers.chatgpt import ChatGPTProvider
from larik.llm.providers.copilot import CopilotProvider
from larik.llm.signin import quota as quotas
from larik.llm.signin.store import AccountStore
from larik.llm.types import Block, Message, Request
from tests.llm.providers.conformance import drain, kit_endpoint
from tests.llm.providers.kits.chatgpt import sign_in
from tests.llm.providers.kits.openai_responses import Stream, error_reply
from tests.llm.signin.fake_auth import ACCOUNT, FakeAuth, chatgpt_tokens
from tests.loopback import Reply

HEADERS = {
    "x-codex-primary-used-percent": "37.4",
    "x-codex-primary-window-minutes": "300",
    "x-codex-primary-reset-after-seconds": "3600",
    "x-codex-secondary-used-percent": "12",
    "x-codex-secondary-window-minutes": "10080",
    "x-codex-secondary-reset-after-seconds": "86400",
    "x-codex-plan-type": "plus",
}


@pytest.fixture
def fake() -> Iterator[FakeAuth]:
    server = FakeAuth().start()
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def _fresh_quota() -> Iterator[None]:
    quotas.forget()
    yield
    quotas.forget()


def chatgpt(base: str) -> ChatGPTProvider:
    return ChatGPTProvider(kit_endpoint("chatgpt", f"{base}/backend-api/codex"))


def req(**kw) -> Request:
    return Request(
        model="gpt-5.5", system=["Be brief."], messages=[Message.user("hi")], max_tokens=99, **kw
    )


async def test_the_backend_gets_codex_headers_and_body_rules(loopback):
    account = sign_in("chatgpt", token="access-token-abcdef")
    loopback.add(Stream().created().message(["ok"]).completed())
    provider = chatgpt(loopback.url)
    await drain(provider, req())
    sent = loopback.requests[0]
    assert sent.path == "/backend-api/codex/responses"
    h = sent.headers
    assert h["authorization"] == "Bearer access-token-abcdef"
    assert h["chatgpt-account-id"] == account.account_id
    assert h["openai-beta"] == "responses=experimental" and h["originator"] == "codex_cli_rs"
    assert h["session_id"] == provider.session_id
    body = sent.json()
    assert body["store"] is False and body["stream"] is True
    assert body["instructions"] == "Be brief." and body["prompt_cache_key"] == provider.session_id
    assert body["include"] == ["reasoning.encrypted_content"]
    assert "max_output_tokens" not in body


async def test_an_expiring_token_is_refreshed_first_and_kept(loopback, fake, monkeypatch):
    monkeypatch.setenv("LARIK_CHATGPT_AUTH_URL", fake.url)
    old = chatgpt_tokens(500)
    fake.grant(old["refresh_token"])
    account = sign_in("chatgpt", token=old["access_token"], account_id=ACCOUNT)
    store = AccountStore(Config().accounts_dir)
    store.save(_expiring(account, old["refresh_token"]))
    loopback.add(Stream().created().message(["ok"]).completed())
    provider = chatgpt(loopback.url)
    await drain(provider, req())
    assert fake.refreshes == 1
    new = store.current("chatgpt")
    assert new is not None and new.access_token != old["access_token"]
    assert loopback.requests[0].headers["authorization"] == f"Bearer {new.access_token}"


def _expiring(account, refresh_token):
    from dataclasses import replace

    return replace(account, refresh_token=refresh_token, expires_at=time.time() + 10)


async def test_a_revoked_login_is_one_line_naming_larik_login(loopback, fake, monkeypatch):
    monkeypatch.setenv("LARIK_CHATGPT_AUTH_URL", fake.url)
    account = sign_in("chatgpt")
    AccountStore(Config().accounts_dir).save(_expiring(account, "rt-never-granted-000"))
    with pytest.raises(LoginExpired, match="run `larik login chatgpt`") as ei:
        await drain(chatgpt(loopback.url), req())
    assert loopback.requests == [] and "\n" not in str(ei.value) and not ei.value.retryable
    loopback.add(error_reply(401, "token revoked"))
    sign_in("chatgpt")
    with pytest.raises(LoginExpired, match="larik login chatgpt"):
        await drain(chatgpt(loopback.url), req())


def test_not_signed_in_names_the_command():
    with pytest.raises(NotSignedIn, match="run `larik login chatgpt`"):
        resolve_endpoint("chatgpt", Config()).require_key()


def _limit(resets_in: int = 7200, **headers: str) -> Reply:
    body = {
        "error": {
            "type": "usage_limit_reached",
            "message": "The usage limit has been reached",
            "plan_type": "plus",
            "resets_in_seconds": resets_in,
        }
    }
    return Reply(
        status=429, body=json.dumps(body), content_type="application/json", headers=headers
    )


async def test_a_spent_window_is_a_quota_error_and_the_chain_waits_until_its_reset(loopback):
    sign_in("chatgpt")
    loopback.add(_limit(7200, **{**HEADERS, "x-codex-primary-used-percent": "100"}))
    with pytest.raises(QuotaExceeded) as ei:
        await drain(chatgpt(loopback.url), req())
    err = ei.value
    assert not err.retryable and err.status == 429 and "usage limit reached (plus plan)" in str(err)
    assert err.resets_at is not None and abs(err.resets_at - (time.time() + 7200)) < 60
    assert 7000 < cooldown_for(err) <= 7200
    clock = [1000.0]
    table = CooldownTable(clock=lambda: clock[0])
    loopback.add(_limit(7200), Stream().created().message(["from the key"]).completed())
    from larik.llm.providers.openai_responses import OpenAIResponsesProvider

    keyed = OpenAIResponsesProvider(kit_endpoint("openai", f"{loopback.url}/v1"))
    chain = with_fallback([(chatgpt(loopback.url), "gpt-5.5"), (keyed, "gpt-5.5")], table)
    events = await drain(chain, req())
    assert any("switched to openai/gpt-5.5" in (e.text or "") for e in events)
    clock[0] += 3600  # an hour later the window has not refilled: still skipped
    assert table.cooling("chatgpt/gpt-5.5")
    clock[0] += 3700
    assert not table.cooling("chatgpt/gpt-5.5")


async def test_usage_windows_are_read_from_every_answer(loopback):
    account = sign_in("chatgpt")
    loopback.add(Stream().created().message(["ok"]).completed())
    loopback._queue[-1].headers.update(HEADERS)
    await drain(chatgpt(loopback.url), req())
    seen = quotas.latest("chatgpt")["chatgpt"]
    assert quotas.describe(seen) == "plus 5h 37% · wk 12%"
    saved = quotas.load(AccountStore(Config().accounts_dir), account)
    assert saved is not None and quotas.describe(saved) == "plus 5h 37% · wk 12%"


async def test_reasoning_is_replayed_only_to_the_same_account(loopback):
    sign_in("chatgpt")
    first = chatgpt(loopback.url)
    loopback.add(
        Stream().created().reasoning(["thought"], encrypted="ENC-A").message(["a"]).completed()
    )
    done = [e for e in await drain(first, req()) if e.message is not None][0]
    history = [Message.user("hi"), done.message, Message.user("again")]
    loopback.add(
        Stream().created().message(["b"]).completed(), Stream().created().message(["c"]).completed()
    )
    await drain(first, req().model_copy(update={"messages": history}))
    assert "ENC-A" in loopback.requests[1].body.decode()
    from larik.llm.signin.store import Account

    other = Account(
        signin="chatgpt",
        account_id="acct-other",
        access_token="other-token-1234",
        expires_at=time.time() + 3600,
        signed_in_at=time.time() + 5,
    )
    AccountStore(Config().accounts_dir).save(other)
    await drain(chatgpt(loopback.url), req().model_copy(update={"messages": history}))
    assert "ENC-A" not in loopback.requests[2].body.decode()


def test_a_project_cannot_point_a_sign_in_provider_elsewhere(tmp_path, monkeypatch):
    project = tmp_path / "proj"
    (project / ".larik").mkdir(parents=True)
    for name in ("chatgpt", "copilot"):
        (project / ".larik" / "config.toml").write_text(
            f'[providers.{name}]\nbase_url = "https://evil.example/v1"\n'
        )
        monkeypatch.chdir(project)
        with pytest.raises(ConfigError, match="providers"):
            load_config(cwd=project, trust_project=True)


def test_the_sign_in_server_moves_only_by_the_users_environment(monkeypatch):
    monkeypatch.setenv("LARIK_CHATGPT_AUTH_URL", "http://evil.example")
    with pytest.raises(ConfigError, match="LARIK_CHATGPT_AUTH_URL"):
        resolve_endpoint("chatgpt", Config())
    monkeypatch.setenv("LARIK_CHATGPT_AUTH_URL", "http://127.0.0.1:9")
    assert resolve_endpoint("chatgpt", Config()).auth_url == "http://127.0.0.1:9"


async def test_copilot_sends_the_editor_headers_and_its_token(loopback):
    from tests.llm.providers.kits.openai_compat import KIT as COMPAT

    sign_in("copilot", token="tid=copilot-token-123", base_url=loopback.url, host="github.com")
    endpoint = resolve_endpoint("copilot", Config())
    assert endpoint.base_url == loopback.url  # the API URL the token exchange named
    loopback.add(
        COMPAT.text_reply(["ok"], __import__("larik.llm.types", fromlist=["Usage"]).Usage())
    )
    await drain(CopilotProvider(endpoint), req().model_copy(update={"model": "gpt-4.1"}))
    h = loopback.requests[0].headers
    assert h["authorization"] == "Bearer tid=copilot-token-123"
    assert (
        h["editor-version"].startswith("vscode/") and h["copilot-integration-id"] == "vscode-chat"
    )


def test_print_mode_with_an_expired_login_exits_2_with_one_line(tmp_path, fake, monkeypatch):
    """Checked failing before printmode mapped LoginExpired: exit code 1."""
    from larik.printmode import PrintOptions, run_print

    monkeypatch.setenv("LARIK_CHATGPT_AUTH_URL", fake.url)
    account = sign_in("chatgpt")
    AccountStore(Config().accounts_dir).save(_expiring(account, "rt-revoked-0000"))
    project = tmp_path / "p"
    project.mkdir()
    monkeypatch.chdir(project)
    out, err = io.StringIO(), io.StringIO()
    code = run_print(
        PrintOptions(prompt="hi", cwd=project, model="chatgpt/gpt-5.5"), stdout=out, stderr=err
    )
    lines = err.getvalue().strip().splitlines()
    assert code == 2 and len(lines) == 1 and "larik login chatgpt" in lines[0]
    assert "Traceback" not in err.getvalue() and fake.refreshes == 1


def test_a_token_never_leaves_the_process(tmp_path, fake, monkeypatch):
    """Transcript, errors, hook and MCP environments: the token is masked or absent."""
    from larik.processes import child_env

    secrets.forget_all()
    token = chatgpt_tokens(3)["access_token"]
    sign_in("chatgpt", token=token)
    from larik.llm.endpoint import remember_known

    remember_known(Config())
    assert token not in json.dumps(child_env())
    assert secrets.mask(f"oops {token}") == "oops ***"
    block = Block.text_block(f"the model echoed {token}")
    from larik.llm.errors import APIError

    assert token not in str(APIError(500, f"server said {token}"))
    assert token not in secrets.mask(
        Message(role="assistant", blocks=[block], model="m").model_dump_json()
    )


def test_a_sign_in_kinds_models_are_plan_models():
    from larik.llm import catalog

    info = catalog.lookup("gpt-5.5", "chatgpt")
    assert info.subscription and info.input_price == 0.0 and info.context_window == 272_000
    assert catalog.lookup("claude-sonnet-4.5", "copilot").subscription
    assert not catalog.lookup("gpt-5.5", "openai").subscription
    assert (
        Path(catalog.__file__).with_name("models.toml").read_text().count("subscription = true")
        >= 8
    )


def test_larik_models_shows_the_plans_windows(monkeypatch):
    from larik.commands.models import _access

    found = quotas.from_headers(HEADERS)
    assert found is not None
    config = Config()
    access = _access("chatgpt", False, set(), config)
    assert (access.ok, access.text) == (False, "not signed in: larik login chatgpt")
    account = sign_in("chatgpt")
    quotas.save(AccountStore(config.accounts_dir), account, found)
    access = _access("chatgpt", False, set(), config)
    assert (access.ok, access.text) == (True, "signed in (plus 5h 37% · wk 12%)")
