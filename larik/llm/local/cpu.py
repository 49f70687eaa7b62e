"""Whether this CPU can run the engine's wheel, asked before the wheel is loaded.

The ``xllamacpp`` CPU wheel for x86-64 Linux is built for AVX2 (its ``get_system_info()``:
SSE3, SSSE3, AVX, AVX2, F16C, FMA, BMI2): on a CPU without them it dies of SIGILL on the first
instruction it lacks. ``missing()`` reads the flags the kernel lists (``/proc/cpuinfo``) and
names those the wheel needs but the CPU lacks; other systems (macOS's Metal wheel, Windows,
ARM) are not checked.
"""

from __future__ import annotations

import platform
from pathlib import Path

__all__ = ["NEEDED", "check", "missing"]

#: kernel flag name -> the instruction set's usual name
NEEDED = {
    "pni": "SSE3",
    "ssse3": "SSSE3",
    "avx": "AVX",
    "avx2": "AVX2",
    "f16c": "F16C",
    "fma": "FMA",
    "bmi2": "BMI2",
}
CPUINFO = Path("/proc/cpuinfo")


def missing(cpuinfo: str | None = None, machine: str | None = None) -> list[str]:
    """The instruction sets the wheel needs that this CPU lacks ([] when all are there or
    this system is not checked)."""
    arch = (machine or platform.machine()).lower()
    if arch not in ("x86_64", "amd64"):
        return []
    if cpuinfo is None:
        try:
            cpuinfo = CPUINFO.read_text(errors="replace")
        except OSError:
            return []
    line = next((ln for ln in cpuinfo.splitlines() if ln.startswith("flags")), None)
    if line is None:
        return []
    flags = set(line.partition(":")[2].split())
    return [name for flag, name in NEEDED.items() if flag not in flags]


def check(cpuinfo: str | None = None, machine: str | None = None) -> str:
    """The one line saying why the engine cannot run here ("" when it can)."""
    gone = missing(cpuinfo, machine)
    if not gone:
        return ""
    return (
        f"this CPU lacks {', '.join(gone)}, which the engine's prebuilt wheel (xllamacpp) "
        "needs: run a model with Ollama or llama.cpp built for this machine instead"
    )
