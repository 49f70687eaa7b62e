"""glob(pattern, path?): files matching a glob, .gitignore respected, sorted by path.

It lists what grep would search (``_files.visible_files``): regular files, no link leading out
of the project, nothing a ``permissions.deny`` rule covers.
"""

from __future__ import annotations

import asyncio

from pydantic import Field

from ...paths import shown
from . import ToolArgs, ToolContext, ToolError, ToolResult
from ._files import glob_regex, visible_files

NAME = "glob"
KIND = "read"
PATH_TARGET = True
DESCRIPTION = (
    "List files whose path (relative to `path`) matches a glob pattern, e.g. `**/*.py` or "
    "`src/*.ts`. `*` stays within a directory, `**` spans directories. Files ignored by "
    ".gitignore are left out."
)
MAX_RESULTS = 500


class Args(ToolArgs):
    pattern: str = Field(description="Glob pattern, e.g. **/*.py")
    path: str = Field(".", description="Directory to search from (default: the project root).")


def target(args: Args) -> str:
    return args.path


def summary(args: Args) -> str:
    return args.pattern if args.path == "." else f"{args.pattern} in {args.path}"


async def run(args: Args, ctx: ToolContext) -> ToolResult:
    base = ctx.path(args.path)
    if not base.is_dir():
        raise ToolError(f"{ctx.show(base)} is not a directory")
    rx = glob_regex(args.pattern.removeprefix("./"))
    files = await asyncio.to_thread(
        visible_files, base, ctx.root.resolve(), lambda p: ctx.denied(NAME, p)
    )
    hits = [f for f in files if rx.match(f)]
    prefix = "" if ctx.show(base) == "." else ctx.show(base).rstrip("/") + "/"
    if not hits:
        return ToolResult(f"no files match {args.pattern}")
    text = "\n".join(shown(prefix + h) for h in hits[:MAX_RESULTS])
    if len(hits) > MAX_RESULTS:
        text += f"\n[{len(hits) - MAX_RESULTS} more not shown; narrow the pattern]"
    return ToolResult(text, data={"count": len(hits)})
