"""The Larik TUI app: start-up, the screens, the config.

The app is small: its default screen is the :class:`~larik.tui.screens.chat.ChatScreen`, a
view of the session (``larik/session/``: the agent, its turns, its MCP servers); the app
starts it and, on quitting, closes it. The app paints that screen first, and only
after the first frame does the start-up (``start_up``, in a worker): it loads the config (given,
or by ``config_loader``, pydantic and the user's and project's files) in a thread, then lets
the chat screen open the session's agent (``agent_factory``: how tests hand it one on the
scripted provider; by default ``Agent.create``, inside the session). So the first paint happens before
pydantic or any vendor SDK is imported; the other screens are imported when pushed.

A question to ask before the agent starts (a modal, e.g. whether to trust the folder) is one
``await self.push_screen_wait(screen)`` in ``start_up``, between loading the config and
``self.chat.start()``: the chat screen is already on screen beneath it, and works (saying "no
model yet") until the agent is there.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events, work
from textual.actions import SkipAction
from textual.app import App
from textual.worker import Worker

from ..llm.errors import ConfigError
from ..session import AgentFactory, SessionOptions
from . import gcpolicy, render, themes
from .bindings import KEYS_FILE, for_scope
from .messages import Quit
from .screens.chat import ChatScreen, Discover
from .signals import QuitOnSignals
from .widgets.prompt_input import PromptInput

if TYPE_CHECKING:  # no pydantic before the first frame
    from textual.driver import Driver

    from ..config import Config
    from .prefs import Prefs

__all__ = ["ConfigLoader", "LarikApp"]

QUIT_WINDOW = 2.0
# () -> (config, prompt history file or None); may raise ConfigError
ConfigLoader = Callable[[], "tuple[Config, Path | None]"]


class LarikApp(App[int]):
    CSS_PATH = Path(__file__).with_name("app.tcss")  # absolute: subclasses (tests) find it
    TITLE = "larik"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = for_scope("app")  # Ctrl+C (larik/tui/bindings.py)

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
        config_loader: ConfigLoader | None = None,
        prompt: str = "",
        wide_root: str = "",
        options: SessionOptions | None = None,
    ) -> None:
        super().__init__()
        for theme in themes.BUILTIN:  # larik-dark is the default: no CSS pass to switch to it
            self.register_theme(theme)
        self.set_reactive(App.theme, themes.DARK)
        render.PALETTE[0] = render.Palette()  # larik-dark's (what Rich draws diffs and code in)
        self.config_loader = config_loader
        self.start_prompt = prompt  # ``larik "PROMPT"``: sent once the agent is there
        self.wide_root = wide_root  # why cwd is no project (larik.trust.wide_root_line) or ""
        self._reload_config: ConfigLoader | None = None
        self.startup_error = ""  # why the app ended before it could start (printed by run_tui)
        self.first_paint_done = False
        self.typed_at_start = b""  # keys read while run_tui asked the terminal (background.py)
        # keys that come before the first frame (typed while Larik started), kept for the prompt:
        # before then nothing has the focus to take them, and Textual would drop them
        self._early_keys: list[events.Key] | None = []
        self._last_ctrl_c = 0.0
        self._leaving: Worker[None] | None = None
        self._prefs: Prefs | None = None
        self.chat = ChatScreen(
            agent_factory,
            cwd=cwd,
            config=config,
            model=model,
            resume=resume,
            discover_local=discover_local,
            history_path=history_path,
            options=options,
        )

    def get_driver_class(self) -> type[Driver]:
        """Textual's choice, with :class:`~larik.tui.driver.QuietDriver` for its Linux/macOS
        driver (no input-thread wake-ups while idle). ``TEXTUAL_DRIVER`` still wins."""
        chosen = super().get_driver_class()
        from textual.drivers.linux_driver import LinuxDriver

        if chosen is LinuxDriver:
            from .driver import QuietDriver

            return QuietDriver
        return chosen

    @property
    def config(self) -> Config | None:
        """The config in use (None until it is loaded)."""
        return self.chat.config

    @property
    def session_id(self) -> str:
        """The session to print a resume hint for ("" when none was opened)."""
        return self.chat.session_id

    def get_default_screen(self) -> ChatScreen:
        return self.chat

    # -- start-up -----------------------------------------------------------------------------
    def on_mount(self) -> None:
        self.quit_signals = QuitOnSignals().install(self)  # SIGTERM/SIGHUP: quit as /exit does
        self.call_after_refresh(self._after_first_frame)

    def get_css_variables(self) -> dict[str, str]:
        """Textual's variables of the theme, and Larik's ($larik-*) from its colours where it
        does not set them (a Textual theme colours diffs, cards and the status line too)."""
        return themes.with_defaults(super().get_css_variables(), self.current_theme.dark)

    def _after_first_frame(self) -> None:
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        self.first_paint_done = True
        self._take_early_keys()
        gcpolicy.collect_idle()
        self.run_worker(self.start_up(), group="agent", exclusive=True)

    def _take_early_keys(self) -> None:
        """The keys typed before the first frame, in the order typed: those read while
        run_tui asked the terminal, then those Textual read (the prompt has the focus now)."""
        early, self._early_keys = self._early_keys or [], None
        if self.typed_at_start:
            from .background import key_events

            early[:0] = key_events(self.typed_at_start)
        for event in early:
            self.post_message(event)

    async def start_up(self) -> None:
        """After the first frame, in a worker: the config, then the agent. A modal question
        for the user before the agent exists goes between the two
        (``await self.push_screen_wait(screen)``)."""
        if not await self.confirm_wide_root() or not await self.load_config():
            return
        await self.ask_trust()
        chat = self.chat  # its session's turns' ends and jobs notify you (notify.py)
        chat.notifier.follow(chat.session, f"Larik · {chat.cwd.name}")
        await chat.start()
        self.send_start_prompt()

    def send_start_prompt(self) -> None:
        """``larik "PROMPT"``: the prompt, as if typed and sent; with no model to send it to, it
        waits in the prompt box (nothing lost)."""
        text, self.start_prompt = self.start_prompt, ""
        if not text:
            return
        if not self.chat.session.ready:
            self.chat.prompt.text = text
            self.chat.prompt.move_cursor(self.chat.prompt.document.end)
            return
        self.chat.prompt.send(text)

    async def confirm_wide_root(self) -> bool:
        """In ``/`` or the home folder (far wider than a project): ask before anything else;
        no ends the app (exit code 0) with the reason on stderr."""
        if not self.wide_root:
            return True
        from .screens.wide_root import WideRootScreen

        if await self.push_screen_wait(WideRootScreen(self.wide_root)):
            self.chat.say(
                f"working in {self.wide_root.split(' is ', 1)[0]} as you asked", "warning"
            )
            return True
        self.startup_error = f"larik: not started: {self.wide_root}"
        self.exit(0)
        return False

    async def ask_trust(self) -> None:
        """ "Trust this folder?" when the project's config asks for what needs trust and the
        user has not answered for exactly these settings; the answer is remembered and, if yes,
        the config is loaded again with them applied. A remembered "no" is one notice."""
        pt = getattr(self.config, "project_trust", None)
        if pt is not None and pt.notice:
            self.chat.say(pt.notice, "warning")
        if pt is None or pt.trusted:
            return
        if pt.declined or self._reload_config is None:
            self.chat.say(
                f"not applied from {pt.config_file} (you did not trust this folder; "
                "`larik trust yes` trusts it): " + "; ".join(pt.asks),
                "warning",
            )
            return
        from .. import trust
        from ..config import state_dir
        from .screens.trust import TrustScreen

        answer = bool(await self.push_screen_wait(TrustScreen(pt)))  # type: ignore[arg-type]
        try:
            await asyncio.to_thread(
                trust.remember, state_dir(), pt.root, pt.digest, answer, pt.gated
            )
        except OSError as e:  # the answer still holds for this session
            self.chat.say(f"could not remember the answer: {e.strerror or e}", "warning")
        if not answer:
            self.chat.say(f"not applied from {pt.config_file}: " + "; ".join(pt.asks), "warning")
            return
        try:
            config, _history = await asyncio.to_thread(self._reload_config)
        except ConfigError as e:  # the file changed under us: as at start-up
            self.startup_error = f"larik: {e}"
            self.exit(2, return_code=2)
            return
        self.chat.use_config(config)  # the prompt history is loaded already
        self.chat.say(f"trusted {pt.root}: applied " + "; ".join(pt.asks))

    async def load_config(self) -> bool:
        """Load the config (pydantic, the user's and the project's files) in a thread. A
        broken config ends the app with exit code 2, its one-line reason kept in
        ``startup_error`` (``run_tui`` prints it once the terminal is restored)."""
        loader, self.config_loader = self.config_loader, None
        if loader is None:
            if self.config is not None:  # given (tests, a caller that loaded it)
                self.use_tui(self.config)
                await self.load_keys()
            return True
        self._reload_config = loader
        try:
            config, history = await asyncio.to_thread(loader)
        except ConfigError as e:
            self.startup_error = f"larik: {e}"
            self.exit(2, return_code=2)
            return False
        self.chat.use_config(config, history)
        self.use_tui(config)
        await self.load_keys()
        return True

    async def load_keys(self) -> None:
        """Your ``keybindings.toml`` (beside your config), when there is one: its keys applied,
        what could not be, one line each (``larik/tui/keys.py``)."""
        from ..config import user_config_path

        path = user_config_path().with_name(KEYS_FILE)
        if not await asyncio.to_thread(path.is_file):
            return
        from . import keys

        keymap = await asyncio.to_thread(keys.load, path)
        for problem in self.prefs.use_keys(keymap):
            self.chat.say(problem, "warning")

    async def action_slash_command(self, text: str) -> None:
        """A key of ``keybindings.toml``'s ``[commands]``: the command, as if typed (on the
        chat screen only: over a dialog the key does nothing)."""
        from . import slash

        parsed = slash.parse(text)
        if self.screen is not self.chat or parsed is None:
            raise SkipAction
        await slash.run(self.chat.session, self.chat.ui, *parsed)

    @property
    def prefs(self) -> Prefs:
        """The theme, keys and vim mode the user changes while Larik runs (made on first use)."""
        if self._prefs is None:
            from .prefs import Prefs

            self._prefs = Prefs(self)
        return self._prefs

    def use_tui(self, config: Config) -> None:
        """``[tui]``: vim mode, the theme. A default table costs nothing (the default theme is
        on, vim mode off)."""
        tui = getattr(config, "tui", None)
        if tui is not None and tui.vim:
            self.chat.prompt.set_vim(True)
        if tui is not None and (tui.theme != themes.DARK or tui.themes):
            from . import looks

            problems = looks.register_custom(self, tui.themes)
            if problem := self.prefs.set_theme(tui.theme):
                problems.append(f"tui.theme: {problem}; using {self.theme}")
            for problem in problems:
                self.chat.say(f"config: {problem}", "warning")
        if tui is not None and tui.status_line.strip():  # yours only: a project's [tui] is refused
            from .status_line import StatusCommand

            status = self.chat.status
            status.command = StatusCommand(
                tui.status_line, self.chat.cwd, status.set_custom, self.chat.say, self.set_timer,
                lambda work: self.run_worker(work, group="status-line", exit_on_error=False),
            )  # fmt: skip
            status.custom_mode = tui.status_line_mode

    def on_prompt_input_vim_mode(self, message: PromptInput.VimMode) -> None:
        self.chat.status.set_vim(message.mode)

    def _theme_changed(self, theme: object) -> None:
        from . import looks

        looks.theme_changed(self, self.chat)

    # -- keys that hold on every screen -------------------------------------------------------
    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and self._early_keys is not None:
            if not event.is_forwarded:
                self._early_keys.append(event)  # for the prompt, after the first frame
            return
        if isinstance(event, events.Key):
            self.chat.gc.key()  # typing puts off the idle collection
            self.chat.notifier.activity()  # you are here: nothing waits to tell you
        elif isinstance(event, events.AppBlur):
            self.chat.notifier.blurred()  # you left: what waited to tell you goes now
        await super().on_event(event)

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
        self.chat.turns.cancel_input()
        self.notify("Press Ctrl+C again to quit", timeout=QUIT_WINDOW)

    async def on_quit(self, message: Quit) -> None:
        """``/exit``, or nothing to start (the no-model screen's ``q``): leave."""
        if message.now:
            self.exit(0)
        else:
            await self.quit_app(message.reason)

    async def quit_app(self, reason: str = "prompt_input_exit", *, wait: bool = False) -> None:
        """Stop the running turn or command, close the session (its agent: SessionEnd's hooks
        get ``reason``, ``other`` when a signal ended the app), exit. The closing runs on as
        a worker while this returns, so the screen stays live while SessionEnd's hooks run:
        asked again meanwhile (Ctrl+C twice, a second signal), the app leaves at once, and
        leaving cancels the worker, which kills the hooks still running with their process
        groups. ``wait``: return when it is over (a stop signal, whose grace starts then)."""
        if self._leaving is not None:
            self._leaving.cancel()  # kills the hooks still running, SIGKILLs the jobs
            self.exit(0)
            return
        self._leaving = self._leave(reason)
        if wait:
            try:
                await self._leaving.wait()
            except Exception:  # cancelled (asked twice) or failed: it is over either way
                pass

    @work(group="leave", exit_on_error=False)
    async def _leave(self, reason: str) -> None:
        for worker in self.chat.turns.running():
            worker.cancel()
            try:
                await worker.wait()
            except Exception:  # cancelled or failed: we are leaving
                pass
        try:
            await self.chat.session.close_agent(reason)
        except Exception:  # closing is best effort on the way out
            pass
        self.call_next(self._stop_servers)  # on the loop they were started on

    async def _stop_servers(self) -> None:
        await self.chat.session.servers.close()  # every MCP server stopped: nothing left
        self.exit(0)
