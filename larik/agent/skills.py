"""Skills: folders of instructions the model loads when a task needs them (the open Agent
Skills format, as Claude Code, Codex and others read it).

A skill is a folder with a ``SKILL.md`` whose front matter gives its ``name`` and
``description``; the body is the instructions, and the folder may hold more files (scripts,
references). Where they are found, in this order — the first skill of a name wins, so a
repository cannot replace one of yours:

1. yours: ``skills/`` beside your Larik config, then Claude Code's ``~/.claude/skills/``;
2. the project's: ``.larik/skills/``, ``.agents/skills/``, ``.claude/skills/`` (the nearest
   of each from the working directory up to the git root).

Only names and descriptions go into the system prompt (:func:`larik.agent.prompt.skills_section`);
the model loads a skill's body, lists its files and reads them with the ``skill`` tool
(``tools/skill.py``). Discovery reads the front matter only (at most :data:`MAX_HEAD` bytes of
each ``SKILL.md``), once per session, when the agent is built.

A project's skill is text, like any file of the project: it loads in an untrusted project too.
What is refused, with a one-line notice naming the file: a project skill folder (or its
``SKILL.md``) that leads outside the project through a symlink, a ``SKILL.md`` that is not a
regular text file, one a ``permissions.deny`` rule for ``read_file`` covers, front matter that
cannot be read, a name that is not a plain word, a missing description. Descriptions are made one line (control characters dropped) and cut at 1,024
characters; at most :data:`MAX_LISTED` skills are listed.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .. import frontmatter
from ..paths import shown

__all__ = ["MAX_LISTED", "Skill", "SkillCatalog", "discover_skills", "skill_folders"]

SKILL_FILE = "SKILL.md"
PROJECT_FOLDERS = (".larik/skills", ".agents/skills", ".claude/skills")
MAX_HEAD = 64 * 1024  # bytes of SKILL.md read to find its front matter
MAX_DESCRIPTION = 1024  # the Agent Skills limit
MAX_LISTED = 100  # skills listed in the system prompt
MAX_FOLDERS = 1000  # entries of one skills folder looked at
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
PathDenied = Callable[[str, Path], bool]  # PermissionPolicy.denies_path: (tool, path) -> bool


@dataclass(frozen=True, slots=True)
class Skill:
    name: str
    description: str
    folder: Path  # resolved
    scope: str  # "user" or "project"
    where: str  # the skills folder it came from, as shown to the user

    @property
    def skill_md(self) -> Path:
        return self.folder / SKILL_FILE


@dataclass(frozen=True)
class SkillCatalog:
    skills: tuple[Skill, ...] = ()
    problems: tuple[str, ...] = ()
    unlisted: int = 0  # found beyond MAX_LISTED

    def get(self, name: str) -> Skill | None:
        key = name.strip().lower()
        return next((s for s in self.skills if s.name.lower() == key), None)

    def names(self) -> list[str]:
        return [s.name for s in self.skills]

    def __bool__(self) -> bool:
        return bool(self.skills)


@dataclass
class _Found:
    skills: list[Skill] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    seen: dict[str, Skill] = field(default_factory=dict)


def skill_folders(root: Path) -> list[tuple[Path, str, Path | None]]:
    """The folders skills are read from, in order: ``(folder, scope, project)``; ``project``
    is the folder a project skill must stay inside (None for yours)."""
    from ..config import claude_home, project_folder, user_config_path

    out: list[tuple[Path, str, Path | None]] = [
        (user_config_path().parent / "skills", "user", None),
        (claude_home() / "skills", "user", None),
    ]
    for rel in PROJECT_FOLDERS:
        found = project_folder(root, rel)
        if found is not None:
            out.append((found, "project", found.parent.parent.resolve()))
    return out


def discover_skills(root: Path, denied: PathDenied | None = None) -> SkillCatalog:
    """Every skill a session in ``root`` can use (see the module's docstring); ``denied``:
    the session's deny-rule check (:meth:`PermissionPolicy.denies_path`)."""
    found = _Found()
    done: set[Path] = set()
    for folder, scope, project in skill_folders(root):
        try:
            real = folder.resolve()
        except (OSError, RuntimeError):
            continue
        if real in done or not real.is_dir():
            continue
        done.add(real)
        _scan(folder, scope, project, found, denied)
    listed = found.skills[:MAX_LISTED]
    return SkillCatalog(tuple(listed), tuple(found.problems), len(found.skills) - len(listed))


def _scan(
    folder: Path, scope: str, project: Path | None, found: _Found, denied: PathDenied | None
) -> None:
    try:
        entries = sorted(os.listdir(folder))[:MAX_FOLDERS]
    except OSError:
        return
    for entry in entries:
        if entry.startswith("."):
            continue
        where = shown(str(folder / entry))
        try:
            skill = _read_skill(folder / entry, scope, project, where, denied)
        except _Refused as e:
            found.problems.append(f"skill {where}: {e}")
            continue
        if skill is None:
            continue
        first = found.seen.get(skill.name.lower())
        if first is not None:
            found.problems.append(
                f"skill {where}: the name {skill.name!r} is taken by {first.where}; not loaded"
            )
            continue
        found.seen[skill.name.lower()] = skill
        found.skills.append(skill)


class _Refused(Exception):
    pass


def _read_skill(
    path: Path, scope: str, project: Path | None, where: str, denied: PathDenied | None
) -> Skill | None:
    """The skill in folder ``path``; None when it is no skill folder (no SKILL.md)."""
    try:
        if not path.is_dir() or not (path / SKILL_FILE).exists():
            return None
        real = path.resolve()
        md = (path / SKILL_FILE).resolve()
    except (OSError, RuntimeError) as e:
        raise _Refused(f"cannot read it ({e})") from None
    if project is not None and not (real.is_relative_to(project) and md.is_relative_to(project)):
        raise _Refused("leads outside the project (a symlink); not loaded")
    if not md.is_relative_to(real):
        raise _Refused(f"its {SKILL_FILE} leads outside the skill's folder; not loaded")
    if denied is not None and denied("read_file", path / SKILL_FILE):
        raise _Refused(f"a permissions.deny rule covers its {SKILL_FILE}; not loaded")
    doc = frontmatter.parse(_head(md))
    if doc.problem or not doc.has_front_matter:
        raise _Refused(f"{doc.problem or 'no front matter (name, description)'}; not loaded")
    name = frontmatter.text(doc, "name") or path.name
    if not _NAME.match(name):
        raise _Refused(
            f"name {frontmatter.one_line(name, 40)!r} is not a plain word (letters, digits, "
            "- _ .); not loaded"
        )
    description = frontmatter.one_line(frontmatter.text(doc, "description"), MAX_DESCRIPTION)
    if not description:
        raise _Refused("no description in its front matter; not loaded")
    return Skill(name, description, real, scope, where)


def _head(path: Path) -> str:
    """The start of ``path`` as text: a regular UTF-8 file only (a FIFO is never opened)."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise _Refused(f"{SKILL_FILE} is not a regular file; not loaded")
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                raise _Refused(f"{SKILL_FILE} is not a regular file; not loaded")
            data = fh.read(MAX_HEAD)
    except OSError as e:
        raise _Refused(f"cannot read {SKILL_FILE} ({e.strerror or e})") from None
    if b"\0" in data:
        raise _Refused(f"{SKILL_FILE} is a binary file; not loaded")
    return data.decode("utf-8", errors="replace")
