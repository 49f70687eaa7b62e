"""What a Copilot seat serves: ``GET {api}/models``, and which wire shape each model speaks.

Copilot lists its models (OpenCode's ``plugin/github-copilot/models.ts`` reads the same) as
``{"data": [{"id", "name", "supported_endpoints": ["/chat/completions", "/responses",
"/v1/messages"], "policy": {"state"}, "model_picker_enabled", "capabilities": {"family",
"limits": {"max_context_window_tokens", "max_prompt_tokens", "max_output_tokens"},
"supports": {"tool_calls", "vision"}}}]}``. :func:`fetch` reads it with the Copilot token and
the editor headers (the sign-in HTTP rules: no redirect, a size cap, one-line errors), keeps
only well-formed, enabled entries, and :func:`save` writes them beside the account
(``ID.models``, 0600; nothing secret in it). It is read at ``larik login copilot`` and again by
the adapter once it is a day old; ``larik models`` shows it.

:func:`shape_for` picks the wire shape of a model:

* ``anthropic`` — the listing names ``/v1/messages`` (Claude models): the Messages API at
  ``{api}/v1/messages``;
* ``responses`` — the listing names ``/responses`` and not ``/chat/completions``, or the model
  is GPT-5 or later but not ``gpt-5-mini`` (OpenCode's ``shouldUseCopilotResponsesApi``, also
  the rule when there is no listing);
* ``chat`` — Chat Completions, everything else.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from .. import jsontext

if TYPE_CHECKING:
    from .store import Account, AccountStore

__all__ = [
    "MAX_MODELS",
    "STALE",
    "CopilotModel",
    "Listing",
    "fetch",
    "load",
    "parse",
    "save",
    "shape_for",
]

#: At most this many models are kept from a listing (a lying server's thousands are cut).
MAX_MODELS = 400
#: A listing older than this (seconds) is read again.
STALE = 86400.0
#: The listing's size cap (a real one is well under it).
MAX_LISTING = 2 * 1024 * 1024
_ENDPOINTS = ("/chat/completions", "/responses", "/v1/messages")
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,99}")


@dataclass(frozen=True, slots=True)
class CopilotModel:
    id: str
    name: str = ""
    endpoints: tuple[str, ...] = ()
    context_window: int | None = None
    max_output: int | None = None
    tools: bool = True
    vision: bool = False
    picker: bool = False

    @property
    def shape(self) -> str:
        return shape_for(self.id, self.endpoints)


@dataclass(frozen=True, slots=True)
class Listing:
    models: tuple[CopilotModel, ...] = field(default=())
    fetched_at: float = 0.0

    def get(self, model: str) -> CopilotModel | None:
        return next((m for m in self.models if m.id == model), None)

    @property
    def stale(self) -> bool:
        return time.time() - self.fetched_at > STALE


def _gpt5_or_later(model: str) -> bool:
    m = re.match(r"gpt-(\d+)", model)
    return m is not None and int(m.group(1)) >= 5 and not model.startswith("gpt-5-mini")


def shape_for(model: str, endpoints: Sequence[str] = ()) -> str:
    """``chat``, ``responses`` or ``anthropic`` for ``model`` (see the module docstring)."""
    if "/v1/messages" in endpoints:
        return "anthropic"
    if "/responses" in endpoints and "/chat/completions" not in endpoints:
        return "responses"
    if endpoints and "/responses" not in endpoints:
        return "chat"
    return "responses" if _gpt5_or_later(model) else "chat"


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _table(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _entry(raw: Any) -> CopilotModel | None:
    """One listing entry, or None when it is malformed or disabled."""
    if not isinstance(raw, dict):
        return None
    ident = raw.get("id")
    if not isinstance(ident, str) or not _ID.fullmatch(ident):
        return None
    policy = raw.get("policy")
    if isinstance(policy, dict) and policy.get("state") == "disabled":
        return None
    caps = _table(raw.get("capabilities"))
    limits, supports = _table(caps.get("limits")), _table(caps.get("supports"))
    endpoints = raw.get("supported_endpoints")
    ends = tuple(e for e in _ENDPOINTS if isinstance(endpoints, list) and e in endpoints)
    name = raw.get("name")
    return CopilotModel(
        id=ident,
        name=" ".join(name.split())[:80] if isinstance(name, str) else "",
        endpoints=ends,
        context_window=_int(limits.get("max_context_window_tokens"))
        or _int(limits.get("max_prompt_tokens")),
        max_output=_int(limits.get("max_output_tokens")),
        tools=supports.get("tool_calls") is not False,
        vision=supports.get("vision") is True,
        picker=raw.get("model_picker_enabled") is True,
    )


def parse(data: Any) -> tuple[CopilotModel, ...]:
    items = data.get("data") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return ()
    seen: dict[str, CopilotModel] = {}
    for raw in items[: MAX_MODELS * 4]:
        m = _entry(raw)
        if m is not None and m.id not in seen:
            seen[m.id] = m
        if len(seen) >= MAX_MODELS:
            break
    return tuple(seen.values())


def fetch(account: Account, base_url: str, auth_url: str) -> Listing:
    """The seat's listing, read now (a one-line SignInError when it cannot be)."""
    from ..errors import SignInError
    from .copilot import EDITOR_HEADERS
    from .web import request

    answer = request(
        "GET",
        f"{base_url.rstrip('/')}/models",
        what="the Copilot model listing",
        server=auth_url,
        headers={**EDITOR_HEADERS, "Authorization": f"Bearer {account.access_token}"},
        limit=MAX_LISTING,
    )
    if answer.status != 200:
        raise SignInError(f"the Copilot model listing: {answer.reason()}")
    return Listing(parse(answer.data), time.time())


def save(store: AccountStore, account: Account, listing: Listing) -> None:
    from .store import write_private

    data = {"fetched_at": listing.fetched_at, "models": [asdict(m) for m in listing.models]}
    try:
        write_private(store.root / account.signin / f"{account.key}.models", jsontext.dumps(data))
    except OSError:
        pass  # a cache: the rule decides without it


def load(store: AccountStore, account: Account) -> Listing | None:
    path = store.root / account.signin / f"{account.key}.models"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        models = tuple(
            CopilotModel(**{**m, "endpoints": tuple(m.get("endpoints") or ())})
            for m in data["models"]
            if isinstance(m, dict) and _ID.fullmatch(str(m.get("id", "")))
        )
        return Listing(models[:MAX_MODELS], float(data["fetched_at"]))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
