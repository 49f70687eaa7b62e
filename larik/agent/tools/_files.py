"""Helpers shared by the file tools: reading text exactly, diffs, and listing project files.

Listing respects .gitignore: inside a git work tree it asks git (``git ls-files -co
--exclude-standard``), elsewhere it walks the tree and honours .gitignore files simply (no
negation).
"""

from __future__ import annotations

import difflib
import fnmatch
import os
import re
import subprocess
from pathlib import Path

from . import ToolError

__all__ = ["glob_regex", "list_files", "read_text", "unified_diff"]


def read_text(path: Path, shown: str) -> str:
    """The file's text with its line endings untouched; a clear error if it is not text."""
    if not path.exists():
        raise ToolError(f"no such file: {shown}")
    if path.is_dir():
        raise ToolError(f"{shown} is a directory")
    data = path.read_bytes()
    if b"\x00" in data[:8192]:
        raise ToolError(f"{shown} is a binary file; it cannot be edited as text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError(f"{shown} is not UTF-8 text; it cannot be edited as text") from None


def unified_diff(old: str, new: str, shown: str, *, created: bool = False) -> str:
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile="/dev/null" if created else f"a/{shown}",
        tofile=f"b/{shown}",
        n=3,
    )
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A glob as a regex over posix paths: ``*`` and ``?`` stay inside one segment, ``**``
    spans any number of segments, ``[…]`` is a character class."""
    i, out = 0, []
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[" and (j := pattern.find("]", i + 2)) != -1:
            body = pattern[i + 1 : j]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append(f"[{body}]")
            i = j + 1
        else:
            out.append(re.escape(c))
            i += 1
    return re.compile("".join(out) + r"\Z")


def list_files(base: Path) -> list[str]:
    """Files under ``base`` (posix paths relative to it), .gitignore respected, .git skipped."""
    listed = _git_files(base)
    return listed if listed is not None else _walk(base)


def _git_files(base: Path) -> list[str] | None:
    try:
        proc = subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard", "-z"],
            cwd=base,
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    names = [n for n in proc.stdout.decode("utf-8", "replace").split("\0") if n]
    return sorted(n for n in names if (base / n).is_file())


class _Ignore:
    """.gitignore rules in force in one directory: (dir of the file, pattern, anchored, dir_only)."""

    def __init__(self, rules: list[tuple[Path, str, bool, bool]]) -> None:
        self.rules = rules

    def extended(self, directory: Path) -> _Ignore:
        gi = directory / ".gitignore"
        if not gi.is_file():
            return self
        new = list(self.rules)
        for raw in gi.read_text(encoding="utf-8", errors="replace").splitlines():
            line = raw.strip()
            if not line or line.startswith(("#", "!")):
                continue
            dir_only = line.endswith("/")
            line = line.rstrip("/")
            anchored = "/" in line
            new.append((directory, line.lstrip("/"), anchored, dir_only))
        return _Ignore(new)

    def ignored(self, path: Path, is_dir: bool) -> bool:
        for where, pat, anchored, dir_only in self.rules:
            if dir_only and not is_dir:
                continue
            if anchored:
                try:
                    rel = path.relative_to(where).as_posix()
                except ValueError:
                    continue
                if glob_regex(pat).match(rel):
                    return True
            elif fnmatch.fnmatchcase(path.name, pat):
                return True
        return False


def _walk(base: Path) -> list[str]:
    out: list[str] = []
    ignores: dict[Path, _Ignore] = {}
    for dirpath, dirnames, filenames in os.walk(base):
        d = Path(dirpath)
        ign = ignores.get(d.parent, _Ignore([])) if d != base else _Ignore([])
        ign = ign.extended(d)
        ignores[d] = ign
        dirnames[:] = sorted(
            n for n in dirnames if n != ".git" and not ign.ignored(d / n, is_dir=True)
        )
        for name in filenames:
            p = d / name
            if not ign.ignored(p, is_dir=False):
                out.append(p.relative_to(base).as_posix())
    return sorted(out)
