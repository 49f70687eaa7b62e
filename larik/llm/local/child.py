"""The engine's own process: ``python -m larik.llm.local.child --model FILE --port N …``.

It checks the CPU before it loads the wheel (:mod:`.cpu`), starts llama.cpp's HTTP server
in-process (``xllamacpp.Server``: the model is loaded when it returns), prints one line on
stdout — ``listening URL``, or ``error: WHAT`` — and then serves (every endpoint but
``/health`` behind the API key Larik made for it, handed over in the environment) until its stdin closes: Larik
holds the other end of that pipe, so the engine ends with Larik however Larik ends (even
SIGKILL). Larik also stops it by its process group (it runs in a session of its own). Its
stderr is the engine's log file. Nothing runs when this module is only imported.
"""

from __future__ import annotations

import argparse
import os
import sys

__all__ = ["KEY_VARIABLE", "main"]

#: the engine's API key, from Larik (an environment variable: never on the command line)
KEY_VARIABLE = "LARIK_ENGINE_KEY"


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="larik-engine")
    ap.add_argument("--model", required=True)
    ap.add_argument("--alias", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--ctx", type=int, required=True)
    ap.add_argument("--threads", type=int, required=True)
    ap.add_argument("--template", default="")
    return ap


def main(argv: list[str] | None = None) -> int:
    a = _parser().parse_args(argv)
    from .cpu import check

    problem = check()
    if problem:
        print(f"error: cpu: {problem}", flush=True)
        return 3
    try:
        import xllamacpp
    except ImportError as e:
        print(f"error: missing: {e}", flush=True)
        return 4
    if not _port_free(a.port):  # said here: llama.cpp's own word goes to a log written later
        print(f"error: port: 127.0.0.1:{a.port} is taken", flush=True)
        return 6
    p = xllamacpp.CommonParams()
    p.model.path = a.model
    p.model_alias = {a.alias}
    p.hostnames = ["127.0.0.1"]  # loopback only
    p.port = a.port
    p.n_ctx = a.ctx
    p.n_parallel = 1
    p.cpuparams.n_threads = a.threads
    p.cpuparams_batch.n_threads = a.threads
    p.use_jinja = True  # what tool calling needs
    p.ui = False
    p.endpoint_props = True  # Larik's prober reads the loaded window there
    p.endpoint_slots = False  # the slots list shows what is being worked on
    key = os.environ.pop(KEY_VARIABLE, "")
    if key:  # every endpoint but /health wants it: no other program or web page uses the model
        p.api_keys = [key]
    if a.template:
        with open(a.template, encoding="utf-8") as f:
            p.chat_template = f.read()
    try:
        server = xllamacpp.Server(p)
    except RuntimeError as e:  # the log says which: the model, or the port
        print(f"error: init: {e}", flush=True)
        return 5
    print(f"listening {server.listening_address}", flush=True)
    os.dup2(2, 1)  # anything printed later goes to the log, never into a pipe nobody reads
    try:
        while sys.stdin.buffer.read(65536):
            pass
    except (OSError, KeyboardInterrupt):
        pass
    os._exit(0)  # the server's threads need no goodbye


def _port_free(port: int) -> bool:
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


if __name__ == "__main__":
    sys.exit(main())
