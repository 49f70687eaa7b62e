"""Sign-ins: using a plan the user already pays for (ChatGPT, GitHub Copilot) instead of a key.

Each sign-in is one row of :data:`SIGNINS` (data only: this package imports no HTTP client
until a login or a refresh runs). A provider kind names its row (``Kind.signin``); the endpoint
module then reads the stored account (:mod:`.store`) in place of a key, and the sign-in
server's address (:attr:`SignIn.auth_url`, moved only by the user's environment variable
:attr:`SignIn.auth_url_env`, which ``larik.llm.endpoint`` reads in one place).

* :mod:`.store`: one 0600 file per account under ``<state>/accounts/NAME/``, written
  atomically, refreshed under a file lock so that two Larik processes never both spend a
  refresh token; every token read or written is registered with :mod:`larik.llm.secrets`.
* :mod:`.web`: the HTTP rules of every sign-in request (no redirects followed, https or a
  loopback server, a size cap on answers, one-line errors that carry no token).
* :mod:`larik.llm.callback`: the one-shot loopback listener the browser is sent back to (an
  MCP server's OAuth login uses it too).
* :mod:`.chatgpt`: OpenAI's authorization-code flow with PKCE (and its device-code flow), as
  Codex signs in; :mod:`.copilot`: GitHub's device flow and the Copilot token exchange.
* :mod:`.quota`: the plan's usage windows, as the backend reports them.

docs/subscriptions.md is the user's account of all this.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SIGNINS", "SignIn", "signin"]


@dataclass(frozen=True, slots=True)
class SignIn:
    """One way to sign in (a row a test walks)."""

    name: str
    """``larik login NAME``; the provider of the same name uses it."""
    title: str
    """What to call it in messages."""
    auth_url: str
    """The sign-in server (OpenAI's auth server; GitHub's web host)."""
    auth_url_env: str
    """The user's environment variable that moves :attr:`auth_url` (tests; checked like a
    base URL). A project's config cannot set it."""
    module: str
    """The module with ``login``/``refresh`` (imported when one runs)."""

    @property
    def command(self) -> str:
        return f"larik login {self.name}"


SIGNINS: dict[str, SignIn] = {
    s.name: s
    for s in (
        SignIn(
            name="chatgpt",
            title="ChatGPT",
            auth_url="https://auth.openai.com",
            auth_url_env="LARIK_CHATGPT_AUTH_URL",
            module="larik.llm.signin.chatgpt",
        ),
        SignIn(
            name="copilot",
            title="GitHub Copilot",
            auth_url="https://github.com",
            auth_url_env="LARIK_COPILOT_AUTH_URL",
            module="larik.llm.signin.copilot",
        ),
    )
}


def signin(name: str) -> SignIn | None:
    return SIGNINS.get(name)
