"""``[tui] theme = "auto"``: the terminal asked for its background with OSC 11 before the app
takes it (larik/tui/background.py) — answers parsed strictly, a terminal that does not answer
or lies is "unknown" (auto is then COLORFGBG's, else dark), and nothing asked otherwise."""

from __future__ import annotations

import ast
import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from larik.config import user_config_path
from larik.tui import _auto_theme, background, looks
from tests.patience import WAIT, grown_until

from .conftest import ready, wait_for

WHITE, BLACK = (1.0, 1.0, 1.0), (0.0, 0.0, 0.0)


@pytest.mark.parametrize(
    ("reply", "rgb"),
    [
        (b"\x1b]11;rgb:ffff/ffff/ffff\x1b\\", WHITE),  # xterm, VTE, kitty: 4 digits, ST
        (b"\x1b]11;rgb:0000/0000/0000\x07", BLACK),  # BEL-terminated
        (b"\x1b]11;rgb:ff/ff/ff\x1b\\", WHITE),  # 2 digits
        (
            b"\x1b]11;rgb:1e1e/1e1e/2e2e\x1b\\\x1b[?62;22c",
            (0x1E1E / 0xFFFF,) * 2 + (0x2E2E / 0xFFFF,),
        ),
        (b"\x1b]11;rgba:ffff/ffff/ffff/ffff\x07", WHITE),  # rxvt-unicode's, with alpha
        (b"\x1b]11;rgb:f/8/0\x07", (1.0, 8 / 15, 0.0)),  # 1 digit each
    ],
)
def test_real_answers_are_parsed(reply, rgb):
    got = background.parse(reply)
    assert got is not None and all(abs(a - b) < 1e-9 for a, b in zip(got, rgb, strict=True))


@pytest.mark.parametrize(
    "reply",
    [
        b"",
        b"\x1b[?62;22c",  # the device attributes alone: no OSC 11
        b"\x1b]11;rgb:ffff/ffff\x1b\\",  # two parts
        b"\x1b]11;rgb:zzzz/ffff/ffff\x1b\\",  # not hex
        b"\x1b]11;rgb:fffff/ffff/ffff\x1b\\",  # five digits
        b"\x1b]11;rgb:ffff/ffff/ffff",  # not ended
        b"\x1b]11;#ffffff\x07",  # not the rgb: form
        b"\x1b]10;rgb:ffff/ffff/ffff\x07",  # the foreground's
    ],
)
def test_anything_else_is_unknown(reply):
    assert background.parse(reply) is None


def test_dark_and_light_by_luminance():
    assert background.is_dark(BLACK) and not background.is_dark(WHITE)
    assert background.is_dark((0x1E / 255, 0x1E / 255, 0x2E / 255))  # a dark theme's
    assert not background.is_dark((0xFD / 255, 0xF6 / 255, 0xE3 / 255))  # solarized light


class _Tty:
    def __init__(self, tty: bool) -> None:
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_not_asked_without_a_terminal_or_under_tmux_or_screen():
    yes, no = _Tty(True), _Tty(False)
    assert background.may_ask({"TERM": "xterm-256color"}, yes, yes)
    assert not background.may_ask({"TERM": "xterm-256color"}, no, yes)  # piped in
    assert not background.may_ask({"TERM": "xterm-256color"}, yes, no)
    assert not background.may_ask({"TERM": "dumb"}, yes, yes)
    assert not background.may_ask({"TERM": "tmux-256color"}, yes, yes)
    assert not background.may_ask({"TERM": "xterm", "TMUX": "/tmp/tmux-1/default,1,0"}, yes, yes)
    assert not background.may_ask({"TERM": "screen.xterm-256color"}, yes, yes)
    assert not background.may_ask({"TERM": "xterm", "STY": "123.pts-0.host"}, yes, yes)


def test_asked_only_when_the_users_theme_is_auto():
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    assert not _auto_theme(None)  # no config file
    for text, auto in [
        ('[tui]\ntheme = "larik-light"\n', False),
        ('auto_compact = true\n[tui]\ntheme = "nord"  # not auto\n', False),
        ('[tui]\ntheme = "auto"\n', True),
        ("tui.theme = 'auto'\n", True),
        ('[other]\ntheme = "auto"\n', False),  # not [tui]'s
        ('[tui]\ntheme = "auto"\n[[broken', False),  # a broken file: the app says so later
    ]:
        path.write_text(text)
        assert _auto_theme(None) is auto, text


