"""A conversation written out: ``/export [md|html|jsonl] [PATH]``, and the last reply ``/copy`` takes.

Face-neutral: a face asks :func:`export` (or :func:`render` for the text) and says where it
went. What is written is the session's whole conversation as its transcript holds it (before
any compaction too), else the messages in memory: each prompt, each reply, each tool call with
its arguments and each result. Thinking is collapsed (``<details>`` in Markdown and HTML);
images are named, not embedded; a vendor's opaque blocks are left out. One heading (``## You``,
``## Assistant``) per run of one speaker: a reply's steps and their tool results sit under the
one that began it, and a prompt left unanswered and the next under one ``## You``. Every piece of text is
masked by value (``larik.llm.secrets.mask``: the keys Larik knows become ``***``) before it is
formatted, and the whole output once more after, so nothing a tool printed leaks through.

``jsonl`` is one ``Message`` per line, as the transcript stores it (masked): for tools.

Where it is written is the user's word, but what is already there may be the project's or the
model's: the named file is never followed when it is a symbolic link (``O_NOFOLLOW``: a project
shipping ``notes.md -> ~/.bashrc``), nor written when it is not a regular file or has other hard
links; a path inside the project is written only when every folder on the way stays inside it
once links are resolved (the folder is opened and checked, then the file opened in it). New
files are mode 0600, as transcripts are: they hold what the agent read.
"""

from __future__ import annotations

import html
import os
import re
import stat
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .core import Session

from ..llm import jsontext
from ..llm.errors import LarikError
from ..llm.others_parse import json_value
from ..words import count

__all__ = ["FORMATS", "ExportError", "export", "last_reply", "parse_args", "render"]

FORMATS = ("md", "html", "jsonl")
_SUFFIX = {".md": "md", ".markdown": "md", ".html": "html", ".htm": "html", ".jsonl": "jsonl"}


class ExportError(LarikError):
    """Bad ``/export`` arguments, or a file that cannot be written: one line."""


def parse_args(arg: str) -> tuple[str, str]:
    """``(format, path)`` of ``/export``'s arguments: ``[md|html|jsonl] [PATH]``; the format
    may also come from PATH's suffix (default ``md``); PATH "" means the default name."""
    words = arg.split(maxsplit=1)
    fmt, path = "", ""
    if words and words[0].lower() in FORMATS:
        fmt, path = words[0].lower(), (words[1] if len(words) > 1 else "")
    else:
        path = arg
    path = path.strip()
    if len(path) > 1 and path[0] == path[-1] and path[0] in "'\"":
        path = path[1:-1]
    by_suffix = _SUFFIX.get(Path(path).suffix.lower(), "") if path else ""
    if fmt and by_suffix and fmt != by_suffix:
        raise ExportError(f"/export {fmt}: {path!r} is named like a {by_suffix} file")
    return fmt or by_suffix or "md", path


def default_name(session_id: str, fmt: str) -> str:
    stamp = session_id or time.strftime("%Y%m%d-%H%M%S")
    return f"larik-{stamp}.{fmt}"


def conversation(session: Session) -> list[Any]:
    """The session's whole conversation: its transcript's messages when it has a file (what
    compaction summarised included), else the messages in memory."""
    return list(session.store.conversation())


def last_reply(messages: Iterable[Any]) -> str:
    """The text of the last assistant message that has some ("" when none has)."""
    for m in reversed(list(messages)):
        if m.role == "assistant" and (text := m.text().strip()):
            return str(text)
    return ""


async def export(session: Session, fmt: str, path: str = "", cwd: Path | None = None) -> Path:
    """Write the session's conversation as ``fmt`` to ``path`` (relative to ``cwd``, the
    session's folder by default; "" a name of its own there). Returns where it went;
    :class:`ExportError` when it cannot be written, or may not be (a symbolic link, a folder on
    the way leading out of the project: see the module's docstring)."""
    import asyncio

    if fmt not in FORMATS:
        raise ExportError(f"/export: unknown format {fmt!r}: use {', '.join(FORMATS)}")
    base = Path(cwd or session.cwd)
    target = Path(path).expanduser() if path else Path(default_name(session.session_id, fmt))
    target = Path(os.path.normpath(target if target.is_absolute() else base / target))
    if target.is_dir() and not target.is_symlink():
        raise ExportError(f"/export: {target} is a folder: name a file")
    root = session.store.root
    messages = await asyncio.to_thread(conversation, session)
    title = f"Larik session {session.session_id}".strip()
    text = render(messages, fmt, title=title, model=session.spec)
    try:
        await asyncio.to_thread(_write, target, text, root)
    except OSError as e:
        raise ExportError(f"/export: cannot write {target}: {e.strerror or e}") from None
    return target


