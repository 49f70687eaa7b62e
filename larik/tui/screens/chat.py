"""The main screen: a view of one :class:`~larik.session.Session`.

The session is the conversation — the agent, its MCP servers, its custom commands, turns,
undo, model and mode — and this screen draws it: the keys, composing a prompt (``@path``
attachments, type-ahead while a turn runs), a worker that draws ``session.events()`` (every
turn's events and the session's own notices, in order: ``larik/tui/turns.py``), the permission
modal (the session's approval hook, an :class:`~larik.tui.messages.Approve` message), a
``!command``'s card. Slash commands (``larik/tui/slash.py``) get the session and a
:class:`~larik.tui.ui.UI` (:class:`ChatUI`), never this screen: what they ask of it is a
message (``larik/tui/messages.py``) handled here, one ``on_…`` handler each. Esc cancels the
running turn (``Session.cancel``).

The app (``larik/tui/app.py``) starts it after the first frame (``use_config``, then
``start``; a modal it asks first comes before: until the agent exists every command says "no
model yet"). The session is built lazily: constructing it imports no pydantic and no SDK.
"""

from __future__ import annotations

from collections.abc import Awaitable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.screen import Screen

from ...session import Session, SessionOptions
from .. import gcpolicy, history, notify, slash, starting, warmup
from .. import plan as tui_plan
from ..bindings import for_scope
from ..local_servers import discover
from ..messages import (
    Approve,
    Copy,
    Find,
    OpenAgent,
    OpenScreen,
    Reopened,
    Say,
    StartTurn,
    ToPrompt,
)
from ..model_choice import Discover, ModelChoice
from ..turns import Turns, TurnView
from ..ui import open_agent
from ..widgets.activity import Activity
from ..widgets.completion_menu import CompletionMenu
from ..widgets.conversation import ConversationView
from ..widgets.notice import Notice
from ..widgets.prompt_input import PromptInput
from ..widgets.queued import QueuedPrompts
from ..widgets.status_bar import StatusBar

if TYPE_CHECKING:  # no pydantic before the first frame; modals are imported when pushed
    from ...config import Config
    from ...session import AgentFactory
    from ..prefs import Prefs

