"""The system call filter as a program (issue 42 item 4): the tables agree with the kernel's
headers, and the BPF program, run by a small interpreter of classic BPF here, refuses each call
of :data:`larik.sandbox.seccomp.REFUSED` with its errno on every ABI and lets the rest through.
The filter at work in real bubblewrap is tests/agent/test_sandbox_keyring.py."""

from __future__ import annotations

import os
import re
import struct
from pathlib import Path

import pytest

from larik.sandbox import seccomp as sc

HEADERS = {  # where Debian's linux-libc-dev puts each ABI's numbers
    "x86_64": ["/usr/include/x86_64-linux-gnu/asm/unistd_64.h", "/usr/include/asm/unistd_64.h"],
    "i386": ["/usr/include/x86_64-linux-gnu/asm/unistd_32.h", "/usr/include/asm/unistd_32.h"],
    "aarch64": ["/usr/include/asm-generic/unistd.h"],
}
NEW = 6, 1  # a kernel where ptrace is allowed
OLD = 4, 4  # one where it is not


def run_filter(prog: bytes, audit: int, nr: int, args: tuple[int, ...] = ()) -> int:
    """What ``prog`` returns for a call: classic BPF, the instructions a seccomp filter uses."""
    data = struct.pack("=IIQ6Q", nr, audit, 0, *(list(args) + [0] * 6)[:6])
    ops = [struct.unpack_from("=HBBI", prog, i) for i in range(0, len(prog), 8)]
    acc, pc = 0, 0
    while True:
        code, jt, jf, k = ops[pc]
        if code == 0x20:
            (acc,) = struct.unpack_from("=I", data, k)
            pc += 1
        elif code == 0x06:
            return k
        elif code == 0x05:
            pc += 1 + k
        else:
            hit = {0x15: acc == k, 0x35: acc >= k, 0x45: bool(acc & k)}[code]
            pc += 1 + (jt if hit else jf)


def refused_with(number: int) -> int:
    return sc.errno_action(number)


def _header_numbers(abi: str) -> dict[str, int] | None:
    for path in HEADERS[abi]:
        if Path(path).is_file():
            text = Path(path).read_text()
            found = re.findall(r"#define __NR(?:3264)?_(\w+)\s+(\d+)", text)
            return {name: int(n) for name, n in reversed(found)}
    return None


@pytest.mark.parametrize("abi", sorted(sc.ABIS))
def test_the_tables_hold_the_kernel_s_numbers(abi):
    numbers = _header_numbers(abi)
    if numbers is None:
        pytest.skip(f"no uapi header for {abi} here")
    table = sc.ABIS[abi].numbers
    wrong = {n: (v, numbers.get(n)) for n, v in table.items() if numbers.get(n) != v}
    assert wrong == {}
    named = {n for rule in sc.REFUSED for n in rule.names}
    if abi == "aarch64":  # the generic header also lists 32-bit-only calls aarch64 lacks
        named.discard("clock_settime64")
    assert sorted(n for n in named if n in numbers and n not in table) == []


def test_each_call_is_in_one_rule_and_in_some_table():
    names = [n for rule in sc.REFUSED for n in rule.names]
    assert len(names) == len(set(names))
    known = {n for abi in sc.ABIS.values() for n in abi.numbers}
    assert sorted(set(names) - known) == []


def _probe_args(rule: sc.Rule, refused: bool) -> tuple[int, ...]:
    """Arguments that make a narrowed rule refuse (or let through) its call."""
    if rule.arg is None:
        return ()
    if rule.mask:
        value = rule.mask & -rule.mask if refused else 0x3D0F00  # a thread's clone flags
    elif rule.allowed:
        value = 0x0040000 if refused else rule.values[0]  # ADDR_NO_RANDOMIZE
    else:
        value = rule.values[0] if refused else 0x5401  # TCGETS
    args = [0] * 6
    args[rule.arg] = value | (0xFFFFFFFF << 32 if rule.arg else 0)  # high bits do not count
    return tuple(args)


