"""``/theme``, ``/keys`` and ``/vim``: the user's own settings of the TUI (``[tui]``, and
``keybindings.toml`` beside it).

:class:`Prefs` is the app's side (``ui.prefs``): the theme, the key bindings, vim mode; the
handlers below get the session and the :class:`~larik.tui.ui.UI`, as every handler does. A
choice made here is saved in the user's config (``[tui]``), so the next start has it too.
Imported when a handler first runs or the config asks for a non-default ``[tui]``.
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, Any

from ..llm.errors import LarikError
from . import looks, themes
from .bindings import bound_keys

if TYPE_CHECKING:
    from textual.app import App

    from ..session import Session
    from .keys import KeyMap
    from .ui import UI

__all__ = ["Prefs", "keys", "save", "theme", "vim"]


class Prefs:
    """The TUI's settings the user changes while it runs."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self.theme_name = themes.DARK  # as asked for: "auto" stays "auto"
        self.keymap: KeyMap | None = None  # keybindings.toml's, once read (None: the defaults)

    # -- keys ---------------------------------------------------------------------------------
    def use_keys(self, keymap: KeyMap) -> list[str]:
        """Apply ``keymap``: its actions through Textual's keymap, its commands as bindings of
        the app (before any widget sees the key). Returns what could not be applied."""
        self.keymap = keymap
        self.app.set_keymap(keymap.keymap())
        prompt = self.app.chat.prompt  # type: ignore[attr-defined]  # LarikApp's
        prompt.bound_keys = bound_keys("prompt", keymap.keys)
        for key, command in keymap.commands.items():
            # App.bind takes no priority: the app's own map does (a BindingsMap's public bind)
            self.app._bindings.bind(key, f"slash_command({command!r})", show=False, priority=True)
        self.app.refresh_bindings()
        return keymap.problems

    # -- theme --------------------------------------------------------------------------------
    def theme_names(self) -> list[str]:
        return looks.theme_names(self.app)

    def try_theme(self, name: str) -> str:
        """Show ``name`` now (the picker's live preview); "" or the problem."""
        return looks.apply_theme(self.app, name)

    def toggle_vim(self) -> bool:
        """Vim mode on if it was off, else off; whether it is on now."""
        prompt = self.app.chat.prompt  # type: ignore[attr-defined]  # LarikApp's
        prompt.set_vim(prompt.vim is None)
        return prompt.vim is not None

    def set_theme(self, name: str) -> str:
        problem = self.try_theme(name)
        if not problem:
            self.theme_name = name
        return problem


async def save(updates: dict[str, Any]) -> str:
    """Save ``updates`` in the user's config; where, or why not (one line)."""
    from ..config import save_user_config

    try:
        path = await asyncio.to_thread(save_user_config, updates)
    except (LarikError, OSError) as e:
        return f"not saved: {e}"
    return f"saved in {path}"


# -- the handlers -----------------------------------------------------------------------------
async def theme(session: Session, ui: UI, arg: str) -> None:
    """``/theme``: a picker that shows each theme as you move to it; ``/theme NAME`` at once."""
    prefs = ui.prefs
    if arg:
        await _use_theme(ui, arg.strip())
        return
    from .messages import OpenScreen
    from .screens.theme_picker import ThemeScreen

    was = prefs.theme_name

    def picked(name: str | None) -> None:
        if name is None:
            prefs.try_theme(was)  # Esc: back to what it was
            ui.say(f"theme: {was} (unchanged)")
        else:
            ui.run(_use_theme(ui, name), "prefs")

    ui.post(OpenScreen(ThemeScreen(prefs, prefs.theme_names(), was), picked))


async def _use_theme(ui: UI, name: str) -> None:
    prefs = ui.prefs
    problem = prefs.set_theme(name)
    if problem:
        ui.say(f"/theme: {problem}; the themes: {', '.join(prefs.theme_names())}", "error")
        return
    shown = f"{name} ({prefs.app.theme})" if name != prefs.app.theme else name
    where = await save({"tui": {"theme": name}})
    note = " · NO_COLOR is set: shades of grey only" if "NO_COLOR" in os.environ else ""
    ui.say(f"theme: {shown} ({where}){note}")


async def vim(session: Session, ui: UI, arg: str) -> None:
    """``/vim``: vim-style editing of the prompt, on or off; saved as ``[tui] vim``."""
    on = ui.prefs.toggle_vim()
    where = await save({"tui": {"vim": on}})
    if on:
        ui.say(
            "vim mode on: Esc for normal mode (h j k l w b e 0 $ x dd dw cw u; i a o A I to "
            f"type again), Enter sends from either ({where})"
        )
    else:
        ui.say(f"vim mode off ({where})")


async def keys(session: Session, ui: UI, arg: str) -> None:
    """``/keys``: each action's keys (yours marked), the command keys, the file to change."""
    from ..config import user_config_path
    from . import keys as keyfile
    from .bindings import KEYS_FILE

    keymap = ui.prefs.keymap or keyfile.defaults()
    ui.say(keyfile.markdown(keymap, user_config_path().with_name(KEYS_FILE)), as_markdown=True)
