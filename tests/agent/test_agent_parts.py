"""The agent's parts, each on its own: the history, the model slot and the turn loop — built
by hand here, with no Agent (agent.py wires them the same way)."""

from __future__ import annotations

from pathlib import Path

from larik.agent import compaction
from larik.agent.driver import Ask, TurnDriver
from larik.agent.events import AgentEvent, AgentEventType
from larik.agent.history import History, Summariser
from larik.agent.loop import TurnLoop
from larik.agent.model_slot import ModelSlot
from larik.agent.permissions import PermissionPolicy
from larik.agent.profile import Profile
from larik.agent.rewind import Checkpointer
from larik.agent.runner import ToolRunner
from larik.agent.session_log import SessionLog
from larik.agent.settings import AgentSettings
from larik.agent.tools import ALL_TOOLS, ToolContext
from larik.agent.tools._seen import SeenFiles
from larik.agent.turn import Reply
from larik.config import Config
from larik.llm.types import Block, Message, Usage

from .conftest import Roles, resolved, script

E = AgentEventType


def history(root: Path = Path("/")) -> History:
    return History(SessionLog(None, root=root, session_id="s", model=lambda: "p/m"), Config())


# -- the history ----------------------------------------------------------------------------------
def test_the_history_keeps_the_conversation_its_notices_and_its_spending():
    h = history()
    said = Message(role="assistant", blocks=[Block.text_block("calc.py as it is")])
    h.append(Message.user("fix it"))
    h.append(said)
    h.leave_out(said)  # a reply left out of what is sent: its place kept, its text gone
    assert len(h.messages) == 2 and h.messages[1].blocks == []
    h.pend("a warning from before the turn")
    assert [ev.text for ev in h.take_notices()] == ["a warning from before the turn"]
    assert h.take_notices() == []  # shown once
    ev = h.account(Usage(input=7, output=3), "m", "scripted", "main")
    assert ev.type is E.USAGE and h.usage.total.input == 7
    assert h.usage.by_role["main"].output == 3


async def test_the_history_compacts_with_the_model_and_the_budget_it_is_given():
    h = history()
    for i in range(3):
        h.append(Message.user(f"question {i}"))
        h.append(Message(role="assistant", blocks=[Block.text_block(f"answer {i}")]))
    summary = script({"text": "SUMMARY: three questions", "usage": {"input": 40, "output": 5}})
    asked: list[str] = []

    async def model():
        return resolved(summary, model="summ", role="compact"), 0

    async def before(trigger: str) -> list[AgentEvent]:
        asked.append(trigger)
        return []

    how = Summariser(model, before, lambda request, r: asked.append("budget"), system_chars=30)
    events = [ev async for ev in h.compact("manual", 0, how)]
    assert asked == ["manual", "budget"]
    assert len(h.messages) == 1 and h.messages[0].text().startswith(compaction.SUMMARY_HEADER)
    assert events[-1].data["compacted"] and h.counted == 1
    assert h.usage.by_role["compact"].input == 40


# -- the model slot -------------------------------------------------------------------------------
async def test_the_model_slot_fits_a_profile_to_its_model_and_switches_it():
    main, big = script({"text": "hi"}), script({"text": "hi"})
    big.model_id = "big"
    fitted: list[Profile] = []
    slot = ModelSlot(
        resolved(main),
        resolver=Roles(main, smart=big),
        config=Config(),
        tools=ALL_TOOLS,
        pend=lambda text: None,
        fit=lambda profile, changed: fitted.append(profile),
    )
    slot.use(slot.resolved)
    assert slot.spec == "scripted/m" and fitted and {s.name for s in slot.specs} >= {"read_file"}
    assert slot.switch("smart") == "scripted/m" and slot.spec == "scripted/big"
    assert len(fitted) == 2  # the profile worked out again for the new model
    assert await slot.at_turn() == []  # the scripted provider says nothing of what it loaded
    compact, _ = await slot.compact_model()
    assert compact.role == "compact"


# -- the turn loop --------------------------------------------------------------------------------
async def nothing(source: str) -> None:
    return None


def loop_on(provider, root: Path) -> tuple[TurnLoop, History]:
    """A turn loop on the parts an Agent would give it."""
    settings = AgentSettings(
        root=root,
        config=Config(),
        resolver=Roles(provider),
        policy=PermissionPolicy(root, "yolo"),
        effort="",
        max_turns=5,
    )
    h = history(root)
    ctx = ToolContext(root=root, processes=settings.processes, seen=SeenFiles())
    runner = ToolRunner(settings.tools, settings.policy, ctx, record=h.record)
    parts: list[TurnLoop] = []
    slot = ModelSlot(
        resolved(provider),
        resolver=settings.resolver,
        config=settings.config,
        tools=settings.tools,
        pend=h.pend,
        fit=lambda profile, changed: parts[0].fit(profile),
    )
    loop = TurnLoop(
        settings,
        slot,
        h,
        runner,
        ctx,
        checkpoints=Checkpointer(root, h.record, enabled=False),
        hooks=None,
        system=["you help", "the project"],
        session_start=nothing,
        effort="",
    )
    parts.append(loop)
    slot.use(slot.resolved)
    return loop, h


async def test_the_turn_loop_runs_a_turn_its_calls_and_all(project):
    provider = script(
        {"tool_calls": [{"name": "read_file", "input": {"path": "calc.py"}}]}, {"text": "done"}
    )
    loop, h = loop_on(provider, project)
    events = [ev async for ev in loop.start("read calc.py")]
    assert [ev.text for ev in events if ev.type is E.TURN_END] == ["done"]
    assert [m.role for m in h.messages] == ["user", "assistant", "user", "assistant"]
    assert "return a - b" in h.messages[2].blocks[0].content  # the call ran, its result kept
    assert provider.requests[0].system[:2] == ["you help", "the project"]


async def test_a_prefill_is_sent_with_its_request_and_never_enters_the_conversation(project):
    provider = script({"text": "def add(a, b):\n    return a + b\n"})
    loop, h = loop_on(provider, project)
    driver: TurnDriver = loop  # what the edit workflow runs on
    driver.append(Message.user("fix calc.py"))
    reply = Reply()
    [ev async for ev in driver.call_model(reply, Ask(temperature=0.5, prefill="calc.py\n"))]
    sent = provider.requests[0]
    assert sent.messages[-1].role == "assistant" and sent.messages[-1].text() == "calc.py\n"
    assert sent.temperature == 0.5
    assert [m.role for m in driver.messages] == ["user"]  # nothing pushed, nothing popped
    assert reply.message.text().startswith("calc.py\ndef add")  # the whole reply, begun
