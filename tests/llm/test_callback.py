"""The login listener ends its wait as soon as another thread closes it: a pasted redirect URL
(``larik login chatgpt`` over SSH) or a cancelled MCP login. Before, a close did not wake the
``accept`` the waiting thread was blocked in: the sign-in sat out the rest of its five minutes,
and a cancelled MCP login kept a thread (and so the process's exit) waiting as long. And no
other local connection holds the wait: idle ones, slow ones and many ones (real sockets)."""

from __future__ import annotations

import select
import socket
import threading
import time
from collections.abc import Callable

import pytest

from larik.llm import callback
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


# -- no visitor holds the wait (issue 42, item 9) -----------------------------------------------
# Before, the listener read one connection at a time with a timeout per recv: a local program
# sending a byte a second held a 5 s wait for 40 s, and four idle connections kept the real
# redirect from ever being read. READ_TIMEOUT is set far beyond each test's ceiling where the
# per-request deadline must not be what frees the listener.

CEILING = WAIT  # seconds a test waits for what must happen; never a bound on how fast


def _connect(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=CEILING)


def _redirect(port: int, query: str) -> str:
    """The status line the listener answers a browser's redirect with."""
    with _connect(port) as conn:
        conn.sendall(f"GET /callback?{query} HTTP/1.1\r\nHost: localhost\r\n\r\n".encode())
        answer = b""
        while b"\r\n" not in answer:
            chunk = conn.recv(4096)
            if not chunk:
                break
            answer += chunk
    return answer.split(b"\r\n", 1)[0].decode()


class _SlowLoris(threading.Thread):
    """A connection sending one byte of a request head at a time, never ending it, until told
    to stop or the listener puts it out (then :attr:`put_out` is set)."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.conn = _connect(port)
        self.stop, self.put_out, self.sent = threading.Event(), threading.Event(), 0

    def run(self) -> None:
        try:
            self.conn.sendall(b"GET /callback?state=state&code=x HTTP/1.1\r\n")
            while not self.stop.is_set():
                self.conn.sendall(b"X")
                self.sent += 1
                if select.select([self.conn], [], [], 0.1)[0]:
                    self.conn.recv(4096)  # an answer or the end: either way, put out
                    self.put_out.set()
                    return
        except OSError:
            self.put_out.set()
        finally:
            self.conn.close()


def _until(condition: Callable[[], bool]) -> None:
    end = time.monotonic() + CEILING
    while not condition():
        assert time.monotonic() < end, "the condition never came"
        time.sleep(0.05)


def _wait_in_thread(listener: Listener, timeout: float) -> tuple[threading.Thread, list[object]]:
    said: list[object] = []

    def waiting() -> None:
        try:
            said.append(listener.wait(timeout))
        except SignInError as e:
            said.append(e)

    waiter = threading.Thread(target=waiting, daemon=True)
    waiter.start()
    return waiter, said


def test_the_real_redirect_is_served_while_idle_and_slow_connections_stay_open(monkeypatch):
    monkeypatch.setattr(callback, "READ_TIMEOUT", 600.0)
    listener = Listener(0, "/callback", "state")
    waiter, said = _wait_in_thread(listener, 10 * WAIT)
    idle = [_connect(listener.port) for _ in range(4)]
    loris = [_SlowLoris(listener.port) for _ in range(2)]
    for one in loris:
        one.start()
    try:
        _until(lambda: all(one.sent >= 3 for one in loris))  # they are dribbling by now
        # each of them could be put out only after READ_TIMEOUT, far beyond CEILING
        assert _redirect(listener.port, "state=state&code=the-code") == "HTTP/1.1 200 OK"
        waiter.join(CEILING)
        assert not waiter.is_alive()
        assert said == [{"state": "state", "code": "the-code"}]
    finally:
        for one in loris:
            one.stop.set()
        for conn in idle:
            conn.close()


def test_more_idle_connections_than_kept_do_not_starve_the_real_redirect(monkeypatch):
    monkeypatch.setattr(callback, "READ_TIMEOUT", 600.0)
    listener = Listener(0, "/callback", "state")
    waiter, said = _wait_in_thread(listener, 10 * WAIT)
    idle = [_connect(listener.port) for _ in range(callback.MAX_OPEN + 8)]
    try:
        assert _redirect(listener.port, "state=state&code=c") == "HTTP/1.1 200 OK"
        waiter.join(CEILING)
        assert said == [{"state": "state", "code": "c"}]
    finally:
        for conn in idle:
            conn.close()


def test_the_wait_ends_at_its_deadline_while_a_connection_keeps_sending(monkeypatch):
    monkeypatch.setattr(callback, "READ_TIMEOUT", 600.0)
    listener = Listener(0, "/callback", "state")
    loris = _SlowLoris(listener.port)
    loris.start()
    waiter, said = _wait_in_thread(listener, 2)
    try:
        waiter.join(CEILING * 2)
        assert not waiter.is_alive(), "a connection sending a byte at a time held the wait"
        assert [str(e) for e in said] == ["no answer from the browser within 2 s"]
    finally:
        loris.stop.set()


def test_a_request_head_has_one_deadline_however_it_trickles_in(monkeypatch):
    monkeypatch.setattr(callback, "READ_TIMEOUT", 1.0)
    listener = Listener(0, "/callback", "state")
    waiter, said = _wait_in_thread(listener, 10 * WAIT)
    loris = _SlowLoris(listener.port)
    loris.start()
    try:
        assert loris.put_out.wait(CEILING), "a head sent a byte at a time was read for ever"
        assert not loris.stop.is_set()
        assert _redirect(listener.port, "state=state&error=access_denied") == "HTTP/1.1 200 OK"
        waiter.join(CEILING)
        assert said == [{"state": "state", "error": "access_denied"}]
    finally:
        loris.stop.set()


def test_a_request_from_another_loopback_address_is_refused_and_the_wait_goes_on():
    listener = Listener(0, "/callback", "state")
    waiter, said = _wait_in_thread(listener, 10 * WAIT)
    with socket.create_connection(
        ("127.0.0.1", listener.port), timeout=CEILING, source_address=("127.0.0.2", 0)
    ) as conn:
        conn.sendall(b"GET /callback?state=state&code=stolen HTTP/1.1\r\n\r\n")
        assert conn.recv(4096).startswith(b"HTTP/1.1 403 ")
    assert _redirect(listener.port, "state=state&code=mine") == "HTTP/1.1 200 OK"
    waiter.join(CEILING)
    assert said == [{"state": "state", "code": "mine"}]
