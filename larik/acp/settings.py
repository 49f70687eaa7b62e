"""``larik acp``'s own options, light to import (the command line builds them before the SDK
is imported): they apply to every session the client opens."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["AcpOptions", "check"]


@dataclass
class AcpOptions:
    model: str = ""  # -m: the model every session starts on ("" the config's)
    permission_mode: str | None = None  # --permission-mode: None the config's
    trust_project: bool = False  # --trust-project: a project's gated settings apply unasked


def check(opts: AcpOptions) -> str:
    """What is wrong with ``opts`` ("" when nothing): said on stderr, exit code 2."""
    from ..session.commands import MODES

    mode = opts.permission_mode
    if mode is not None and mode not in MODES:
        return f"larik acp: unknown permission mode {mode!r}: use {', '.join(MODES)}"
    return ""
