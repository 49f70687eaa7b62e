"""`larik login`, `larik login --status`, `larik logout` end to end, against a fake server."""

from __future__ import annotations

import pytest

from larik.llm.signin import chatgpt, copilot
from tests.llm.signin.fake_auth import FakeAuth
from tests.test_printmode import larik


@pytest.fixture
def fake(monkeypatch):
    server = FakeAuth().start()
    monkeypatch.setenv("LARIK_CHATGPT_AUTH_URL", server.url)
    monkeypatch.setenv("LARIK_COPILOT_AUTH_URL", server.url)
    monkeypatch.setattr(chatgpt, "MIN_POLL", 0.0)
    monkeypatch.setattr(copilot, "MIN_POLL", 0.0)
    yield server
    server.stop()


def test_login_status_and_logout_never_print_a_token(fake):
    code, out, err = larik("login", "chatgpt", "--device", "--no-browser")
    assert code == 0, err
    assert "Signed in to ChatGPT as ada@example.com (plus plan)" in out and "ABCD-1234" in err
    code, out, err = larik("login", "copilot", "--no-browser")
    assert code == 0 and "Signed in to GitHub Copilot as octo" in out and "WXYZ-9876" in err
    assert "Copilot serves 2 models here" in out  # its listing, kept beside the login
    assert ("GET", "/models") in [(m, p) for m, p, _ in fake.requests]
    code, status, _ = larik("login", "--status")
    assert code == 0 and "chatgpt: ada@example.com, plus plan: signed in" in status
    assert "copilot: octo" in status
    for text in (out, err, status):
        assert "eyJ" not in text and "rt-" not in text and "gho_" not in text and "tid=" not in text
    code, out, _ = larik("logout")
    assert code == 0 and "Signed out of ChatGPT" in out and "Signed out of GitHub Copilot" in out
    code, status, _ = larik("login", "--status")
    assert code == 1 and "chatgpt: not signed in (larik login chatgpt)" in status


def test_an_unknown_sign_in_and_a_refused_one_are_one_line(fake):
    code, _, err = larik("login", "claude")
    assert code == 2 and err.count("\n") == 1 and "use chatgpt or copilot" in err
    fake.lie = "malformed"
    code, _, err = larik("login", "chatgpt", "--device", "--no-browser")
    assert code == 1 and err.strip().splitlines()[-1].startswith(
        "larik: ChatGPT sign-in: the token request"
    )
    assert "Traceback" not in err


USAGE = {
    "plan_type": "plus",
    "rate_limit": {
        "allowed": True,
        "limit_reached": False,
        "primary_window": {
            "used_percent": 37,
            "limit_window_seconds": 18000,
            "reset_after_seconds": 3600,
            "reset_at": 0,
        },
        "secondary_window": {
            "used_percent": 12,
            "limit_window_seconds": 604800,
            "reset_after_seconds": 86400,
            "reset_at": 0,
        },
    },
}


@pytest.mark.parametrize(
    ("body", "shown"),
    [
        (USAGE, "plus 5h 37% · wk 12%"),  # the usage endpoint's figures, now
        ({"rate_limit": {"primary_window": {"used_percent": "lots"}}}, "signed in"),
        ("<html>" + "x" * 300_000, "signed in"),  # huge and not JSON: the status goes on
    ],
)
def test_login_status_reads_the_chatgpt_usage_endpoint(fake, loopback, monkeypatch, body, shown):
    import json

    from tests.loopback import Reply

    monkeypatch.setenv("LARIK_CHATGPT_BASE_URL", f"{loopback.url}/backend-api/codex")
    code, _, err = larik("login", "chatgpt", "--device", "--no-browser")
    assert code == 0, err
    text = body if isinstance(body, str) else json.dumps(body)
    loopback.route("/backend-api/wham/usage", Reply(body=text, content_type="application/json"))
    code, status, err = larik("login", "--status")
    line = next(x for x in status.splitlines() if x.startswith("chatgpt:"))
    assert code == 0 and shown in line and "Traceback" not in err
    sent = loopback.requests[-1]
    assert sent.path == "/backend-api/wham/usage"
    assert (
        sent.headers["authorization"].startswith("Bearer ") and sent.headers["chatgpt-account-id"]
    )
    assert "eyJ" not in status + err
