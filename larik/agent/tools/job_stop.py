"""job_stop(job_id): stop a background job of this session — SIGTERM to its whole process group,
SIGKILL when it has not ended after a grace period (:mod:`larik.agent.jobs`).

It takes the session's job id, never a pid: no other process can be reached through it. Its
``KIND`` is ``job``: allowed in every permission mode, as the command itself was checked
when it started.
"""

from __future__ import annotations

from pydantic import Field

from . import ToolArgs, ToolContext, ToolError, ToolResult

NAME = "job_stop"
KIND = "job"
DESCRIPTION = (
    "Stop a background job started by bash with background: true (the job and every process "
    "it started); returns its last output and exit code."
)


class Args(ToolArgs):
    job_id: int = Field(description="The job's id, as bash returned it.")


def target(args: Args) -> str:
    return str(args.job_id)


def summary(args: Args) -> str:
    return f"stop job {args.job_id}"


def read_only(args: Args) -> bool:
    return True  # it changes no file: no checkpoint before it, and it may run alongside reads


async def run(args: Args, ctx: ToolContext) -> ToolResult:
    if ctx.jobs is None:
        raise ToolError("background jobs are not available here")
    await ctx.jobs.stop(args.job_id)
    return ctx.jobs.read(args.job_id)
