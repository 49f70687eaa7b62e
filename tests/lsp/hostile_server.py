"""A lying language server for tests/lsp: ``python hostile_server.py MODE``.

hang: never answers initialize. garbage: answers with frames that are not JSON-RPC. huge:
announces a 2 GB message. flood: answers, then publishes 20 000 diagnostics per change, over
and over. crash: exits at the first change. write: writes PWNED in its working folder.
crash-then-hang MARKER: crashes as crash does the first time (making MARKER), and is started
again only to hang on initialize (a restart that is slow on a loaded machine).
pull: an honest server that answers textDocument/diagnostic only (pull diagnostics), never
publishing: an error on each line that says "undefined".
pull-late: as pull, but announced as basedpyright does — after ``initialized`` it asks for its
settings (``workspace/configuration``, section ``fake.analysis``), then registers
``textDocument/diagnostic`` (``client/registerCapability``) and asks for a
``workspace/diagnostic/refresh``; an error answer to any of them ends it (as basedpyright
ends); its messages name the settings' ``mode``.
mute: answers initialize and shutdown, and never says a word of any file.
poison: publishes one diagnostic per change whose every text field is hostile: a 7 MB
``code`` and a long message, source, related information and link, with ``ESC]52`` (the
clipboard), U+202E and NULs inside.
hang-child PIDFILE: starts a child that sleeps (its pid written to PIDFILE), then hangs as hang
does: both must go when the server is given up.
"""

import json
import sys
import time

MODE = sys.argv[1]
if MODE == "crash-then-hang":
    import os

    MODE = "hang" if os.path.exists(sys.argv[2]) else "crash"
    open(sys.argv[2], "a").close()
if MODE == "hang-child":
    import subprocess

    child = subprocess.Popen(["sleep", "3600"])
    with open(sys.argv[2], "w") as fh:
        fh.write(str(child.pid))
    MODE = "hang"
out = sys.stdout.buffer
inp = sys.stdin.buffer


def send(obj):
    body = json.dumps(obj).encode()
    out.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    out.flush()


def read():
    length = 0
    while True:
        line = inp.readline()
        if not line:
            sys.exit(0)
        if not line.strip():
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(inp.read(length))


TEXTS = {}
SETTINGS = {}
while True:
    msg = read()
    method = msg.get("method")
    if method is None and "error" in msg:  # an answer to one of its requests: refused
        sys.exit(5)
    if method is None and msg.get("id") == "c1":  # its settings: then pull is registered
        SETTINGS = (msg.get("result") or [None])[0] or {}
        reg = {"id": "d", "method": "textDocument/diagnostic", "registerOptions": {}}
        send(
            {
                "jsonrpc": "2.0",
                "id": "r1",
                "method": "client/registerCapability",
                "params": {"registrations": [reg]},
            }
        )
        send({"jsonrpc": "2.0", "id": "f1", "method": "workspace/diagnostic/refresh"})
    elif method == "initialized" and MODE == "pull-late":
        params = {"items": [{"section": "fake.analysis"}]}
        send({"jsonrpc": "2.0", "id": "c1", "method": "workspace/configuration", "params": params})
    elif method == "initialize":
        if MODE == "hang":
            time.sleep(3600)
        if MODE == "garbage":
            out.write(b"Content-Length: 12\r\n\r\nnot json!!!!")
            out.flush()
            time.sleep(3600)
        if MODE == "huge":
            out.write(b"Content-Length: 2000000000\r\n\r\n" + b"x" * 65536)
            out.flush()
            time.sleep(3600)
        if MODE == "write":  # a server that writes the project (as its plugin could)
            try:
                with open("PWNED", "w") as fh:
                    fh.write("x")
            except OSError:
                pass
        caps = {"textDocumentSync": 1}
        if MODE == "pull":
            caps["diagnosticProvider"] = {
                "interFileDependencies": False,
                "workspaceDiagnostics": False,
            }
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {"capabilities": caps}})
    elif method == "textDocument/diagnostic":
        text = TEXTS.get(msg["params"]["textDocument"]["uri"], "")
        items = [
            {
                "range": {"start": {"line": n, "character": 0}, "end": {"line": n, "character": 1}},
                "severity": 1,
                "code": "U1",
                "message": "undefined here"
                + (f" (mode {SETTINGS['mode']})" if "mode" in SETTINGS else ""),
            }
            for n, line in enumerate(text.splitlines())
            if "undefined" in line
        ]
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {"kind": "full", "items": items}})
    elif method in ("textDocument/didOpen", "textDocument/didChange"):
        params = msg["params"]
        if method == "textDocument/didOpen":
            TEXTS[params["textDocument"]["uri"]] = params["textDocument"]["text"]
        else:
            TEXTS[params["textDocument"]["uri"]] = params["contentChanges"][-1]["text"]
        if MODE == "crash":
            sys.exit(3)
        if MODE == "poison":
            bad = "\x1b]52;c;cHduZWQ=\x07\u202e\x00"
            d = {
                "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
                "severity": 1,
                "code": bad + "C" * 7_000_000 + bad,
                "source": bad * 1000,
                "message": (bad + "m" * 1000) * 100,
                "codeDescription": {"href": "https://x.example/" + bad * 1000},
                "relatedInformation": [
                    {
                        "location": {
                            "uri": params["textDocument"]["uri"],
                            "range": {
                                "start": {"line": 0, "character": 0},
                                "end": {"line": 0, "character": 1},
                            },
                        },
                        "message": bad * 1000,
                    }
                ],
            }
            uri = params["textDocument"]["uri"]
            send(
                {
                    "jsonrpc": "2.0",
                    "method": "textDocument/publishDiagnostics",
                    "params": {"uri": uri, "diagnostics": [d]},
                }
            )
        if MODE == "flood":
            uri = msg["params"]["textDocument"]["uri"]
            d = {
                "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
                "severity": 1,
                "message": "flood",
            }
            for _ in range(3):
                params = {"uri": uri, "diagnostics": [d] * 20_000}
                send(
                    {
                        "jsonrpc": "2.0",
                        "method": "textDocument/publishDiagnostics",
                        "params": params,
                    }
                )
    elif method == "shutdown":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
    elif method == "exit":
        sys.exit(0)
