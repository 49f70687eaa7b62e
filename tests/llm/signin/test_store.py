"""The account files: 0600 in 0700 folders, atomic, one refresh for two processes."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from larik.llm.signin.store import Account, AccountStore
from tests.llm.signin.fake_auth import ACCOUNT, FakeAuth, chatgpt_tokens
from tests.patience import WAIT

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def fake() -> Iterator[FakeAuth]:
    server = FakeAuth().start()
    yield server
    server.stop()


def _account(n: int = 1, *, expires_at: float | None = None) -> Account:
    t = chatgpt_tokens(n)
    return Account(
        signin="chatgpt",
        account_id=ACCOUNT,
        label="ada@example.com",
        access_token=t["access_token"],
        refresh_token=t["refresh_token"],
        id_token=t["id_token"],
        expires_at=time.time() + 3600 if expires_at is None else expires_at,
        signed_in_at=time.time(),
    )


def test_an_account_file_is_0600_in_a_0700_folder_and_no_temporary_file_is_left(tmp_path):
    store = AccountStore(tmp_path / "accounts")
    path = store.save(_account())
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert [p.name for p in path.parent.iterdir()] == [path.name]
    assert store.current("chatgpt") == _account_like(store.current("chatgpt"))
    assert path.name == f"{_account().key}.json"  # a digest: a hostile id names no path


def _account_like(a: Account | None) -> Account | None:
    return a


def test_the_account_signed_in_last_is_used_and_logout_forgets_them_all(tmp_path):
    store = AccountStore(tmp_path)
    store.save(replace(_account(), account_id="old", signed_in_at=1.0))
    store.save(replace(_account(), account_id="new", signed_in_at=2.0))
    assert [a.account_id for a in store.all("chatgpt")] == ["new", "old"]
    assert len(store.remove("chatgpt")) == 2
    assert store.current("chatgpt") is None


def test_a_file_of_another_sign_in_or_garbage_is_not_an_account(tmp_path):
    store = AccountStore(tmp_path)
    (tmp_path / "chatgpt").mkdir()
    (tmp_path / "chatgpt" / "x.json").write_text('{"signin": "copilot", "account_id": "a"}')
    (tmp_path / "chatgpt" / "y.json").write_text("[1, 2")
    assert store.all("chatgpt") == []


def test_a_good_token_is_not_refreshed(tmp_path):
    store = AccountStore(tmp_path)
    account = _account()
    assert store.fresh(account, lambda a: pytest.fail("refreshed")) is account


RACER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from larik.llm.signin import chatgpt
    from larik.llm.signin.store import AccountStore

    root, url, me = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    store = AccountStore(root)
    account = store.current("chatgpt")
    (root / f"ready-{me}").touch()
    deadline = time.monotonic() + float(sys.argv[4])
    while not (root / "go").exists() and time.monotonic() < deadline:
        time.sleep(0.005)
    print(store.fresh(account, lambda a: chatgpt.refresh(a, url)).access_token)
    """
)


def test_two_processes_refreshing_at_once_spend_the_refresh_token_once(tmp_path, fake):
    """Each refresh token is good for one use: without the lock the second refresh is refused
    (and that process's user is told to sign in again). Checked failing with the FileLock taken
    out of AccountStore.fresh: 2 refreshes, one process exits with LoginExpired."""
    store = AccountStore(tmp_path)
    expired = _account(expires_at=time.time() - 10)
    fake.grant(expired.refresh_token)
    store.save(expired)
    fake.hold_refresh = 3.0  # the first refresh answers late, or as soon as a second comes
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", RACER, str(tmp_path), fake.url, str(i), str(WAIT)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for i in range(2)
    ]
    deadline = time.monotonic() + WAIT
    while not all((tmp_path / f"ready-{i}").exists() for i in range(2)):
        assert time.monotonic() < deadline, "the racers did not start"
        time.sleep(0.01)
    (tmp_path / "go").touch()
    outs = [p.communicate(timeout=WAIT) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err[-500:] for _, err in outs]
    assert fake.refreshes == 1
    tokens = {out.strip() for out, _ in outs}
    assert len(tokens) == 1 and tokens != {expired.access_token}
    assert store.current("chatgpt").access_token == tokens.pop()
