"""The login listener ends its wait as soon as another thread closes it: a pasted redirect URL
(``larik login chatgpt`` over SSH) or a cancelled MCP login. Before, a close did not wake the
``accept`` the waiting thread was blocked in: the sign-in sat out the rest of its five minutes,
and a cancelled MCP login kept a thread (and so the process's exit) waiting as long."""

from __future__ import annotations

import threading

import pytest

from larik.llm.callback import Listener
from larik.llm.errors import SignInError
from tests.patience import WAIT


def test_a_close_from_another_thread_ends_the_wait_at_once():
    listener = Listener(0, "/callback", "state")
    said: list[BaseException] = []

    def waiting() -> None:
        try:
            listener.wait(10 * WAIT)
        except SignInError as e:
            said.append(e)

    waiter = threading.Thread(target=waiting, daemon=True)
    waiter.start()
    listener.close()
    waiter.join(WAIT)  # long before the listener's own wait ends
    assert not waiter.is_alive(), "the wait went on after the listener was closed"
    assert [str(e) for e in said] == ["the login was completed another way"]


def test_a_closed_listener_does_not_wait():
    listener = Listener(0, "/callback", "state")
    listener.close()
    with pytest.raises(SignInError, match="completed another way"):
        listener.wait(10 * WAIT)
