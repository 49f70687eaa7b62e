"""grep(pattern, path?, glob?): search file contents by regex; ripgrep when on PATH.

Without ripgrep a Python fallback searches the files ``glob`` would list (.gitignore respected,
binary files skipped). Output is ``path:line:text``, capped.
"""

from __future__ import annotations

import asyncio
import re
import shutil
from pathlib import Path

from pydantic import Field

from . import ToolArgs, ToolContext, ToolError, ToolResult
from ._files import glob_regex, list_files

NAME = "grep"
KIND = "read"
PATH_TARGET = True
DESCRIPTION = (
    "Search file contents with a regular expression. Returns matching lines as "
    "`path:line:text`. `path` is a file or directory (default: the project root); `glob` "
    "limits the files searched, e.g. `*.py`. Files ignored by .gitignore are skipped."
)
MAX_MATCHES = 200
MAX_LINE = 300


class Args(ToolArgs):
    pattern: str = Field(description="Regular expression (Rust/Python syntax).")
    path: str = Field(".", description="File or directory to search (default: project root).")
    glob: str = Field("", description="Only search files matching this glob, e.g. *.py")


def target(args: Args) -> str:
    return args.path


def summary(args: Args) -> str:
    where = "" if args.path == "." else f" in {args.path}"
    return f"/{args.pattern}/{where}" + (f" ({args.glob})" if args.glob else "")


async def run(args: Args, ctx: ToolContext) -> ToolResult:
    base = ctx.path(args.path)
    if not base.exists():
        raise ToolError(f"no such file or directory: {ctx.show(base)}")
    try:
        rx = re.compile(args.pattern)
    except re.error as e:
        raise ToolError(f"invalid regular expression: {e}") from None
    rg = shutil.which("rg")
    if rg:
        lines = await _ripgrep(rg, args, base, ctx)
    else:
        lines = await asyncio.to_thread(_python_grep, rx, args.glob, base, ctx)
    if not lines:
        return ToolResult(f"no matches for /{args.pattern}/")
    text = "\n".join(lines[:MAX_MATCHES])
    if len(lines) > MAX_MATCHES:
        text += f"\n[more than {MAX_MATCHES} matches; narrow the pattern, path or glob]"
    return ToolResult(text, data={"engine": "rg" if rg else "python"})


async def _ripgrep(rg: str, args: Args, base: Path, ctx: ToolContext) -> list[str]:
    cmd = [rg, "--line-number", "--no-heading", "--color", "never", "--with-filename"]
    cmd += ["--max-columns", str(MAX_LINE), "--max-columns-preview"]
    if args.glob:
        cmd += ["--glob", args.glob]
    cmd += ["-e", args.pattern, "--", ctx.show(base)]
    proc = await asyncio.create_subprocess_exec(
        *cmd,
        cwd=ctx.root,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        stdin=asyncio.subprocess.DEVNULL,
    )
    out, err = await proc.communicate()
    if proc.returncode not in (0, 1):
        raise ToolError("ripgrep failed: " + err.decode("utf-8", "replace").strip()[:300])
    lines = out.decode("utf-8", "replace").splitlines()
    return [ln.removeprefix("./") for ln in lines[: MAX_MATCHES + 1]]


def _python_grep(rx: re.Pattern[str], glob: str, base: Path, ctx: ToolContext) -> list[str]:
    if base.is_file():
        files, root = [base.name], base.parent
    else:
        files, root = list_files(base), base
    grx = glob_regex(glob) if glob else None
    out: list[str] = []
    for rel in files:
        if grx and not (grx.match(rel) or grx.match(rel.rsplit("/", 1)[-1])):
            continue
        path = root / rel
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if b"\x00" in data[:8192]:
            continue
        shown = ctx.show(path)
        for n, line in enumerate(data.decode("utf-8", "replace").splitlines(), start=1):
            if rx.search(line):
                cut = line if len(line) <= MAX_LINE else line[:MAX_LINE] + " …"
                out.append(f"{shown}:{n}:{cut}")
                if len(out) > MAX_MATCHES:
                    return out
    return out
