"""The tables of what the agent may do and how far it goes: ``[permissions]``, ``[sandbox]``,
``[budget]``, ``[jobs]``, ``[web_fetch]``, ``[stuck]`` and ``[lsp]``; and :class:`Strict`, the
base of every table (an unknown key is an error; each field's docstring is its line in
docs/configuration.md). :mod:`.schema`'s ``Config`` holds one of each.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..modes import Mode

__all__ = [
    "BudgetConfig",
    "JobsConfig",
    "LspConfig",
    "LspServerConfig",
    "PermissionsConfig",
    "SandboxConfig",
    "Strict",
    "StuckConfig",
    "WebFetchConfig",
    "check_rule_text",
]


class Strict(BaseModel):
    """A table of the config: an unknown key is an error, as is a NaN or an infinity."""

    model_config = ConfigDict(
        extra="forbid",
        validate_assignment=True,
        use_attribute_docstrings=True,
        allow_inf_nan=False,  # TOML has nan and inf; no count, price or limit is one
    )


class StuckConfig(Strict):
    """``[stuck]``: when a model going round in circles is told so, then stopped (0: off)."""

    repeats: int = Field(default=3, ge=0)
    """The same call with the same result this many times in a row."""
    same_calls: int = Field(default=6, ge=0)
    """The same call this many times in a row, whatever its results (job_output aside)."""
    alternations: int = Field(default=3, ge=0)
    """Two calls taking turns (A B A B …), this many times each."""
    text_repeats: int = Field(default=3, ge=0)
    """The same reply text this many times in a row."""
    tool_errors: int = Field(default=5, ge=0)
    """Errors in a row from one tool."""
    warnings: int = Field(default=1, ge=0)
    """Detections answered with a nudge to the model before the turn ends ``stuck``."""


class PermissionsConfig(Strict):
    """``[permissions]``: what tools may do without asking."""

    mode: Mode = Mode.ASK
    """ask: confirm edits and commands; edits: confirm commands; yolo: never ask; plan: read only."""
    allow: list[str] = Field(default_factory=list)
    """Rules always allowed, as "TOOL: PATTERN", e.g. "bash: pytest*"."""
    deny: list[str] = Field(default_factory=list)
    """Rules always refused, as "TOOL: PATTERN"; deny wins over allow."""

    @field_validator("allow", "deny")
    @classmethod
    def _check_rules(cls, rules: list[str]) -> list[str]:
        for text in rules:
            check_rule_text(text)
        return rules


class SandboxConfig(Strict):
    """``[sandbox]``: the OS sandbox bash commands run in (bubblewrap; docs/security.md)."""

    mode: Literal["workspace-write", "read-only", "off"] = "workspace-write"
    """workspace-write: the project (and ``writable``) writable, the rest read-only; read-only:
    nothing writable; off: no sandbox, the prompts only."""
    network: bool = False
    """Let sandboxed commands use the network."""
    writable: list[str] = Field(default_factory=list)
    """More paths sandboxed commands may write (``~`` allowed; relative to the project)."""


class BudgetConfig(Strict):
    """[budget]: spending limits in USD, estimated before each request (docs/print-mode.md)."""

    session_usd: float | None = Field(default=None, gt=0)
    """Stop before the request that would take this session's spending past this (None: no limit)."""
    turn_usd: float | None = Field(default=None, gt=0)
    """Stop before the request that would take one turn's spending past this (None: no limit)."""


class JobsConfig(Strict):
    """``[jobs]``: background commands (``bash`` with ``background: true``; docs/tools.md).
    Capped, so that no config can make them unbounded."""

    max: int = Field(default=8, ge=1, le=32)
    """Background jobs running at once (at most 32)."""
    output_buffer: int = Field(default=1_000_000, ge=10_000, le=8_000_000)
    """Bytes of output kept per job, the newest (at most 8 MB)."""


class WebFetchConfig(Strict):
    """``[web_fetch]``: the web_fetch tool's limits and the private addresses it may reach."""

    allow_private: list[str] = Field(default_factory=list)
    """Private, loopback or link-local addresses web_fetch may reach anyway: addresses or
    networks ("127.0.0.1", "10.0.0.0/8") or host names ("wiki.corp"). Empty: none."""
    timeout: float = Field(default=30.0, gt=0, le=300)
    """Seconds one fetch may take, redirects and download included."""
    max_bytes: int = Field(default=5_000_000, gt=0, le=50_000_000)
    """Most bytes of a response body read; the rest is not downloaded."""

    @field_validator("allow_private")
    @classmethod
    def _check_entries(cls, entries: list[str]) -> list[str]:
        import ipaddress

        for e in entries:
            try:
                ipaddress.ip_network(e.strip("[]"), strict=False)
            except ValueError:
                if not re.fullmatch(r"[A-Za-z0-9*?.-]+", e):
                    raise ValueError(
                        f"{e!r} is neither an address, a network nor a host name"
                    ) from None
        return entries


class LspServerConfig(Strict):
    """``[lsp.servers.NAME]``: a language server to add (or to replace a known one's command)."""

    command: list[str] = Field(min_length=1)
    """The program and its arguments, speaking LSP over stdin/stdout (``["pylsp"]``)."""
    languages: list[str] = Field(default_factory=list)
    """LSP language ids it serves ("python", "typescript", …)."""
    globs: list[str] = Field(default_factory=list)
    """File name patterns it serves ("*.py"); empty: the languages' usual suffixes."""
    init_options: dict[str, Any] = Field(default_factory=dict)
    """Sent as ``initializationOptions`` in ``initialize``."""
    settings: dict[str, Any] = Field(default_factory=dict)
    """What the server is told when it asks for its settings (``workspace/configuration``):
    a section ``"a.b"`` is ``settings["a"]["b"]``; one not here is null."""


class LspConfig(Strict):
    """``[lsp]``: language servers whose diagnostics follow each edit (docs/lsp.md). A
    project's ``[lsp]`` applies only once the project is trusted (it starts programs)."""

    enabled: bool | None = None
    """true: run servers in any project; false: never; unset: only in a trusted project."""
    disabled: list[str] = Field(default_factory=list)
    """Names of known servers not to use ("pylsp", "ruff", …: ``larik lsp`` lists them)."""
    servers: dict[str, LspServerConfig] = Field(default_factory=dict)
    """Servers to add, by name; tried before the known ones."""
    wait_ms: int = Field(default=1500, ge=0, le=30_000)
    """Most milliseconds an edit waits for the server's diagnostics."""
    start_ms: int = Field(default=5000, ge=0, le=60_000)
    """Most milliseconds the first edit of a language waits for its server to start."""
    max_lines: int = Field(default=10, ge=1, le=200)
    """Most diagnostic lines appended to one edit's result."""


def check_rule_text(text: str) -> tuple[str, str]:
    """``(tool, pattern)`` of a permission rule ``"TOOL: PATTERN"``, or ``ValueError`` naming
    what is wrong (one line, the rule cut to 60 characters): :func:`larik.tool_names.parse_rule`."""
    from ..tool_names import parse_rule

    return parse_rule(text, clip=60)
