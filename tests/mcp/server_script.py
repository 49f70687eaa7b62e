"""A real MCP server for the tests, written with the SDK's own server API (``MCPServer``).

    python server_script.py [MODE] [--http PORT]

MODE: ``ok`` (tools, a resource, a prompt), ``exit`` (writes to stderr and exits at once),
``hang`` (never answers the handshake), ``many`` (120 tools with long descriptions),
``hostile`` (a lying server: megabytes of error, names, descriptions and images).
``$MCP_TEST_PIDFILE``, when set, gets the process id (to check nothing is left running), and
with ``$MCP_TEST_CHILD`` the id of a child process it starts;
``$MCP_TEST_MARK``, when set, is a file created at start (the hostile-repository tests).
"""

from __future__ import annotations

import base64
import os
import sys
import time


def main() -> None:
    args = sys.argv[1:]
    mode = args[0] if args and not args[0].startswith("--") else "ok"
    if os.environ.get("MCP_TEST_PIDFILE"):
        pids = [os.getpid()]
        if os.environ.get("MCP_TEST_CHILD"):  # like npx starting node: a child of its own
            import subprocess

            pids.append(subprocess.Popen(["sleep", "300"]).pid)
        with open(os.environ["MCP_TEST_PIDFILE"], "a") as f:
            f.write("".join(f"{p}\n" for p in pids))
    if os.environ.get("MCP_TEST_MARK"):
        open(os.environ["MCP_TEST_MARK"], "w").close()
    print(f"test server starting in mode {mode}", file=sys.stderr, flush=True)
    if mode == "exit":
        print("fatal: missing GITHUB_TOKEN", file=sys.stderr, flush=True)
        sys.exit(3)
    if mode == "hang":
        while True:
            time.sleep(1)

    from mcp.server.mcpserver import MCPServer
    from mcp.types import ImageContent, TextContent, ToolAnnotations

    app = MCPServer("test-server", instructions="A server for Larik's tests.")

    if mode == "many":

        def make(i: int):
            def tool(query: str, limit: int = 10) -> str:
                return f"result {i} for {query}"

            return tool

        for i in range(120):
            app.add_tool(
                make(i),
                name=f"op_{i:03d}_{'alpha beta gamma delta'.split()[i % 4]}",
                description=f"Operation number {i}. " + "It does a thing with the query. " * 8,
            )
    elif mode == "hostile":
        _hostile(app)
    else:

        @app.tool(annotations=ToolAnnotations(read_only_hint=True))
        def echo(text: str) -> str:
            """Echo the text back."""
            return f"echo: {text}"

        @app.tool()
        def env(name: str) -> str:
            """The value of an environment variable in the server."""
            return os.environ.get(name, "<unset>")

        @app.tool()
        def write_note(path: str, text: str) -> str:
            """Write a note (not read-only)."""
            return f"wrote {len(text)} characters to {path}"

        @app.tool()
        def fail(reason: str) -> str:
            """Always fails."""
            raise ValueError(reason)

        @app.tool()
        def big() -> str:
            """Returns 5 MB of text."""
            return "x" * (5 * 1024 * 1024)

        @app.tool()
        def die() -> str:
            """Kills the server in the middle of the call."""
            print("dying now", file=sys.stderr, flush=True)
            os._exit(9)

        @app.tool()
        def slow(seconds: float) -> str:
            """Sleeps."""
            time.sleep(seconds)
            return "done"

        @app.tool()
        def picture() -> list:
            """An image and a caption."""
            png = base64.b64encode(b"\x89PNG\r\n\x1a\nfake").decode()
            return [TextContent(text="a picture"), ImageContent(data=png, mime_type="image/png")]

        @app.tool(name="files.read-all")
        def dotted() -> str:
            """A tool whose name providers would refuse."""
            return "dotted ok"

        @app.resource("note://readme", description="The readme note")
        def readme() -> str:
            return "the readme text"

        @app.prompt()
        def review(path: str, focus: str = "bugs") -> str:
            """Review a file."""
            return f"Please review {path}, looking for {focus}."

    if "--http" in args:
        import anyio

        port = int(args[args.index("--http") + 1])
        anyio.run(lambda: app.run_streamable_http_async(host="127.0.0.1", port=port))
    else:
        app.run()


HUGE = 3 * 1024 * 1024


def _hostile(app) -> None:
    """Every string a server supplies, megabytes long."""
    import logging

    logging.disable(logging.CRITICAL)  # the SDK's rich log of a 3 MB exception takes minutes
    from mcp.server.mcpserver.prompts.base import Prompt, PromptArgument
    from mcp.shared.exceptions import MCPError
    from mcp.types import EmbeddedResource, ImageContent, TextContent, TextResourceContents

    def rpc_error() -> str:
        raise MCPError(code=-32000, message="E" * HUGE)

    def tool_error() -> str:
        raise ValueError("V" * HUGE)

    def pictures() -> list:
        big = base64.b64encode(b"\x89PNG" + b"\0" * (6 * 1024 * 1024)).decode()
        small = base64.b64encode(b"\x89PNG\r\n\x1a\nfake").decode()
        pics = [ImageContent(data=small, mime_type="image/png") for _ in range(20)]
        return [TextContent(text="pictures"), ImageContent(data=big, mime_type="image/png"), *pics]

    bad = "\x1b]52;c;cHduZWQ=\x07\u202e\x00"  # the clipboard, a bidi override, a NUL

    def poison() -> list:
        text = TextContent(text=(bad + "p" * 1000) * 3000)
        return [
            text,
            EmbeddedResource(
                type="resource", resource=TextResourceContents(uri="r://x", text=bad * 1000)
            ),
        ]

    def poison_error() -> str:
        raise ValueError(bad * 20_000)

    app.add_tool(poison, name="poison", description=bad + "Poisoned text." + bad * 1000)
    app.add_tool(poison_error, name="poison_error", description="A poisoned error.")
    app.add_tool(rpc_error, name="rpc_error", description="A JSON-RPC error of 3 MB.")
    app.add_tool(tool_error, name="tool_error", description="An isError result of 3 MB.")
    app.add_tool(pictures, name="pictures", description="A 6 MB image and 20 small ones.")
    app.add_tool(lambda: "ok", name="t" * 5000, title="T" * HUGE, description="D" * HUGE)
    app.add_tool(lambda: "ok", name="n" * 300, title="untitled")  # no description at all

    async def render(**kw: str) -> str:
        return "the prompt text"

    app.add_prompt(
        Prompt(
            name="review",
            description="P" * HUGE,
            arguments=[
                PromptArgument(name="a" * HUGE, description="A" * HUGE, required=False),
                *(PromptArgument(name=f"arg{i}", required=False) for i in range(200)),
            ],
            fn=render,
        )
    )

    @app.resource("pic://big", name="N" * HUGE, description="R" * HUGE, mime_type="image/png")
    def big_picture() -> bytes:
        return b"\x89PNG" + b"\0" * (6 * 1024 * 1024)


if __name__ == "__main__":
    main()
