"""The terminal's background colour, asked for with OSC 11, for ``[tui] theme = "auto"``.

Textual has no way to ask (its input parser would take the answer for typed keys), so Larik
asks once, before the app takes the terminal (``run_tui``), and only when the user's config
says ``auto``: ``ESC ] 11 ; ? ST`` and, right after it, the primary device attributes
(``ESC [ c``), which every terminal answers — one whose DA answer comes with no colour before it
has no OSC 11, so Larik waits no longer than it takes to answer. A terminal that has said
nothing by :data:`TIMEOUT` is taken for one that never will; over ssh (the answer makes the
link's round trip) it has :data:`LONGEST`, and so has an answer that has begun to come in. An
answer later than that is not Larik's to read: it reaches the app as typed keys (Textual's
reader cannot tell it from them), which is why the bound is not shorter over ssh.
Not asked when stdin or stdout is no terminal, ``TERM`` is ``dumb``, or under tmux or screen
(they answer for themselves or not at all, and passing the question through is not sure),
nor when keys are already waiting to be read (typed while Larik started: they are the app's,
and asking would mix the answer into them). Keys typed while the terminal is asked are kept
in :data:`TYPED` for the app to take first (``LarikApp._take_early_keys``).

The answer is parsed strictly (:func:`parse`): ``rgb:R/G/B`` (or ``rgba:R/G/B/A``), each 1 to
4 hex digits, ended by BEL or ST. Anything else is unknown, and ``auto`` goes by ``COLORFGBG``,
else dark (``larik/tui/looks.py``). The answer is kept in :data:`ANSWER`.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Mapping
from typing import Any

__all__ = [
    "ANSWER",
    "LONGEST",
    "QUERY",
    "TIMEOUT",
    "TYPED",
    "ask",
    "ask_terminal",
    "bound",
    "is_dark",
    "key_events",
    "may_ask",
    "parse",
    "typed_in",
]

QUERY = b"\x1b]11;?\x1b\\\x1b[c"  # the background colour, then the device attributes
TIMEOUT = 0.1  # seconds a terminal has to begin answering (nothing by then: it never will)
LONGEST = 1.0  # seconds, at most: over ssh, or once the answer has begun
#: whether the terminal said its background is dark (None: not asked, or no answer)
ANSWER: list[bool | None] = [None]
#: what was typed while the terminal was asked (not its answers): the app's first keys
TYPED: list[bytes] = [b""]

_HEX = r"([0-9a-fA-F]{1,4})"
_COLOUR = re.compile(
    rb"\x1b\]11;rgba?:" + (_HEX + "/" + _HEX + "/" + _HEX).encode() + rb"(?:/[0-9a-fA-F]{1,4})?"
    rb"(?:\x07|\x1b\\)"
)
_DA1 = re.compile(rb"\x1b\[\?[0-9;]*c")
# an OSC answer and a DA1 one, each whole or cut off at the end
_ANSWERS = re.compile(rb"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\|\x1b?\Z)|\x1b\[\?[0-9;]*(?:c|\Z)")


def parse(reply: bytes) -> tuple[float, float, float] | None:
    """The colour in a terminal's OSC 11 answer, each part from 0 to 1; None when there is no
    well-formed one (``rgb:ffff/ffff/ffff`` and ``rgb:ff/ff/ff`` are both white)."""
    m = _COLOUR.search(reply)
    if m is None:
        return None
    parts = [g.decode() for g in m.groups()]
    r, g, b = (int(p, 16) / (16 ** len(p) - 1) for p in parts)
    return r, g, b


def is_dark(rgb: tuple[float, float, float]) -> bool:
    """Dark: the colour's relative luminance (Rec. 709 weights) is under half."""
    r, g, b = rgb
    return 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.5


