"""Larik's error tree. Every error's message is one line, safe to show and to log.

::

    LarikError                     anything Larik reports to a user
    ├── ConfigError                a bad config file or value (CLI exit code 2)
    ├── ResolveError               a model spec that cannot become a provider (exit code 2)
    │   └── MissingKeyError        the provider needs a key; names the env var to set
    │       ├── NotSignedIn        a sign-in provider (chatgpt, copilot) with no login
    │       └── NoModelError       (routing.targets) no model asked for, configured or keyed
    ├── APIError(status, retryable, message, retry_after)
    │   │                          a model call failed; raised from Provider.stream's iterator;
    │   │                          ``unsupported`` names an input the model cannot take
    │   │                          ("image"): such an error is never retried
    │   ├── ContextOverflow        the prompt is too long for the model: compact and retry
    │   ├── QuotaExceeded          a plan's usage window is spent (429); ``resets_at`` says when
    │   │                          it refills: a fallback chain skips the model until then
    │   ├── LoginExpired           a sign-in (``larik login NAME``) was revoked or expired
    │   │                          (401; print mode exit code 2); never retried
    │   ├── StreamTimeout          no first chunk / no chunk between chunks in time (retryable)
    │   └── CutReply               a reply whose stream stopped before its wire's end (no
    │                              ``message_stop``, no finish reason…), or failed after part of
    │                              it was shown: none of its tool calls runs (retryable)
    ├── SignInError                a login (``larik login NAME``) that could not be completed:
    │                              the server's answer, the browser, the time it took
    ├── LocalModelError            (llm.local) a local model that cannot be pulled, found or
    │                              started: the file, the download, the engine, the CPU
    ├── TranscriptError            (agent.transcript) a session file that cannot be read
    │   └── SessionLocked          another process is writing that session
    ├── CheckpointError            (agent.checkpoints) a snapshot or restore that cannot be done
    ├── McpCallError               (mcp.server) an MCP server did not answer a call
    ├── SessionBusy                (session) a turn asked for while another one runs
    ├── AmbiguousCommand           (session) a short /name that two custom commands share
    ├── ExportError                (session.export) bad /export arguments, a file not written
    └── UsageError                 (print_options) bad command-line usage (exit code 2)

Errors that are not Larik's to report derive from elsewhere, each for its reason (the list a
test walks is ``OUTSIDE_THE_TREE`` in ``tests/test_error_tree.py``): ``ToolError`` is a tool's
answer to the model (an error result, not a failure of Larik); ``TurnOver`` is how a turn ends
(control flow); ``Ambiguous`` (the edit tool's relaxed match) becomes a ToolError;
``RegistryError`` and ``MissingVariable`` are ``ValueError`` for the code that catches them (a
bad registration is a bug in the registering code; a missing ``${VAR}`` fails that MCP server's
start, with its message); ``OAuthStopped`` stops a login inside the MCP SDK's OAuth flow,
which the server then reports; private ones (``_Refused`` …) never leave their module.

Messages never contain keys, auth headers or prompt text: adapters build them from the
status, the vendor's error *type* and a short vendor message passed through ``redact``, which
masks every key Larik knows by value (whatever its format) and credential-shaped text.
"""

from __future__ import annotations

import re

from .secrets import mask

__all__ = [
    "APIError",
    "ConfigError",
    "ContextOverflow",
    "CutReply",
    "LarikError",
    "LocalModelError",
    "LoginExpired",
    "MissingKeyError",
    "NotSignedIn",
    "QuotaExceeded",
    "ResolveError",
    "SignInError",
    "StreamTimeout",
    "classify_status",
    "RETRY_MARK",
    "redact",
    "unsupported_input",
]

RETRY_MARK = " — retry "  # in every retry notice (retry.py): "{error} — retry 1 of 3 in 0.9s"


class LarikError(Exception):
    """Base of every error Larik reports. ``str(err)`` is one line."""


class ConfigError(LarikError):
    """A config file or value is invalid. The message names the file and key."""


class ResolveError(LarikError):
    """A model spec could not be resolved to a provider and model."""


class MissingKeyError(ResolveError):
    """The provider needs an API key that is not set."""

    def __init__(self, provider: str, env_names: list[str] | tuple[str, ...]) -> None:
        self.provider = provider
        self.env_names = tuple(env_names)
        names = " or ".join(self.env_names) or "api_key in its config"
        super().__init__(f"no API key for {provider}: set {names}")


class SignInError(LarikError):
    """A login could not be completed (``larik login``); the message says why, without a token."""


class NotSignedIn(MissingKeyError):
    """A sign-in provider (``chatgpt``, ``copilot``) has no stored login."""

    def __init__(self, provider: str, command: str) -> None:
        self.command = command
        ResolveError.__init__(self, f"{provider}: not signed in: run `{command}`")
        self.provider = provider
        self.env_names = ()


class LocalModelError(LarikError):
    """A local model (``larik local``, ``local/NAME``) cannot be pulled, found or started; the
    message names the file, the model or what the machine lacks."""


