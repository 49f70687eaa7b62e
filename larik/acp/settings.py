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
    from ..llm.errors import ConfigError
    from ..modes import parse_mode

    if opts.permission_mode is not None:
        try:
            parse_mode(opts.permission_mode)
        except ConfigError as e:
            return f"larik acp: {e}"
    return ""
