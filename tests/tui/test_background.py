"""``[tui] theme = "auto"``: the terminal asked for its background with OSC 11 before the app
takes it (larik/tui/background.py) — answers parsed strictly, a terminal that does not answer
or lies is "unknown" (auto is then COLORFGBG's, else dark), and nothing asked otherwise."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from larik.config import user_config_path
from larik.tui import _auto_theme, background, looks

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
    "import sys\n"
    "from larik.tui import background\n"
    "said = background.ask_terminal({'TERM': 'xterm-256color'})\n"
    "sys.stdout.write(f'said={said}\\n')\n"
)


def run_in_pty(answer: bytes | None) -> tuple[str, bytes]:
    """Run ``ask_terminal`` in a child whose terminal is a pty played by this test: it answers
    the question with ``answer`` (None: nothing). What the child said, and what it asked."""
    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD], stdin=slave, stdout=slave, stderr=subprocess.PIPE, env=env
    )
    os.close(slave)
    got = b""
    asked = b""
    end = time.monotonic() + 20
    try:
        while b"said=" not in got or not got.endswith(b"\n"):
            ready, _, _ = select.select([master], [], [], max(0.0, end - time.monotonic()))
            if not ready:
                break
            try:
                chunk = os.read(master, 1024)
            except OSError:  # the child is gone
                break
            got += chunk
            if not asked and background.QUERY in got:
                asked = background.QUERY
                got = got.replace(background.QUERY, b"")
                if answer is not None:
                    os.write(master, answer)
        child.wait(20)
    finally:
        os.close(master)
    assert child.returncode == 0, child.stderr.read() if child.stderr else ""
    return got.decode(errors="replace").strip(), asked


def test_a_real_terminal_answering_light_and_dark():
    said, asked = run_in_pty(b"\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[?62;22c")
    assert asked == background.QUERY and said == "said=False"
    said, _ = run_in_pty(b"\x1b]11;rgb:1c/1c/1c\x07\x1b[?1;2c")
    assert said == "said=True"


def test_a_terminal_without_osc_11_or_one_that_lies_is_unknown():
    said, _ = run_in_pty(b"\x1b[?1;2c")  # the device attributes alone: no wait for a colour
    assert said == "said=None"
    said, _ = run_in_pty(b"\x1b]11;rgb:garbage\x1b\\\x1b[?1;2c")
    assert said == "said=None"
    said, _ = run_in_pty(None)  # no answer at all: the timeout
    assert said == "said=None"
