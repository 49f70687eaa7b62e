"""The Larik TUI: a conversation view, a prompt, a status line, and the slash commands.

The app never blocks on the model. The config (given, or loaded by ``config_loader``) and the
agent (built by an injected factory) come in a worker after the first frame, so the first paint
happens before pydantic or any vendor SDK is imported; the SDK is then imported in a thread
(``warm_up_sdk``), and a turn started before that is done waits for it there; each turn runs
in a worker that iterates ``agent.run_turn`` and hands every event to the conversation view;
Esc cancels that worker, which is how the agent is interrupted. Permission questions arrive
through the approver as a modal.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.timer import Timer
from textual.worker import Worker, WorkerState

from .. import __version__
from ..agent.events import AgentEventType, Approval, PermissionRequest
from ..llm.errors import ConfigError, LarikError, MissingKeyError
from . import commands, gcpolicy, warmup
from .attachments import build_prompt
from .commands import SlashCommands
from .local_servers import LocalModel, discover
from .models import ModelEntry, picker_entries
from .protocol import AgentFactory, AgentLike
from .widgets.completion_menu import CompletionMenu
from .widgets.conversation import ConversationView
from .widgets.notice import Notice
from .widgets.prompt_input import PromptInput
from .widgets.status_bar import StatusBar, agent_spec

__all__ = ["LarikApp"]

E = AgentEventType
SHELL_TIMEOUT = 300.0
QUIT_WINDOW = 2.0
HISTORY_KEEP = 500
IDLE_COLLECT_AFTER = 5.0  # seconds without a turn or a key press before a full collection
_STATUS_EVENTS = frozenset({E.USAGE, E.MESSAGE, E.TURN_END, E.NOTICE, E.ERROR})

Discover = Callable[[Any], Awaitable[list[LocalModel]]]  # (config) -> models found
# () -> (config, prompt history file or None); may raise ConfigError
ConfigLoader = Callable[[], tuple[Any, Path | None]]


class LarikApp(SlashCommands, App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "larik"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [
        Binding("escape", "interrupt", "interrupt", show=False),
        Binding("ctrl+c", "ctrl_c", "quit", show=False, priority=True),
    ]

    def __init__(
        self,
        agent_factory: AgentFactory,
        *,
        cwd: Path,
        config: Any = None,
        model: str = "",
        resume: str | None = None,
        discover_local: Discover | None = None,
        history_path: Path | None = None,
        config_loader: ConfigLoader | None = None,
    ) -> None:
        super().__init__()
        self.factory = agent_factory
        self.cwd = Path(cwd)
        self.config = config
        self.config_loader = config_loader
        self.startup_error = ""  # why the app ended before it could start (printed by run_tui)
        self.start_model = model
        self.start_resume = resume
        self.discover_local: Discover = discover_local or discover
        self.history_path = history_path
        self.agent: AgentLike | None = None
        self.session_id = ""
        self.busy = False
        self.first_paint_done = False
        self.local_models: list[LocalModel] | None = None
        self._turn: Worker[None] | None = None
        self._shell: Worker[None] | None = None
        self._warmup: Worker[None] | None = None
        self._last_ctrl_c = 0.0
        self._last_key = 0.0
        self._gc_timer: Timer | None = None
        self.menu = CompletionMenu()
        self.prompt = PromptInput(cwd=self.cwd, menu=self.menu, history=self._load_history())
        self.status = StatusBar(config, id="status")
        self.conv = ConversationView()

    # -- layout and start ---------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield self.conv
        with Vertical(id="bottom"):
            yield self.menu
            yield self.prompt
            yield self.status

    def on_mount(self) -> None:
        self.prompt.focus()
        self.status.show(None, note="starting…")
        self.call_after_refresh(self._after_first_frame)

    def _after_first_frame(self) -> None:
        self.first_paint_done = True
        gcpolicy.collect_idle()
        self.run_worker(
            self._start_agent(self.start_model, self.start_resume), group="agent", exclusive=True
        )

    async def _load_config(self) -> bool:
        """Load the config (pydantic, the user's and the project's files) in a thread, after the
        first frame. A broken config ends the app with exit code 2, its one-line reason kept in
        ``startup_error`` (``run_tui`` prints it once the terminal is restored)."""
        loader, self.config_loader = self.config_loader, None
        if loader is None:
            return True
        try:
            config, history = await asyncio.to_thread(loader)
        except ConfigError as e:
            self.startup_error = f"larik: {e}"
            self.exit(2, return_code=2)
            return False
        self.config = self.status.config = config
        if history is not None:
            self.history_path = history
            self.prompt.prompt_history[:0] = self._load_history()
        return True

    async def _start_agent(self, model: str = "", resume: str | None = None) -> None:
        if not await self._load_config():
            return
        self.status.show(None, note="connecting…")
        try:
            agent = await self.factory(approver=self.approve, model=model, resume=resume)
        except MissingKeyError as e:
            await self._no_model(str(e))
            return
        except LarikError as e:
            if resume:
                self.conv.add_notice(
                    f"could not resume {resume}: {e}; starting a new session", "error"
                )
                await self._start_agent(model, None)
                return
            self.conv.add_notice(f"{e}", "error")
            self.conv.add_notice("pick a model with /model, or see /help")
            self.status.show(None, note="no model: /model to pick one")
            return
        except Exception as e:  # never a traceback on screen
            self.conv.add_notice(f"could not start the agent: {type(e).__name__}: {e}", "error")
            self.status.show(None, note="no model: /model to pick one")
            return
        await self._use_agent(agent)

    async def _use_agent(
        self, agent: AgentLike, *, keep_settings_from: AgentLike | None = None
    ) -> None:
        if keep_settings_from is not None:
            agent.effort = keep_settings_from.effort
            agent.permission_mode = keep_settings_from.permission_mode
        self.agent = agent
        self.session_id = agent.session_id
        self.warm_up_sdk()
        if agent.messages:
            try:
                self.conv.show_history(agent.messages)
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
        self._refresh_status()

    def warm_up_sdk(self) -> None:
        """Import the current model's SDK (and what drawing a reply needs) in a thread now, not
        on the first request; a turn started before it is done waits for it (``_run_turn``)."""
        if self.agent is None:
            return
        try:
            modules = warmup.sdk_modules(self.agent.provider_name, self.config)
        except Exception:  # only an optimisation
            modules = ()
        self._warmup = self.run_worker(
            partial(warmup.warm, warmup.UI_MODULES + modules),
            thread=True,
            group="warmup",
            exit_on_error=False,
        )

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

    async def _no_model(self, reason: str) -> None:
        from .screens.model_picker import ModelPickerScreen
        from .screens.no_model import NoModelScreen

        self.status.show(None, note="looking for local model servers…")
        local = await self._find_local()
        if local:
            self.conv.add_notice(f"{reason}. Found models on this machine: pick one.", "warning")
            self.status.show(None, note="no model: pick one")
            self.push_screen(
                ModelPickerScreen(
                    self._entries(), title="Pick a model", looked=commands.looked_text(local)
                ),
                callback=self._picked_model,
            )
            return
        self.status.show(None, note="no model")
        self.push_screen(NoModelScreen(reason, self.config), callback=self._no_model_answer)

    def _no_model_answer(self, answer: str | None) -> None:
        if answer == "retry":
            self.run_worker(self._start_agent(self.start_model), group="agent", exclusive=True)
        else:
            self.exit(0)

    # -- the agent's side ---------------------------------------------------------------------
    async def approve(self, request: PermissionRequest) -> Approval:
        """The agent's Approver: a modal; cancelling the turn while it is up takes it down."""
        from .screens.permission import PermissionScreen

        loop = asyncio.get_running_loop()
        answer: asyncio.Future[Approval] = loop.create_future()
        screen = PermissionScreen(request)

        def done(result: Approval | None) -> None:
            if not answer.done():
                answer.set_result(result or Approval(allow=False))

        self.push_screen(screen, callback=done)
        try:
            return await answer
        finally:
            if screen in self.screen_stack and self.screen is screen:
                self.pop_screen()

    def _refresh_status(self) -> None:
        self.status.show(self.agent, busy=self.busy)
        if self.agent is not None:
            self.session_id = self.agent.session_id

    # -- input --------------------------------------------------------------------------------
    async def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        text = message.text
        self._save_history(text)
        if text.startswith("!"):
            self.run_shell(text[1:].strip())
            return
        parsed = commands.parse(text)
        if parsed is not None:
            await self.run_command(*parsed)
            return
        if self.agent is None:
            self.say("no model yet: pick one with /model", "warning")
            return
        if self.busy:
            self.prompt.load_text(text)
            self.say("a turn is running: wait for it, or press Esc to interrupt", "warning")
            return
        attached = build_prompt(text, self.cwd)
        for problem in attached.problems:
            self.conv.add_notice(problem, "warning")
        self.conv.add_user(text, attached.files)
        self.start_turn(attached.prompt())

    def start_turn(self, prompt: Any, *, compact: bool = False) -> None:
        self.busy = True
        self._refresh_status()
        self._turn = self.run_worker(
            self._run_turn(prompt, compact=compact),
            group="turn",
            exclusive=True,
            exit_on_error=False,
        )

    async def _run_turn(self, prompt: Any, *, compact: bool = False) -> None:
        agent = self.agent
        assert agent is not None
        try:
            await self._warmed_up()
            stream = agent.compact() if compact else agent.run_turn(prompt)
            async for ev in stream:
                self.conv.handle(ev)
                if ev.type in _STATUS_EVENTS:
                    self._refresh_status()
        except asyncio.CancelledError:
            self.conv.interrupted()
            raise
        except LarikError as e:
            self.conv.add_notice(str(e), "error")
        except Exception as e:  # one line, never a traceback
            self.conv.add_notice(f"internal error: {type(e).__name__}: {e}", "error")
        finally:
            self.busy = False
            self._refresh_status()
            self._schedule_idle_collect()

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

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key):
            self._last_key = time.monotonic()
        await super().on_event(event)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker is self._turn and event.state in (WorkerState.CANCELLED, WorkerState.ERROR):
            self.busy = False
            self._refresh_status()

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

    async def action_ctrl_c(self) -> None:
        selected = self.screen.get_selected_text()
        if selected:  # text selected with the mouse: Ctrl+C copies it
            self.copy_to_clipboard(selected)
            self.screen.clear_selection()
            self.notify("copied")
            return
        now = time.monotonic()
        if now - self._last_ctrl_c < QUIT_WINDOW:
            await self.quit_app()
            return
        self._last_ctrl_c = now
        if self.busy:
            self.action_interrupt()
        self.prompt.clear()
        self.notify("Press Ctrl+C again to quit", timeout=QUIT_WINDOW)

    async def quit_app(self) -> None:
        for worker in (self._turn, self._shell):
            if worker is not None and worker.is_running:
                worker.cancel()
                try:
                    await worker.wait()
                except Exception:  # cancelled or failed: we are leaving
                    pass
        if self.agent is not None:
            try:
                await self.agent.close()
            except Exception:  # closing is best effort on the way out
                pass
        self.exit(0)

    # -- !command -----------------------------------------------------------------------------
    def run_shell(self, command: str) -> None:
        if not command:
            self.say("usage: !COMMAND (runs it here and shows the output)")
            return
        self._shell = self.run_worker(
            self._shell_command(command), group="shell", exit_on_error=False
        )

    async def _shell_command(self, command: str) -> None:
        card = self.conv.add_tool("!", {"command": command}, command)
        started = time.monotonic()
        try:
            proc = await asyncio.create_subprocess_shell(
                command,
                cwd=self.cwd,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as e:  # no shell, or the project directory is gone: say so on the card
            card.finish(f"cannot run it: {e.strerror or e}", is_error=True, duration=0.0)
            card.action_toggle()
            return
        try:
            out, _ = await asyncio.wait_for(proc.communicate(), timeout=SHELL_TIMEOUT)
        except TimeoutError:
            _kill_group(proc)
            card.finish(
                f"timed out after {SHELL_TIMEOUT:.0f}s", is_error=True, duration=SHELL_TIMEOUT
            )
            return
        except asyncio.CancelledError:
            _kill_group(proc)
            card.mark_interrupted()
            raise
        code = proc.returncode if proc.returncode is not None else -1
        text = out.decode("utf-8", errors="replace").rstrip()
        card.finish(
            text or "(no output)",
            is_error=code != 0,
            duration=time.monotonic() - started,
            data={"exit_code": code},
        )
        card.action_toggle()

    # -- slash commands -----------------------------------------------------------------------
    def say(self, text: str, level: str = "info", *, as_markdown: bool = False) -> None:
        """The outcome of something the user typed (a command, a `!command`), as a notice at
        the end of the conversation, scrolled into view. A reply streaming meanwhile is not
        split by it: it goes on growing above the notice."""
        self.conv.mount(Notice(text, level, as_markdown=as_markdown))
        self.conv.anchor()

    def _need_agent(self) -> AgentLike | None:
        if self.agent is None:
            self.say("no model yet: pick one with /model", "warning")
        return self.agent

    def _idle(self, what: str) -> bool:
        if self.busy:
            self.say(f"{what}: wait for the turn to end, or press Esc", "warning")
            return False
        return True

    def current_spec(self) -> str:
        return agent_spec(self.agent) if self.agent is not None else ""

    def _entries(self) -> list[ModelEntry]:
        try:
            return picker_entries(self.config, self.local_models or [])
        except Exception as e:  # a broken catalog must not break the picker
            self.conv.add_notice(f"model list incomplete: {e}", "warning")
            return [
                ModelEntry(m.spec, source="local", note=m.server) for m in self.local_models or []
            ]

    async def _find_local(self) -> list[LocalModel]:
        try:
            self.local_models = await self.discover_local(self.config)
        except Exception:  # discovery is best effort
            self.local_models = []
        return self.local_models

    # -- prompt history -----------------------------------------------------------------------
    def _load_history(self) -> list[str]:
        if self.history_path is None:
            return []
        try:
            lines = self.history_path.read_text(encoding="utf-8").splitlines()
        except OSError:
            return []
        if len(lines) > 2 * HISTORY_KEEP:  # keep the file from growing without end
            try:
                self.history_path.write_text(
                    "\n".join(lines[-HISTORY_KEEP:]) + "\n", encoding="utf-8"
                )
            except OSError:
                pass
        out = []
        for line in lines[-HISTORY_KEEP:]:
            try:
                item = json.loads(line)
            except ValueError:
                continue
            if isinstance(item, str):
                out.append(item)
        return out

    def _save_history(self, text: str) -> None:
        if self.history_path is None:
            return
        try:
            self.history_path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.history_path, "a", encoding="utf-8") as f:
                f.write(json.dumps(text, ensure_ascii=False) + "\n")
        except OSError:
            pass


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