def test_auto_goes_by_the_terminals_answer_before_colorfgbg(monkeypatch):
    monkeypatch.setenv("COLORFGBG", "15;0")  # says dark
    monkeypatch.setattr(background, "ANSWER", [False])  # the terminal said light
    assert looks.resolve("auto") == "larik-light"
    monkeypatch.setattr(background, "ANSWER", [None])  # no answer: COLORFGBG's
    assert looks.resolve("auto") == "larik-dark"
    monkeypatch.delenv("COLORFGBG")
    assert looks.resolve("auto") == "larik-dark"  # nothing known: dark


CHILD = (
    "import json, sys, time\n"
    "from larik.tui import background\n"
    "env = {'TERM': 'xterm-256color', **json.loads(sys.argv[1])}\n"
    "background.TIMEOUT, background.LONGEST = map(float, sys.argv[2:4])\n"
    "began = time.monotonic()\n"
    "said = background.ask_terminal(env)\n"
    "took = time.monotonic() - began\n"
    "sys.stdout.write(f'said={said} took={took:.3f} typed={background.TYPED[0]!r}\\n')\n"
    "sys.stdout.flush()\n"
    "left = sys.stdin.buffer.readline()  # what the app would read next\n"
    "sys.stdout.write(f'left={left!r}\\n')\n"
)
_SAID = re.compile(rb"said=(\S+) took=(\S+) typed=(b'[^']*'|b\"[^\"]*\")\r?\n")
_LEFT = re.compile(rb"left=(b'[^']*'|b\"[^\"]*\")\r?\n")


@dataclass
class Played:
    said: str  # what ask_terminal returned: True (dark), False (light), None
    took: float  # seconds it took
    typed: bytes  # what it kept for the app, typed while it asked
    left: bytes  # the line the app reads next from the terminal
    asked: bool  # whether the question was written to the terminal


def play(
    answer: list[tuple[float, bytes]] | None,
    *,
    typed_before: bytes = b"",
    env: dict[str, str] | None = None,
    late: bytes = b"",
    bounds: tuple[float, float] = (WAIT, WAIT),
) -> Played:
    """Run ``ask_terminal`` in a child whose terminal is a pty played by this test. The
    terminal answers the question with ``answer``'s parts, each sent that many seconds after
    the question came (the latency of a link; None: it answers nothing). ``typed_before``
    is typed before the child starts; ``late`` is sent once the child is done asking, then
    a line the user types (``typed``), which the child reads as the app would. ``bounds``:
    the child's ``TIMEOUT`` and ``LONGEST``; by default the suite's ceiling, so an answer
    this test plays is never cut off on a loaded machine (a test of a bound sets it, and
    makes the other bound longer than the test waits)."""
    master, slave = pty.openpty()
    if typed_before:
        os.write(master, typed_before)
    root = str(Path(__file__).parents[2])
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, json.dumps(env or {}), *map(str, bounds)],
        stdin=slave,
        stdout=slave,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": root},
    )
    os.close(slave)
    got, asked_at, parts, said = b"", 0.0, list(answer or []), None
    end = time.monotonic() + WAIT
    try:
        while not _LEFT.search(got) and time.monotonic() < end:
            wait = end - time.monotonic()
            if asked_at and parts:
                wait = min(wait, max(0.0, asked_at + parts[0][0] - time.monotonic()))
            ready, _, _ = select.select([master], [], [], wait)
            if asked_at and parts and time.monotonic() >= asked_at + parts[0][0]:
                os.write(master, parts.pop(0)[1])
            if not ready:
                continue
            try:
                got += os.read(master, 1024)
            except OSError:  # the child is gone
                break
            if not asked_at and background.QUERY in got:
                asked_at = time.monotonic()
                got = got.replace(background.QUERY, b"")
            if said is None and (said := _SAID.search(got)):
                os.write(master, late + b"typed\n")
        child.wait(WAIT)
    finally:
        os.close(master)
        child.kill()  # (ended already, unless the test failed)
    assert child.returncode == 0, child.stderr.read() if child.stderr else ""
    assert said is not None, got
    left = _LEFT.search(got)
    assert left is not None, got
    return Played(
        said=said[1].decode(),
        took=float(said[2]),
        typed=ast.literal_eval(said[3].decode()),
        left=ast.literal_eval(left[1].decode()),
        asked=bool(asked_at),
    )


LIGHT = b"\x1b]11;rgb:ffff/ffff/ffff\x1b\\"
DA1 = b"\x1b[?62;22c"


def test_a_real_terminal_answering_light_and_dark():
    played = play([(0, LIGHT + DA1)])
    assert played.asked and played.said == "False" and played.left == b"typed\n"
    assert play([(0, b"\x1b]11;rgb:1c/1c/1c\x07\x1b[?1;2c")]).said == "True"


