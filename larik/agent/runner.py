"""Runs the tool calls of one assistant message and turns every outcome into a tool result.

A call never crashes the loop: an unknown tool, arguments that are not JSON or fail validation, a
denied permission, a tool that raises — each becomes an error result with a clear message.
PreToolUse hooks run before the permission check (they may block a call, rewrite its arguments,
or answer ask/allow: :func:`.permissions.with_hook`), PostToolUse hooks after a call that ran;
what they say goes into the result and their failures are notices (:mod:`larik.hooks`).
Consecutive read-only calls (and explore subagents) run concurrently; others run one at a time,
in order. Results are stored in ``results`` (by call position) as each call finishes, so an
interrupt keeps them; ``answer_all`` fills in the rest.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from ..llm.types import Block
from ..others_text import MAX_RESULT, bounded
from .events import AgentEvent, AgentEventType, NoticeLevel
from .live import LiveOutput
from .permissions import PermissionPolicy
from .shown import seconds, tool_end_record
from .stuck import call_key
from .tools import AnyTool, ToolContext, ToolError, ToolResult, ToolSource, get_tool

if TYPE_CHECKING:
    from ..hooks.runner import Hooks, Outcome

__all__ = ["CALL_ID", "INTERRUPTED", "ToolRunner", "answer_all", "cut_off_result", "settled"]

#: the id of the tool call running in this task (a subagent's transcript is linked to it)
CALL_ID: ContextVar[str] = ContextVar("larik_call_id", default="")

INTERRUPTED = "interrupted by the user before this tool call finished"
Emit = Callable[[AgentEvent], None]


class _Prepared:
    __slots__ = ("args", "call", "changed", "error", "raw", "refused", "tool")

    def __init__(self, call: Block) -> None:
        self.call = call
        self.tool: AnyTool | None = None
        self.args: Any = None
        self.raw: dict[str, Any] = {}
        self.error = ""
        self.changed = ""  # what a PreToolUse hook changed the call to (its summary)
        self.refused = ""  # why the call is not run at all (no hook, no permission asked)

    @property
    def read_only(self) -> bool:
        return self.tool is not None and self.args is not None and self.tool.read_only(self.args)

    def summary(self) -> str:
        if self.tool is not None and self.args is not None:
            return self.tool.summary(self.args)
        text = " ".join(self.call.input.split())
        return text[:100] + ("…" if len(text) > 100 else "")


class ToolRunner:
    def __init__(
        self,
        tools: tuple[str, ...],
        policy: PermissionPolicy,
        ctx: ToolContext,
        source: ToolSource | None = None,
        hooks: Hooks | None = None,
        record: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        """``record``: writes a transcript record (each call's ``tool_end``, ``shown.py``)."""
        self.tools = tools
        self.policy = policy
        self.ctx = ctx
        self.source = source  # tools beyond the built-in ones (MCP servers)
        self.hooks = hooks
        self.stop_request: str | None = None  # a hook said continue: false (its reason)
        self.record = record

    def prepare(self, call: Block) -> _Prepared:
        p = _Prepared(call)
        tool: AnyTool | None = get_tool(call.name) if call.name in self.tools else None
        if tool is None and self.source is not None:
            tool = self.source.get(call.name)
        if tool is None:
            names = [*self.tools, *(self.source.names() if self.source is not None else [])]
            listed = ", ".join(names[:60]) + (
                f", … ({len(names)} in all)" if len(names) > 60 else ""
            )
            p.error = f"unknown tool {call.name!r}; the tools are: {listed}"
            return p
        p.tool = tool
        try:
            p.raw = call.input_dict()
        except ValueError as e:
            p.error = f"the arguments of {call.name} are not a valid JSON object ({e})"
            return p
        try:
            p.args = tool.args.model_validate(p.raw)
        except ValidationError as e:
            p.error = f"invalid arguments for {call.name}: " + _validation_text(e)
        return p

    def call_key(self, call: Block) -> str:
        """The call as the stuck detector compares it: validated arguments (defaults filled
        in) when they validate, else the raw text."""
        p = self.prepare(call)
        dump = getattr(p.args, "model_dump", None)
        return call_key(call.name, dump(mode="json") if dump is not None else call.input)

    async def run_tool(self, name: str, tool_input: dict[str, Any]) -> ToolResult:
        """One call made for the user, outside the conversation (a custom command's shell
        line): checked and run like the model's — deny rules, the mode, the approver asking —
        and its result returned, no events; a refusal has ``data["denied"]``. Hooks meet it
        as they meet the model's calls (their notices are dropped: there is no event)."""
        p = self.prepare(Block.tool_use("user_call", name, tool_input))
        return settled(await self._refusal(p, _drop) or await self._execute(p, _drop))

    async def run_all(
        self, calls: list[Block], emit: Emit, results: dict[int, Block], refuse: str = ""
    ) -> None:
        """``refuse``: run none of the calls; each gets this error (a reply cut off at the
        output limit, :func:`cut_off_result`)."""
        prepared = [self.prepare(c) for c in calls]
        if self.ctx.lsp is not None:  # a step: its diagnostics are said once per file
            self.ctx.lsp.new_step()
        if refuse:
            for p in prepared:
                p.refused = refuse
        i = 0
        while i < len(prepared):
            n = 1
            if prepared[i].read_only:
                while i + n < len(prepared) and prepared[i + n].read_only:
                    n += 1
            await asyncio.gather(
                *(self._one(prepared[j], j, emit, results) for j in range(i, i + n))
            )
            i += n

    async def _one(self, p: _Prepared, pos: int, emit: Emit, results: dict[int, Block]) -> None:
        call = p.call
        emit(
            AgentEvent(
                AgentEventType.TOOL_START,
                tool_id=call.id,
                tool_name=call.name,
                tool_input=p.raw,
                text=p.summary(),
            )
        )
        # this task's own context: concurrent calls do not mix; set before the permission
        # check, so an approver knows which call it is asked about (ACP's request_permission)
        CALL_ID.set(call.id)
        # the time the user (or a hook) takes to answer is not the tool's
        result = await self._refusal(p, emit)
        start = time.monotonic()
        result = settled(result or await self._execute(p, emit))
        duration = seconds(time.monotonic() - start)  # as kept: a resumed card reads the same
        results[pos] = Block.tool_result(call.id, result.content, result.is_error, result.images)
        if self.record is not None:  # how the call went, for a resumed view (shown.py)
            self.record(tool_end_record(call.id, duration, result.data))
        emit(
            AgentEvent(
                AgentEventType.TOOL_END,
                tool_id=call.id,
                tool_name=call.name,
                tool_input=p.raw,
                text=result.content,
                is_error=result.is_error,
                duration=duration,
                data=result.data,
            )
        )

    async def _refusal(self, p: _Prepared, emit: Emit) -> ToolResult | None:
        """Why the call does not run (unknown tool, unusable arguments, a PreToolUse hook's
        block, permission denied), or None when it may."""
        if p.refused:
            return ToolResult(p.refused, is_error=True, data={"not_run": True})
        if p.error or p.tool is None or p.args is None:
            return ToolResult(p.error, is_error=True, data={"bad_call": True})
        try:
            answer: tuple[str, str] = ("", "")
            if self.hooks is not None and self.hooks.has("PreToolUse"):
                pre = await self.hooks.pre_tool_use(p.tool.name, p.raw, p.call.id)
                self._tell(pre, emit)
                if pre.block or pre.stop is not None:
                    why = pre.block or "it stopped the agent" + (
                        f": {pre.stop}" if pre.stop else ""
                    )
                    data = {"denied": True, "hook": "PreToolUse"}
                    return ToolResult(f"blocked by a PreToolUse hook: {why}", True, data=data)
                if pre.updated_input is not None:
                    try:
                        p.args = p.tool.args.model_validate(pre.updated_input)
                    except ValidationError as e:
                        why = _validation_text(e)
                        return ToolResult(
                            f"a PreToolUse hook made the arguments invalid: {why}", True
                        )
                    p.raw, p.changed = pre.updated_input, p.tool.summary(p.args)
                answer = (pre.decision, pre.decision_reason)
            refusal = await self.policy.check(p.tool, p.args, p.raw, self.ctx, answer)
        except ToolError as e:
            return ToolResult(f"{p.tool.name}: {e}", is_error=True)
        except Exception as e:  # a bug in the policy: the model sees it, the loop goes on
            return _failed(p.tool.name, e)
        if refusal is None:
            return None
        data = {"denied": True, "refusal": refusal.data()}  # each face phrases it (refusal.py)
        return ToolResult(refusal.text(), is_error=True, data=data)

    async def _execute(self, p: _Prepared, emit: Emit) -> ToolResult:
        assert p.tool is not None and p.args is not None  # _refusal said it may run
        try:
            if self.ctx.before_change is not None and (p.tool.kind == "exec" or not p.read_only):
                await self.ctx.before_change()  # any command, or a tool that may write
            result = await self._run(p, emit)
            if not result.is_error and self.hooks is not None and self.hooks.has("PostToolUse"):
                await self._after(p, result, emit)
            if p.changed:
                note = f"[a PreToolUse hook changed this call to: {p.changed}]"
                result.content = f"{note}\n{result.content}"
            return result
        except ToolError as e:
            return ToolResult(f"{p.tool.name}: {e}", is_error=True)
        except Exception as e:  # a tool bug or an OS error: the model sees it, the loop goes on
            return _failed(p.tool.name, e)

    async def _run(self, p: _Prepared, emit: Emit) -> ToolResult:
        """The tool itself; a command's output goes out as it comes (``tool_output`` events,
        :mod:`.live`) through a context of its own, so concurrent calls do not mix."""
        assert p.tool is not None
        if p.tool.kind != "exec":
            return await p.tool.run(p.args, self.ctx)
        live = LiveOutput(emit, p.call.id, p.call.name)
        try:
            # plan mode runs it in a read-only sandbox (PermissionPolicy.command_sandbox)
            box = self.policy.command_sandbox()
            result = await p.tool.run(p.args, replace(self.ctx, on_output=live.add, sandbox=box))
        except BaseException:
            live.close(flush=False)
            raise
        live.close()  # the last of it before the call's tool_end
        return result

    async def _after(self, p: _Prepared, result: ToolResult, emit: Emit) -> None:
        """PostToolUse: what the hooks say about the result goes to the model with it."""
        assert self.hooks is not None and p.tool is not None
        response: dict[str, Any] = {"output": result.content, "is_error": result.is_error}
        if "exit_code" in result.data:
            response["exit_code"] = result.data["exit_code"]
        post = await self.hooks.post_tool_use(p.tool.name, p.raw, p.call.id, response)
        self._tell(post, emit)
        notes = [f"[PostToolUse hook: {post.block}]"] if post.block else []
        notes += [f"[PostToolUse hook context: {c}]" for c in post.context]
        if notes:
            result.content = "\n\n".join([result.content, *notes])

    def _tell(self, outcome: Outcome, emit: Emit) -> None:
        """A hook round's notices to the front end; its continue: false to the agent."""
        for n in outcome.notices:  # recorded, so a resumed session shows them too
            level = NoticeLevel.WARNING if n.level == "warning" else NoticeLevel.INFO
            if self.record is not None:
                self.record({"kind": "notice", "text": n.text, "level": level.value})
            emit(AgentEvent(AgentEventType.NOTICE, text=n.text, level=level))
        if outcome.stop is not None and self.stop_request is None:
            self.stop_request = outcome.stop

    def take_stop(self) -> str | None:
        """The stop a hook asked for in the last round of calls (then forgotten)."""
        stop, self.stop_request = self.stop_request, None
        return stop


def settled(result: ToolResult) -> ToolResult:
    """The result as the model and the screen get it: whatever the tool, a hook or a server
    put in it, bounded and cleaned by the one rule (:mod:`larik.others_text`), last."""
    result.content = bounded(result.content, MAX_RESULT, exact=result.exact)
    return result


def _drop(ev: AgentEvent) -> None:
    """An Emit for calls made outside a turn: nobody is listening."""


def _failed(name: str, e: Exception) -> ToolResult:
    detail = " ".join(str(e).split())[:500]
    return ToolResult(f"{name} failed: {type(e).__name__}: {detail}", is_error=True)


def _validation_text(e: ValidationError) -> str:
    parts = []
    for err in e.errors()[:5]:
        loc = ".".join(str(x) for x in err["loc"]) or "arguments"
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = "unexpected argument"
        parts.append(f"{loc}: {msg}")
    return "; ".join(parts)


def cut_off_result(limit: int | None = None) -> str:
    """The result of each tool call in a reply cut off at the output limit: not run, and how
    to make the change so that it fits."""
    at = f" ({limit} tokens)" if limit else ""
    return (
        f"not run: your reply was cut off at the output limit{at} before this call was "
        "complete, so its arguments are incomplete and none of the reply's calls ran. Make the "
        "change in smaller steps: an edit_file with a short old_string and new_string (a few "
        "lines each), one change per call; never write a whole large file in one call."
    )


def answer_all(
    calls: list[Block], results: dict[int, Block], missing: str = INTERRUPTED
) -> list[Block]:
    """One result per call, in call order: the real one, or an error saying why there is none."""
    return [
        results.get(i) or Block.tool_result(c.id, missing, is_error=True)
        for i, c in enumerate(calls)
    ]