@pytest.mark.parametrize("machine", sorted(sc.MACHINES))
def test_every_listed_call_is_refused_with_its_errno_on_every_abi(machine):
    prog = sc.program(machine, OLD)
    assert prog is not None
    for name in sc.MACHINES[machine]:
        abi = sc.ABIS[name]
        for rule in sc.REFUSED:
            for call in (c for c in rule.names if c in abi.numbers):
                nr = abi.numbers[call]
                got = run_filter(prog, abi.audit, nr, _probe_args(rule, True))
                assert got == refused_with(rule.errno), (name, call)
                if rule.arg is not None:
                    let = run_filter(prog, abi.audit, nr, _probe_args(rule, False))
                    assert let == sc.RET_ALLOW, (name, call)


@pytest.mark.parametrize("machine", sorted(sc.MACHINES))
def test_ordinary_calls_pass(machine):
    prog = sc.program(machine, NEW)
    assert prog is not None
    refused = {n for rule in sc.REFUSED if rule.before is None for n in rule.names}
    for name in sc.MACHINES[machine]:
        abi = sc.ABIS[name]
        blocked = {abi.numbers[n] for n in refused if n in abi.numbers}
        for nr in range(0, 460):
            if nr not in blocked:
                assert run_filter(prog, abi.audit, nr) == sc.RET_ALLOW, (name, nr)


def test_tracing_is_allowed_from_linux_4_8_and_refused_before():
    abi = sc.ABIS["x86_64"]
    for call in ("ptrace", "process_vm_readv", "kcmp"):
        nr = abi.numbers[call]
        assert run_filter(sc.program("x86_64", NEW) or b"", abi.audit, nr) == sc.RET_ALLOW
        assert run_filter(sc.program("x86_64", (4, 7)) or b"", abi.audit, nr) == refused_with(1)
    assert run_filter(sc.program("x86_64", (4, 8)) or b"", abi.audit, 101) == sc.RET_ALLOW


def test_x32_calls_and_unknown_abis_are_refused_as_missing():
    prog = sc.program("x86_64", NEW) or b""
    x86_64 = sc.ABIS["x86_64"].audit
    for nr in (0x40000000, 0x40000000 + 250, 0x40000000 + 0, 0xFFFFFFFF):
        assert run_filter(prog, x86_64, nr) == refused_with(38)  # ENOSYS
    arm = 0x40000028  # AUDIT_ARCH_ARM: 32-bit ARM on an AArch64 kernel
    assert run_filter(sc.program("aarch64", NEW) or b"", arm, 4) == refused_with(38)
    i386 = sc.ABIS["i386"].audit
    assert run_filter(sc.program("aarch64", NEW) or b"", i386, 288) == refused_with(38)


def test_a_machine_without_a_table_runs_without_the_filter_and_says_so(monkeypatch):
    assert sc.program("riscv64") is None
    monkeypatch.setattr(sc.platform, "machine", lambda: "riscv64")
    sc._memfd.cache_clear()
    try:
        assert sc.launch() == ([], [])
        said = sc.problem()
        assert "no system call filter" in said and "riscv64" in said and "keyring" in said
    finally:
        monkeypatch.undo()
        sc._memfd.cache_clear()
    assert sc.problem() == ""  # this machine has its table (the suite runs on x86_64, aarch64)


def test_the_program_bwrap_reads_is_sealed():
    prefix, flags = sc.launch()
    assert flags == ["--seccomp", str(sc.FD)] and prefix[0] == "/bin/sh"
    path = prefix[-1]
    with open(path, "rb") as f:
        assert f.read() == sc.program()
    fd = os.open(path, os.O_RDWR)
    try:
        with pytest.raises(PermissionError):  # F_SEAL_WRITE: no one may change it, Larik neither
            os.write(fd, b"\0" * 8)
        with pytest.raises(PermissionError):
            os.ftruncate(fd, 0)
    finally:
        os.close(fd)
