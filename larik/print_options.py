"""Print mode's command line: its options, their checks (bad usage is exit code 2) and the
prompt read as text — ``-p -`` reads it from stdin as bytes; bytes that are not UTF-8 (a
Latin-1 file in ``git diff``) are kept as ``\\xNN`` escapes and a warning says how many.

:mod:`larik.printmode` runs what :func:`check` let through.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import IO

from .llm.effort import Effort
from .llm.errors import ConfigError, LarikError
from .words import count

__all__ = ["OUTPUT_FORMATS", "PrintOptions", "UsageError", "check", "utf8_text"]

OUTPUT_FORMATS = ("text", "json", "stream-json")


class UsageError(LarikError):
    """Bad command-line usage (exit code 2)."""


@dataclass
class PrintOptions:
    prompt: str
    cwd: Path
    model: str = ""
    effort: str | None = None
    permission_mode: str | None = None
    max_turns: int | None = None
    max_budget_usd: float | None = None  # --max-budget-usd: the session's budget (budget.py)
    attempts: int = 1  # --attempts: independent tries from the same files (session/attempts.py)
    output_format: str = "text"
    resume: str | None = None  # None: new session; "latest"; or a session id
    trust_project: bool = False  # --trust-project: apply the project's loosening settings
    verbose: bool = False  # --verbose: progress on stderr even when it is not a terminal


def check(opts: PrintOptions, stdin: IO[str], err: IO[str]) -> str:
    """The prompt to run, once ``opts`` are good usage (else :class:`UsageError`); a warning
    on ``err`` counts the prompt's bytes that were not UTF-8."""
    if opts.output_format not in OUTPUT_FORMATS:
        raise UsageError(
            f"unknown output format {opts.output_format!r}: use {', '.join(OUTPUT_FORMATS)}"
        )
    if opts.effort is not None:
        try:
            Effort.parse(opts.effort)
        except ConfigError as e:
            raise UsageError(str(e)) from None
    if opts.max_turns is not None and opts.max_turns < 1:
        raise UsageError("--max-turns must be at least 1")
    if opts.max_budget_usd is not None and not opts.max_budget_usd > 0:
        raise UsageError("--max-budget-usd must be more than 0 (USD)")
    if opts.attempts < 1:
        raise UsageError("--attempts must be at least 1")
    if opts.attempts > 1 and opts.resume is not None:
        raise UsageError(
            "--attempts starts every try from the same files in a new session; it does not "
            "go with --continue or --resume"
        )
    if opts.resume == "":
        raise UsageError(
            "--resume needs a session id in print mode: use --continue (-c) for the latest "
            "session, or run `larik --resume` to list them"
        )
    wide = "" if opts.trust_project else _wide_root(opts.cwd)
    if wide:
        raise UsageError(f"{wide} (or pass --trust-project to work here all the same)")
    if opts.prompt == "-":
        buffer = getattr(stdin, "buffer", None)  # bytes: the pipe's encoding is not ours to guess
        prompt, bad = utf8_text(buffer.read() if buffer is not None else stdin.read())
    else:
        prompt, bad = utf8_text(opts.prompt)
    if not prompt.strip():
        raise UsageError("no prompt: pass -p PROMPT, or -p - to read it from stdin")
    if bad:
        print(
            f"larik: warning: the prompt is not valid UTF-8: {count(bad, 'byte')} "
            "kept as \\xNN escapes",
            file=err,
        )
    return prompt


def _wide_root(cwd: Path) -> str:
    from .paths import wide_root, wide_root_line

    what = wide_root(cwd)
    return wide_root_line(cwd.resolve(), what) if what else ""


def utf8_text(value: str | bytes) -> tuple[str, int]:
    """``value`` as text every provider and the transcript accept, and how many bytes of it
    were not UTF-8. Those bytes (in ``str``: the surrogate escapes Python makes of them in argv
    and stdin) become ``\\xNN`` escapes: the model still sees what was there."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value, 0
        except UnicodeEncodeError:
            try:
                raw = value.encode("utf-8", "surrogateescape")
            except UnicodeEncodeError:  # a lone surrogate that is no escaped byte
                raw = value.encode("utf-8", "surrogatepass")
    else:
        raw = value
    try:
        return raw.decode("utf-8"), 0
    except UnicodeDecodeError:
        text = raw.decode("utf-8", "backslashreplace")
        return text, len(raw) - len(raw.decode("utf-8", "ignore").encode("utf-8"))
