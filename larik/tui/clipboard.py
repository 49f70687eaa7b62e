"""The terminal's clipboard: ``/copy`` writes to it with OSC 52 (Textual's
``App.copy_to_clipboard``), which reaches the clipboard of the machine the terminal runs on —
over SSH too. A terminal known not to take OSC 52 (macOS Terminal.app, the Linux console) gets
a local clipboard program instead when one is on PATH (outside the project: :mod:`larik.host_programs`) (``pbcopy``, ``wl-copy``, ``xclip``,
``xsel``); with neither, the caller says how else to get the text."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping

from .. import host_programs

__all__ = ["PROGRAMS", "copy_with_program", "osc52_supported"]

#: Clipboard programs, in the order tried, with their arguments.
PROGRAMS: tuple[tuple[str, ...], ...] = (
    ("pbcopy",),
    ("wl-copy",),
    ("xclip", "-selection", "clipboard"),
    ("xsel", "--clipboard", "--input"),
)
_NO_OSC52_PROGRAMS = {"Apple_Terminal"}  # $TERM_PROGRAM of terminals that ignore OSC 52
_NO_OSC52_TERMS = {"linux", "dumb"}  # the Linux console; a terminal with no features


def osc52_supported(env: Mapping[str, str] | None = None) -> bool:
    """Whether the terminal is expected to take an OSC 52 copy (unknown ones are tried)."""
    env = os.environ if env is None else env
    if env.get("TERM_PROGRAM", "") in _NO_OSC52_PROGRAMS:
        return False
    return env.get("TERM", "") not in _NO_OSC52_TERMS


def copy_with_program(text: str, timeout: float = 5.0) -> str:
    """Copy ``text`` with the first clipboard program found; its name, or "" when none is
    there or it failed. (``wl-copy`` needs a Wayland session, ``xclip``/``xsel`` an X one.)"""
    for argv in PROGRAMS:
        exe = host_programs.which(argv[0], os.getcwd())  # never one the project put on PATH
        if exe is None:
            continue
        if argv[0] == "wl-copy" and not os.environ.get("WAYLAND_DISPLAY"):
            continue
        if argv[0] in ("xclip", "xsel") and not os.environ.get("DISPLAY"):
            continue
        try:
            done = subprocess.run(
                [exe, *argv[1:]],
                input=text.encode(),
                env=host_programs.host_env(None, os.getcwd()),
                timeout=timeout,
                stdout=subprocess.DEVNULL,  # xclip's selection server keeps it: no waiting
                stderr=subprocess.DEVNULL,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0:
            return argv[0]
    return ""
