"""``keybindings.toml``: your keys for the TUI's actions (:data:`larik.tui.bindings.ACTIONS`)
and for slash commands, beside your config; ``/keys`` lists what is bound.

::

    send = "ctrl+s"                     # an action: a key, or a list of keys
    newline = ["enter", "shift+enter"]

    [commands]                          # a key that runs a slash command
    "f2" = "/theme"
    "ctrl+o" = "/model openai/gpt-5"

The file is yours alone: it lives beside your user config, and a project has no way to set keys
(no project file is read for them). Its actions are applied through Textual's keymap
(``App.set_keymap``: each action's binding has an id), its commands as bindings of the app.
What cannot be applied is said in one line each: an unknown action (with "did you mean"), a key
Textual does not know, a letter that would stop you typing it, and conflicts — two things on
one key where both are active (the prompt's, the screen's and the app's keys together; a tool
card's with the screen's and the app's) — those are listed in a single line and not applied:
the defaults stay for them. Loaded after the first frame, only when the file exists.
"""

from __future__ import annotations

import difflib
import string
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .bindings import ACTIONS, PREFIX

__all__ = ["KeyMap", "load", "markdown"]

MODIFIERS = ("ctrl", "shift", "alt", "meta", "super", "hyper")
NAMED = {
    "enter", "escape", "tab", "space", "backspace", "delete", "insert", "home", "end",
    "pageup", "pagedown", "up", "down", "left", "right",
    *(f"f{n}" for n in range(1, 25)),
}  # fmt: skip


@dataclass
class KeyMap:
    """The keys in effect: each action's, where each came from, the command keys, and what
    of the file could not be applied (one line each)."""

    path: Path | None = None
    keys: dict[str, tuple[str, ...]] = field(default_factory=dict)
    mine: set[str] = field(default_factory=set)  # actions the file rebound
    commands: dict[str, str] = field(default_factory=dict)  # key -> "/command args"
    problems: list[str] = field(default_factory=list)

    def keymap(self) -> dict[str, str]:
        """What ``App.set_keymap`` takes: binding id -> keys."""
        return {PREFIX + name: ",".join(self.keys[name]) for name in sorted(self.mine)}


def defaults() -> KeyMap:
    return KeyMap(keys={n: _split(a.keys) for n, a in ACTIONS.items()})


def _split(keys: str) -> tuple[str, ...]:
    return tuple(k.strip() for k in keys.split(",") if k.strip())


def load(path: Path) -> KeyMap:
    """The keys ``path`` asks for on top of the defaults (the file must exist)."""
    km = defaults()
    km.path = path
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        km.problems.append(f"{path}: cannot be read: {getattr(e, 'strerror', None) or e}")
        return km
    except tomllib.TOMLDecodeError as e:
        km.problems.append(f"{path}: {e}")
        return km
    commands = data.pop("commands", {})
    for name, value in data.items():
        keys = _keys_of(km, path, name, value)
        if keys is not None:
            km.keys[name] = keys
            km.mine.add(name)
    if not isinstance(commands, dict):
        km.problems.append(f'{path}: commands: should be a table of key = "/command"')
        commands = {}
    for key, command in commands.items():
        _command(km, path, key, command)
    _drop_conflicts(km, path)
    return km


def _keys_of(km: KeyMap, path: Path, name: str, value: Any) -> tuple[str, ...] | None:
    if name not in ACTIONS:
        near = difflib.get_close_matches(name, [*ACTIONS, "commands"], n=1, cutoff=0.6)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        km.problems.append(f"{path}: {name}: unknown action{hint}; /keys lists them")
        return None
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
        km.problems.append(f"{path}: {name}: should be a key or a list of keys")
        return None
    keys = []
    for raw in values:
        key, problem = check_key(raw, typing=ACTIONS[name].scope != "card")
        if problem:
            km.problems.append(f"{path}: {name}: {problem}")
            return None
        keys.append(key)
    return tuple(dict.fromkeys(keys))


