"""read_file(path, offset?, limit?): a text file with line numbers, paged; images as image blocks.

Binary files are refused with a clear message; long lines are cut; a long file comes back one page
at a time with a note saying how to read the next page. Text that is not valid UTF-8 (a Latin-1
file) is shown with U+FFFD for each byte that does not decode, and a note says so. FIFOs,
sockets, devices and files of /proc or /sys are refused without being opened
(``_files.open_regular``). The file is read in a worker thread, so the loop (and an interrupt)
never waits on it.
"""

from __future__ import annotations

import asyncio
import base64
import io
import os
import re
from pathlib import Path
from typing import BinaryIO

from pydantic import Field

from ...image_bytes import MAX_IMAGE, image_type
from ...llm.types import Block
from ...words import count
from . import ToolArgs, ToolContext, ToolError, ToolResult
from ._files import directory_error, missing_error, open_regular
from ._gutter import numbered
from ._seen import remember

NAME = "read_file"
KIND = "read"
PATH_TARGET = True
DESCRIPTION = (
    "Read a file. Text comes back with line numbers (like `cat -n`), at most `limit` lines "
    "starting at line `offset` (1-based); a note says how to read more. Images (png, jpeg, gif, "
    "webp) come back as images. Binary files are refused."
)
#: the description for a model shown no line numbers (``[models] line_numbers = false``)
PLAIN_DESCRIPTION = DESCRIPTION.replace(" with line numbers (like `cat -n`),", ",")

DEFAULT_LIMIT = 2000
MAX_LINE = 2000  # characters kept of one line
MAX_CHARS = 100_000  # characters of one page
SNIFF = 8192


class Args(ToolArgs):
    path: str = Field(description="File path, relative to the project root or absolute.")
    offset: int = Field(1, ge=1, description="First line to show (1-based).")
    limit: int = Field(DEFAULT_LIMIT, ge=1, description="How many lines to show at most.")


def target(args: Args) -> str:
    return args.path


def summary(args: Args) -> str:
    if args.offset > 1 or args.limit != DEFAULT_LIMIT:
        return f"{args.path} (from line {args.offset}, {count(args.limit, 'line')})"
    return args.path


_CONTROL = re.compile(rb"[\x00-\x07\x0e-\x1a\x1c-\x1f\x7f]")
_UNDECODED = re.compile("[\udc80-\udcff]")  # bytes kept by the surrogateescape decoder


def looks_binary(head: bytes) -> bool:
    """NUL bytes, or text that is not UTF-8 and has control bytes that text does not have."""
    if b"\x00" in head:
        return True
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as e:
        if e.start >= len(head) - 4:  # a multi-byte character cut at the sniff boundary
            return False
        return len(_CONTROL.findall(head)) > len(head) // 20
    return False


async def run(args: Args, ctx: ToolContext) -> ToolResult:
    result = await _run(args, ctx)
    remember(ctx, ctx.path(args.path))  # it may now be edited (tools/_seen.py)
    return result


async def _run(args: Args, ctx: ToolContext) -> ToolResult:
    path = ctx.path(args.path)
    shown = ctx.show(path)
    if not path.exists():
        raise missing_error(ctx, NAME, path)
    if path.is_dir():
        raise directory_error(ctx, NAME, path)
    if ctx.editor is not None and ctx.editor.reads:
        return await _from_editor(ctx, path, shown, args.offset, args.limit)
    return await asyncio.to_thread(_read, path, shown, args.offset, args.limit, ctx.line_numbers)


async def _from_editor(
    ctx: ToolContext, path: Path, shown: str, offset: int, limit: int
) -> ToolResult:
    """Text as the editor has it (its buffer); an image, a binary file or a special one as
    ever, from the disk (the file's kind is the disk's: the editor is not asked)."""
    with open_regular(path, shown) as fh:
        head = fh.read(SNIFF)
    if image_type(head) or looks_binary(head):
        return await asyncio.to_thread(_read, path, shown, offset, limit, ctx.line_numbers)
    assert ctx.editor is not None
    text = await ctx.editor.read_text(path)
    raw = io.BytesIO(text.encode("utf-8", errors="replace"))
    return _page(raw, shown, offset, limit, ctx.line_numbers)


def first_page(path: Path, shown: str, line_numbers: bool = True) -> str:
    """What read_file would show of ``path`` first ("" for an image or what it refuses)."""
    try:
        page = _read(path, shown, 1, DEFAULT_LIMIT, line_numbers)
    except (ToolError, OSError):
        return ""
    return "" if page.images else page.content


def _read(path: Path, shown: str, offset: int, limit: int, line_numbers: bool) -> ToolResult:
    with open_regular(path, shown) as fh:
        size = os.fstat(fh.fileno()).st_size
        head = fh.read(SNIFF)
        media = image_type(head)
        if media:
            if size > MAX_IMAGE:
                raise ToolError(
                    f"{shown} is an image of {size:,} bytes; the limit is {MAX_IMAGE:,}"
                )
            data = base64.b64encode(head + fh.read()).decode("ascii")
            return ToolResult(
                f"{shown}: {media} image, {size:,} bytes (attached)",
                images=[Block.image(media, data)],
            )
        if looks_binary(head):
            raise ToolError(
                f"{shown} is a binary file ({size:,} bytes); read_file shows only text and images"
            )
        fh.seek(0)
        return _page(fh, shown, offset, limit, line_numbers)


def _page(raw: BinaryIO, shown: str, offset: int, limit: int, line_numbers: bool) -> ToolResult:
    out: list[str] = []
    chars = 0
    total = 0
    last = offset - 1
    cut_lines = 0
    undecoded = 0
    full = False
    reader = io.TextIOWrapper(raw, encoding="utf-8", errors="surrogateescape", newline=None)
    with reader as fh:
        for n, line in enumerate(fh, start=1):
            total = n
            if not line.isascii() and _UNDECODED.search(line):
                undecoded += 1
                line = _UNDECODED.sub("\ufffd", line)
            if n < offset or full:
                continue
            line = line.rstrip("\n")
            if len(line) > MAX_LINE:
                line = line[:MAX_LINE] + " … [line cut]"
                cut_lines += 1
            row = numbered(n, line) if line_numbers else line
            if len(out) >= limit or chars + len(row) > MAX_CHARS:
                full = True
                continue
            out.append(row)
            chars += len(row) + 1
            last = n
    if total == 0:
        return ToolResult(f"{shown} is empty")
    if offset > total:
        raise ToolError(f"{shown} has {count(total, 'line')}; offset {offset} is past the end")
    text = "\n".join(out)
    if last < total:
        text += (
            f"\n[lines {offset}-{last} of {total}; call read_file with offset={last + 1} "
            "to read on]"
        )
    if cut_lines:
        text += (
            f"\n[{count(cut_lines, 'line')} longer than {MAX_LINE} characters "
            f"{'was' if cut_lines == 1 else 'were'} cut]"
        )
    if undecoded:
        text += (
            f"\n[{shown} is not UTF-8 text: {count(undecoded, 'line')} "
            f"{'has' if undecoded == 1 else 'have'} bytes that do not decode, "
            "shown as \ufffd; edit_file cannot change this file]"
        )
    return ToolResult(text, data={"lines": total}, exact=True)
