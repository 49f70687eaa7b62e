"""job_output(job_id?, wait?): what a background job printed since the last read, and its state.

Only the session's own jobs (:mod:`larik.agent.jobs`), by the id ``bash`` with
``background: true`` returned; with no id, a list of them. At most ``jobs.READ_CAP``
characters of new output, the tail kept when there is more.
"""

from __future__ import annotations

from pydantic import Field

from . import ToolArgs, ToolContext, ToolError, ToolResult

NAME = "job_output"
KIND = "read"
DESCRIPTION = (
    "Read what a background job (started by bash with background: true) printed since the last "
    "read, with its state and exit code; the end is kept when there is a lot. Without job_id: "
    "list this session's jobs. wait: seconds to wait for new output or the job's end."
)
MAX_WAIT = 30


class Args(ToolArgs):
    job_id: int | None = Field(None, description="The job's id; omit to list the jobs.")
    wait: float = Field(
        0, ge=0, le=MAX_WAIT, description="Seconds to wait for new output (returns early)."
    )


def target(args: Args) -> str:
    return "" if args.job_id is None else str(args.job_id)


def summary(args: Args) -> str:
    return "list the jobs" if args.job_id is None else f"job {args.job_id}"


async def run(args: Args, ctx: ToolContext) -> ToolResult:
    if ctx.jobs is None:
        raise ToolError("background jobs are not available here")
    if args.job_id is None:
        return ctx.jobs.listing()
    if args.wait:
        await ctx.jobs.wait(args.job_id, args.wait)
    return ctx.jobs.read(args.job_id)
