"""``SessionLog``: what the agent writes to its session's transcript, and when.

A new session's file is created at the first record (an agent that never ran leaves none);
a resumed session appends to the transcript it reopened; a subagent (no path) writes nothing,
its parent records its usage and notices for it. A model switch before the first message is
not recorded: the header names the model the file starts with.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..llm.types import Message
from .sessions import find_session, latest_session
from .transcript import Transcript, TranscriptError

__all__ = ["SessionLog", "session_path"]


class SessionLog:
    def __init__(
        self,
        path: Path | None,
        *,
        root: Path,
        session_id: str,
        model: Callable[[], str],
        transcript: Transcript | None = None,
    ) -> None:
        """``model()``: the spec a new file's header names; ``transcript``: one reopened."""
        self.path = path or Path(os.devnull)
        self._persist = path is not None
        self._root, self._session_id, self._model = root, session_id, model
        self._transcript = transcript

    def _open(self) -> Transcript | None:
        if self._transcript is None and self._persist:
            self._transcript = Transcript.create(
                self.path, cwd=self._root, session_id=self._session_id, model=self._model()
            )
        return self._transcript

    def message(self, msg: Message, harness: bool = False) -> None:
        t = self._open()
        if t is not None:
            t.append_message(msg, harness)

    def record(self, record: dict[str, Any]) -> None:
        if self._transcript is None and record.get("kind") == "model_switch":
            return  # before the first message the header records the model
        t = self._open()
        if t is not None:
            t.append(record)

    def close(self) -> None:
        if self._transcript is not None:
            self._transcript.close()


def session_path(root: Path, resume: str) -> Path:
    """The transcript ``resume`` names: "latest" (the project's newest), else a session id."""
    if resume == "latest":
        info = latest_session(root)
        if info is None:
            raise TranscriptError("no earlier session in this project to continue")
        return info.path
    return find_session(root, resume)
