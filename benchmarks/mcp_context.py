"""What MCP tool schemas cost in a request, before and after deferring them (issue 15, item 4).

    .venv/bin/python benchmarks/mcp_context.py            # a few seconds
    .venv/bin/python benchmarks/mcp_context.py --window 200000

Starts real MCP servers (``tests/mcp/server_script.py``, written with the SDK's server API: one
with 120 tools, one with 9), then reports the tokens the MCP part of a request takes: every
schema, as sent when they fit; and the ``tool_search`` tool plus the tools it loaded, as sent
when they are deferred. Tokens are Larik's estimate (characters / 4 of the JSON sent),
which is what the agent decides by; no tokenizer runs offline here (tiktoken fetches its tables
at run time; Anthropic's and Google's are not public).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from larik.mcp.config import McpConfig, McpServerConfig  # noqa: E402
from larik.mcp.manager import McpManager, spec_tokens  # noqa: E402

SCRIPT = ROOT / "tests" / "mcp" / "server_script.py"


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--window", type=int, default=200_000, help="the model's context window")
    args = ap.parse_args()
    servers = {
        "big": McpServerConfig(command=sys.executable, args=[str(SCRIPT), "many"]),
        "small": McpServerConfig(command=sys.executable, args=[str(SCRIPT), "ok"]),
    }
    with tempfile.TemporaryDirectory() as tmp:
        manager = McpManager(McpConfig(servers=servers), Path(tmp))
        manager.start_all()
        await manager.wait_settled()
        try:
            every = manager.all_specs()
            limit = manager.config.defer_share * args.window
            manager.search("echo text", 5)
            deferred = manager.specs(1)  # any window small enough to defer
            rows = [
                ("all schemas sent", len(every), spec_tokens(every)),
                (
                    f"deferred: tool_search + {len(deferred) - 1} found",
                    len(deferred),
                    spec_tokens(deferred),
                ),
            ]
        finally:
            await manager.close()
    print(
        f"MCP tools: {len(every)} from {len(servers)} servers; window {args.window:,} tokens, "
        f"defer above {limit:,.0f} ({manager.config.defer_share:.0%})\n"
    )
    print(f"{'what is sent':<34} {'tools':>5} {'tokens':>7}")
    for what, n, est in rows:
        print(f"{what:<34} {n:>5} {est:>7,}")
    print(
        f"\nsaved per request: {rows[0][2] - rows[1][2]:,} estimated tokens "
        f"({1 - rows[1][2] / rows[0][2]:.1%})\n"
    )
    share = manager.config.defer_share
    for window in (32_000, 128_000, 200_000, 1_000_000):
        sent = rows[1] if rows[0][2] > share * window else rows[0]
        how = "deferred" if sent is rows[1] else "all sent"
        print(f"window {window:>9,}: {how:<8}  the MCP tools take {sent[2] / window:.1%} of it")


if __name__ == "__main__":
    asyncio.run(main())
