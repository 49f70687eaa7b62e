"""``--attempts N``: independent tries of one request from the same starting files.

A small model that passes a task one time in five passes it about half the time in three
tries — if something can tell a passing try from a failing one, and every try starts from the
same files. :class:`Tries` snapshots the project before the first try (a shadow git repository,
:mod:`larik.agent.checkpoints`: the project's own ``.git`` is never touched) and puts the files
back before each next try; each try is a new session with its own transcript; the first try
whose check passes is kept, and the tree is left as that try left it. When none passes, the
tree is as the last try left it. Every try after the first samples at least at
:data:`TRY_TEMPERATURE` where the model's profile sets a temperature (:func:`warm`): tries at a
small model's 0.2 are near copies.

The check of a try (:func:`judge`), in this order:

1. a test command the request names in backticks (```python -m pytest```), run after the try;
2. else the tests the model (or the edit workflow) ran itself after its last edit (the turn's
   ``verify`` data, :mod:`larik.agent.verify`);
3. else pytest on the project when it has test files, run after the try;
4. else nothing can tell: the try is *unchecked*, which is not a pass;

and then the request's own examples (:mod:`larik.agent.examples`: the doctests of a file it
names, a command with the value it should print), unless the check above failed: on a task
whose tests passed before any change, they are what tells one try from another.

A command the check runs goes through the session's tool runner as a user's call: the same
permission policy and sandbox as the model's own ``bash`` (denied with nobody to ask in
``ask`` mode: then the try is unchecked).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .core import Session

__all__ = ["TRY_TEMPERATURE", "Attempt", "Tries", "judge", "warm"]

#: the least temperature of every try after the first, for a model whose profile sets one (a
#: small model's 0.2): at 0.2 the 1.5B model's three tries were near copies (docs/bench.md)
TRY_TEMPERATURE = 0.7


@dataclass
class Attempt:
    """One try: how it ended and what its check said."""

    n: int
    session_id: str = ""
    transcript: str = ""
    stop: str = ""
    passed: bool | None = None  # None: nothing could check it
    check: str = ""  # what checked it, in words
    files: list[str] = field(default_factory=list)  # changed by this try

    def line(self, of: int) -> str:
        """One line for the user (stderr): ``try 2 of 3: passed (`pytest -q`)``."""
        verdict = {True: "passed", False: "failed", None: "unchecked"}[self.passed]
        how = f" ({self.check})" if self.check else ""
        return f"try {self.n} of {of}: {verdict}{how}; ended {self.stop or 'without a reason'}"

    def to_json(self) -> dict[str, Any]:
        return {
            "try": self.n,
            "session_id": self.session_id,
            "transcript": self.transcript,
            "stop_reason": self.stop,
            "passed": self.passed,
            "check": self.check,
            "files": self.files,
        }


class Tries:
    """The files as they were before the first try, and putting them back.

    ``git_dir``: where the snapshot is kept (bench: a folder thrown away with the run); by
    default the project's checkpoint store, as ``/undo`` uses."""

    def __init__(self, root: Path, git_dir: Path | None = None) -> None:
        from ..agent.checkpoints import ShadowRepo

        self.root = root
        self.repo = ShadowRepo(root, git_dir) if git_dir else ShadowRepo.for_project(root)
        self.start = self.repo.snapshot()

    def changed(self) -> list[str]:
        """The files that differ from the start now."""
        from ..agent.checkpoints import show

        return [show(p) for p in self.repo.changed(self.start.tree, self.repo.snapshot().tree)]

    def reset(self) -> None:
        """Every file as it was at the start (a file a try made is removed)."""
        from ..agent.checkpoints import Step

        current = self.repo.snapshot()
        plan = self.repo.plan([Step(self.start.tree, current.tree)], current)
        self.repo.apply(plan, overwrite=True)

    async def areset(self) -> None:
        await asyncio.to_thread(self.reset)

    async def achanged(self) -> list[str]:
        return await asyncio.to_thread(self.changed)


def warm(session: Session, n: int) -> None:
    """Try ``n``'s sampling: the profile's own for the first, at least :data:`TRY_TEMPERATURE`
    after it (a model whose profile sends no temperature keeps its provider's default)."""
    agent = session.agent
    if n > 1 and agent is not None:
        agent.warmer = TRY_TEMPERATURE


async def judge(
    session: Session, request: str, verify: dict[str, Any] | None
) -> tuple[bool | None, str]:
    """(passed, how) for the try ``session`` just made on ``request``; ``verify``: its
    turn's ``data["verify"]`` (None when the turn recorded none)."""
    passed, how = await _tests(session, request, verify)
    if passed is False:
        return passed, how
    agent = session.agent
    denied = (lambda p: agent.path_denied("read_file", p)) if agent is not None else None
    for check in await asyncio.to_thread(_examples, request, Path(session.cwd), denied):
        ok, said = await _run_check(session, check.command, check.expect)
        if ok is None:
            continue  # could not run: it tells nothing
        if not ok:
            return False, said
        passed, how = True, f"{how} and {said}" if how else said
    return passed, how


async def _tests(
    session: Session, request: str, verify: dict[str, Any] | None
) -> tuple[bool | None, str]:
    from ..agent.edit_context import Found, check_command
    from ..agent.tools._files import list_files

    named = check_command(request, Found())  # only a command the request names
    if named:
        return await _run_check(session, named)
    if verify and verify.get("command") and verify.get("after_last_edit"):
        return bool(verify.get("passed")), f"the model's own `{verify['command']}`"
    listing = await asyncio.to_thread(list_files, Path(session.cwd))
    fallback = check_command("", Found(listing=listing))
    if fallback:
        return await _run_check(session, fallback)
    return None, ""


def _examples(request: str, root: Path, denied: Any = None) -> list[Any]:
    """The request's own examples as checks, from the files it names that read_file could
    show (``denied``: the session's read_file deny rules)."""
    from ..agent.edit_context import gather
    from ..agent.examples import doctest_files, example_checks

    found = gather(root, request, budget_chars=0, denied=denied)  # the named files, any budget
    return example_checks(request, doctest_files(found.named, dict(found.files)))


async def _run_check(
    session: Session, command: str, expect: tuple[str, ...] = ()
) -> tuple[bool | None, str]:
    from ..agent.examples import missing

    agent = session.agent
    if agent is None:
        return None, ""
    result = await agent.tool_runner.run_tool("bash", {"command": command})
    code = result.data.get("exit_code")
    if result.data.get("denied") or not isinstance(code, int):
        first = result.content.splitlines()[0] if result.content else "it did not run"
        return None, f"`{command}` could not run: {first}"
    if code == 0 and expect:
        lost = missing(expect, result.content)
        if lost:
            return False, f"`{command}` (does not print {', '.join(lost)})"
        return True, f"`{command}` (prints {', '.join(expect)})"
    return code == 0, f"`{command}`"
