"""Signed-in accounts on disk: one file per account, 0600, written atomically, refreshed
under a lock.

``<accounts>/NAME/ID.json`` (``accounts`` is ``<state>/accounts``; ID is a digest of the
account's id, so a hostile id cannot name a path). The folders are 0700. A file holds the
access, refresh and id tokens, when the access token expires, the account's id and label
(an e-mail, a GitHub login) and what the sign-in needs to refresh (``extra``: the GitHub host,
the Copilot API URL). Every token read or written is registered with
:mod:`larik.llm.secrets`, so it is masked by value wherever text leaves the process.

:meth:`AccountStore.fresh` hands out an account whose access token is good for at least
:data:`MARGIN` seconds. When it is not, it takes ``ID.json.lock`` (``filelock``: an OS lock,
released if the process dies), reads the file again — another process may have refreshed it
meanwhile, and a refresh token is often good for one use only — and only then refreshes and
writes. So two Larik processes never spend the same refresh token.

The account used for a sign-in is the one signed in last (``signed_in_at``).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from .. import jsontext, secrets

__all__ = ["MARGIN", "Account", "AccountStore", "write_private"]

#: Seconds of life an access token must have left to be used without a refresh.
MARGIN = 300.0
#: Seconds to wait for another process's refresh before giving up.
LOCK_TIMEOUT = 60.0
_TOKEN_FIELDS = ("access_token", "refresh_token", "id_token")


@dataclass(frozen=True, slots=True)
class Account:
    """One signed-in account."""

    signin: str
    account_id: str
    label: str = ""
    access_token: str = field(default="", repr=False)
    refresh_token: str = field(default="", repr=False)
    id_token: str = field(default="", repr=False)
    expires_at: float = 0.0
    """Epoch seconds when the access token stops working (0: unknown)."""
    signed_in_at: float = 0.0
    plan: str = ""
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def key(self) -> str:
        """A short stable name for the account (its file name; replay and quota keys)."""
        return hashlib.sha256(f"{self.signin}\0{self.account_id}".encode()).hexdigest()[:16]

    def expired(self, margin: float = MARGIN, now: float | None = None) -> bool:
        when = time.time() if now is None else now
        return not self.access_token or (bool(self.expires_at) and self.expires_at - margin <= when)

    def to_json(self) -> str:
        return jsontext.dumps(asdict(self), indent=2)

    @classmethod
    def from_data(cls, data: Any, signin: str) -> Account | None:
        if not isinstance(data, dict) or data.get("signin") != signin:
            return None
        try:
            account = cls(
                signin=signin,
                account_id=str(data["account_id"]),
                label=str(data.get("label") or ""),
                access_token=str(data.get("access_token") or ""),
                refresh_token=str(data.get("refresh_token") or ""),
                id_token=str(data.get("id_token") or ""),
                expires_at=float(data.get("expires_at") or 0),
                signed_in_at=float(data.get("signed_in_at") or 0),
                plan=str(data.get("plan") or ""),
                extra={str(k): str(v) for k, v in (data.get("extra") or {}).items()},
            )
        except (KeyError, TypeError, ValueError, AttributeError):
            return None
        secrets.remember(*(getattr(account, f) for f in _TOKEN_FIELDS))
        return account


def write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically, mode 0600, its folder 0700."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path.parent, 0o700)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            os.fchmod(f.fileno(), 0o600)
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


class AccountStore:
    """The accounts under one folder (``<state>/accounts``)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, account: Account) -> Path:
        return self.root / account.signin / f"{account.key}.json"

    def all(self, signin: str) -> list[Account]:
        """The accounts of ``signin``, the one signed in last first."""
        found: list[Account] = []
        folder = self.root / signin
        try:
            files = sorted(folder.glob("*.json"))
        except OSError:
            return []
        for path in files:
            account = self._read(path, signin)
            if account is not None:
                found.append(account)
        found.sort(key=lambda a: a.signed_in_at, reverse=True)
        return found

    def current(self, signin: str) -> Account | None:
        accounts = self.all(signin)
        return accounts[0] if accounts else None

    def save(self, account: Account) -> Path:
        secrets.remember(*(getattr(account, f) for f in _TOKEN_FIELDS))
        path = self.path(account)
        write_private(path, account.to_json())
        return path

    def remove(self, signin: str) -> list[Account]:
        """Forget every account of ``signin`` (its files and their locks)."""
        gone = self.all(signin)
        for account in gone:
            path = self.path(account)
            path.unlink(missing_ok=True)
            path.with_name(path.name + ".lock").unlink(missing_ok=True)
            self.quota_path(account).unlink(missing_ok=True)
            path.with_suffix(".models").unlink(missing_ok=True)  # a Copilot seat's listing
        return gone

    def quota_path(self, account: Account) -> Path:
        """Where the last usage figures seen for ``account`` are kept (no secret in them)."""
        return self.root / account.signin / f"{account.key}.quota"

    def fresh(
        self,
        account: Account,
        refresh: Callable[[Account], Account],
        *,
        margin: float = MARGIN,
        timeout: float = LOCK_TIMEOUT,
    ) -> Account:
        """``account`` with an access token good for ``margin`` seconds more: as stored, or
        refreshed by ``refresh`` under the account's lock (see the module docstring)."""
        if not account.expired(margin):
            return account
        from filelock import FileLock

        path = self.path(account)
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with FileLock(str(path) + ".lock", timeout=timeout, mode=0o600):
            stored = self._read(path, account.signin) or account
            if not stored.expired(margin):
                return stored  # another process refreshed it while we waited
            new = refresh(stored)
            new = replace(new, signed_in_at=stored.signed_in_at)
            write_private(path, new.to_json())
            secrets.remember(*(getattr(new, f) for f in _TOKEN_FIELDS))
            return new

    @staticmethod
    def _read(path: Path, signin: str) -> Account | None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return Account.from_data(data, signin)
