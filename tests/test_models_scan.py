"""``larik models --scan``: model servers on other ports of 127.0.0.1, asked once on request —
real loopback servers (an Ollama-shaped one, an OpenAI-compatible one, a listener that is not
HTTP) and a real ``larik`` process."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


def _server(routes: dict[str, dict]) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            body = routes.get(self.path)
            if body is None:
                self.send_error(404)
                return
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *a):
            pass

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return srv


@pytest.fixture
def servers():
    ollama = _server({"/api/tags": {"models": [{"name": "qwen3:8b"}]}})
    openai = _server({"/v1/models": {"data": [{"id": "coder-7b"}, {"id": "coder-1b"}]}})
    web = _server({"/": {"hello": "a web page"}})  # HTTP, but no model list
    raw = socket.socket()
    raw.bind(("127.0.0.1", 0))
    raw.listen()
    yield ollama, openai, web, raw
    for s in (ollama, openai, web):
        s.shutdown()
    raw.close()


def _larik(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "larik._entry", *argv],
        capture_output=True, text=True, timeout=120, env=dict(os.environ),
    )  # fmt: skip


def test_scan_finds_the_model_servers_on_the_ports_asked_and_says_how_to_use_them(servers):
    ollama, openai, web, raw = servers
    ports = [s.server_address[1] for s in (ollama, openai, web)] + [raw.getsockname()[1]]
    r = _larik("models", "--scan", "--ports", ",".join(map(str, ports)))
    assert r.returncode == 0, r.stderr
    out = r.stdout
    o, a = ports[0], ports[1]
    assert f"127.0.0.1:{o}  ollama  1 model: qwen3:8b" in out
    assert f"127.0.0.1:{a}  openai-compatible  2 models: coder-7b, coder-1b" in out
    assert (
        f'[providers.local{a}]\ntype = "openai-compatible"\nbase_url = "http://127.0.0.1:{a}/v1"'
        in out
    )
    assert f'base_url = "http://127.0.0.1:{o}"' in out
    assert f":{ports[2]} " not in out and f":{ports[3]} " not in out  # not model servers


def test_scan_with_nothing_there_says_so_and_bad_ports_are_one_line(servers):
    free = socket.socket()
    free.bind(("127.0.0.1", 0))
    port = free.getsockname()[1]
    free.close()
    r = _larik("models", "--scan", "--ports", str(port))
    assert r.returncode == 0 and "none answered" in r.stdout
    r = _larik("models", "--scan", "--ports", "80-70000")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "1–65535" in r.stderr
