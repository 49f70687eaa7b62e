"""The wire of ``larik acp``: stdout carries JSON-RPC and nothing else; a malformed message,
an unknown method, a batch each get the JSON-RPC error the spec names, and Larik reads on.
Raw bytes in, raw lines out (a real subprocess, no client library between)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from .client import WAIT, env, script


def _run(project: Path, lines: list[bytes], *args: str, last: int) -> tuple[list[dict], str]:
    """Send ``lines``, read stdout until request ``last`` is answered, then close stdin."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "larik.cli", "acp", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=project,
        env=env(),
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b"".join(lines))
    proc.stdin.flush()
    out: list[dict] = []
    try:
        while not any(m.get("id") == last for m in out):
            raw = proc.stdout.readline()
            assert raw, "larik acp closed stdout before answering"
            message = json.loads(raw)  # every line of stdout is a JSON-RPC object
            assert isinstance(message, dict) and message.get("jsonrpc") == "2.0", raw
            out.append(message)
        proc.stdin.close()
        proc.stdin = None  # communicate() reads the rest
        rest, err = proc.communicate(timeout=WAIT)
    finally:
        proc.kill()
    for raw in rest.splitlines():
        message = json.loads(raw)
        assert isinstance(message, dict) and message.get("jsonrpc") == "2.0", raw
        out.append(message)
    assert proc.returncode == 0, err.decode()
    return out, err.decode()


def _rpc(id_: int, method: str, params: dict) -> bytes:
    return (
        json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params}).encode()
        + b"\n"
    )


def _answer(out: list[dict], id_: object) -> dict:
    return next(m for m in out if m.get("id") == id_ and ("result" in m or "error" in m))


def test_malformed_input_gets_the_errors_the_spec_names_and_larik_reads_on(project):
    lines = [
        b"this is not json\n",
        b"[1, 2, 3]\n",
        b'"a string"\n',
        b"\n",
        _rpc(1, "initialize", {"protocolVersion": 1}),
        _rpc(2, "no/such/method", {}),
        _rpc(3, "session/prompt", {"sessionId": "nope"}),  # a prompt without one
        _rpc(4, "initialize", {"protocolVersion": 1}),
    ]
    out, err = _run(project, lines, last=4)
    nulls = [m["error"]["code"] for m in out if m.get("id") is None]
    assert nulls == [-32700, -32600, -32600]  # parse error, then two invalid requests
    assert _answer(out, 1)["result"]["protocolVersion"] == 1
    assert _answer(out, 2)["error"]["code"] == -32601  # method not found
    assert _answer(out, 3)["error"]["code"] == -32602  # invalid params
    assert _answer(out, 4)["result"]["agentInfo"]["name"] == "larik"  # still reading
    assert "Traceback" not in err
    assert "line 1" in err  # the bad line is named, on stderr


def test_stdout_carries_only_the_protocol_whatever_else_writes_to_it(project, tmp_path):
    """A hook writes to Larik's own fd 1 (its parent's stdout): that goes to stderr, not into
    the protocol. (Before stdout was claimed, the line landed in the client's stream.)"""
    home = Path(env()["LARIK_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(  # outside the sandbox, whose pid namespace hides Larik
        '[[hooks.SessionStart]]\ncommand = "echo STRAY-LINE > /proc/$PPID/fd/1"\nsandbox = false\n'
    )
    model = script(tmp_path / "m.json", {"text": "hello"})
    lines = [
        _rpc(1, "initialize", {"protocolVersion": 1}),
        _rpc(2, "session/new", {"cwd": str(project), "mcpServers": []}),
    ]
    out, err = _run(project, lines, "-m", model, last=2)
    assert "sessionId" in _answer(out, 2)["result"]
    assert "STRAY-LINE" in err  # the hook ran; its line went to stderr
