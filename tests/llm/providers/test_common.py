"""The rules every adapter shares (larik/llm/providers/common.py), written once."""

from __future__ import annotations

import email.utils
import time

import pytest

from larik.llm.providers.common import is_context_overflow, retry_after, tool_arguments


def test_retry_after_reads_milliseconds_seconds_and_http_dates():
    assert retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert retry_after({"retry-after": "7"}) == 7.0
    later = email.utils.formatdate(time.time() + 600, usegmt=True)
    assert 300 <= retry_after({"retry-after": later}) <= 601
    past = email.utils.formatdate(time.time() - 600, usegmt=True)
    assert retry_after({"retry-after": past}) == 0.0
    assert retry_after({"retry-after": "soon"}) is None
    assert retry_after({}) is None and retry_after(None) is None


@pytest.mark.parametrize(
    "text",
    [
        "prompt is too long: 212000 tokens > 200000 maximum",
        "This model's maximum context length is 8192 tokens.",
        "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
        "the request exceeds the available context size, try increasing it",
        "Please reduce the length of the messages or completion.",
        "prompt is longer than the model's context length",
    ],
)
def test_every_vendors_overflow_wording_is_an_overflow(text):
    assert is_context_overflow(text)


def test_an_overflow_code_is_enough_and_a_rate_limit_is_not_an_overflow():
    assert is_context_overflow("bad request", "context_length_exceeded")
    assert not is_context_overflow("Rate limit reached for tokens per minute (TPM): 6000")
    assert not is_context_overflow("invalid_request_error: tools.0.name is required")


@pytest.mark.parametrize(
    ("text", "sent"),
    [
        ('{"path": "a.py"}', {"path": "a.py"}),
        ("", {}),
        ("   ", {}),
        ('{"path": "a.py"', {"_raw_arguments": '{"path": "a.py"'}),
        ('["a.py"]', {"_raw_arguments": '["a.py"]'}),
    ],
)
def test_one_policy_for_stored_tool_arguments_that_are_not_an_object(text, sent):
    assert tool_arguments(text) == sent
