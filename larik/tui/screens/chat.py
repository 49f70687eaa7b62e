"""The main screen: a view of one :class:`~larik.session.Session`.

The session is the conversation — the agent, its MCP servers, its custom commands, turns,
undo, model and mode — and this screen draws it: the keys, composing a prompt (``@path``
attachments, type-ahead while a turn runs), a worker that draws ``session.events()`` (every
turn's events and the session's own notices, in order), the permission modal (the session's
approval hook), a ``!command``'s card. Slash commands (``larik/tui/slash.py``) get the session
and a :class:`~larik.tui.ui.UI`, never this screen. Esc cancels the running turn
(``Session.cancel``).

The app (``larik/tui/app.py``) starts it after the first frame (``use_config``, then
``start``; a modal it asks first comes before: until the agent exists every command says "no
model yet"). The session is built lazily: constructing it imports no pydantic and no SDK.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from ...agent.events import AgentEventType, Approval, PermissionRequest
from ...session import Session, SessionEvent, SessionEventType, SessionOptions, Turn
from ...session.attachments import attach, no_images_for
from .. import gcpolicy, history, notify, slash, starting, warmup
from .. import plan as tui_plan
from ..bindings import for_scope
from ..local_servers import discover
from ..model_choice import Discover, ModelChoice
from ..ui import ChatUI
from ..widgets.activity import Activity
from ..widgets.completion_menu import CompletionMenu
from ..widgets.conversation import ConversationView
from ..widgets.notice import Notice
from ..widgets.prompt_input import PromptInput
from ..widgets.queued import QueuedPrompts
from ..widgets.status_bar import StatusBar

if TYPE_CHECKING:  # no pydantic before the first frame; modals are imported when pushed
    from ...config import Config
    from ...session import AgentFactory, Subscription
    from ..app import LarikApp

__all__ = ["ChatScreen", "Discover"]

E, S = AgentEventType, SessionEventType
_STATUS_EVENTS = frozenset({E.USAGE, E.MESSAGE, E.TURN_END, E.NOTICE, E.ERROR})


class ChatScreen(Screen[None]):
    BINDINGS = for_scope("screen")  # Esc, Shift+Tab, the scroll keys (larik/tui/bindings.py)

    def __init__(
        self,
        agent_factory: AgentFactory | None = None,
        *,
        cwd: Path,
        config: Config | None = None,
        model: str = "",
        resume: str | None = None,
        discover_local: Discover | None = None,
        history_path: Path | None = None,
        options: SessionOptions | None = None,
    ) -> None:
        super().__init__()
        self.factory = agent_factory
        self.cwd = Path(cwd)
        self.history_path = history_path
        self.discover_local: Discover = discover_local or discover
        opts = options or SessionOptions()
        opts.model, opts.resume = model or opts.model, resume or opts.resume
        self.notifier = notify.Notifier(lambda: self.app, self.say, lambda: self.queue.prompts)
        ask = self.notifier.asking(self.approve)  # a question notifies you, when you are away
        self.session = Session(self.cwd, config, opts, approver=ask, agent_factory=agent_factory)
        self.models = ModelChoice(self.discover_local)
        self.ui = ChatUI(self)  # what slash commands may touch
        self.busy = False
        self.modes: tuple[str, ...] = tui_plan.CYCLE  # what Shift+Tab goes through
        self._turn: Worker[None] | None = None
        self._shell: Worker[None] | None = None
        self.warmup = warmup.WarmUp(self.run_worker)
        self._saw_error = False  # the running turn's error was drawn already
        self.gc = gcpolicy.IdleCollector(self.set_timer, lambda: self.busy)
        self.menu = CompletionMenu()
        self.prompt = PromptInput(
            cwd=self.cwd, menu=self.menu, history=history.load(history_path), session=self.session
        )
        self.status = StatusBar(config, id="status")
        self.conv = ConversationView()
        self.activity = Activity(id="activity")
        self.queue = QueuedPrompts()  # prompts typed during a turn, sent when it ends

    # what the app and the tests read: the session's
    config = property(lambda self: self.session.config)
    mcp = property(lambda self: self.session.servers.mcp)
    custom = property(lambda self: self.session.servers.commands)
    session_id = property(lambda self: self.session.session_id)

    # -- layout and start ---------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield self.conv
        with Vertical(id="bottom"):
            yield self.activity
            yield self.queue
            yield self.menu
            yield self.prompt
            yield self.status

    def on_mount(self) -> None:
        self.prompt.focus()
        self.status.show(None, note="starting…")

    def use_config(self, config: Config, history_path: Path | None = None) -> None:
        """The config loaded after the first frame (and the prompt history file it names)."""
        self.session.config = self.status.config = config
        if history_path is not None:
            self.history_path = history_path
            self.prompt.prompt_history[:0] = history.load(history_path)

    async def start(self) -> None:
        """Draw the session's events, find its custom commands, open the agent the command
        line asked for (or the model picked last time), start the MCP servers after the SDK
        warm-up (so they do not compete with the import the first request waits for)."""
        self._draw_events(self.session.events())
        self.session.servers.prepare()  # the agent's tool source
        self.run_worker(
            self.session.servers.discover_commands(), group="custom", exit_on_error=False
        )
        o = self.session.options
        chosen = self.models.default(self.ui, o.model, o.resume)
        if chosen is not None and chosen.source == "remembered":
            if await starting.open_remembered(self.session, self.conv, chosen.spec):
                await self.use_agent()
                self.say(f"model: {self.session.spec} ({chosen.why}; /model changes it)")
            else:  # the rule's next, as if nothing were remembered
                chosen = self.models.default(self.ui, o.model, o.resume, again=True)
                await self.start_agent(chosen.spec if chosen is not None else "")
        else:  # "" is the same rule's choice, made where the agent is built
            await self.start_agent(o.model, o.resume)
        self.run_worker(self._start_servers(), group="mcp-start", exit_on_error=False)

    async def _start_servers(self) -> None:
        await self.warmup.done()
        self.session.servers.start()

    async def start_agent(self, model: str = "", resume: str | None = None) -> None:
        if await starting.open_agent(self.session, self.ui, self.conv, self.status, model, resume):
            await self.use_agent()

    async def use_agent(self, *, replaced: bool = False, resumed: bool = True) -> None:
        """Draw the session's agent: its earlier conversation when resumed, else a welcome."""
        if not replaced:  # Shift+Tab's modes: yolo only in a session that started in it
            self.modes = tui_plan.modes_for(self.session.permission_mode)
        jobs = self.session.servers.jobs
        if jobs is not None:  # the status line counts the running ones
            jobs.on_change = lambda: self.refresh_status() if self.is_attached else None
        self.warm_up_sdk()
        starting.draw_agent(self.session, self.conv, self.cwd, replaced=replaced, resumed=resumed)
        self.refresh_status()

    def warm_up_sdk(self) -> None:
        """Import the model's SDK (and what drawing a reply needs) in a thread now, not on the
        first request; a turn started before it is done waits for it (``_run_turn``)."""
        self.warmup.start(self.session.status.provider, self.config)

    async def approve(self, request: PermissionRequest) -> Approval:
        """The session's approval hook: the permission modal (``permission.ask``)."""
        from .permission import ask

        return await ask(self.app, request, self.activity)

    def refresh_status(self) -> None:
        self.status.show(self.session.status, busy=self.busy)

    # -- input --------------------------------------------------------------------------------
    async def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        text = message.text
        history.append(self.history_path, text)
        if text.startswith("!"):
            self.run_shell(text[1:].strip())
        elif (parsed := slash.parse(text)) is not None:
            await slash.run(self.session, self.ui, *parsed)
        elif self.ui.need_agent():
            if self.busy:  # type-ahead: sent when the turn ends (Esc puts it back)
                self.queue.add(text)
            else:
                self.start_turn(text)

    def start_turn(self, turn: Turn | str) -> None:
        """Run ``turn`` in the turn worker (``_draw_events`` draws it); a prompt, with its
        ``@path`` files and ``@server:URI`` resources attached (or why not, one line each)."""
        self.busy = True
        self.refresh_status()
        self.activity.start(self.session.spec)
        self._turn = self._run_turn(turn)

    @work(group="turn", exclusive=True, exit_on_error=False)
    async def _run_turn(self, turn: Turn | str) -> None:
        if isinstance(turn, str):
            attached = await attach(self.session, turn, self.cwd)
            if self.prompt.images is not None:  # its image chips (larik/tui/images.py)
                self.prompt.images.attach(turn, attached, no_images_for(self.session))
            for problem in attached.problems:
                self.conv.add_notice(problem, "warning")
            self.conv.add_user(turn, attached.files)
            turn = self.session.send(attached.prompt(), turn)  # /rewind gives it back
        await self.warmup.done()
        try:
            await turn.run()
        except Exception:  # in the turn's result: drawn when it finishes
            pass

    @work(group="events", exit_on_error=False)
    async def _draw_events(self, stream: Subscription) -> None:
        async for ev in stream:
            try:
                self._draw(ev)
            except Exception as e:  # one line, never a traceback
                self.conv.add_notice(f"internal error: {type(e).__name__}: {e}", "error")

    def _draw(self, ev: Any) -> None:
        if isinstance(ev, SessionEvent):
            if ev.type is S.NOTICE:
                self.say(ev.text, ev.level)
            elif ev.type is S.CHANGED:
                self.refresh_status()
                if ev.text == "model":
                    self.warm_up_sdk()
            elif ev.type is S.TURN_STARTED:
                self._saw_error = False
            elif ev.type is S.TURN_FINISHED and ev.result is not None:
                self._finished(ev.result)
            return
        self.activity.saw(ev)
        self.conv.handle(ev)
        self._saw_error = self._saw_error or ev.type is E.ERROR
        if ev.type in _STATUS_EVENTS:
            self.refresh_status()
        if ev.type is E.TURN_END and ev.data.get("plan"):
            self.call_later(tui_plan.offer_plan, self.session, self.ui)  # accept, or plan on

    def _finished(self, result: Any) -> None:
        if result.cancelled:
            self.conv.interrupted()
            self._unqueue()
        elif result.error and not self._saw_error:  # raised, not an error event
            self.conv.add_notice(result.error, "error")
        self._stopped()
        self.gc.schedule()
        if self.queue.prompts:
            self.call_later(self._send_queued)

    def _stopped(self) -> None:
        self.busy = False
        self.activity.stop()
        self.refresh_status()

    def _send_queued(self) -> None:
        if self.queue.prompts and not self.busy and self.session.ready:
            self.start_turn(self.queue.next() or "")

    def _unqueue(self) -> None:
        """An interrupt: the prompts typed ahead go back into the prompt, to edit or send."""
        if self.queue.prompts:
            self.ui.set_prompt(self.queue.take_all(self.prompt.text))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A turn worker stopped before its turn started (Esc during the SDK warm-up)."""
        stopped = event.state in (WorkerState.CANCELLED, WorkerState.ERROR)
        if event.worker is self._turn and stopped and self.busy and not self.session.busy:
            self.conv.interrupted()
            self._unqueue()
            self._stopped()

    # -- keys ---------------------------------------------------------------------------------
    def action_scroll_conversation(self, where: str) -> None:
        self.conv.scroll_to_end_or(where)

    def on_prompt_input_said(self, message: PromptInput.Said) -> None:
        self.say(message.text, message.level)

    def on_prompt_input_tab_out(self, message: PromptInput.TabOut) -> None:
        self.conv.focus_newest()  # Tab in the prompt (no completion open)

    def on_conversation_view_to_prompt(self, message: ConversationView.ToPrompt) -> None:
        self.prompt.focus()
        if message.text:
            self.prompt.insert(message.text)
        if message.enter:
            self.prompt.enter()

    async def action_find(self, query: str | None = None) -> None:
        from ..widgets.find_bar import FindBar  # Ctrl+F, /find: not imported before

        await FindBar.open_above(self.prompt, self.conv, query)

    def action_cycle_mode(self) -> None:
        tui_plan.cycle_mode(self.session, self.ui)  # Shift+Tab

    def action_interrupt(self) -> None:
        if self.menu.is_open:
            self.menu.close()
            return
        stopped = self.session.cancel()  # a running turn: it ends, its commands are killed
        for worker in (self._turn, self._shell):
            if worker is not None and worker.is_running and not (stopped and worker is self._turn):
                worker.cancel()
                stopped = True
        if not stopped:
            self.prompt.focus()

    def cancel_input(self) -> None:
        """Ctrl+C once: interrupt a running turn and clear the prompt (and what was queued)."""
        self.queue.clear()
        if self.busy:
            self.action_interrupt()
        self.prompt.clear()

    async def quit(self, reason: str = "prompt_input_exit") -> None:
        """Close the session and leave (the app's ``quit_app``)."""
        await cast("LarikApp", self.app).quit_app(reason)

    def running(self) -> list[Worker[None]]:
        """What leaving stops first: the turn and the ``!command``, if they run."""
        return [w for w in (self._turn, self._shell) if w is not None and w.is_running]

    # -- !command -----------------------------------------------------------------------------
    def run_shell(self, command: str) -> None:
        if not command:
            self.say("usage: !COMMAND (runs it here and shows the output)")
            return
        self._shell = self._shell_command(command)

    @work(group="shell", exit_on_error=False)
    async def _shell_command(self, command: str) -> None:
        from ..shell_command import run_shell_command

        await run_shell_command(self.session, self.conv, command)

    def say(self, text: str, level: str = "info", *, as_markdown: bool = False) -> None:
        """The outcome of something the user typed (a command, a `!command`), as a notice at
        the end of the conversation, scrolled into view. A reply streaming meanwhile is not
        split by it: it goes on growing above the notice."""
        self.conv.mount(Notice(text, level, as_markdown=as_markdown))
        self.conv.anchor()
