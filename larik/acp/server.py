"""``larik acp``: serve the Agent Client Protocol on stdin and stdout until the client leaves.

The order of things is the point of this module. The protocol's descriptors are claimed first
(:func:`larik.acp.wire.claim_stdio`: nothing else can write to stdout from then on), logging
goes to stderr as one line a record (keys masked), and the first message is read: an ``initialize`` is
answered at once from :mod:`larik.acp.handshake` — an editor waits for that answer before it
shows the agent, and the SDK's schema alone takes most of a second to import
(benchmarks/acp.py). Then a thread imports the SDK and Larik's session modules (in a thread:
signals and the pipes are still watched meanwhile). Everything from then on, that first message
too when it was not an ``initialize``, is the SDK's (``acp.run_agent`` over
:class:`~larik.acp.wire.Frames`).

When the client closes stdin (or the process gets SIGTERM, SIGINT or SIGHUP) every session is
closed: running turns cancelled as Esc cancels them, commands killed, transcripts saved and
unlocked, MCP servers stopped. Exit code 0; 2 when the options are bad.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
import signal
import sys
import threading
from typing import Any

from . import handshake
from .wire import Frames, Stdio, claim_stdio, open_streams

__all__ = ["run", "serve"]

#: Imported in a thread while the first message is read and answered.
WARM = ("acp", "acp.schema", "larik.session", "larik.config", "larik.acp.agent")
DEBUG_ENV = "LARIK_ACP_DEBUG"  # 1: tracebacks in the log (on stderr)


class _OneLine(logging.Formatter):
    """A record as one line: an exception as its type and message, not a traceback."""

    def format(self, record: logging.LogRecord) -> str:
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            text += f": {type(exc).__name__}: {exc}"
        line = " ".join(text.split())
        return line if line.startswith("larik") else f"larik acp: {line}"


def _logging() -> None:
    """One line a record on stderr (a traceback with LARIK_ACP_DEBUG=1), every key Larik knows
    masked in it, as in what goes to the client (an error's text may carry one)."""
    from ..llm.secrets import MaskingWriter

    handler = logging.StreamHandler(MaskingWriter(sys.stderr))
    if os.environ.get(DEBUG_ENV) != "1":
        handler.setFormatter(_OneLine())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.DEBUG if os.environ.get(DEBUG_ENV) == "1" else logging.WARNING)


def serve(opts: Any) -> int:
    """Run until the client leaves. ``opts``: :class:`larik.acp.agent.AcpOptions`."""
    stdio = claim_stdio()
    _logging()
    warm = threading.Thread(target=_warm, name="larik-acp-import", daemon=True)
    try:
        return asyncio.run(_main(opts, stdio, warm))
    except KeyboardInterrupt:
        return 0
    except Exception as e:  # a bug: one line on stderr, not a traceback (LARIK_ACP_DEBUG=1: it)
        logging.getLogger("larik.acp").error("internal error", exc_info=e)
        return 1


def _warm() -> None:
    for name in WARM:
        try:
            importlib.import_module(name)
        except Exception as e:  # imported again where used: the error shows there
            logging.getLogger("larik.acp").debug("warming %s: %s", name, e)


def _is_initialize(message: dict[str, Any]) -> bool:
    params = message.get("params")
    version = params.get("protocolVersion") if isinstance(params, dict) else None
    return (
        message.get("method") == "initialize"
        and "id" in message
        and isinstance(version, int)
        and not isinstance(version, bool)
        and 0 <= version <= 0xFFFF
    )


async def _main(opts: Any, stdio: Stdio, warm: threading.Thread) -> int:
    loop = asyncio.get_running_loop()
    main = asyncio.current_task()
    assert main is not None
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        loop.add_signal_handler(sig, main.cancel)
    reader, writer = await open_streams(stdio)
    return await run(Frames(reader, writer), opts, warm)


async def run(frames: Frames, opts: Any, warm: threading.Thread | None = None) -> int:
    """Serve one client on ``frames`` until it leaves (or this task is cancelled), then
    close every session. ``warm``: a thread to import the SDK in, started once the first
    message is answered (not before: it would take the GIL from the answer). The exit code:
    0, or 2 when ``opts`` are bad (said once the first message is answered, which the check's
    imports do not delay)."""
    agent: Any = None
    try:
        line = await frames.read_line()
        if line is None:
            return 0
        first = await frames.parse(line)
        early: dict[str, Any] | None = None
        if first is not None and _is_initialize(first):
            version = first["params"]["protocolVersion"]
            result = handshake.initialize_result(version, getattr(opts, "model", "") or "")
            await frames.send({"jsonrpc": "2.0", "id": first["id"], "result": result})
            early = first["params"]
        elif first is not None:
            frames.push(first)  # the SDK's to answer
        from .settings import check

        problem = check(opts)
        if problem:
            print(problem, file=sys.stderr)
            return 2
        if warm is not None:
            warm.start()
            await asyncio.to_thread(warm.join)
        import acp

        from .agent import LarikAgent

        agent = LarikAgent(opts, early)
        await acp.run_agent(agent, frames, use_unstable_protocol=True)
    except asyncio.CancelledError:
        pass  # a stop signal: close the sessions below
    finally:
        if agent is not None:
            await asyncio.shield(agent.close_all())
        await frames.close()
    return 0
