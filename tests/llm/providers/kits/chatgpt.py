"""Conformance kit for the chatgpt kind: the Responses wire bodies, on a signed-in account.

The backend speaks the Responses API (the same SSE events as ``openai_responses``); what the
kind adds is how it is reached, tested in tests/llm/providers/test_chatgpt.py.
"""

from __future__ import annotations

import time
from typing import Any

from larik.config import Config
from larik.llm.providers.chatgpt import ChatGPTProvider
from larik.llm.signin.store import Account, AccountStore
from tests.llm.providers.conformance import kit_endpoint
from tests.llm.providers.kits import openai_responses as responses

ACCOUNT_ID = "acct-kit-0001"


def sign_in(
    signin: str, *, token: str = "dummy-key", account_id: str = ACCOUNT_ID, **extra: str
) -> Account:
    """A signed-in account in this test's state folder (the key kits use is its token)."""
    account = Account(
        signin=signin,
        account_id=account_id,
        label="kit@example.com",
        access_token=token,
        refresh_token="kit-refresh-token",
        expires_at=time.time() + 3600,
        signed_in_at=time.time(),
        extra=dict(extra),
    )
    AccountStore(Config().accounts_dir).save(account)
    return account


class Kit(responses.OpenAIResponsesKit):
    name = "chatgpt"
    env_var = ""  # a 401 names `larik login chatgpt`, not a variable

    def make(self, base_url: str) -> Any:
        sign_in("chatgpt")
        return ChatGPTProvider(kit_endpoint("chatgpt", f"{base_url}/backend-api/codex"))


KIT = Kit()
