"""The main screen: the conversation, the prompt, the status line, and the agent behind them.

It owns the agent and everything that runs against it, each as a worker of this screen: a turn
(``_run_turn`` iterates ``agent.run_turn`` and hands every event to the conversation view; Esc
cancels it, which is how the agent is interrupted), a ``!command`` (run by the bash tool's own
runner, so its output is bounded like the tool's), the SDK warm-up thread, a model switch, the
search for local servers behind the model picker. Slash commands live in ``larik/tui/slash.py``
and use this screen's public methods. Permission questions arrive through ``approve`` as a
modal.

The app (``larik/tui/app.py``) makes this its default screen and starts it after the first
frame: ``use_config`` once the config is loaded, then ``start``. A question the app asks at
start-up (a modal pushed over this screen) comes before ``start``: nothing here needs the agent
to exist, every command and key says "no model yet" until it does.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from ... import __version__
from ...agent.events import AgentEventType, Approval, PermissionRequest
from ...llm.errors import LarikError, MissingKeyError
from .. import gcpolicy, history, mcp, slash, warmup
from .. import plan as tui_plan
from ..attachments import build_prompt
from ..local_servers import LocalModel, discover
from ..models import ModelEntry, looked_text, picker_entries
from ..protocol import AgentFactory, AgentLike
from ..widgets.activity import Activity
from ..widgets.completion_menu import CompletionMenu
from ..widgets.conversation import ConversationView
from ..widgets.notice import Notice
from ..widgets.prompt_input import PromptInput
from ..widgets.status_bar import StatusBar, agent_spec

if TYPE_CHECKING:  # no pydantic before the first frame; modals are imported when pushed
    from ...config import Config
    from .model_picker import ModelPickerScreen

__all__ = ["ChatScreen", "Discover"]

E = AgentEventType
IDLE_COLLECT_AFTER = 5.0  # seconds without a turn or a key press before a full collection
_STATUS_EVENTS = frozenset({E.USAGE, E.MESSAGE, E.TURN_END, E.NOTICE, E.ERROR})

Discover = Callable[[Any], Awaitable[list[LocalModel]]]  # (config) -> models found


# keys that scroll the conversation whatever has focus (the prompt included): (keys, where)
SCROLL_KEYS = (
    ("pageup,shift+pageup,ctrl+pageup", "page_up"),
    ("pagedown,shift+pagedown,ctrl+pagedown", "page_down"),
    ("ctrl+home", "home"),
    ("ctrl+end", "end"),
)


class ChatScreen(Screen[None]):
    BINDINGS = [
        Binding("escape", "interrupt", "interrupt", show=False),
        Binding("shift+tab", "cycle_mode", "permission mode", show=False, priority=True),
        *(
            Binding(keys, f"scroll_conversation('{where}')", show=False, priority=True)
            for keys, where in SCROLL_KEYS
        ),
    ]

    def __init__(
        self,
        agent_factory: AgentFactory,
        *,
        cwd: Path,
        config: Config | None = None,
        model: str = "",
        resume: str | None = None,
        discover_local: Discover | None = None,
        history_path: Path | None = None,
    ) -> None:
        super().__init__()
        self.factory = agent_factory
        self.cwd = Path(cwd)
        self.config: Config | None = config
        self.start_model = model
        self.start_resume = resume
        self.discover_local: Discover = discover_local or discover
        self.history_path = history_path
        self.agent: AgentLike | None = None
        self.mcp: Any = None  # the MCP servers (larik.mcp.manager.McpManager), once started
        self.custom: Any = None  # the custom commands found (larik.custom_commands), once looked
        self.session_id = ""
        self.busy = False
        self.local_models: list[LocalModel] | None = None
        self._turn: Worker[None] | None = None
        self._shell: Worker[None] | None = None
        self._leaving: Worker[None] | None = None
        self._warmup: Worker[None] | None = None
        self._last_key = 0.0
        self._gc_timer: Timer | None = None
        self.menu = CompletionMenu()
        self.prompt = PromptInput(cwd=self.cwd, menu=self.menu, history=history.load(history_path))
        self.status = StatusBar(config, id="status")
        self.conv = ConversationView()
        self.activity = Activity(id="activity")
        self.queued: list[str] = []  # prompts typed during a turn, sent when it ends
        self.modes: tuple[str, ...] = tui_plan.CYCLE  # what Shift+Tab goes through (tui/plan.py)
        self.queue_view = Static("", id="queued")

    # -- layout and start ---------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield self.conv
        with Vertical(id="bottom"):
            yield self.activity
            yield self.queue_view
            yield self.menu
            yield self.prompt
            yield self.status

    def on_mount(self) -> None:
        self.prompt.focus()
        self.status.show(None, note="starting…")

    def use_config(self, config: Config, history_path: Path | None = None) -> None:
        """The config loaded after the first frame (and the prompt history file it names)."""
        self.config = self.status.config = config
        if history_path is not None:
            self.history_path = history_path
            self.prompt.prompt_history[:0] = history.load(history_path)

    async def start(self) -> None:
        """Start the MCP servers (in the background) and build the agent the command line asked
        for (model, session to resume)."""
        mcp.prepare(self)  # the agent's tool source; its servers start after the SDK warm-up
        from .. import custom  # after the first frame, like everything it finds

        found = custom.discover(self, slash.builtin_names())
        self.run_worker(found, group="custom", exit_on_error=False)
        if not await self._start_remembered():
            await self.start_agent(self.start_model, self.start_resume)
        mcp.start_servers(self)

    @property
    def model_file(self) -> Path | None:
        """Where the model last picked is remembered (beside the prompt history)."""
        return self.history_path.with_name(history.MODEL_FILE) if self.history_path else None

    async def _start_remembered(self) -> bool:
        """A new session with no model asked for (no ``--model``, none in the config): the
        model picked last time, if it still starts. False when it was not used."""
        spec = history.last_model(self.model_file)
        if not spec or self.start_model or self.start_resume or getattr(self.config, "model", ""):
            return False
        try:
            agent = await self.factory(approver=self.approve, model=spec, resume=None)
        except Exception as e:  # gone, or its key is: start as if nothing was remembered
            self.conv.add_notice(f"the model you picked last, {spec}, cannot start: {e}", "warning")
            return False
        await self.use_agent(agent)
        self.say(
            f"model: {self.current_spec()} (the one you picked last, remembered in "
            f"{self.model_file}; /model changes it)"
        )
        return True

    async def start_agent(self, model: str = "", resume: str | None = None) -> None:
        self.status.show(None, note="connecting…")
        try:
            agent = await self.factory(approver=self.approve, model=model, resume=resume)
        except MissingKeyError as e:
            from .no_model import offer

            await offer(self, str(e))
            return
        except LarikError as e:
            if resume:
                self.conv.add_notice(
                    f"could not resume {resume}: {e}; starting a new session", "error"
                )
                await self.start_agent(model, None)
                return
            self.conv.add_notice(f"{e}", "error")
            self.conv.add_notice("pick a model with /model, or see /help")
            self.status.show(None, note="no model: /model to pick one")
            return
        except Exception as e:  # never a traceback on screen
            self.conv.add_notice(f"could not start the agent: {type(e).__name__}: {e}", "error")
            self.status.show(None, note="no model: /model to pick one")
            return
        await self.use_agent(agent)

    async def use_agent(
        self, agent: AgentLike, *, keep_settings_from: AgentLike | None = None
    ) -> None:
        if keep_settings_from is not None:
            agent.effort = keep_settings_from.effort
            agent.permission_mode = keep_settings_from.permission_mode
        else:  # Shift+Tab's modes: yolo only in a session that started in it
            self.modes = tui_plan.modes_for(agent.permission_mode)
        self.agent = agent
        self.session_id = agent.session_id
        self.warm_up_sdk()
        if agent.messages:
            try:
                from ...agent.subagent import subagent_links

                links = subagent_links(agent.transcript_path)
                self.conv.show_history(agent.messages, links, getattr(agent, "restored", None))
            except Exception as e:  # the session goes on even if its past cannot be drawn
                self.conv.add_notice(
                    f"could not show the earlier conversation: {type(e).__name__}: {e}", "error"
                )
            self.conv.add_notice(
                f"resumed session {agent.session_id} ({len(agent.messages)} messages)"
            )
        elif keep_settings_from is None and not self.conv.items:
            self.conv.add_notice(
                f"larik {__version__} · {self.cwd.name or self.cwd} · {self.current_spec()} · "
                "/help for commands"
            )
        self.refresh_status()

    def warm_up_sdk(self) -> None:
        """Import the current model's SDK (and what drawing a reply needs) in a thread now, not
        on the first request; a turn started before it is done waits for it (``_run_turn``)."""
        if self.agent is None:
            return
        try:
            modules = warmup.sdk_modules(self.agent.provider_name, self.config)
        except Exception:  # only an optimisation
            modules = ()
        self._warmup = self._warm(warmup.UI_MODULES + modules)

    @work(thread=True, group="warmup", exit_on_error=False)
    def _warm(self, modules: tuple[str, ...]) -> None:
        warmup.warm(modules)

    async def warmed_up(self) -> None:
        """Until the SDK warm-up thread is done (the MCP servers start after it)."""
        await self._warmed_up()

    async def _warmed_up(self) -> None:
        """Wait for the warm-up thread, if it is still importing: awaited here, the screen and
        the keys stay live (the adapter's own import would block the event loop on the
        module's import lock until the thread is done)."""
        worker = self._warmup
        if worker is not None and worker.is_running:
            try:
                await worker.wait()
            except Exception:  # cancelled or failed: the adapter's import reports it
                pass

    # -- the agent's side ---------------------------------------------------------------------
    async def approve(self, request: PermissionRequest) -> Approval:
        """The agent's Approver: the permission modal (``permission.ask``)."""
        from .permission import ask

        return await ask(self.app, request, self.activity)

    def refresh_status(self) -> None:
        self.status.show(self.agent, busy=self.busy)
        if self.agent is not None:
            self.session_id = self.agent.session_id

    # -- input --------------------------------------------------------------------------------
    async def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        text = message.text
        history.append(self.history_path, text)
        if text.startswith("!"):
            self.run_shell(text[1:].strip())
            return
        parsed = slash.parse(text)
        if parsed is not None:
            await slash.run(self, *parsed)
            return
        if self.agent is None:
            self.say("no model yet: pick one with /model", "warning")
            return
        if self.busy:  # type-ahead: sent when the turn ends (Esc puts it back in the prompt)
            self.queued.append(text)
            self._show_queue()
            return
        self.send_prompt(text)

    def send_prompt(self, text: str) -> None:
        """Send a prompt: its ``@path`` files attached (or why not), then a turn."""
        no_images = self.current_spec() if self.agent_takes_images() is False else ""
        attached = build_prompt(text, self.cwd, skip=mcp.resource_names(self), no_images=no_images)
        for problem in attached.problems:
            self.conv.add_notice(problem, "warning")
        if mcp.send_with_resources(self, text, attached):  # @server:URI: read, then send
            return
        self.conv.add_user(text, attached.files)
        self.start_turn(attached.prompt())

    def start_turn(self, prompt: Any, *, compact: bool = False, events: Any = None) -> None:
        """Run a turn on ``prompt`` (or compact); ``events``: a turn given as its events (a
        custom command's expansion, then its turn: ``tui/custom.py``)."""
        self.busy = True
        self.refresh_status()
        self.activity.start(self.current_spec())
        self._turn = self._run_turn(prompt, compact, events)

    @work(group="turn", exclusive=True, exit_on_error=False)
    async def _run_turn(self, prompt: Any, compact: bool, events: Any = None) -> None:
        agent = self.agent
        assert agent is not None
        try:
            await self._warmed_up()
            stream = events or (agent.compact() if compact else agent.run_turn(prompt))
            async for ev in stream:
                self.activity.saw(ev)
                self.conv.handle(ev)
                if ev.type in _STATUS_EVENTS:
                    self.refresh_status()
                if ev.type is E.TURN_END and ev.data.get("plan"):
                    self.call_later(tui_plan.offer_plan, self)  # accept it, or keep planning
        except asyncio.CancelledError:
            self.conv.interrupted()
            self._unqueue()
            raise
        except LarikError as e:
            self.conv.add_notice(str(e), "error")
        except Exception as e:  # one line, never a traceback
            self.conv.add_notice(f"internal error: {type(e).__name__}: {e}", "error")
        finally:
            self.busy = False
            self.activity.stop()
            self.refresh_status()
            self._schedule_idle_collect()
            if self.queued:
                self.call_later(self._send_queued)

    def _send_queued(self) -> None:
        if self.queued and not self.busy and self.agent is not None:
            self.send_prompt(self.queued.pop(0))
            self._show_queue()

    def _unqueue(self) -> None:
        """An interrupt: the prompts typed ahead go back into the prompt, to edit or send."""
        if not self.queued:
            return
        typed = self.prompt.text
        text = "\n".join([*self.queued, typed] if typed.strip() else self.queued)
        self.queued.clear()
        self._show_queue()
        self.prompt.load_text(text)
        self.prompt.move_cursor(self.prompt.document.end)

    def _show_queue(self) -> None:
        lines = [f"⏵ queued: {' '.join(t.split())}" for t in self.queued]
        if lines:
            lines[-1] += "  (sent when the turn ends; Esc interrupts and puts it back here)"
        self.queue_view.update("\n".join(lines))
        self.queue_view.set_class(bool(lines), "-on")

    def note_key(self) -> None:
        """A key was pressed (anywhere: the app tells): typing puts off the idle collection."""
        self._last_key = time.monotonic()

    def _schedule_idle_collect(self) -> None:
        """A full collection a few seconds after a turn, unless typing or a turn came first."""
        if self._gc_timer is not None:
            self._gc_timer.stop()
        self._gc_timer = self.set_timer(IDLE_COLLECT_AFTER, self._idle_collect)

    def _idle_collect(self) -> None:
        self._gc_timer = None
        if self.busy or time.monotonic() - self._last_key < IDLE_COLLECT_AFTER:
            self._schedule_idle_collect()
            return
        gcpolicy.collect_idle()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker is self._turn and event.state in (WorkerState.CANCELLED, WorkerState.ERROR):
            self.busy = False
            self.activity.stop()
            self.refresh_status()

    def action_scroll_conversation(self, where: str) -> None:
        conv = self.conv
        if where == "page_up":
            conv.scroll_page_up(animate=False)
        elif where == "page_down":
            conv.scroll_page_down(animate=False)
        elif where == "home":
            conv.scroll_home(animate=False)
        else:
            conv.anchor()  # back to the end, and following it again

    def on_prompt_input_tab_out(self, message: PromptInput.TabOut) -> None:
        """Tab in the prompt (no completion open): the newest card or thinking block."""
        items = [w for w in self.conv.items if w.focusable]
        if items:
            items[-1].focus()
            items[-1].scroll_visible(animate=False)

    def on_key(self, event: events.Key) -> None:
        """With a conversation item focused: Up/Down move between items (Down past the newest
        goes back to the prompt), and a typed character goes to the prompt, not lost."""
        focused = self.focused
        if focused is None or focused is self.prompt or focused.parent is not self.conv:
            return
        items = [w for w in self.conv.items if w.focusable]
        if event.key in ("up", "down") and focused in items:
            i = items.index(focused) + (1 if event.key == "down" else -1)
            target = items[i] if 0 <= i < len(items) else (self.prompt if i > 0 else None)
            if target is not None:
                target.focus()
                target.scroll_visible(animate=False)
        elif event.is_printable and event.character and not event.character.isspace():
            self.prompt.focus()
            self.prompt.insert(event.character)
        else:
            return
        event.stop()
        event.prevent_default()

    def action_cycle_mode(self) -> None:
        tui_plan.cycle_mode(self)  # Shift+Tab

    def action_interrupt(self) -> None:
        if self.menu.is_open:
            self.menu.close()
            return
        stopped = False
        for worker in (self._turn, self._shell):
            if worker is not None and worker.is_running:
                worker.cancel()
                stopped = True
        if not stopped:
            self.prompt.focus()

    def cancel_input(self) -> None:
        """Ctrl+C once: interrupt a running turn and clear the prompt (and what was queued)."""
        self.queued.clear()
        self._show_queue()
        if self.busy:
            self.action_interrupt()
        self.prompt.clear()

    async def quit(self, reason: str = "prompt_input_exit") -> None:
        """Stop what runs (turn, ``!command``), close the agent (its session is saved), exit.
        ``reason`` for SessionEnd hooks: ``other`` when a signal ended the app. The closing
        runs as a worker, so the screen stays live while SessionEnd's hooks run: asked again
        meanwhile (Ctrl+C twice, a second signal), the app leaves at once, and leaving cancels
        the worker, which kills the hooks still running with their process groups."""
        if self._leaving is not None:
            self._leaving.cancel()  # kills the hooks still running, SIGKILLs the jobs
            self.app.exit(0)
            return
        self._leaving = self._leave(reason)

    async def wait_left(self) -> None:
        """Until the closing :meth:`quit` started has ended (at once when none runs)."""
        if self._leaving is not None:
            try:
                await self._leaving.wait()
            except Exception:  # cancelled (asked twice) or failed: it is over either way
                pass

    @work(group="leave", exit_on_error=False)
    async def _leave(self, reason: str) -> None:
        for worker in (self._turn, self._shell):
            if worker is not None and worker.is_running:
                worker.cancel()
                try:
                    await worker.wait()
                except Exception:  # cancelled or failed: we are leaving
                    pass
        if self.agent is not None:
            try:
                await self.agent.close(reason)
            except Exception:  # closing is best effort on the way out
                pass
        self.call_next(self._stop_servers)  # on the screen's loop, where they were started

    async def _stop_servers(self) -> None:
        await mcp.close(self)  # every MCP server stopped: nothing left running
        self.app.exit(0)

    # -- !command -----------------------------------------------------------------------------
    def run_shell(self, command: str) -> None:
        if not command:
            self.say("usage: !COMMAND (runs it here and shows the output)")
            return
        self._shell = self._shell_command(command)

    @work(group="shell", exit_on_error=False)
    async def _shell_command(self, command: str) -> None:
        """A ``!command``, run as the bash tool runs one (:mod:`larik.tui.shell_command`)."""
        from ..shell_command import run_shell_command

        await run_shell_command(self, command)

    def show_card(self, card: Any) -> None:
        if not card.expanded:
            card.action_toggle()
        self.conv.anchor()  # its end in view, even if the conversation was scrolled back

    # -- what slash commands use --------------------------------------------------------------
    def say(self, text: str, level: str = "info", *, as_markdown: bool = False) -> None:
        """The outcome of something the user typed (a command, a `!command`), as a notice at
        the end of the conversation, scrolled into view. A reply streaming meanwhile is not
        split by it: it goes on growing above the notice."""
        self.conv.mount(Notice(text, level, as_markdown=as_markdown))
        self.conv.anchor()

    def need_agent(self) -> AgentLike | None:
        """The agent, or None after saying there is no model yet."""
        if self.agent is None:
            self.say("no model yet: pick one with /model", "warning")
        return self.agent

    def idle(self, what: str) -> bool:
        """No turn is running; else says ``what`` must wait."""
        if self.busy:
            self.say(f"{what}: wait for the turn to end, or press Esc", "warning")
            return False
        return True

    def agent_takes_images(self) -> bool | None:
        """Whether the model in use takes images (None: not known)."""
        return getattr(self.agent, "accepts_images", None)

    def current_spec(self) -> str:
        return agent_spec(self.agent) if self.agent is not None else ""

    def entries(self) -> list[ModelEntry]:
        """What the model pickers list: the catalog's and the config's models, and local ones."""
        try:
            return picker_entries(self.config, self.local_models or [])
        except Exception as e:  # a broken catalog must not break the picker
            self.conv.add_notice(f"model list incomplete: {e}", "warning")
            return [
                ModelEntry(m.spec, source="local", note=m.server) for m in self.local_models or []
            ]

    async def find_local(self) -> list[LocalModel]:
        try:
            self.local_models = await self.discover_local(self.config)
        except Exception:  # discovery is best effort
            self.local_models = []
        return self.local_models

    def open_model_picker(self) -> None:
        """The model picker, listing local servers' models as they are found."""
        from .model_picker import ModelPickerScreen

        picker = ModelPickerScreen(self.entries(), current=self.current_spec())
        self.app.push_screen(picker, callback=self.picked_model)
        self._discover_into(picker)

    @work(group="discover", exclusive=True, exit_on_error=False)
    async def _discover_into(self, picker: ModelPickerScreen) -> None:
        local: list[LocalModel] = []
        try:
            local = await self.find_local()
        finally:  # found, failed or cancelled: the picker stops saying it is looking
            entries = [e for e in self.entries() if e.source == "local"]
            if picker.is_attached:
                picker.add_local(entries, looked_text(local))

    def picked_model(self, spec: str | None) -> None:
        """The model picker's answer: switch to it (in a worker), or nothing."""
        if spec:
            self._switch_in_worker(spec)

    @work(group="switch", exclusive=True, exit_on_error=False)
    async def _switch_in_worker(self, spec: str) -> None:
        await self.switch_model(spec)

    async def switch_model(self, spec: str) -> None:
        """Go on with the conversation on ``spec`` (or start the agent on it, if none yet)."""
        if self.agent is None:
            await self.start_agent(spec)
            if self.agent is not None:
                history.remember_model(self.model_file, self.current_spec())
                self.say(f"model: {self.current_spec()} (remembered for the next start)")
            return
        try:
            if self.busy:
                resolved = self.agent.set_model(spec)
            else:  # building a provider may import its SDK: keep the screen live meanwhile
                resolved = await asyncio.to_thread(self.agent.set_model, spec)
        except LarikError as e:
            self.say(f"cannot switch to {spec}: {e}", "error")
            return
        except Exception as e:  # one line, never a traceback
            self.say(f"cannot switch to {spec}: {type(e).__name__}: {e}", "error")
            return
        shown = getattr(resolved, "spec", "") or self.current_spec()
        history.remember_model(self.model_file, shown)
        self.say(f"model: {shown} (the conversation goes on)")
        self.refresh_status()
        self.warm_up_sdk()

    async def replace_agent(self, old: AgentLike, *, resume: str | None) -> None:
        """A new session (``resume`` None) or an earlier one in place of ``old``; effort and
        permission mode carry over. If it cannot be opened, ``old`` goes on."""
        try:
            new = await self.factory(
                approver=self.approve, model=self.current_spec(), resume=resume
            )
        except LarikError as e:
            self.say(str(e), "error")
            return
        except Exception as e:  # one line, never a traceback; the old session goes on
            self.say(f"could not open the session: {type(e).__name__}: {e}", "error")
            return
        try:
            await old.close("clear" if resume is None else "resume")
        except Exception:  # the old session is saved already
            pass
        await self.conv.clear()
        await self.use_agent(new, keep_settings_from=old)
        if resume is None:
            self.say(f"new session {new.session_id}")
        elif not new.messages:
            self.say(f"resumed session {new.session_id} (no messages yet)")
