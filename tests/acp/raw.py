"""A raw JSON-RPC client for the hostile ACP tests: ``larik acp`` as a real subprocess, spoken
to in lines of bytes (no SDK between: ids and storms the SDK would never send), every line of
its stdout parsed by a strict parser that refuses what is not JSON (``NaN``, ``Infinity``, a
number no double holds), every answer kept by its id, and the agent's own requests answered
(a permission question: cancelled; anything else: method not found)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .client import WAIT, env


def strict_json(line: bytes | str) -> Any:
    """``line`` as JSON, refusing what RFC 8259 does not allow or no double holds."""

    def constant(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    def number(text: str) -> float:
        value = float(text)
        if not math.isfinite(value):
            raise ValueError(f"{text} is no finite number")
        return value

    return json.loads(line, parse_constant=constant, parse_float=number)


def key(id_: Any) -> str:
    """A request id as the answer must echo it (its JSON text, so 1 and 1.5 and "1" differ)."""
    return json.dumps(id_)


class Raw:
    def __init__(self, project: Path, *args: str, extra_env: dict[str, str] | None = None):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "larik.cli", "acp", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=project,
            env={**env(), **(extra_env or {})},
        )
        self.lines: list[bytes] = []  # every line of stdout
        self.bad: list[tuple[bytes, str]] = []  # lines that are not strict JSON-RPC
        self.answers: dict[str, list[dict[str, Any]]] = defaultdict(list)  # by key(id)
        self.updates: list[dict[str, Any]] = []  # session/update params
        self.asked: list[dict[str, Any]] = []  # the agent's requests
        self.pick: Callable[[dict[str, Any]], dict[str, Any]] | None = None  # permission answer
        self._lock = threading.RLock()
        self._stdin_lock = threading.Lock()
        self._stderr: list[bytes] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    # -- writing ----------------------------------------------------------------------------
    def write(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        with self._stdin_lock:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()

    def send(self, *messages: dict[str, Any]) -> None:
        """``messages`` in one write (a storm arrives as one burst)."""
        self.write(b"".join(json.dumps(m).encode() + b"\n" for m in messages))

    @staticmethod
    def request(id_: Any, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}

    @staticmethod
    def note(method: str, params: dict[str, Any]) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "method": method, "params": params}

    # -- reading ----------------------------------------------------------------------------
    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._lock:
                self.lines.append(line)
            try:
                message = strict_json(line)
            except ValueError as e:
                with self._lock:
                    self.bad.append((line, str(e)))
                continue
            if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
                with self._lock:
                    self.bad.append((line, "not a JSON-RPC 2.0 object"))
                continue
            self._take(message)

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self._stderr.append(line)

    def _take(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if method is None:
            with self._lock:
                self.answers[key(message.get("id"))].append(message)
        elif "id" not in message:
            if method == "session/update":
                with self._lock:
                    self.updates.append(message["params"])
        else:
            with self._lock:
                self.asked.append(message)
            self._answer_agent(message)

    def _answer_agent(self, message: dict[str, Any]) -> None:
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
        if message["method"] == "session/request_permission":
            pick = self.pick(message) if self.pick is not None else None
            reply["result"] = {"outcome": pick or {"outcome": "cancelled"}}
        else:
            reply["error"] = {"code": -32601, "message": "Method not found"}
        try:
            self.send(reply)
        except (BrokenPipeError, ValueError):
            pass

    # -- waiting ----------------------------------------------------------------------------
    def until(self, check: Callable[[], Any], what: str, timeout: float = WAIT) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                value = check()
            if value:
                return value
            if self.proc.poll() is not None:
                with self._lock:
                    value = check()
                if value:
                    return value
                raise AssertionError(f"larik acp ended ({self.proc.returncode}) before {what}")
            time.sleep(0.01)
        raise AssertionError(f"timed out waiting for {what}")

    def answer(self, id_: Any, timeout: float = WAIT) -> dict[str, Any]:
        """The one answer to request ``id_`` (waited for)."""
        got = self.until(lambda: self.answers.get(key(id_)), f"the answer to id {id_!r}", timeout)
        return got[0]

    def text(self, session_id: str) -> str:
        with self._lock:
            return "".join(
                u["update"]["content"].get("text", "")
                for u in self.updates
                if u["sessionId"] == session_id
                and u["update"].get("sessionUpdate") == "agent_message_chunk"
            )

    def stderr(self) -> str:
        return b"".join(self._stderr).decode(errors="replace")

    def close(self) -> int:
        """Close stdin and wait for the process to end; its exit code."""
        try:
            assert self.proc.stdin is not None
            with self._stdin_lock:
                self.proc.stdin.close()
        except BrokenPipeError:
            pass
        try:
            return self.proc.wait(timeout=WAIT)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> Raw:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    # -- the checks every hostile test makes ------------------------------------------------
    def assert_clean(self, sent: list[Any]) -> None:
        """Every line of stdout was strict JSON-RPC, and each request in ``sent`` (ids) got
        exactly one answer."""
        assert self.bad == [], self.bad[:3]
        with self._lock:
            counts = {k: len(v) for k, v in self.answers.items()}
        missing = [i for i in sent if counts.get(key(i), 0) == 0]
        twice = [i for i in sent if counts.get(key(i), 0) > 1]
        assert missing == [] and twice == [], f"unanswered {missing}, answered twice {twice}"
