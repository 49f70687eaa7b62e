"""edit_file(path, old_string, new_string, replace_all?): replace exact text; a diff comes back.

``old_string`` must occur exactly once unless ``replace_all`` is set; otherwise the edit is
refused with the count, so the model can add context. Line endings are kept as they were. When
it does not occur at all, the relaxations of :mod:`._match` are tried (trailing whitespace,
indentation, quotes, line endings): one place found is edited and the result says which
relaxation matched; more than one is refused. An ``old_string`` that is not in the file as
written but carries read_file's line-number gutter on every line is looked for without it, and
the gutter is taken off ``new_string``'s lines too (``_gutter``); the result says so. An edit
that replaces too much for what it names, or removes most of the file's top-level definitions,
is refused unless ``confirm_destructive`` is set; a Python file that no longer parses says so in
the result (``_guard``).
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import Field

from . import ToolArgs, ToolContext, ToolError, ToolResult
from ._files import directory_error, load_text, missing_error, store_text, unified_diff, utf8
from ._guard import check_defs, check_edit, syntax_note
from ._gutter import NOTE, strip_gutter, strip_rows
from ._lsp import diagnostics
from ._match import Ambiguous, relaxed_match
from ._seen import remember, require_read
from .read_file import first_page

NAME = "edit_file"
KIND = "write"
PATH_TARGET = True
DESCRIPTION = (
    "Replace `old_string` with `new_string` in a file. `old_string` must match the file "
    "exactly (whitespace included) and occur exactly once, unless `replace_all` is true. "
    "Include enough surrounding lines to make it unique. Returns a unified diff."
)


class Args(ToolArgs):
    path: str = Field(description="File path, relative to the project root or absolute.")
    old_string: str = Field(description="The exact text to replace.")
    new_string: str = Field(description="The text to put in its place.")
    replace_all: bool = Field(False, description="Replace every occurrence.")
    confirm_destructive: bool = Field(
        False, description="Set true only to confirm an edit refused as destructive."
    )


def target(args: Args) -> str:
    return args.path


def summary(args: Args) -> str:
    return args.path + (" (all occurrences)" if args.replace_all else "")


@dataclass(frozen=True)
class _Edit:
    old: str  # the file's text
    new: str  # and after the edit
    count: int  # replacements
    relaxed: str = ""  # the relaxation that matched (_match), or ""
    gutter: bool = False  # old_string matched once read_file's gutter was taken off


async def _apply(args: Args, ctx: ToolContext) -> _Edit:
    path = ctx.path(args.path)
    shown = ctx.show(path)
    if not args.old_string:
        raise ToolError("old_string is empty; use write_file to create or replace a whole file")
    if args.old_string == args.new_string:
        raise ToolError("old_string and new_string are the same; nothing would change")
    if path.is_dir():
        raise directory_error(ctx, NAME, path)
    if not path.exists():
        raise missing_error(ctx, NAME, path)
    old = await load_text(ctx, path, shown)
    require_read(ctx, path, shown, lambda: first_page(path, shown, ctx.line_numbers))
    want, put, gutter = args.old_string, args.new_string, False
    if want not in old and (plain := strip_gutter(want)) is not None:
        want, put, gutter = plain, strip_rows(put), True  # copied from read_file, numbers and all
    old_s, new_s = want, put
    count = old.count(old_s)
    if count == 0 and "\r\n" in old and "\r\n" not in old_s:
        old_s, new_s = old_s.replace("\n", "\r\n"), new_s.replace("\n", "\r\n")
        count = old.count(old_s)
    if count == 0:
        try:
            found = relaxed_match(old, want, put)
        except Ambiguous as e:
            raise ToolError(
                f"old_string was not found in {shown} as written, and matches {e.count} places "
                f"once {e.relaxation} differences are ignored; copy the text exactly from the "
                "file, with enough surrounding lines to make it unique"
            ) from None
        if found is None:
            raise ToolError(
                f"old_string was not found in {shown}; read the file and copy the text exactly "
                "(whitespace and indentation included)"
            )
        return _checked(args, _Edit(old, found.apply(old), 1, found.relaxation, gutter), shown)
    if count > 1 and not args.replace_all:
        raise ToolError(
            f"old_string occurs {count} times in {shown}; add surrounding lines to make it "
            "unique, or set replace_all to replace every occurrence"
        )
    if not args.confirm_destructive:
        check_edit(want, count, args.replace_all, shown)
    return _checked(args, _Edit(old, old.replace(old_s, new_s), count, "", gutter), shown)


def _checked(args: Args, edit: _Edit, shown: str) -> _Edit:
    if not args.confirm_destructive:
        check_defs(edit.old, edit.new, shown)
    return edit


async def preview(args: Args, ctx: ToolContext) -> str:
    edit = await _apply(args, ctx)
    return unified_diff(edit.old, edit.new, ctx.show(ctx.path(args.path)))


async def run(args: Args, ctx: ToolContext) -> ToolResult:
    path = ctx.path(args.path)
    shown = ctx.show(path)
    edit = await _apply(args, ctx)
    utf8(edit.new, "new_string")
    await store_text(ctx, path, edit.new, shown)
    remember(ctx, path)
    diff = unified_diff(edit.old, edit.new, shown)
    what = f"{edit.count} replacements" if edit.count > 1 else "1 replacement"
    if edit.relaxed:
        what += (
            f" (old_string did not match exactly: it matched one place once {edit.relaxed} "
            "differences were ignored; check the diff)"
        )
    if edit.gutter:
        what += "\n" + NOTE.format(what="old_string")
    if broken := syntax_note(shown, edit.old, edit.new):
        what += "\n" + broken
    data = {"diff": diff}
    found = await diagnostics(ctx, path, edit.old, edit.new, shown, data)
    return ToolResult(f"edited {shown}: {what}\n{diff}{found}", data=data)