def _write(target: Path, text: str, root: Path) -> None:
    """``text`` into ``target``, following no link the project or the model could have put
    there (:class:`ExportError` saying which, in one line)."""
    real_root = os.path.realpath(root)
    inside = target.is_relative_to(Path(os.path.normpath(root.absolute())))
    if os.path.islink(target):
        raise ExportError(
            f"/export: {target} is a symbolic link (to {os.readlink(target)}): not followed; "
            "name another file"
        )
    parent = target.parent
    if inside:  # before any folder is made: the way there must not lead out of the project
        have = next(p for p in (parent, *parent.parents) if os.path.lexists(p))
        _stays_in(have, real_root, target)
    parent.mkdir(parents=True, exist_ok=True)
    dfd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        if inside:  # the folder opened is the one checked (no swap in between)
            real = _stays_in(parent, real_root, target)
            seen, opened = os.stat(real), os.fstat(dfd)
            if (seen.st_dev, seen.st_ino) != (opened.st_dev, opened.st_ino):
                raise ExportError(f"/export: {target}: its folder changed while it was written")
        flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        try:
            fd = os.open(target.name, flags, 0o600, dir_fd=dfd)
        except OSError:
            if os.path.islink(target):  # one made between the check and the open
                raise ExportError(
                    f"/export: {target} is a symbolic link: not followed; name another file"
                ) from None
            raise
    finally:
        os.close(dfd)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ExportError(f"/export: {target} is not a regular file: name another file")
        if st.st_nlink > 1:
            raise ExportError(
                f"/export: {target} has other hard links (it is another file too): not "
                "written; name another file"
            )
        f.truncate(0)
        f.write(text)


def _stays_in(folder: Path, real_root: str, target: Path) -> str:
    """``folder`` with links resolved, when it is inside the project; else ExportError."""
    real = os.path.realpath(folder)
    if not Path(real).is_relative_to(real_root):
        raise ExportError(
            f"/export: {target}: {folder} leads out of the project (to {real}) through a "
            "symbolic link: not followed; name another file"
        )
    return real


# -- rendering --------------------------------------------------------------------------------
def render(messages: list[Any], fmt: str, *, title: str = "", model: str = "") -> str:
    """The conversation as ``fmt`` (md, html, jsonl), masked."""
    from ..llm.secrets import mask

    if fmt == "jsonl":
        return "".join(mask(m.model_dump_json()) + "\n" for m in messages)
    if fmt == "text":
        return mask(plain_text(messages))
    if fmt == "html":
        return mask(_html(messages, title, model))
    return mask(_markdown(messages, title, model))


def _calls(messages: list[Any]) -> dict[str, str]:
    """Tool call id -> tool name (a result names the call it answers)."""
    return {b.id: b.name for m in messages for b in m.blocks if b.type == "tool_use" and b.id}


def _arguments(block: Any) -> str:
    from ..llm.secrets import mask

    try:  # as the model sent them, laid out when they are JSON
        return mask(jsontext.dumps(json_value(block.input), indent=2, ensure_ascii=False))
    except ValueError:
        return mask(block.input)


def _result(block: Any) -> str:
    from ..llm.secrets import mask

    images = f"\n[{count(len(block.images), 'image')}]" if block.images else ""
    return mask(block.content) + images


