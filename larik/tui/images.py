"""Images pasted into the prompt: each one a chip, ``[Image #1: shot.png]``, in the text.

Two ways in. Ctrl+V reads an image off the system clipboard with the first clipboard program
found on PATH (:data:`PROGRAMS`: ``wl-paste`` in a Wayland session, ``xclip`` in an X one,
``pbpaste``), run without a shell and killed, with everything it started, after
:data:`TIMEOUT` seconds. A paste that is nothing but paths to image files (what a terminal
pastes when a file is dropped on it: quoted, ``\\``-escaped or as ``file://`` URIs) becomes a
chip per file. Whether an image may go with a prompt is ``larik/session/attachments.py``'s
(one fact for every face): a path outside the project or under a ``read_file`` deny rule is
refused as ``@path`` is, an image over its size limit is refused, and a model that takes no
images gets the same refusal — at the paste, and again when the prompt is sent.

A chip is text in the prompt, so the history, type-ahead and Esc's put-back keep it; the
images stay with the session (:class:`Images`), and a chip whose text is still whole when
the prompt is sent takes its image along. Backspace just after a chip removes all of it.

Imported at the first paste or Ctrl+V, never before the first frame.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from .. import host_programs
from ..paths import resolve_path
from ..session.attachments import (
    IMAGE_TYPES,
    Attached,
    PathDenied,
    Read,
    attachable,
    image_type,
    read_file,
    read_image,
)

__all__ = ["PROGRAMS", "TIMEOUT", "Chip", "Clipboard", "Images", "read_clipboard"]

#: Clipboard programs that print the clipboard's image, in the order tried, with the
#: environment variable each needs (its display server), if any.
PROGRAMS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("WAYLAND_DISPLAY", ("wl-paste", "--no-newline", "--type", "image/png")),
    ("DISPLAY", ("xclip", "-selection", "clipboard", "-target", "image/png", "-out")),
    ("", ("pbpaste",)),
)
TIMEOUT = 3.0  # seconds a clipboard program may take
_SUFFIX = {media: suffix for suffix, media in reversed(IMAGE_TYPES.items())}
_MAX_PASTE = 8192  # a longer paste is text, not a list of paths


@dataclass
class Chip:
    """One pasted image: a file of the project (``path``), or a clipboard's bytes (``raw``)."""

    label: str
    name: str  # what the model is told it is ("Image NAME:")
    path: Path | None = None
    raw: bytes = b""
    media: str = ""

    def read(self, no_images: str = "") -> Read:
        if self.path is not None:
            try:
                return read_file(self.path, self.name, no_images=no_images)
            except OSError as e:
                return Read(
                    problem=f"@{self.name}: cannot read it ({e.strerror or e}), not attached"
                )
        return read_image(self.name, self.media, self.raw, no_images=no_images)


@dataclass
class Clipboard:
    """What Ctrl+V found: an image's bytes and its type, or the one line saying why not."""

    raw: bytes = b""
    media: str = ""
    problem: str = ""


class Images:
    """The session's pasted images, by their chips' labels."""

    def __init__(self) -> None:
        self.chips: dict[str, Chip] = {}

    def _label(self, name: str) -> str:
        return f"[Image #{len(self.chips) + 1}: {name}]"

    def add_bytes(self, raw: bytes, media: str, no_images: str = "") -> Chip | str:
        """A clipboard image as a new chip, or why it may not be attached."""
        n = len(self.chips) + 1
        chip = Chip("", f"clipboard-{n}{_SUFFIX.get(media, '.png')}", raw=raw, media=media)
        return self._add(chip, no_images)

    def add_paths(
        self, text: str, root: Path, denied: PathDenied | None = None, no_images: str = ""
    ) -> list[Chip | str] | None:
        """A paste of image paths as chips (or, for each refused, why), in order; None when
        ``text`` is not just paths to image files (it is pasted as text)."""
        root = root.resolve()
        found = _image_paths(text, root)
        if found is None:
            return None
        out: list[Chip | str] = []
        for raw in found:
            rp = resolve_path(root, raw)
            name = rp.rel if rp.inside else rp.path.as_posix()
            problem = attachable(name, rp.path, root, denied)
            if problem:
                out.append(problem)
            else:
                out.append(self._add(Chip("", name, path=rp.path), no_images))
        return out

    def _add(self, chip: Chip, no_images: str) -> Chip | str:
        read = chip.read(no_images)
        if read.problem:
            return read.problem
        chip.label = self._label(Path(chip.name).name)
        self.chips[chip.label] = chip
        return chip

    def chip_before(self, text: str) -> str:
        """The label of the chip ``text`` ends with, or ""."""
        return next((label for label in self.chips if text.endswith(label)), "")

    def attach(self, text: str, attached: Attached, no_images: str = "") -> None:
        """Add to ``attached`` the image of each chip still whole in ``text``, in order."""
        where = sorted((text.find(label), label) for label in self.chips if label in text)
        for _, label in where:
            chip = self.chips[label]
            attached.add(chip.name, chip.read(no_images))


def _image_paths(text: str, root: Path) -> list[str] | None:
    """The paths a paste is made of, when it is only paths of image files that exist."""
    if not text.strip() or len(text) > _MAX_PASTE:
        return None
    try:
        words = shlex.split(text)  # quotes and \-escapes as a terminal writes a dropped file
    except ValueError:
        return None
    paths = [_from_uri(w) for w in words]
    for p in paths:
        if not p or Path(p).suffix.lower() not in IMAGE_TYPES:
            return None
        try:
            if not (root / Path(p).expanduser()).is_file():
                return None
        except OSError:
            return None
    return paths


def _from_uri(word: str) -> str:
    if not word.startswith("file:"):
        return word
    parsed = urlparse(word)
    if parsed.netloc not in ("", "localhost"):
        return ""
    return unquote(parsed.path)


def read_clipboard(timeout: float | None = None) -> Clipboard:
    """The clipboard's image, read with the first clipboard program that applies."""
    tried = []
    for needs, argv in PROGRAMS:
        exe = host_programs.which(argv[0], os.getcwd())  # never one the project put on PATH
        if exe is None or (needs and not os.environ.get(needs)):
            continue
        tried.append(argv[0])
        raw, problem = _run((exe, *argv[1:]), TIMEOUT if timeout is None else timeout)
        if problem:
            return Clipboard(problem=problem)
        media = image_type(raw)
        if media:
            return Clipboard(raw, media)
    if not tried:
        return Clipboard(
            problem="Ctrl+V: no clipboard program (wl-paste, xclip or pbpaste) to read an image "
            "with; paste or drop the image file's path instead"
        )
    return Clipboard(problem=f"Ctrl+V: no image on the clipboard ({', '.join(tried)})")


def _run(argv: tuple[str, ...], timeout: float) -> tuple[bytes, str]:
    """``argv``'s output (its own process group, killed whole at ``timeout``), or why not."""
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            env=host_programs.host_env(None, os.getcwd()),
        )
    except OSError as e:
        return b"", f"Ctrl+V: {os.path.basename(argv[0])} did not start ({e.strerror or e})"
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            proc.kill()
        proc.communicate()
        return b"", f"Ctrl+V: {os.path.basename(argv[0])} gave no answer in {timeout:g} s, stopped"
    return (out if proc.returncode == 0 else b""), ""
