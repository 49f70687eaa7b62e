"""A plan's usage windows, as the backend reports them.

ChatGPT's backend sends, with every answer (the 429 of a spent window too), the headers Codex
reads (codex-rs; pi's ``parseCodexRateLimits``): ``x-codex-primary-used-percent``,
``x-codex-primary-window-minutes``, ``x-codex-primary-reset-after-seconds`` (or
``x-codex-primary-reset-at``, epoch seconds), the same for ``secondary``, and
``x-codex-plan-type``. Plus plans report the 5-hour window as primary and the weekly one as
secondary; a window is labelled by its length (``5h``, ``wk``), not its slot.

The latest figures are kept per provider in this process (:func:`record`, :func:`latest`:
``larik.session.plans``: the status line, ``/cost``, print mode, bench) and on disk beside the account (:func:`save`, :func:`load`:
``larik models``, ``larik login --status``, bench reports). Nothing secret is in them.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from .. import jsontext

if TYPE_CHECKING:
    from .store import Account, AccountStore

__all__ = [
    "Quota",
    "Window",
    "describe",
    "from_headers",
    "from_usage",
    "latest",
    "load",
    "record",
    "reset_time",
    "resets_text",
    "save",
    "spent",
    "windows_table",
]


@dataclass(frozen=True, slots=True)
class Window:
    slot: str
    used_percent: float
    minutes: int | None = None
    resets_at: float | None = None

    @property
    def label(self) -> str:
        if self.minutes == 10080:
            return "wk"
        if self.minutes and self.minutes % 1440 == 0:
            return f"{self.minutes // 1440}d"
        if self.minutes and self.minutes % 60 == 0:
            return f"{self.minutes // 60}h"
        return f"{self.minutes}m" if self.minutes else self.slot

    @property
    def spent(self) -> bool:
        return self.used_percent >= 100


@dataclass(frozen=True, slots=True)
class Quota:
    windows: tuple[Window, ...]
    plan: str = ""
    seen_at: float = 0.0

    def window(self, label: str) -> Window | None:
        return next((w for w in self.windows if w.label == label), None)


def _number(headers: Mapping[str, str], name: str) -> float | None:
    raw = headers.get(name)
    if raw is None:
        return None
    try:
        value = float(raw)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def from_headers(headers: Mapping[str, str], now: float | None = None) -> Quota | None:
    """The windows in a ChatGPT backend answer's headers (None when it reports none)."""
    low = {k.lower(): v for k, v in headers.items()}
    now = time.time() if now is None else now
    windows: list[Window] = []
    for slot in ("primary", "secondary"):
        used = _number(low, f"x-codex-{slot}-used-percent")
        if used is None:
            continue
        minutes = _number(low, f"x-codex-{slot}-window-minutes")
        at = _number(low, f"x-codex-{slot}-reset-at")
        after = _number(low, f"x-codex-{slot}-reset-after-seconds")
        resets = at if at is not None and at > 0 else (now + after if after is not None else None)
        windows.append(
            Window(
                slot=slot,
                used_percent=max(0.0, min(used, 100.0)),
                minutes=int(minutes) if minutes is not None and minutes > 0 else None,
                resets_at=resets,
            )
        )
    if not windows:
        return None
    plan = str(low.get("x-codex-plan-type") or "")[:40]
    return Quota(tuple(windows), plan=plan, seen_at=now)


