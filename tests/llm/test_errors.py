"""Errors are one line, classified by status, and never carry secrets."""

import pytest

from larik.llm.errors import APIError, ContextOverflow, MissingKeyError, classify_status, redact


@pytest.mark.parametrize(
    "status,retry",
    [
        (0, True),
        (408, True),
        (429, True),
        (500, True),
        (503, True),
        (529, True),
        (400, False),
        (401, False),
        (403, False),
        (404, False),
        (422, False),
    ],
)
def test_classify_status(status, retry):
    assert classify_status(status) is retry


def test_context_overflow_is_an_api_error_that_is_not_retryable():
    e = ContextOverflow("prompt is too long: 210000 tokens > 200000 maximum")
    assert isinstance(e, APIError) and not e.retryable and e.status == 400


def test_messages_are_one_line_and_redacted():
    e = APIError(
        401,
        "Incorrect API key provided: sk-proj-abcdefghijklmnop1234.\nSee docs",
        provider="openai",
    )
    text = str(e)
    assert "\n" not in text and "sk-proj-abcdefghij" not in text
    assert text.startswith("openai: HTTP 401: Incorrect API key provided")


@pytest.mark.parametrize(
    "secret",
    [
        "x-api-key: sk-ant-api03-SECRETSECRETSECRET",
        "Authorization: Bearer abcdefghijklmnopqrstuvwxyz",
        "https://generativelanguage.googleapis.com/v1?key=AIzaSyDUMMYDUMMYDUMMYDUMMYDUMMY",
        'api_key="hunter2hunter2"',
    ],
)
def test_redact_removes_credentials(secret):
    assert "SECRET" not in redact(secret) and "abcdefghijklmnop" not in redact(secret)
    assert "AIzaSy" not in redact(secret) and "hunter2" not in redact(secret)


def test_missing_key_names_the_env_var():
    assert "set GROQ_API_KEY" in str(MissingKeyError("groq", ["GROQ_API_KEY"]))


def test_retry_after_reads_ms_seconds_and_http_dates():
    import email.utils
    import time

    from larik.llm.providers.common import retry_after as retry_after_seconds

    assert retry_after_seconds({"retry-after-ms": "1500"}) == 1.5
    assert retry_after_seconds({"retry-after": "7"}) == 7.0
    later = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 25 <= retry_after_seconds({"retry-after": later}) <= 31
    assert retry_after_seconds({"retry-after": "soon"}) is None
    assert retry_after_seconds({}) is None and retry_after_seconds(None) is None