def test_a_terminal_without_osc_11_or_one_that_lies_is_unknown():
    played = play([(0, b"\x1b[?1;2c")])  # the device attributes alone: no wait for a colour
    assert played.said == "None" and played.left == b"typed\n"
    played = play([(0, b"\x1b]11;rgb:garbage\x1b\\\x1b[?1;2c")])
    assert played.said == "None" and played.typed == b"" and played.left == b"typed\n"


#: The short bound as Larik has it, and a long one no test waits out: a child that waited the
#: long bound where the short one was due would outlast the test's ceiling (the test fails).
SHORT = (background.TIMEOUT, 10 * WAIT)


def test_a_terminal_that_answers_nothing_costs_the_short_bound_and_no_more():
    played = play(None, bounds=SHORT)  # done: it did not wait for the long bound
    assert played.said == "None" and played.left == b"typed\n"
    assert played.took >= background.TIMEOUT  # it gave the terminal its short bound


def test_an_answer_that_has_begun_is_waited_for_and_none_of_it_reaches_the_app():
    """Half of it at once, the rest after twice the short bound: not cut off, not left as
    keys. On a loaded machine the first half can come after the short bound (then nothing
    had begun): the bound is made longer until it came in time."""

    def attempt(short: float) -> Played | None:
        played = play([(0, LIGHT[:9]), (short * 2, LIGHT[9:] + DA1)], bounds=(short, 10 * WAIT))
        return None if played.said == "None" and not played.typed else played

    played = grown_until(attempt, background.TIMEOUT)
    assert played.said == "False" and played.left == b"typed\n"


def test_over_ssh_a_slow_answer_is_waited_for():
    # the link's round trip is longer than a local terminal has: over ssh it is not cut off
    slow = [(background.TIMEOUT * 3, LIGHT + DA1)]  # past the short bound, whatever the load
    played = play(slow, env={"SSH_CONNECTION": "10.0.0.1 50000 10.0.0.2 22"}, bounds=SHORT)
    assert played.said == "False" and played.left == b"typed\n"
    assert background.bound({}) == background.TIMEOUT
    assert background.bound({"SSH_TTY": "/dev/pts/3"}) == background.LONGEST


def test_keys_typed_before_larik_asks_are_left_for_the_app_and_nothing_is_asked():
    played = play([(0, LIGHT + DA1)], typed_before=b"fix the bug")
    assert not played.asked and played.said == "None"
    assert played.left == b"fix the bugtyped\n"  # none of it eaten


def test_keys_typed_while_it_asks_are_kept_for_the_app_without_the_answers():
    played = play([(0, b"ab" + LIGHT + b"c\r" + DA1 + b"d")])
    assert played.said == "False" and played.typed == b"abc\rd" and played.left == b"typed\n"


def test_an_answer_later_than_the_bound_reaches_the_app_as_typed_keys():
    """The limit of asking before Textual starts: what the terminal says after Larik stopped
    listening is read by the app. Textual's reader makes keys of it (it knows no OSC answer):
    the reason the bound is longer over ssh, and what docs/tui.md warns of."""
    played = play(None, late=LIGHT + DA1, bounds=SHORT)
    assert played.said == "None" and played.left == LIGHT + DA1 + b"typed\n"
    keys = "".join(e.character or "" for e in background.key_events(LIGHT + DA1))
    assert "11;rgb:ffff/ffff/ffff" in keys  # typed into the prompt, were it the app


def test_what_was_typed_is_told_from_the_answers_whole_or_cut_off():
    assert background.typed_in(b"a" + LIGHT + b"b\r" + DA1 + b"c") == b"ab\rc"
    assert background.typed_in(b"x\x1b]11;rgb:gar\x07y") == b"xy"  # garbage: still an answer
    assert background.typed_in(b"x" + LIGHT[:-1]) == b"x"  # cut off before ST's backslash
    assert background.typed_in(b"x" + LIGHT[:12]) == b"x"
    assert background.typed_in(b"x\x1b[?62;2") == b"x"  # DA1 cut off
    assert background.typed_in(b"\x1b[A\x1b") == b"\x1b[A\x1b"  # Up, Esc: keys


def test_key_events_are_what_textual_reads_keys_as():
    keys = [(e.key, e.character) for e in background.key_events(b"hi\r\x1b[A\x1b")]
    assert keys == [("h", "h"), ("i", "i"), ("enter", "\r"), ("up", None), ("escape", "\x1b")]


async def test_the_app_takes_what_was_typed_while_it_asked_as_its_first_keys(harness):
    app = harness.app([{"text": "Hello."}])
    app.typed_at_start = b"hi\r" + b"caf\xc3\xa9"
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: harness.provider.requests)
        assert harness.provider.requests[0].messages[-1].text() == "hi"  # Enter: sent
        await wait_for(pilot, lambda: app.chat.prompt.text == "café")  # then typed
