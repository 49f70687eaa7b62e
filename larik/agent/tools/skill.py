"""skill(name, file?): load a skill listed in the system prompt (``larik/agent/skills.py``).

Without ``file`` it returns the skill's instructions (its ``SKILL.md`` without the front
matter), the folder it lives in and the files beside it; with ``file`` one of those files
(a path relative to the skill's folder). Reads stay inside the skill's folder (``..`` and
symlinks resolved first), honour ``permissions.deny`` (rules for ``read_file`` and for
``skill``), and take regular text files only; a long file is cut at :data:`MAX_CHARS`.
A permission rule names a skill as ``skill: NAME``.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from pydantic import Field

from . import ToolArgs, ToolContext, ToolError, ToolResult
from ._files import open_regular

NAME = "skill"
KIND = "read"
DESCRIPTION = (
    "Load a skill listed under Skills in the system prompt: its instructions and the list of "
    "files beside them. When a task matches a skill's description, load it before starting "
    "and follow it. To read one of the skill's files, pass its path (relative to the skill's "
    "folder) as `file`."
)

MAX_CHARS = 100_000  # characters of one file returned
MAX_FILES = 200  # files listed
MAX_DEPTH = 4


class Args(ToolArgs):
    name: str = Field(description="The skill's name, as listed.")
    file: str = Field("", description="A file of the skill, relative to its folder.")


def target(args: Args) -> str:
    return args.name


def summary(args: Args) -> str:
    return f"{args.name}: {args.file}" if args.file else args.name


async def run(args: Args, ctx: ToolContext) -> ToolResult:
    catalog = ctx.skills
    skill = catalog.get(args.name) if catalog is not None else None
    if skill is None:
        names = ", ".join(catalog.names()) if catalog else ""
        raise ToolError(
            f"no skill named {args.name!r}" + (f"; the skills are: {names}" if names else "")
        )
    if not args.file:
        return await asyncio.to_thread(_load, skill.folder, skill.name, ctx)
    return await asyncio.to_thread(_read_file, skill.folder, skill.name, args.file, ctx)


def _load(folder: Path, name: str, ctx: ToolContext) -> ToolResult:
    from ... import frontmatter

    body = frontmatter.parse(_text(folder / "SKILL.md", f"{name}/SKILL.md", ctx)).body.strip()
    files = [f for f in _files(folder, ctx) if f != "SKILL.md"]
    out = [f"Skill {name} (folder: {folder})", "", body]
    if files:
        out += ["", f"Files in the skill's folder (read one with skill(name={name!r}, file=…)):"]
        out += [f"- {f}" for f in files[:MAX_FILES]]
        if len(files) > MAX_FILES:
            out.append(f"- … and {len(files) - MAX_FILES} more")
    return ToolResult("\n".join(out), data={"skill": name})


def _read_file(folder: Path, name: str, raw: str, ctx: ToolContext) -> ToolResult:
    path = (folder / raw).resolve()
    if not path.is_relative_to(folder) or path == folder:
        raise ToolError(f"{raw} is not a file of the skill {name} (paths stay in its folder)")
    text = _text(path, f"{name}/{raw}", ctx)
    return ToolResult(text, data={"skill": name, "file": raw})


def _text(path: Path, shown: str, ctx: ToolContext) -> str:
    if ctx.denied("read_file", path) or ctx.denied(NAME, path):
        raise ToolError(f"permission denied: {shown} is covered by a permissions.deny rule")
    with open_regular(path, shown) as fh:
        data = fh.read(MAX_CHARS * 4 + 1)
    if b"\0" in data[:8192]:
        raise ToolError(f"{shown} is a binary file; skill reads only text")
    text = data.decode("utf-8", errors="replace")
    if len(data) > MAX_CHARS * 4 or len(text) > MAX_CHARS:
        text = text[:MAX_CHARS] + f"\n[{shown} cut at {MAX_CHARS:,} characters]"
    return text


def _files(folder: Path, ctx: ToolContext) -> list[str]:
    """The skill's regular files (relative paths), links that lead out of its folder and
    files a deny rule covers left out; hidden entries skipped; symlinked folders not entered."""
    out: list[str] = []
    stack: list[tuple[Path, int]] = [(folder, 0)]
    while stack and len(out) <= MAX_FILES:
        current, depth = stack.pop()
        try:
            entries = sorted(os.scandir(current), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            path = Path(entry.path)
            try:
                if entry.is_dir(follow_symlinks=False):
                    if depth + 1 < MAX_DEPTH:
                        stack.append((path, depth + 1))
                    continue
                real = path.resolve()
                if not real.is_relative_to(folder) or not real.is_file():
                    continue
            except OSError:
                continue
            if ctx.denied("read_file", path) or ctx.denied(NAME, path):
                continue
            out.append(path.relative_to(folder).as_posix())
    return sorted(out)
