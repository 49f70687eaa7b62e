"""The verify step that costs nothing: what the turn's own tool calls say about its edits.

No extra model call and no extra command: the agent taps the turn's ``tool_end`` events
(:meth:`TurnCheck.observe`) and, when the model ends a turn in which it changed files
(``write_file``, ``edit_file``), says what it knows (:meth:`TurnCheck.finish`):

* a test command (``TEST_COMMAND``: pytest, tox, ``npm test``, ``go test``, ``cargo test``,
  ``make test``, …) ran after the last edit: the final answer gets a line naming the command and
  whether it passed (``[checked: `pytest -q` passed after the last edit]``);
* a test command ran, but before the last edit: the line says the edit was not checked since;
* nothing at all was run: a notice names the files changed and says nothing checked them
  (``changed calc.py and ran nothing to check them``).

``turn_end``'s ``data["verify"]`` holds the same facts for front ends and bench.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..words import count
from .events import AgentEvent, AgentEventType
from .tools import write_tools

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

__all__ = ["TEST_COMMAND", "TurnCheck", "named_files"]

E = AgentEventType

#: a command that runs a project's tests, anywhere in a (compound) bash command
TEST_COMMAND = re.compile(
    r"(?:^|[\s;&|(])(?:python3?\s+-m\s+)?(?:pytest|py\.test|tox|nox|unittest"
    r"|(?:npm|yarn|pnpm|bun)\s+(?:run\s+)?test|go\s+test|cargo\s+(?:test|nextest)"
    r"|make\s+(?:test|check)|ctest|mvn\s+test|(?:\./)?gradlew?\s+test|rspec|phpunit|jest"
    r"|vitest|mix\s+test|dotnet\s+test|deno\s+test)(?![\w.-])"
)
_SHOWN = 60
NAMED = 3  # files named in "changed … and ran nothing"; past that, how many and the first three


def named_files(paths: list[str], most: int = NAMED) -> str:
    """``app.py``, ``app.py and lib.py``, ``5 files (app.py, lib.py, x.py, …)``: the files a
    turn changed, by name (each cut to ``_SHOWN`` characters at its start, its name kept)."""
    names = [p if len(p) <= _SHOWN else "…" + p[-(_SHOWN - 1) :] for p in paths]
    if len(names) == 1:
        return names[0]
    if len(names) <= most:
        return ", ".join(names[:-1]) + f" and {names[-1]}"
    return f"{count(len(names), 'file')} ({', '.join(names[:most])}, …)"


@dataclass
class _Run:
    command: str
    exit_code: int
    step: int


@dataclass
class TurnCheck:
    edited: list[str] = field(default_factory=list)
    last_edit: int = -1
    test: _Run | None = None
    ran: bool = False
    step: int = 0

    def observe(self, ev: AgentEvent) -> None:
        if ev.type is not E.TOOL_END or ev.is_error:
            return
        self.step += 1
        if ev.tool_name in write_tools():
            path = str(ev.tool_input.get("path", ""))
            if path not in self.edited:
                self.edited.append(path)
            self.last_edit = self.step
        elif ev.tool_name == "bash":
            self.ran = True
            command = " ".join(str(ev.tool_input.get("command", "")).split())
            code = ev.data.get("exit_code")
            if TEST_COMMAND.search(command) and isinstance(code, int):
                self.test = _Run(command, code, self.step)

    def tap(self, emit: Callable[[AgentEvent], None]) -> Callable[[AgentEvent], None]:
        """``emit`` that shows every event to :meth:`observe` first."""

        def tapped(ev: AgentEvent) -> None:
            self.observe(ev)
            emit(ev)

        return tapped

    def finish(self, over: Any, notice: Callable[..., AgentEvent]) -> Iterator[AgentEvent]:
        """At the end of a turn the model finished (``over``: its ``stop``, ``text`` and
        ``data``): the text gains a line when a test command says something about the edits,
        ``data["verify"]`` the facts, and a warning notice (made by ``notice``) says it."""
        if over.stop != "end_turn":
            return
        over.text, note = self._report(over.text, over.data)
        if note:  # a warning when nothing checked the change; the text has the rest
            yield notice(note, warn=not note.startswith("["))

    def _report(self, text: str, data: dict[str, Any]) -> tuple[str, str]:
        if not self.edited:
            return text, ""
        if self.test is None:
            data["verify"] = {"edited": self.edited, "command": None, "ran_anything": self.ran}
            if self.ran:
                return text, ""
            return text, f"changed {named_files(self.edited)} and ran nothing to check them"
        run = self.test
        shown = run.command if len(run.command) <= _SHOWN else run.command[: _SHOWN - 1] + "…"
        after = run.step > self.last_edit
        data["verify"] = {
            "edited": self.edited,
            "command": run.command,
            "exit_code": run.exit_code,
            "passed": run.exit_code == 0,
            "after_last_edit": after,
        }
        if after:
            result = "passed" if run.exit_code == 0 else f"failed (exit code {run.exit_code})"
            line = f"[checked: `{shown}` {result} after the last edit]"
        else:
            line = f"[not checked since the last edit: `{shown}` last ran before it]"
        return (f"{text.rstrip()}\n\n{line}" if text.strip() else line), line