def _fence(text: str, lang: str = "") -> str:
    """``text`` in a code fence longer than any run of backticks inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


def _markdown(messages: list[Any], title: str, model: str) -> str:
    from ..llm.secrets import mask

    names = _calls(messages)
    out = [f"# {title or 'Larik session'}", ""]
    if model:
        out += [f"Model: `{model}`", ""]
    heading = ""  # the speaker under whose heading the text now goes
    for m in messages:
        who = "You" if m.role == "user" else "Assistant"
        parts: list[str] = []
        for b in m.blocks:
            if b.type == "text" and b.text.strip():
                parts.append(mask(b.text.strip()))
            elif b.type == "thinking":
                body = "(redacted)" if b.redacted or not b.text.strip() else mask(b.text.strip())
                parts.append(f"<details><summary>Thinking</summary>\n\n{body}\n\n</details>")
            elif b.type == "tool_use":
                parts.append(f"**Tool call:** `{b.name}`\n\n{_fence(_arguments(b), 'json')}")
            elif b.type == "tool_result":
                name = names.get(b.id, "tool")
                state = " (error)" if b.is_error else ""
                parts.append(f"**Result of `{name}`{state}:**\n\n{_fence(_result(b))}")
            elif b.type == "image":
                parts.append(f"*[image: {b.media_type or 'image'}]*")
        if not parts:
            continue
        if all(b.type == "tool_result" for b in m.blocks):
            out += [*parts, ""]  # results belong to the reply before them
        elif who == heading:  # the same speaker again (a step of a reply, a prompt left
            out += ["\n\n".join(parts), ""]  # unanswered and the next): one heading
        else:
            heading = who
            out += [f"## {who}", "", "\n\n".join(parts), ""]
    return "\n".join(out).rstrip() + "\n"


RESULT_LINES = 20  # lines of a tool's result the plain text keeps (the rest: counted)


def plain_text(messages: list[Any]) -> str:
    """The conversation as a terminal's scrollback keeps it (``[tui] print_on_exit``): your
    prompts after ``›``, the replies, each tool call on one line and the first
    :data:`RESULT_LINES` lines of its result; thinking left out."""
    from ..llm.secrets import mask

    names = _calls(messages)
    out: list[str] = []
    for m in messages:
        for b in m.blocks:
            if b.type == "text" and b.text.strip():
                text = mask(b.text.strip())
                out.append(f"› {text}" if m.role == "user" else text)
            elif b.type == "tool_use":
                args = " ".join(_arguments(b).split())
                out.append(f"▌ {b.name} {args[:200]}{'…' if len(args) > 200 else ''}")
            elif b.type == "tool_result":
                lines = _result(b).splitlines()
                state = " (error)" if b.is_error else ""
                shown = [f"  {line}" for line in lines[:RESULT_LINES]]
                more = len(lines) - RESULT_LINES
                tail = [f"  … {more} more line{'s' if more > 1 else ''}"] if more > 0 else []
                out += [f"  ↳ {names.get(b.id, 'tool')}{state}:", *shown, *tail]
            elif b.type == "image":
                out.append(f"[image: {b.media_type or 'image'}]")
        if not (m.role == "assistant" and m.tool_uses()):  # a call's result follows it
            out.append("")
    return "\n".join(out).rstrip() + "\n" if out else ""


_CSS = """body{font-family:system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;
line-height:1.5;color:#222;background:#fff}h2{border-top:1px solid #ddd;padding-top:1rem}
pre{background:#f5f5f5;padding:.75rem;overflow-x:auto;white-space:pre-wrap;word-break:break-word}
.user h2{color:#0b5394}.error{color:#a00}details{margin:.5rem 0}summary{cursor:pointer;color:#555}
@media (prefers-color-scheme:dark){body{background:#111;color:#ddd}pre{background:#1c1c1c}}"""


def _html(messages: list[Any], title: str, model: str) -> str:
    from ..llm.secrets import mask

    def esc(text: str) -> str:
        return html.escape(mask(text))

    names = _calls(messages)
    head = esc(title or "Larik session")
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{head}</title><style>{_CSS}</style></head><body>",
        f"<h1>{head}</h1>",
    ]
    if model:
        out.append(f"<p>Model: <code>{esc(model)}</code></p>")
    heading = ""
    for m in messages:
        parts: list[str] = []
        for b in m.blocks:
            if b.type == "text" and b.text.strip():
                parts.append(f"<pre>{esc(b.text.strip())}</pre>")
            elif b.type == "thinking":
                body = "(redacted)" if b.redacted or not b.text.strip() else b.text.strip()
                parts.append(
                    f"<details><summary>Thinking</summary><pre>{esc(body)}</pre></details>"
                )
            elif b.type == "tool_use":
                parts.append(
                    f"<p><strong>Tool call:</strong> <code>{esc(b.name)}</code></p>"
                    f"<pre>{esc(_arguments(b))}</pre>"
                )
            elif b.type == "tool_result":
                cls = ' class="error"' if b.is_error else ""
                state = " (error)" if b.is_error else ""
                name = esc(names.get(b.id, "tool"))
                parts.append(
                    f"<details open><summary{cls}>Result of <code>{name}</code>{state}</summary>"
                    f"<pre>{esc(_result(b))}</pre></details>"
                )
            elif b.type == "image":
                parts.append(f"<p><em>[image: {esc(b.media_type or 'image')}]</em></p>")
        if not parts:
            continue
        who = "You" if m.role == "user" else "Assistant"
        if all(b.type == "tool_result" for b in m.blocks):
            out += parts
        elif who == heading:  # the same speaker again: no second heading (as in Markdown)
            out.append(f'<section class="{m.role}">{"".join(parts)}</section>')
        else:
            heading = who
            out.append(f'<section class="{m.role}"><h2>{who}</h2>{"".join(parts)}</section>')
    out.append("</body></html>")
    return "\n".join(out) + "\n"
