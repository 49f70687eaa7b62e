"""read_file(path, offset?, limit?): a text file with line numbers, paged; images as image blocks.

Binary files are refused with a clear message; long lines are cut; a long file comes back one page
at a time with a note saying how to read the next page.
"""

from __future__ import annotations

import base64
import os

from pydantic import Field

from ...llm.types import Block
from . import ToolArgs, ToolContext, ToolError, ToolResult

NAME = "read_file"
KIND = "read"
PATH_TARGET = True
DESCRIPTION = (
    "Read a file. Text comes back with line numbers (like `cat -n`), at most `limit` lines "
    "starting at line `offset` (1-based); a note says how to read more. Images (png, jpeg, gif, "
    "webp) come back as images. Binary files are refused."
)

DEFAULT_LIMIT = 2000
MAX_LINE = 2000  # characters kept of one line
MAX_CHARS = 100_000  # characters of one page
MAX_IMAGE = 5 * 1024 * 1024
SNIFF = 8192

IMAGE_TYPES = {
    b"\x89PNG\r\n\x1a\n": "image/png",
    b"\xff\xd8\xff": "image/jpeg",
    b"GIF87a": "image/gif",
    b"GIF89a": "image/gif",
}


class Args(ToolArgs):
    path: str = Field(description="File path, relative to the project root or absolute.")
    offset: int = Field(1, ge=1, description="First line to show (1-based).")
    limit: int = Field(DEFAULT_LIMIT, ge=1, description="How many lines to show at most.")


def target(args: Args) -> str:
    return args.path


def summary(args: Args) -> str:
    if args.offset > 1 or args.limit != DEFAULT_LIMIT:
        return f"{args.path} (from line {args.offset}, {args.limit} lines)"
    return args.path


def image_type(head: bytes) -> str | None:
    for magic, media in IMAGE_TYPES.items():
        if head.startswith(magic):
            return media
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def looks_binary(head: bytes) -> bool:
    if b"\x00" in head:
        return True
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as e:
        return e.start < len(head) - 4  # a multi-byte character cut at the sniff boundary is fine
    return False


async def run(args: Args, ctx: ToolContext) -> ToolResult:
    path = ctx.path(args.path)
    shown = ctx.show(path)
    if not path.exists():
        raise ToolError(f"no such file: {shown}")
    if path.is_dir():
        raise ToolError(f"{shown} is a directory; use glob to list files")
    size = path.stat().st_size
    with open(path, "rb") as fh:
        head = fh.read(SNIFF)
    media = image_type(head)
    if media:
        if size > MAX_IMAGE:
            raise ToolError(f"{shown} is an image of {size:,} bytes; the limit is {MAX_IMAGE:,}")
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        return ToolResult(
            f"{shown}: {media} image, {size:,} bytes (attached)",
            images=[Block.image(media, data)],
        )
    if looks_binary(head):
        raise ToolError(
            f"{shown} is a binary file ({size:,} bytes); read_file shows only text and images"
        )
    return _page(path, shown, args.offset, args.limit)


def _page(path: os.PathLike[str], shown: str, offset: int, limit: int) -> ToolResult:
    out: list[str] = []
    chars = 0
    total = 0
    last = offset - 1
    cut_lines = 0
    full = False
    with open(path, encoding="utf-8", errors="replace", newline=None) as fh:
        for n, line in enumerate(fh, start=1):
            total = n
            if n < offset or full:
                continue
            line = line.rstrip("\n")
            if len(line) > MAX_LINE:
                line = line[:MAX_LINE] + " … [line cut]"
                cut_lines += 1
            row = f"{n:>6}\t{line}"
            if len(out) >= limit or chars + len(row) > MAX_CHARS:
                full = True
                continue
            out.append(row)
            chars += len(row) + 1
            last = n
    if total == 0:
        return ToolResult(f"{shown} is empty")
    if offset > total:
        raise ToolError(f"{shown} has {total} lines; offset {offset} is past the end")
    text = "\n".join(out)
    if last < total:
        text += (
            f"\n[lines {offset}-{last} of {total}; call read_file with offset={last + 1} "
            "to read on]"
        )
    if cut_lines:
        text += f"\n[{cut_lines} line(s) longer than {MAX_LINE} characters were cut]"
    return ToolResult(text, data={"lines": total})
