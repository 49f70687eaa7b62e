"""task(role, prompt): hand a self-contained job to a subagent and get its final answer back.

The subagent runs on the model its role resolves to (with that role's fallbacks), in the same
project under the same permissions. ``explore`` gets the read-only tools (and so may run
alongside other reads); ``worker`` gets every tool except task. Its usage counts toward the
session.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from . import ToolArgs, ToolContext, ToolError, ToolResult

NAME = "task"
KIND = "task"
DESCRIPTION = (
    "Give a self-contained job to a subagent and get its final answer. role `explore` "
    "(read-only: read_file, glob, grep; good for finding things in a large codebase, several "
    "may run at once) or `worker` (all tools; for a well-defined change). The subagent sees "
    "none of this conversation: put everything it needs in `prompt`."
)


class Args(ToolArgs):
    role: Literal["explore", "worker"] = Field(description="explore (read-only) or worker.")
    prompt: str = Field(min_length=1, description="The complete job description.")


def target(args: Args) -> str:
    return args.role


def summary(args: Args) -> str:
    first = args.prompt.strip().splitlines()[0] if args.prompt.strip() else ""
    return f"{args.role}: {first[:80]}"


def read_only(args: Args) -> bool:
    return args.role == "explore"


async def run(args: Args, ctx: ToolContext) -> ToolResult:
    if ctx.spawn is None:
        raise ToolError("subagents cannot start subagents")
    answer = await ctx.spawn(args.role, args.prompt)
    return ToolResult(answer, data={"role": args.role})
