"""Choosing the model in the TUI: the picker (``/model``, the no-model screen, ``/routing``'s
list), the local servers' models found behind it, switching (for this session), and the model
remembered as the default (``larik.routing.remembered``: every face starts on it, by the one rule
of ``routing.targets.default_model``): the first one picked when there was none, or the
session's after ``/model default``.

:class:`ModelChoice` holds what was found (``local``); its methods take the session and the
:class:`~larik.tui.ui.UI`, never the screen. Switching goes on with the same conversation
(``Session.switch_model``); before any agent exists it starts one on the model picked.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..llm.errors import LarikError
from ..routing import remembered
from .messages import OpenScreen
from .models import ModelEntry, looked_text, picker_entries
from .ui import open_agent

if TYPE_CHECKING:
    from ..routing.local import LocalModel
    from ..routing.targets import Default
    from ..session import Session
    from .screens.model_picker import ModelPickerScreen
    from .ui import UI

__all__ = ["Discover", "ModelChoice"]

Discover = Callable[[Any], Awaitable["list[LocalModel]"]]  # (config) -> models found


class ModelChoice:
    def __init__(self, discover: Discover) -> None:
        self.discover = discover
        self.local: list[LocalModel] | None = None  # None: not looked for yet

    @property
    def model_file(self) -> Path:
        """Where the model remembered as the default is kept (beside the prompt history)."""
        return remembered.path()

    def entries(self, config: Any, warn: Callable[[str], None] | None = None) -> list[ModelEntry]:
        """What the pickers list: the catalog's and the config's models, and local ones."""
        try:
            return picker_entries(config, self.local or [])
        except Exception as e:  # a broken catalog must not break the picker
            if warn is not None:
                warn(f"model list incomplete: {e}")
            return [ModelEntry(m.spec, source="local", note=m.server) for m in self.local or []]

    async def find_local(self, config: Any) -> list[LocalModel]:
        try:
            self.local = await self.discover(config)
        except Exception:  # discovery is best effort
            self.local = []
        return self.local

    def open_picker(self, session: Session, ui: UI, **kw: Any) -> None:
        """The model picker, listing local servers' models as they are found."""
        from .screens.model_picker import ModelPickerScreen

        picker = ModelPickerScreen(self.entries(ui.config), current=session.spec, **kw)
        ui.post(OpenScreen(picker, lambda spec: self.picked(session, ui, spec)))
        if kw.get("looked") is None:  # not looked for yet: list them as they are found
            ui.run(self._discover_into(ui, picker), "discover")

    async def _discover_into(self, ui: UI, picker: ModelPickerScreen) -> None:
        local: list[LocalModel] = []
        try:
            local = await self.find_local(ui.config)
        finally:  # found, failed or cancelled: the picker stops saying it is looking
            entries = [e for e in self.entries(ui.config) if e.source == "local"]
            if picker.is_attached:
                picker.add_local(entries, looked_text(local))

    def picked(self, session: Session, ui: UI, spec: str | None) -> None:
        """The picker's answer: switch to it (in a worker), or nothing."""
        if spec:
            ui.run(self.switch(session, ui, spec), "switch")

    async def switch(self, session: Session, ui: UI, spec: str) -> None:
        """Go on with the conversation on ``spec`` (or start the agent on it, if none yet)."""
        if not session.ready:
            ui.run(self._first(session, ui, spec), "first-model")
            return
        try:
            shown = await session.settings.switch_model(spec)
        except LarikError as e:
            ui.say(f"cannot switch to {spec}: {e}", "error")
            return
        except Exception as e:  # one line, never a traceback
            ui.say(f"cannot switch to {spec}: {type(e).__name__}: {e}", "error")
            return
        ui.say(
            f"model: {shown} (the conversation goes on; for this session only: "
            "/model default makes it the one larik starts on)"
        )

    async def _first(self, session: Session, ui: UI, spec: str) -> None:
        """The first model picked (no agent yet): start on it, and remember it."""
        if await open_agent(ui, spec):
            remembered.write(session.spec)
            ui.say(f"model: {session.spec} (remembered as the default, for every face)")

    def make_default(self, session: Session, ui: UI) -> None:
        """``/model default``: the session's model is where the next ``larik`` starts."""
        if not ui.need_agent():
            return
        remembered.write(session.spec)
        ui.say(
            f"model: {session.spec} is where the next larik starts, and larik -p and larik acp "
            f"(a config's model or -m wins; remembered in {self.model_file})"
        )

    def default(
        self, ui: UI, asked: str, resume: str | None, *, again: bool = False
    ) -> Default | None:
        """The model a new session with none asked for starts on, by the one rule
        (``routing.targets.default_model``); None when one was asked for, a session is resumed
        or nothing is found (opening then says why). What the rule passed over is a warning.
        ``again``: as if nothing were remembered (the remembered model failed to start)."""
        from ..config import Config
        from ..routing.targets import NoModelError, default_model

        if asked or resume:
            return None
        config = ui.config if ui.config is not None else Config()  # (tests give none)
        try:
            chosen: Default | None = default_model(config, remembered=not again)
        except NoModelError as e:
            chosen, passed = None, e.passed_over
        except Exception:  # a config's bad model: opening says what is wrong with it
            return None
        else:
            passed = chosen.passed_over if chosen is not None else ()
        for line in passed:
            ui.say(line, "warning")
        return chosen
