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
