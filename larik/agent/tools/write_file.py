"""write_file(path, content): create or replace a file; the change comes back as a diff (and,
for a front end that shows the overwrite, the text replaced: ``data["previous"]``, LIVE_ONLY).

Only a regular file is written: a FIFO, socket or device at the path is refused without being
opened (``_files.write_regular``). Replacing a file needs it read first and unchanged since
(``_seen``); a write that cuts a file to under a quarter of its non-blank lines says so. Content
that carries read_file's line-number gutter on every line is written without it (``_gutter``),
unless the file it replaces has such lines itself. A write that removes most of a file's
top-level definitions is refused unless ``confirm_destructive`` is set; a Python file that does
not parse after it says so in the result (``_guard``).
"""

from __future__ import annotations

from pydantic import Field

from ...words import count
from . import ToolArgs, ToolContext, ToolResult
from ._files import directory_error, load_text, open_regular, store_text, unified_diff, utf8
from ._guard import check_defs, syntax_note
from ._gutter import NOTE, gutter_like, strip_gutter
from ._lsp import diagnostics
from ._seen import remember, require_read, shrink_note

NAME = "write_file"
KIND = "write"
PATH_TARGET = True
DESCRIPTION = (
    "Create a file, or replace a file's whole content. Parent directories are created. "
    "To change part of an existing file, use edit_file instead."
)


class Args(ToolArgs):
    path: str = Field(description="File path, relative to the project root or absolute.")
    content: str = Field(description="The complete new content of the file.")
    confirm_destructive: bool = Field(
        False, description="Set true only to confirm a write refused as destructive."
    )


def target(args: Args) -> str:
    return args.path


def summary(args: Args) -> str:
    return args.path


async def _old(args: Args, ctx: ToolContext) -> tuple[str, bool]:
    path = ctx.path(args.path)
    if path.is_dir():
        raise directory_error(ctx, NAME, path)
    if not path.exists():
        return "", True
    require_read(ctx, path, ctx.show(path))
    if ctx.editor is not None and ctx.editor.reads:  # the editor's buffer is what is replaced
        return await load_text(ctx, path, ctx.show(path)), False
    with open_regular(path, ctx.show(path)) as fh:
        return fh.read().decode("utf-8", errors="replace"), False


def _content(args: Args, old: str, shown: str) -> tuple[str, str]:
    """What to write, and a note for the result ("": as given). Refuses a write that would
    remove most of the file's definitions, unless the call confirms it (``_guard``)."""
    plain = None if gutter_like(old) else strip_gutter(args.content)
    content, note = (args.content, "") if plain is None else (plain, NOTE.format(what="content"))
    if not args.confirm_destructive:
        check_defs(old, content, shown)
    return content, "\n" + note if note else ""


async def preview(args: Args, ctx: ToolContext) -> str:
    shown = ctx.show(ctx.path(args.path))
    old, created = await _old(args, ctx)
    content, _ = _content(args, old, shown)
    return unified_diff(old, content, shown, created=created)


async def run(args: Args, ctx: ToolContext) -> ToolResult:
    path = ctx.path(args.path)
    shown = ctx.show(path)
    utf8(args.content, "content")
    old, created = await _old(args, ctx)
    content, note = _content(args, old, shown)
    path.parent.mkdir(parents=True, exist_ok=True)
    utf8(content, "content")
    await store_text(ctx, path, content, shown)
    remember(ctx, path)
    diff = unified_diff(old, content, shown, created=created)
    lines = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
    verb = "created" if created else "wrote"
    note += "" if created else shrink_note(old, content, shown)
    broken = syntax_note(shown, old, content)
    note += "\n" + broken if broken else ""
    data = {"diff": diff} if created else {"diff": diff, "previous": old}  # LIVE_ONLY
    note += await diagnostics(ctx, path, old, content, shown, data)
    return ToolResult(f"{verb} {shown} ({count(lines, 'line')}){note}", data=data)
