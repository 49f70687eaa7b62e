"""The recommended GGUFs: one table a test walks (``larik local pull NAME``).

Each row pins a file of an official Qwen GGUF repository on Hugging Face: the repository, the
revision (a commit, never a branch), the file, its size in bytes and its sha256 — the Git LFS
object id Hugging Face lists for the file (taken from public catalogs pinning the same commits,
two of which agree on every value; the 0.5B and 1.5B files are also the ones the shared
``local-llm.sh`` verifies). A download whose bytes do not hash to it is deleted.

``template``: the chat template the engine loads for the model (:data:`TEMPLATES`): it must
render tool calls the way the model writes them, since llama.cpp derives its tool-call parser
from it. Measured: Qwen2.5-Coder 0.5B and 1.5B write a ```json fenced call, and with
``chatml-fenced-tools`` those come back as real ``tool_calls`` (``local-llm.sh``'s notes; the
0.5B again here, 2026-12-02: three requests that call for a tool, at temperature 0 — real
``tool_calls`` for 3 of 3 with this template, 0 of 3 with the GGUF's own, where the model
writes the same fenced JSON as text). The 3B is the same family, not measured (no download here); the 7B keeps the
GGUF's own template (Hermes ``<tool_call>``, which it was trained on; not measured either).
Larik still recovers a call written as text (:mod:`larik.llm.toolcalls`), and a small model's
calls are grammar-constrained on llama.cpp anyway (:mod:`larik.llm.providers.constrained`).

``recommend(ram_gb, cores)``: the largest row the machine runs at a usable speed — a 7B only
with 10 GB of RAM and 8 cores.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "CATALOG",
    "TEMPLATES",
    "Row",
    "by_sha256",
    "human_size",
    "machine",
    "recommend",
    "row",
    "template_path",
]

#: name -> file under templates/ ("" = the GGUF's own template)
TEMPLATES = {"chatml-fenced-tools": "chatml-fenced-tools.jinja", "builtin": ""}


@dataclass(frozen=True, slots=True)
class Row:
    name: str
    repo: str
    revision: str
    file: str
    size: int  # bytes
    sha256: str
    params_b: float
    min_ram_gb: int  # weights + a 32k context's KV cache + the runtime, with room to spare
    min_cores: int  # below this, replies come too slowly to work with
    template: str  # a key of TEMPLATES
    context: int = 32768  # the window the model was trained for (its GGUF says the same)
    reasoning: bool = False  # it thinks before answering: a reasoning effort changes something

    @property
    def size_text(self) -> str:
        return human_size(self.size)


CATALOG: tuple[Row, ...] = (
    Row(
        "qwen2.5-coder-0.5b",
        "Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF",
        "ebb2015119c907b064c512bf053e945850b5875f",
        "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        491_400_064,
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        0.5,
        2,
        1,
        "chatml-fenced-tools",
    ),
    Row(
        "qwen2.5-coder-1.5b",
        "Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF",
        "f86cb2c1fa58255f8052cc32aeede1b7482d4361",
        "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        1_117_320_768,
        "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        1.5,
        4,
        2,
        "chatml-fenced-tools",
    ),
    Row(
        "qwen2.5-coder-3b",
        "Qwen/Qwen2.5-Coder-3B-Instruct-GGUF",
        "f74adce6aa16316c625447af059dbebe4983757c",
        "qwen2.5-coder-3b-instruct-q4_k_m.gguf",
        2_104_932_800,
        "724fb256bec1ff062b2f65e4569e871ad2e95ab2a3989723d1769c54294730b7",
        3.1,
        6,
        4,
        "chatml-fenced-tools",
    ),
    Row(
        "qwen2.5-coder-7b",
        "Qwen/Qwen2.5-Coder-7B-Instruct-GGUF",
        "13fb94bfda8c8cf22497dc57b78f391a9acb426a",
        "qwen2.5-coder-7b-instruct-q4_k_m.gguf",
        4_683_073_536,
        "509287f78cb4d4cf6b3843734733b914b2c158e43e22a7f4bf5e963800894d3c",
        7.6,
        10,
        8,
        "builtin",
    ),
)

_BY_NAME = {r.name: r for r in CATALOG}


def row(name: str) -> Row | None:
    return _BY_NAME.get(name)


def by_sha256(digest: str) -> Row | None:
    return next((r for r in CATALOG if r.sha256 == digest), None)


def template_path(name: str) -> Path | None:
    """The template file of ``name`` (None: the GGUF's own)."""
    file = TEMPLATES.get(name, "")
    return Path(__file__).with_name("templates") / file if file else None


def machine() -> tuple[float | None, int]:
    """(total RAM in GB, or None when unknown; CPU cores Larik may use)."""
    try:
        ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1024**3
    except (ValueError, OSError, AttributeError):
        ram = None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return ram, cores or 1


def recommend(ram_gb: float | None = None, cores: int | None = None) -> Row:
    """The largest row that fits ``ram_gb`` and ``cores`` (by default this machine's)."""
    if ram_gb is None and cores is None:
        ram_gb, cores = machine()
    fits = [
        r
        for r in CATALOG
        if (ram_gb is None or r.min_ram_gb <= ram_gb) and r.min_cores <= (cores or 1)
    ]
    return fits[-1] if fits else CATALOG[0]


def human_size(n: int) -> str:
    """``491 MB``, ``1.1 GB``: decimal units, as Hugging Face shows a file's size."""
    if n >= 1_000_000_000:
        return f"{n / 1e9:.1f} GB"
    return f"{max(1, round(n / 1e6))} MB"
