"""Every action the TUI has a key for, in one table: :data:`ACTIONS`.

Each row is a Textual ``Binding`` with an id (``larik.NAME``), made here for the widget that
owns it (:func:`for_scope`: the app, the chat screen, the prompt, a conversation item), so a
user's ``keybindings.toml`` rebinds it through Textual's own keymap (``App.set_keymap``:
``larik/tui/keys.py``, loaded only when that file exists or ``/keys`` is typed). ``/keys`` and
the conflict check walk this table; a test holds every row to a binding that exists.

A scope is where the binding is active: ``app`` and ``screen`` everywhere in the chat, with
either ``prompt`` (the prompt has focus), ``card`` (a tool card, thinking block or prompt of
the conversation has focus) or ``find`` (the search bar has focus) — a key may mean one thing
in the prompt and another on a card.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding, BindingType

__all__ = ["ACTIONS", "KEYS_FILE", "PREFIX", "Action", "bound_keys", "for_scope"]

PREFIX = "larik."
KEYS_FILE = "keybindings.toml"  # beside the user's config.toml


@dataclass(frozen=True, slots=True)
class Action:
    keys: str  # the default keys, comma-separated (Textual's form)
    scope: str  # app | screen | prompt | card
    action: str  # the Textual action the binding runs
    what: str  # the one line /keys shows
    # checked before the focused widget sees the key; never the prompt's: a binding checked
    # before the key reaches the prompt would run ahead of the keys typed just before it
    priority: bool = True


ACTIONS: dict[str, Action] = {
    "send": Action(
        "enter", "prompt", "send", "send the prompt (or take the highlighted completion)"
    ),
    "newline": Action("shift+enter,ctrl+j", "prompt", "newline", "start a new line"),
    "clear_before": Action(
        "ctrl+u", "prompt", "clear_before", "clear the prompt before the cursor"
    ),
    "history_previous": Action(
        "up", "prompt", "history(-1)", "an earlier prompt (on the first line)"
    ),
    "history_next": Action("down", "prompt", "history(1)", "a later prompt (on the last line)"),
    "paste_image": Action(
        "ctrl+v", "prompt", "paste_image", "attach the clipboard's image (else paste)"
    ),
    "to_cards": Action("tab", "prompt", "to_cards", "go to the newest tool card or thinking"),
    "open_card": Action(
        "enter,space", "card", "toggle", "open or fold the tool card, thinking or prompt", False
    ),
    "interrupt": Action("escape", "screen", "interrupt", "interrupt the running turn", False),
    "mode_cycle": Action("shift+tab", "screen", "cycle_mode", "next permission mode"),
    "scroll_up": Action(
        "pageup,shift+pageup,ctrl+pageup",
        "screen",
        "scroll_conversation('page_up')",
        "scroll the conversation up",
    ),
    "scroll_down": Action(
        "pagedown,shift+pagedown,ctrl+pagedown",
        "screen",
        "scroll_conversation('page_down')",
        "scroll the conversation down",
    ),
    "scroll_top": Action(
        "ctrl+home", "screen", "scroll_conversation('home')", "the start of the conversation"
    ),
    "scroll_bottom": Action(
        "ctrl+end", "screen", "scroll_conversation('end')", "the end of the conversation"
    ),
    "find": Action("ctrl+f", "screen", "find", "search the conversation, tool output too"),
    "find_next": Action(
        "enter,f3,ctrl+g,up", "find", "find_step(True)", "the next hit up the conversation", False
    ),
    "find_previous": Action(
        "shift+enter,shift+f3,down", "find", "find_step(False)", "the hit below", False
    ),
    "quit": Action("ctrl+c", "app", "ctrl_c", "copy the selection; else interrupt, twice: quit"),
}


def for_scope(scope: str) -> list[BindingType]:
    """The bindings of ``scope``'s widget, each with its id (what a keymap rebinds)."""
    return [
        Binding(
            a.keys,
            a.action,
            name,
            show=False,
            priority=a.priority and a.scope != "prompt",
            id=PREFIX + name,
        )
        for name, a in ACTIONS.items()
        if a.scope == scope
    ]


def bound_keys(scope: str, keys: dict[str, tuple[str, ...]] | None = None) -> dict[str, str]:
    """Key -> the action it runs, for ``scope``'s bindings: the defaults, or ``keys`` (action
    -> its keys, as keybindings.toml leaves them)."""
    return {
        k.strip(): a.action
        for name, a in ACTIONS.items()
        if a.scope == scope
        for k in (keys[name] if keys and name in keys else a.keys.split(","))
    }
