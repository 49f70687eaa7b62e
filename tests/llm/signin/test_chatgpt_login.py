"""ChatGPT sign-in against a loopback fake of OpenAI's auth server, honest and lying."""

from __future__ import annotations

import http.client
import socket
import threading
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest

from larik.llm import secrets
from larik.llm.callback import Listener
from larik.llm.errors import LoginExpired, SignInError
from larik.llm.signin import chatgpt
from tests.llm.signin.fake_auth import ACCOUNT, FakeAuth
from tests.patience import WAIT, grown_until


@pytest.fixture
def fake() -> Iterator[FakeAuth]:
    server = FakeAuth().start()
    yield server
    server.stop()


def get(url: str, *, source: str = "") -> tuple[int, str]:
    """A GET that follows nothing (a browser's one step), optionally from another address."""
    parts = urlsplit(url.replace("//localhost:", "//127.0.0.1:"))
    conn = http.client.HTTPConnection(
        parts.hostname or "",
        parts.port,
        timeout=WAIT,
        source_address=(source, 0) if source else None,
    )
    conn.request("GET", parts.path + (f"?{parts.query}" if parts.query else ""))
    resp = conn.getresponse()
    location = resp.getheader("Location") or ""
    conn.close()
    return resp.status, location


class Browser:
    """Follows the authorization URL to the fake and the fake's redirect to the listener."""

    def __init__(self) -> None:
        self.authorize = ""
        self.landed: list[int] = []
        self.thread: threading.Thread | None = None

    def __call__(self, url: str) -> None:
        self.authorize = url

        def run() -> None:
            status, location = get(url)
            assert status == 302
            self.landed.append(get(location)[0])

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()


def test_browser_sign_in_uses_pkce_codex_parameters_and_the_loopback_redirect(fake):
    browser = Browser()
    account = chatgpt.login_browser(fake.url, show=browser, port=0, timeout=WAIT)
    assert account.account_id == ACCOUNT and account.label == "ada@example.com"
    assert account.plan == "plus" and account.refresh_token.startswith("rt-")
    query = {k: v[0] for k, v in parse_qs(urlsplit(browser.authorize).query).items()}
    assert query["client_id"] == "app_EMoamEEZ73f0CkXaXp7hrann"
    assert query["scope"] == "openid profile email offline_access"
    assert query["code_challenge_method"] == "S256" and query["response_type"] == "code"
    assert query["id_token_add_organizations"] == "true"
    assert query["codex_cli_simplified_flow"] == "true"
    assert query["originator"] == "codex_cli_rs"
    assert query["redirect_uri"].startswith("http://localhost:")
    assert query["redirect_uri"].endswith("/auth/callback")
    assert browser.landed == [200]
    token_req = next(f for m, p, f in fake.requests if p == "/oauth/token")
    assert token_req["grant_type"] == "authorization_code" and token_req["code_verifier"]


def test_a_redirect_with_another_state_is_refused_and_nothing_is_exchanged(fake):
    fake.lie = "state"

    def attempt(timeout: float) -> Browser | None:
        browser = Browser()
        with pytest.raises(SignInError, match="no answer from the browser"):
            chatgpt.login_browser(fake.url, show=browser, port=0, timeout=timeout)
        assert browser.thread is not None
        browser.thread.join(WAIT)
        return browser if browser.landed else None  # the wait ended before it came back

    assert grown_until(attempt, 1.5).landed == [400]
    assert "/oauth/token" not in fake.paths()


def test_the_listener_refuses_other_addresses_and_closes_after_one_use():
    listener = Listener(0, "/auth/callback", "s3cret-state")
    url = f"http://127.0.0.1:{listener.port}/auth/callback?code=abc&state=s3cret-state"
    seen: list[int] = []

    def visit() -> None:
        seen.append(get(url, source="127.0.0.2")[0])  # loopback, but not 127.0.0.1
        seen.append(get(url.replace("/auth/callback", "/other"))[0])
        seen.append(get(url)[0])

    t = threading.Thread(target=visit)
    t.start()
    query = listener.wait(WAIT)
    t.join(WAIT)
    assert query["code"] == "abc" and seen == [403, 404, 200]
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", listener.port), timeout=5)


