"""A custom command's body expanded for the arguments it is run with (:func:`expand`): ``$ARGUMENTS``
and ``$1``… substituted, each ``!`cmd``` run through the caller's shell (under the permission
rules; :mod:`larik.command_shell_line` makes its line) or replaced by a note saying why not,
each ``@path`` of the project included. Text that arrives by substitution, from a shell line's
output or from an included file is never scanned again for ``!`` or ``@``.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from . import frontmatter
from .command_catalog import CustomCommand
from .command_files import Refused as _Refused
from .command_files import read_bounded as _read
from .command_shell_line import ARG as _ARG
from .command_shell_line import arithmetic_refusal, shell_line, value, words

__all__ = ["MAX_INCLUDE", "Expanded", "PathDenied", "Shell", "expand"]

MAX_INCLUDE = 256 * 1024  # an @path file larger than this is not included
_TOKEN = re.compile(r"!`([^`\n]+)`|(?:(?<=\s)|^)@((?:\\ |[^\s`])+)")

Shell = Callable[[str], Awaitable[tuple[str, bool]]]  # command -> (output or refusal, ran)
PathDenied = Callable[[str, Path], bool]


@dataclass
class Expanded:
    prompt: str
    notes: list[str] = field(default_factory=list)  # one line each, for the user
    includes: list[str] = field(default_factory=list)  # the @paths included


async def expand(
    cmd: CustomCommand,
    arguments: str,
    *,
    root: Path,
    shell: Shell | None,
    refusal: str = "",
    path_denied: PathDenied | None = None,
) -> Expanded:
    """The prompt ``cmd`` sends for ``arguments``. ``shell`` runs a shell line under the
    permission rules; ``refusal`` (from :func:`shell_refusal`) says why none may run."""
    args = words(arguments)
    out = Expanded("")
    pieces: list[str] = []
    files: list[str] = []
    pos = 0
    for m in _TOKEN.finditer(cmd.body):
        pieces.append(_substitute(cmd.body[pos : m.start()], arguments, args))
        pos = m.end()
        if m.group(1) is not None:
            pieces.append(await _shell_line(m.group(1), arguments, args, shell, refusal, out))
        else:
            raw = m.group(2)
            pieces.append(_substitute(raw and "@" + raw, arguments, args))
            name = _substitute(raw, arguments, args).replace("\\ ", " ").rstrip(".,;:!?)")
            text = _include(name, root, path_denied, out)
            if text is not None:
                files.append(text)
    pieces.append(_substitute(cmd.body[pos:], arguments, args))
    prompt = "".join(pieces).strip()
    if arguments.strip() and not _ARG.search(cmd.body):
        prompt += f"\n\nARGUMENTS: {arguments.strip()}"
    out.prompt = "\n\n".join([prompt, *files])
    return out


def _substitute(text: str, arguments: str, args: list[str]) -> str:
    return _ARG.sub(lambda m: value(m.group(1), arguments, args), text)


async def _shell_line(
    template: str, arguments: str, args: list[str], shell: Shell | None, refusal: str, out: Expanded
) -> str:
    short = frontmatter.one_line(template, 60)
    why = (
        refusal
        or ("" if shell is not None else "no shell here")
        or arithmetic_refusal(template, arguments)
    )
    if why or shell is None:
        out.notes.append(f"!`{short}` not run: {why}")
        return f"[!`{template}` was not run: {why}]"
    text, ran = await shell(shell_line(template, arguments, args))
    if not ran:
        # the refusal whole: it ends with the allow rule to add (a long one loses its middle)
        out.notes.append(f"!`{short}` not run: {frontmatter.one_line(text, 800, keep_end=True)}")
        return f"[!`{template}` was not run: {text}]"
    return text.removesuffix("[exit code 0]").rstrip("\n")


def _include(name: str, root: Path, path_denied: PathDenied | None, out: Expanded) -> str | None:
    from .paths import resolve_path

    if not name:
        return None
    rp = resolve_path(root, name)
    try:
        exists = rp.path.exists()
    except OSError:
        exists = False
    if not exists:
        if "/" in name:
            out.notes.append(f"@{name}: no such file, not included")
        return None
    if not rp.inside:
        out.notes.append(f"@{name}: outside the project, not included")
        return None
    if path_denied is not None and path_denied("read_file", rp.path):
        out.notes.append(f"@{name}: covered by a permissions.deny rule, not included")
        return None
    if rp.path.is_dir():
        return None
    try:
        data = _read(rp.path, MAX_INCLUDE)
    except _Refused as e:
        out.notes.append(f"@{name}: {e}, not included")
        return None
    out.includes.append(rp.rel)
    content = data.decode("utf-8", errors="replace")
    return f'<file path="{rp.rel}">\n{content}\n</file>'