class APIError(LarikError):
    """A model call failed.

    ``status`` is the HTTP status (0 for a transport failure such as a dropped connection),
    ``retryable`` whether the same request may succeed if sent again, ``retry_after`` seconds
    the server asked us to wait (or None).
    """

    def __init__(
        self,
        status: int,
        message: str,
        *,
        retryable: bool | None = None,
        retry_after: float | None = None,
        provider: str = "",
    ) -> None:
        self.status = status
        self.retryable = classify_status(status) if retryable is None else retryable
        self.retry_after = retry_after
        self.provider = provider
        self.message = _one_line(message)
        self.unsupported = unsupported_input(self.message)
        if self.unsupported:  # the same request fails the same way, whatever the status
            self.retryable = False
        super().__init__(self._render())

    def _render(self) -> str:
        where = f"{self.provider}: " if self.provider else ""
        code = f"HTTP {self.status}: " if self.status else ""
        return f"{where}{code}{self.message}"


class ContextOverflow(APIError):
    """The prompt does not fit the model's context window. Never retried, never fallen back."""

    def __init__(self, message: str = "prompt is too long for the model", **kw: object) -> None:
        kw.setdefault("retryable", False)
        super().__init__(kw.pop("status", 400), message, **kw)  # type: ignore[arg-type]


class StreamTimeout(APIError):
    """The server sent nothing for too long. Retryable."""

    def __init__(self, message: str, *, provider: str = "") -> None:
        super().__init__(0, message, retryable=True, provider=provider)


class CutReply(APIError):
    """A reply cut off before its end: its stream stopped without the wire API's terminal
    event (larik/llm/providers/stream_end.py), or failed after part of it was shown
    (larik/llm/retry.py). What it said is incomplete, so none of its tool calls runs. Status 0
    and retryable: sent again while nothing of it was shown; after that the turn ends with it."""

    def __init__(self, why: str, *, provider: str = "") -> None:
        super().__init__(
            0,
            f"the reply was cut off: {why} (none of its tool calls ran)",
            retryable=True,
            provider=provider,
        )


class QuotaExceeded(APIError):
    """A flat-rate plan's usage window is spent. Not retried (the window does not refill in
    seconds); a fallback chain skips this model until ``resets_at`` (epoch seconds, or None
    when the server did not say)."""

    def __init__(self, message: str, *, resets_at: float | None = None, provider: str = "") -> None:
        self.resets_at = resets_at
        super().__init__(429, message, retryable=False, provider=provider)


class LoginExpired(APIError):
    """A sign-in was revoked, expired or refused: the user must run ``command`` again. Never
    retried; print mode exits with code 2 as for a missing key."""

    def __init__(
        self, provider: str, command: str, why: str = "the login expired or was revoked"
    ) -> None:
        self.command = command
        super().__init__(401, f"{why}: run `{command}`", retryable=False, provider=provider)


def classify_status(status: int) -> bool:
    """Whether an HTTP status is worth retrying: 408, 409, 425, 429, 5xx and transport errors (0)."""
    return status == 0 or status in (408, 409, 425, 429) or status >= 500


_SECRET_PATTERNS = [
    re.compile(r"(?i)\b(sk|pk|rk)-[A-Za-z0-9_\-]{8,}"),
    re.compile(r"(?i)\bAIza[0-9A-Za-z_\-]{20,}"),
    re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._\-+/=]{8,}"),
    re.compile(
        r"(?i)(api[_-]?key|x-api-key|authorization|token)([\"']?\s*[:=]\s*[\"']?)[^\s\"',}]+"
    ),
    re.compile(r"(?i)([?&](key|api_key|token)=)[^&\s]+"),
]


# How servers say a model cannot take images: llama.cpp without its mmproj ("image input is not
# supported"), Ollama, LM Studio, vLLM ("… is not a multimodal model"), OpenAI ("image_url is
# only supported by certain models"), OpenRouter ("No endpoints found that support image input").
_UNSUPPORTED_IMAGE = re.compile(
    r"(?i)\b(?:image|images|vision|image_url|multimodal|multi-modal)\b[^.;]{0,60}?"
    r"\b(?:not supported|unsupported|only supported|not enabled)"
    r"|\b(?:does not|doesn't|do not|cannot|can't) (?:support|accept|take|handle)s? "
    r"(?:\w+ ){0,2}(?:image|images|vision|multimodal)\b"
    r"|\bnot a (?:multimodal|vision) model\b"
    r"|\bno endpoints found that support image"
)


def unsupported_input(message: str) -> str:
    """``"image"`` when an error message says the model cannot take images, else ``""``."""
    return "image" if _UNSUPPORTED_IMAGE.search(message) else ""


def redact(text: str) -> str:
    """Strip every key Larik knows (by value, ``larik.llm.secrets``) and anything that looks
    like a credential from a vendor message."""
    text = mask(text)
    for pat in _SECRET_PATTERNS:
        text = pat.sub(_mask, text)
    return text


def _mask(m: re.Match[str]) -> str:
    groups = m.groups()
    if len(groups) >= 2 and groups[1] is not None and m.re.pattern.startswith("(?i)(api"):
        return f"{groups[0]}{groups[1]}***"
    if m.re.pattern.startswith("(?i)([?&]"):
        return f"{groups[0]}***"
    return "***"


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(redact(str(text)).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