def may_ask(env: Mapping[str, str], stdin: Any, stdout: Any) -> bool:
    """Whether asking can work: both ends a terminal, not a dumb one, not tmux or screen."""
    term = env.get("TERM", "")
    if term == "dumb" or term.startswith(("screen", "tmux")) or "TMUX" in env or "STY" in env:
        return False
    try:
        return bool(stdin.isatty() and stdout.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def typed_in(reply: bytes) -> bytes:
    """What of ``reply`` was typed: all but the terminal's answers (whole or cut off)."""
    return _ANSWERS.sub(b"", reply)


def bound(env: Mapping[str, str]) -> float:
    """How long the terminal has to begin answering: longer over ssh."""
    remote = any(k in env for k in ("SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY"))
    return LONGEST if remote else TIMEOUT


def ask(
    fd_in: int, fd_out: int, timeout: float = TIMEOUT
) -> tuple[tuple[float, float, float] | None, bytes]:
    """Ask the terminal on ``fd_in``/``fd_out`` for its background: its colour (or None), and
    what was typed meanwhile. Not asked when keys are waiting already (they stay for the app).
    The terminal's mode is put back as it was, whatever happens."""
    import select
    import termios

    try:
        was = termios.tcgetattr(fd_in)
    except termios.error:
        return None, b""
    mode = list(was)
    mode[0] &= ~termios.ICRNL  # Enter typed meanwhile stays the \r Textual reads as Enter
    mode[3] &= ~(termios.ICANON | termios.ECHO)  # the answer is read, not echoed
    mode[6] = list(mode[6])
    mode[6][termios.VMIN], mode[6][termios.VTIME] = 0, 0
    got = b""
    outstanding = False  # asked, and not all of the answer read
    try:
        termios.tcsetattr(fd_in, termios.TCSANOW, mode)
        if select.select([fd_in], [], [], 0)[0]:  # typed ahead (a line begun, too): the app's
            return None, b""
        os.write(fd_out, QUERY)
        outstanding = True
        start = time.monotonic()
        end = start + timeout
        while (left := end - time.monotonic()) > 0:
            ready, _, _ = select.select([fd_in], [], [], left)
            if not ready:
                break
            chunk = os.read(fd_in, 1024)
            if not chunk:
                break
            got += chunk
            if _DA1.search(got):  # every answer it will give is in
                outstanding = False
                break
            end = start + max(timeout, LONGEST)  # it is answering: the rest is on its way
    except (OSError, termios.error):
        return None, typed_in(got)
    finally:
        try:
            if outstanding:  # what came of the answer so far must not reach the app as keys
                termios.tcflush(fd_in, termios.TCIFLUSH)
            termios.tcsetattr(fd_in, termios.TCSANOW, was)
        except termios.error:
            pass  # the terminal is gone: nothing to put back
    return parse(got), typed_in(got)


def ask_terminal(env: Mapping[str, str] | None = None) -> bool | None:
    """Ask this process's terminal (stdin, stdout), when it may be asked; whether its
    background is dark (None: unknown), kept in :data:`ANSWER`."""
    import sys

    env = os.environ if env is None else env
    if not may_ask(env, sys.stdin, sys.stdout):
        return None
    sys.stdout.flush()
    rgb, TYPED[0] = ask(sys.stdin.fileno(), sys.stdout.fileno(), bound(env))
    ANSWER[0] = is_dark(rgb) if rgb is not None else None
    return ANSWER[0]


def key_events(typed: bytes) -> list[Any]:
    """The events Textual's reader makes of ``typed`` (keys, Enter, Esc, …), for the app to
    take as if it had read them itself."""
    from textual._parser import ParseError
    from textual._xterm_parser import XTermParser  # what Textual's driver reads keys with

    parser = XTermParser()
    events = list(parser.feed(typed.decode("utf-8", errors="replace")))
    try:
        events += parser.feed("")  # the end: a lone Esc is the Esc key
    except ParseError:  # an unfinished sequence at the end: dropped
        pass
    return events