def from_usage(data: Any, now: float | None = None) -> Quota | None:
    """The windows in an answer of the ChatGPT usage endpoint (``GET …/backend-api/wham/usage``,
    what Codex's ``/status`` reads): ``{"plan_type", "rate_limit": {"primary_window",
    "secondary_window"}}``, each window ``{"used_percent", "limit_window_seconds",
    "reset_after_seconds", "reset_at"}``. None when it reports none (or is not that shape)."""
    if not isinstance(data, dict) or not isinstance(data.get("rate_limit"), dict):
        return None
    now = time.time() if now is None else now
    windows: list[Window] = []
    for slot in ("primary", "secondary"):
        w = data["rate_limit"].get(f"{slot}_window")
        if not isinstance(w, dict):
            continue
        used = _finite(w.get("used_percent"))
        if used is None:
            continue
        seconds = _finite(w.get("limit_window_seconds"))
        at, after = _finite(w.get("reset_at")), _finite(w.get("reset_after_seconds"))
        resets = at if at is not None and at > 0 else (now + after if after is not None else None)
        windows.append(
            Window(
                slot=slot,
                used_percent=max(0.0, min(used, 100.0)),
                minutes=int(seconds // 60) if seconds is not None and seconds >= 60 else None,
                resets_at=resets,
            )
        )
    if not windows:
        return None
    plan = data.get("plan_type")
    return Quota(tuple(windows), plan=plan[:40] if isinstance(plan, str) else "", seen_at=now)


def _finite(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def reset_time(quota: Quota | None) -> float | None:
    """When every spent window has refilled (None: none is spent, or no time was given)."""
    if quota is None:
        return None
    times = [w.resets_at for w in quota.windows if w.spent and w.resets_at]
    return max(times) if times else None


def describe(quota: Quota) -> str:
    """``plan 5h 37% · wk 12%`` (``plan`` is the plan's type when known)."""
    parts = " · ".join(f"{w.label} {w.used_percent:.0f}%" for w in quota.windows)
    return f"{quota.plan or 'plan'} {parts}"


def resets_text(when: float | None, now: float | None = None) -> str:
    """``Tue 14:05 (in 2h 03m)``; "" when unknown."""
    if when is None:
        return ""
    now = time.time() if now is None else now
    left = max(0, int(when - now))
    hours, minutes = divmod(left // 60, 60)
    days, hours = divmod(hours, 24)
    span = f"{days}d {hours}h" if days else (f"{hours}h {minutes:02d}m" if hours else f"{minutes}m")
    return f"{time.strftime('%a %H:%M', time.localtime(when))} (in {span})"


def windows_table(plans: Mapping[str, Quota], now: float | None = None) -> str:
    """The plans' windows as a Markdown table (``/cost``): plan, window, used, resets."""
    rows = ["| plan | window | used | resets |", "|---|---|---:|---|"]
    for provider, q in sorted(plans.items()):
        name = f"{provider} ({q.plan})" if q.plan else provider
        for w in q.windows:
            rows.append(
                f"| {name} | {w.label} | {w.used_percent:.0f}% | {resets_text(w.resets_at, now)} |"
            )
    return "\n".join(rows)


#: Two figures of one window whose reset times differ by more than this are of two windows
#: (the window refilled in between); less is the jitter of ``reset-after-seconds``.
SAME_WINDOW = 600.0


def spent(
    before: Quota | None, after: Quota | None, first: Quota | None = None
) -> dict[str, float]:
    """Percentage points of each window spent between ``before`` and ``after`` (by label).

    ``before``: the figures when the work began (None: none known); ``first``: the first
    figures the work itself brought (a baseline when ``before`` is missing or of an earlier
    window: it misses that first request). A window that refilled in between counts from 0."""
    if after is None:
        return {}
    out: dict[str, float] = {}
    for w in after.windows:
        b = before.window(w.label) if before is not None else None
        f = first.window(w.label) if first is not None else None
        if b is None and f is None:
            continue  # nothing to count from
        if b is not None and _same(b, w):
            base = b.used_percent  # exact
        elif f is not None and _same(f, w):
            base = f.used_percent  # from the first answer: misses that first request
        else:
            base = 0.0  # the window refilled during the work: what was spent since
        out[w.label] = round(max(0.0, w.used_percent - base), 3)
    return out


def _same(a: Window, b: Window) -> bool:
    if a.resets_at is None or b.resets_at is None:
        return a.resets_at is b.resets_at
    return abs(a.resets_at - b.resets_at) <= SAME_WINDOW


# -- this process -----------------------------------------------------------------------------

_lock = threading.Lock()
_latest: dict[str, Quota] = {}


def record(provider: str, quota: Quota) -> None:
    with _lock:
        _latest[provider] = quota


def latest(provider: str | None = None) -> dict[str, Quota]:
    """The latest figures seen in this process, by provider (only ``provider``'s if given)."""
    with _lock:
        if provider is None:
            return dict(_latest)
        return {provider: _latest[provider]} if provider in _latest else {}


def forget() -> None:
    """Drop what this process saw (tests)."""
    with _lock:
        _latest.clear()


# -- on disk ----------------------------------------------------------------------------------


def save(store: AccountStore, account: Account, quota: Quota) -> None:
    from .store import write_private

    data = {
        "plan": quota.plan,
        "seen_at": quota.seen_at,
        "windows": [asdict(w) for w in quota.windows],
    }
    try:
        write_private(store.quota_path(account), jsontext.dumps(data))
    except OSError:
        pass  # figures for display only


def load(store: AccountStore, account: Account) -> Quota | None:
    try:
        data: Any = json.loads(store.quota_path(account).read_text(encoding="utf-8"))
        windows = tuple(
            Window(
                slot=str(w["slot"]),
                used_percent=float(w["used_percent"]),
                minutes=int(w["minutes"]) if w.get("minutes") else None,
                resets_at=float(w["resets_at"]) if w.get("resets_at") else None,
            )
            for w in data["windows"]
        )
        return Quota(windows, plan=str(data.get("plan") or ""), seen_at=float(data["seen_at"]))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
