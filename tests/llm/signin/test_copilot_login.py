"""GitHub Copilot sign-in against a loopback fake of GitHub, honest and lying."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from larik.llm.errors import LoginExpired, SignInError
from larik.llm.signin import copilot
from tests.llm.signin.fake_auth import FakeAuth
from tests.patience import WAIT


@pytest.fixture
def fake(monkeypatch) -> Iterator[FakeAuth]:
    monkeypatch.setattr(copilot, "MIN_POLL", 0.0)
    server = FakeAuth().start()
    yield server
    server.stop()


def test_device_flow_then_the_copilot_token_and_its_api_url(fake):
    shown: list[tuple[str, str]] = []
    account = copilot.login(fake.url, show=lambda u, c: shown.append((u, c)), timeout=WAIT)
    assert shown == [(f"{fake.url}/login/device", "WXYZ-9876")]
    assert account.account_id == "127.0.0.1:42" and account.label == "octo"
    assert account.refresh_token == fake.gh_token and account.access_token.startswith("tid=")
    assert account.extra["base_url"] == fake.url and account.plan == "copilot_individual"
    polls = [f for m, p, f in fake.requests if p == "/login/oauth/access_token"]
    assert polls[0]["grant_type"] == "urn:ietf:params:oauth:grant-type:device_code"
    assert polls[0]["client_id"] == "Iv1.b507a08c87ecfe98"
    exchange = next(f for m, p, f in fake.requests if p == "/copilot_internal/v2/token")
    assert exchange["h:authorization"] == f"token {fake.gh_token}"
    assert exchange["h:editor-version"].startswith("vscode/")


def test_refresh_is_the_exchange_again_and_a_revoked_github_token_means_sign_in_again(fake):
    account = copilot.login(fake.url, show=lambda u, c: None, timeout=WAIT)
    again = copilot.refresh(account, fake.url)
    assert again.access_token != account.access_token
    fake.gh_token = "gho_revoked_and_replaced_000"
    with pytest.raises(LoginExpired, match="larik login copilot"):
        copilot.refresh(account, fake.url)


def test_a_device_page_on_plain_http_is_refused_before_it_is_shown(fake):
    fake.lie = "verification"
    with pytest.raises(SignInError, match="not https"):
        copilot.login(fake.url, show=lambda u, c: pytest.fail("shown"), timeout=WAIT)


def test_a_token_naming_a_non_copilot_api_host_is_refused(fake):
    fake.lie = "api-host"
    with pytest.raises(SignInError, match="not a Copilot host"):
        copilot.login(fake.url, show=lambda u, c: None, timeout=WAIT)


@pytest.mark.parametrize(
    "api,host,ok",
    [
        ("https://api.individual.githubcopilot.com", "github.com", True),
        ("https://api.business.githubcopilot.com", "github.com", True),
        ("https://copilot-api.acme.ghe.com", "acme.ghe.com", True),
        ("https://copilot-api.acme.ghe.com", "github.com", False),
        ("http://api.githubcopilot.com", "github.com", False),
        ("https://githubcopilot.com.evil.example", "github.com", False),
    ],
)
def test_which_api_urls_a_copilot_token_may_name(api, host, ok):
    assert (copilot.api_problem(api, host, "https://github.com") == "") is ok


def test_an_enterprise_host_is_a_host_name():
    assert copilot.hosts("https://github.com", "acme.ghe.com") == (
        "https://acme.ghe.com",
        "https://api.acme.ghe.com",
    )
    with pytest.raises(SignInError):
        copilot.hosts("https://github.com", "https://acme.ghe.com/evil/path")