def check_key(raw: str, *, typing: bool = True) -> tuple[str, str]:
    """``raw`` in Textual's form (``"$"`` is ``dollar_sign``), or the problem with it.
    ``typing``: the key is active while the prompt has focus, so a bare letter would stop
    you typing it."""
    from textual.keys import _character_to_key

    key = raw.strip().lower() if len(raw.strip()) > 1 else raw.strip()
    *mods, base = key.split("+") if len(key) > 1 else [key]
    if len(base) == 1:
        base = _character_to_key(base)
    known = base in NAMED or base in _printable_names()
    if not base or not known or any(m not in MODIFIERS for m in mods):
        return key, f"{raw!r} is not a key (keys are named as Textual names them: ctrl+s, f2, …)"
    if typing and not mods and base in _printable_names():
        return key, f"{raw!r} is a key you type: bound, you could not type it in the prompt"
    return "+".join([*mods, base]), ""


def _printable_names() -> set[str]:
    from textual.keys import _character_to_key

    return {_character_to_key(c) for c in string.printable if c.isprintable()}


def _command(km: KeyMap, path: Path, raw: str, command: Any) -> None:
    from ..session.commands import parse

    if not isinstance(command, str) or parse(command) is None:
        km.problems.append(f'{path}: commands.{raw}: should be a slash command ("/theme")')
        return
    key, problem = check_key(raw)
    if problem:
        km.problems.append(f"{path}: commands.{raw}: {problem}")
        return
    km.commands[key] = command.strip()


def _overlap(a: str, b: str) -> bool:
    """Whether bindings of scopes ``a`` and ``b`` are active at the same time."""
    return a == b or "app" in (a, b) or "screen" in (a, b)


def _clashes(km: KeyMap) -> list[tuple[str, str, str]]:
    """(key, one, other) for each key two active things share; a command is app-wide."""
    owners: list[tuple[str, str, str]] = [  # (key, what, scope)
        (k, name, ACTIONS[name].scope) for name, keys in km.keys.items() for k in keys
    ]
    owners += [(k, cmd, "app") for k, cmd in km.commands.items()]
    out = []
    for i, (key, one, s1) in enumerate(owners):
        for key2, other, s2 in owners[i + 1 :]:
            if key == key2 and _overlap(s1, s2):
                out.append((key, one, other))
    return out


def _drop_conflicts(km: KeyMap, path: Path) -> None:
    """Undo what of the file conflicts (its actions back to their defaults, its commands
    dropped) and say so in one line."""
    said: list[str] = []
    for _ in range(len(ACTIONS) + len(km.commands) + 1):
        clashes = _clashes(km)
        if not clashes:
            break
        for key, one, other in clashes:
            said.append(f"{key}: {one} and {other}")
            for what in (one, other):
                if what in km.mine:
                    km.mine.discard(what)
                    km.keys[what] = _split(ACTIONS[what].keys)
                elif km.commands.get(key) == what:
                    del km.commands[key]
    if said:
        km.problems.append(
            f"{path}: conflicting keys, not applied: {'; '.join(dict.fromkeys(said))}"
        )


def markdown(km: KeyMap, path: Path | None) -> str:
    """``/keys``: each action, its keys, where they come from; the command keys; the file."""
    rows = ["| action | keys | does |", "|---|---|---|"]
    for name, action in ACTIONS.items():
        keys = ", ".join(f"`{k}`" for k in km.keys.get(name, _split(action.keys)))
        mark = " (yours)" if name in km.mine else ""
        rows.append(f"| `{name}` | {keys}{mark} | {action.what} |")
    for key, command in km.commands.items():
        rows.append(f"| `{command}` | `{key}` (yours) | runs the command |")
    where = path or km.path
    tail = (
        f'\n\nChange them in `{where}` (`send = "ctrl+s"`; `[commands]` `"f2" = "/theme"`),'
        " then start again; see docs/tui.md#your-keys."
    )
    return "\n".join(rows) + tail