__all__ = ["ChatScreen", "ChatUI", "Discover"]


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
        # the approval hook asks this screen (on_approve), notifying you when you are away
        ask = self.notifier.asking(partial(Approve.asked_of, self))
        self.session = Session(self.cwd, config, opts, approver=ask, agent_factory=agent_factory)
        self.models = ModelChoice(self.discover_local)
        self.ui = ChatUI(self)  # what slash commands may touch
        self.modes: tuple[str, ...] = tui_plan.CYCLE  # what Shift+Tab goes through
        self.warmup = warmup.WarmUp(self.run_worker)
        self.gc = gcpolicy.IdleCollector(self.set_timer, lambda: self.busy)
        self.menu = CompletionMenu()
        self.prompt = PromptInput(
            cwd=self.cwd, menu=self.menu, history=history.load(history_path), session=self.session
        )
        self.status = StatusBar(config, id="status")
        self.conv = ConversationView()
        self.activity = Activity(id="activity")
        self.queue = QueuedPrompts()  # prompts typed during a turn, sent when it ends
        offer = lambda: tui_plan.offer_plan(self.session, self.ui, bool(self.queue.prompts))  # noqa: E731
        view = TurnView(
            self.conv, self.activity, self.queue, self.prompt, self.say, self.refresh_status,
            self.warm_up_sdk, offer, self.run_worker, self.call_later,
        )  # fmt: skip
        self.turns = Turns(self.session, self.cwd, view, self.warmup, self.gc)  # and !commands

    # what the app and the tests read: the session's, and whether a turn runs
    config = property(lambda self: self.session.config)
    mcp = property(lambda self: self.session.servers.mcp)
    custom = property(lambda self: self.session.servers.commands)
    session_id = property(lambda self: self.session.session_id)
    busy = property(lambda self: self.turns.busy)

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
        warm-up (so they do not compete with the import the first request waits for).
        Run by the app, in its worker (it waits for the agent, which opens in this screen's)."""
        self.turns.draw_events(self.session.events())
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
                await open_agent(self.ui, chosen.spec if chosen is not None else "")
        else:  # "" is the same rule's choice, made where the agent is built
            await open_agent(self.ui, o.model, o.resume)

        async def start_servers() -> None:
            await self.warmup.done()
            self.session.servers.start()

        self.run_worker(start_servers(), group="mcp-start", exit_on_error=False)

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
        first request; a turn started before it is done waits for it (``Turns``)."""
        self.warmup.start(self.session.status.provider, self.config)

    def refresh_status(self) -> None:
        self.status.show(self.session.status, busy=self.busy)

    def say(self, text: str, level: str = "info", *, as_markdown: bool = False) -> None:
        """The outcome of something the user typed (a command, a `!command`), as a notice at
        the end of the conversation, scrolled into view. A reply streaming meanwhile is not
        split by it: it goes on growing above the notice."""
        self.conv.mount(Notice(text, level, as_markdown=as_markdown))
        self.conv.anchor()

    # -- input --------------------------------------------------------------------------------
    async def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        text = message.text
        history.append(self.history_path, text)
        if text.startswith("!"):
            self.turns.run_shell(text[1:].strip())
        elif (parsed := slash.parse(text)) is not None:
            await slash.run(self.session, self.ui, *parsed)
        elif self.ui.need_agent():
            self.turns.queue_or_start(text)

    def on_prompt_input_tab_out(self, message: PromptInput.TabOut) -> None:
        self.conv.focus_newest()  # Tab in the prompt (no completion open)

    # -- what handlers and widgets ask for (larik/tui/messages.py) ---------------------------
    def on_say(self, message: Say) -> None:
        self.say(message.text, message.level, as_markdown=message.as_markdown)

    def on_open_screen(self, message: OpenScreen) -> None:
        self.app.push_screen(message.screen, callback=message.callback)

    def on_start_turn(self, message: StartTurn) -> None:
        if message.turn.shown:
            self.conv.add_user(message.turn.shown, message.files)
        self.turns.start(message.turn)

    def on_open_agent(self, message: OpenAgent) -> None:
        async def open_it() -> None:
            opened = False
            try:
                model, resume = message.model, message.resume
                if await starting.open_agent(
                    self.session, self.ui, self.conv, self.status, model, resume
                ):
                    await self.use_agent()
                    opened = True
            finally:
                if not message.opened.done():
                    message.opened.set_result(opened)

        self.run_worker(open_it(), group="agent", exclusive=True, exit_on_error=False)

    def on_to_prompt(self, message: ToPrompt) -> None:
        prompt = self.prompt
        prompt.focus()
        if message.replace:
            prompt.load_text(message.text)
            prompt.move_cursor(prompt.document.end)
        elif message.text:
            prompt.insert(message.text)
        if message.enter:
            prompt.enter()

    async def on_find(self, message: Find) -> None:
        await self.action_find(message.query or None)

    async def on_reopened(self, message: Reopened) -> None:
        await self.conv.clear()
        await self.use_agent(replaced=True, resumed=message.resumed)

    def on_copy(self, message: Copy) -> None:
        self.app.copy_to_clipboard(message.text)

    def on_approve(self, message: Approve) -> None:
        from .permission import ask  # the modal: not imported before the first question

        ask(self.app, message, self.activity)

    # -- keys ---------------------------------------------------------------------------------
    def action_scroll_conversation(self, where: str) -> None:
        self.conv.scroll_to_end_or(where)

    async def action_find(self, query: str | None = None) -> None:
        from ..widgets.find_bar import FindBar  # Ctrl+F, /find: not imported before

        await FindBar.open_above(self.prompt, self.conv, query)

    def action_cycle_mode(self) -> None:
        tui_plan.cycle_mode(self.session, self.ui, self.modes)  # Shift+Tab

    def action_interrupt(self) -> None:
        if self.menu.is_open:
            self.menu.close()
        elif not self.turns.interrupt():
            self.prompt.focus()


class ChatUI:
    """The chat screen's side of :class:`~larik.tui.ui.UI`: what it reads, and ``post``."""

    def __init__(self, chat: ChatScreen) -> None:
        self._chat = chat

    @property
    def cwd(self) -> Path:
        return self._chat.cwd

    @property
    def config(self) -> Any:
        return self._chat.config

    @property
    def models(self) -> ModelChoice:
        return self._chat.models

    @property
    def prefs(self) -> Prefs:
        return self._chat.app.prefs  # type: ignore[attr-defined,no-any-return]  # LarikApp's

    def say(self, text: str, level: str = "info", *, as_markdown: bool = False) -> None:
        self.post(Say(text, level, as_markdown))

    def need_agent(self) -> bool:
        if not self._chat.session.ready:
            self.say("no model yet: pick one with /model", "warning")
            return False
        return True

    def idle(self, what: str) -> bool:
        if self._chat.busy:
            self.say(f"{what}: wait for the turn to end, or press Esc", "warning")
            return False
        return True

    def run(self, work: Awaitable[Any], group: str) -> None:
        self._chat.run_worker(work, group=group, exclusive=True, exit_on_error=False)

    def post(self, message: Message) -> None:
        self._chat.post_message(message)