def test_a_pasted_redirect_url_signs_in_and_its_state_is_checked(fake):
    shown: list[str] = []
    ready = threading.Event()

    def show(url: str) -> None:
        shown.append(url)
        ready.set()

    def paste() -> str:  # the user copies the address the browser ended on
        ready.wait(WAIT)
        status, location = get(shown[0])
        return location

    account = chatgpt.login_browser(fake.url, show=show, paste=paste, port=0, timeout=WAIT)
    assert account.account_id == ACCOUNT
    with pytest.raises(SignInError, match="state differs"):
        chatgpt.parse_pasted("http://localhost:1455/auth/callback?code=x&state=wrong", "right")


@pytest.mark.parametrize(
    "pasted",
    [
        "https://evil.example/auth/callback?code=x&state=right",  # a lying server's redirect
        "http://localhost.evil.example:1455/auth/callback?code=x&state=right",
        "http://127.0.0.1:1455/steal?code=x&state=right",
        "http://[::1",
    ],
)
def test_a_pasted_redirect_to_another_host_or_path_is_not_the_answer(pasted):
    with pytest.raises(SignInError) as ei:
        chatgpt.parse_pasted(pasted, "right")
    assert "\n" not in str(ei.value) and "code=x" not in str(ei.value)


@pytest.mark.parametrize(
    "lie,said",
    [
        ("other-account", "two different accounts"),
        ("huge", "larger than 256 KiB"),
        ("malformed", "is not JSON"),
        ("redirect", r"redirect \(HTTP 307\); not followed"),
        ("redirect-away", r"redirect \(HTTP 307\); not followed"),
    ],
)
def test_a_lying_token_answer_is_a_one_line_error_that_quotes_no_token(fake, lie, said):
    fake.lie = lie
    with pytest.raises(SignInError, match=said) as ei:
        chatgpt.login_browser(fake.url, show=Browser(), port=0, timeout=WAIT)
    message = str(ei.value)
    assert "\n" not in message and "eyJ" not in message and "rt-" not in message
    assert "/steal" not in fake.paths()


def test_device_code_sign_in(fake, monkeypatch):
    monkeypatch.setattr(chatgpt, "MIN_POLL", 0.0)
    shown: list[tuple[str, str]] = []
    account = chatgpt.login_device(fake.url, show=lambda u, c: shown.append((u, c)), timeout=WAIT)
    assert shown == [(f"{fake.url}/codex/device", "ABCD-1234")]
    assert account.account_id == ACCOUNT
    polls = [f for m, p, f in fake.requests if p == "/api/accounts/deviceauth/token"]
    assert len(polls) == 2 and polls[0]["device_auth_id"] == "dev-1"


def _signed_in(fake: FakeAuth):
    return chatgpt.login_browser(fake.url, show=Browser(), port=0, timeout=WAIT)


def test_refresh_rotates_the_tokens_of_the_same_account(fake):
    account = _signed_in(fake)
    new = chatgpt.refresh(account, fake.url)
    assert new.account_id == account.account_id
    assert new.access_token != account.access_token and new.refresh_token != account.refresh_token
    with pytest.raises(LoginExpired, match="larik login chatgpt") as ei:
        chatgpt.refresh(account, fake.url)  # the old refresh token was spent
    assert ei.value.status == 401 and not ei.value.retryable


def test_a_refresh_answered_for_another_account_is_refused(fake):
    account = _signed_in(fake)
    fake.lie = "refresh-other"
    with pytest.raises(LoginExpired, match="another account"):
        chatgpt.refresh(account, fake.url)


def test_tokens_read_or_written_are_masked_everywhere(fake, tmp_path):
    from larik.llm.signin.store import AccountStore

    secrets.forget_all()
    account = _signed_in(fake)
    AccountStore(tmp_path).save(account)
    text = f"error: {account.access_token} / {account.refresh_token} / {account.id_token}"
    assert secrets.mask(text) == "error: *** / *** / ***"


def test_codex_file_is_read_and_never_written(tmp_path, fake, monkeypatch):
    import json

    from tests.llm.signin.fake_auth import chatgpt_tokens

    codex = tmp_path / "codex"
    codex.mkdir()
    path = codex / "auth.json"
    path.write_text(
        json.dumps({"OPENAI_API_KEY": None, "tokens": {**chatgpt_tokens(7), "account_id": ACCOUNT}})
    )
    before = path.read_bytes(), path.stat().st_mtime_ns
    monkeypatch.setenv("CODEX_HOME", str(codex))
    assert chatgpt.codex_auth_path() == path
    account = chatgpt.read_codex_file(path)
    assert account.account_id == ACCOUNT and account.refresh_token == "rt-acct-1234-0007-secret"
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
