"""The system calls a sandboxed command is refused: a seccomp filter bwrap installs (``--seccomp``).

The sandbox's namespaces take away what the kernel namespaces; some of what it shares it does
not, and some calls are kernel attack surface that no build, test or editor needs. Those are
refused — with ``EPERM`` (or ``ENOSYS`` where a program should take the call for one its kernel
lacks and fall back, as Flatpak does), never by killing the command. The list (:data:`REFUSED`)
is Flatpak's and Docker's default profiles' where they agree, each entry with its reason:

- **the kernel keyring** (``keyctl``, ``add_key``, ``request_key``): keyrings are not
  namespaced, and a command inherits Larik's session keyring — it could read a key the user's
  session holds and plant one Larik's later children use. Refused, the command can reach no
  keyring at all: not read, add, search, link, nor join one (a new session keyring of its own
  would need one of these calls, so none is made); ``/proc/keys``, which lists the keys it could
  view, is hidden by the sandbox (:meth:`~larik.sandbox.Sandbox.wrap`);
- the kernel's and the machine's own: modules, ``kexec``, ``reboot``, swap, accounting, the
  clock, quotas, the kernel log;
- **namespaces and mounts**: ``unshare``, ``setns``, ``clone`` with a ``CLONE_NEW*`` flag, the
  mount calls old and new. A nested user namespace gives a command every capability over new
  namespaces of its own — most of the kernel's local privilege escalations start there; Docker
  and Flatpak refuse it for that. A program that sandboxes itself must be told not to (headless
  Chrome: ``--no-sandbox``, as in Docker), and ``bwrap`` does not run inside. ``clone3`` passes
  its flags in memory a filter cannot read: ``ENOSYS``, so libc falls back to ``clone``;
- ``bpf``, ``perf_event_open``, ``userfaultfd``, ``io_uring_*`` (``ENOSYS``: programs fall back
  to ordinary I/O), the NUMA memory-policy calls, file handles (``open_by_handle_at`` opens a
  file past the mounts that hide it), obsolete and port-I/O calls;
- ``ioctl`` ``TIOCSTI`` and ``TIOCLINUX`` (typing into a terminal; ``--new-session`` already
  takes the terminal away), and ``personality`` but for the values Docker allows (no
  ``ADDR_NO_RANDOMIZE`` or ``READ_IMPLIES_EXEC``: gdb says it cannot turn off randomization,
  and goes on).

``ptrace`` (and ``process_vm_readv``/``writev``, ``kcmp``, ``pidfd_getfd``) stays allowed:
debuggers, ``strace`` and ``py-spy`` are everyday tools here, and a command's own pid namespace
leaves it only its own processes to trace. Before Linux 4.8 a tracer could change a call after
the filter had let it through, so on such a kernel they are refused too (as Docker does).

The filter is a classic BPF program written here (:func:`program`): it checks the calling ABI,
then the call's number against the table of its architecture (x86-64, whose i386 calls get
their own table and whose x32 calls are all refused with ``ENOSYS``; AArch64). Any other ABI
(32-bit ARM on AArch64) gets ``ENOSYS`` for every call. On another machine there is no table:
:func:`problem` says so, once per session, and commands run without the filter.

The program reaches bwrap through a sealed memfd of Larik's: each command line starts with
``/bin/sh -c 'exec "$@" 3<"$0"' /proc/LARIK/fd/N``, which opens it afresh on descriptor 3 for
``--seccomp 3`` (:func:`launch`). So the command line holds everything it needs — every caller
of :meth:`~larik.sandbox.Sandbox.wrap` gets the filter without passing a descriptor, an
editor's terminal too — and a command, in its own pid namespace, cannot reach Larik's
descriptors.
"""

from __future__ import annotations

import errno
import fcntl
import functools
import os
import platform
import struct
from dataclasses import dataclass

__all__ = ["ABIS", "MACHINES", "REFUSED", "Rule", "launch", "problem", "program"]

EPERM, ENOSYS = errno.EPERM, errno.ENOSYS

# ------------------------------------------------------------------ what is refused, and why

CLONE_NEW_ANY = 0x7E020000  # CLONE_NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET (Docker's)
TIOCSTI, TIOCLINUX = 0x5412, 0x541C
#: The personalities Docker allows: PER_LINUX, PER_LINUX32, UNAME26 and both, and the query.
PERSONALITIES = (0x0, 0x8, 0x20000, 0x20008, 0xFFFFFFFF)


@dataclass(frozen=True)
class Rule:
    """System calls refused with ``errno``, and why. ``arg`` narrows it to one argument (its
    low 32 bits, which is all the kernel reads of these): refused when that argument is one of
    ``values`` (or, with ``allowed``, when it is none of them), or has a bit of ``mask``.
    ``before``: refused only on a kernel older than that version."""

    names: tuple[str, ...]
    errno: int
    why: str
    arg: int | None = None
    values: tuple[int, ...] = ()
    allowed: bool = False
    mask: int = 0
    before: tuple[int, int] | None = None


REFUSED: tuple[Rule, ...] = (
    Rule(
        ("add_key", "keyctl", "request_key"),
        EPERM,
        "the kernel keyring is not namespaced: Larik's session keyring would be the command's",
    ),
    Rule(
        ("init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load"),
        EPERM,
        "kernel modules and a new kernel",
    ),
    Rule(
        ("reboot", "acct", "swapon", "swapoff", "quotactl", "quotactl_fd", "syslog"),
        EPERM,
        "the machine's own: reboot, accounting, swap, quotas, the kernel log",
    ),
    Rule(
        ("settimeofday", "clock_settime", "clock_settime64", "stime"),
        EPERM,
        "the clock, which is the machine's",
    ),
    Rule(
        ("unshare", "setns", "mount", "umount", "umount2", "pivot_root", "chroot"),
        EPERM,
        "namespaces and mounts: a nested user namespace hands back every capability over "
        "namespaces of its own, where most kernel privilege escalations start",
    ),
    Rule(
        ("clone",),
        EPERM,
        "a clone into new namespaces (the same as unshare)",
        arg=0,
        mask=CLONE_NEW_ANY,
    ),
    Rule(
        ("clone3", "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick"),
        ENOSYS,
        "clone3's flags are out of a filter's reach and the new mount API changes mounts: "
        "ENOSYS, so libc falls back to clone",
    ),
    Rule(("mount_setattr",), ENOSYS, "the new mount API"),
    Rule(
        ("bpf", "perf_event_open", "userfaultfd"),
        EPERM,
        "kernel attack surface no build or test needs (eBPF, perf, userfaultfd)",
    ),
    Rule(
        ("io_uring_setup", "io_uring_enter", "io_uring_register"),
        ENOSYS,
        "io_uring, a frequent source of kernel exploits: ENOSYS, programs fall back to "
        "ordinary I/O",
    ),
    Rule(
        ("move_pages", "mbind", "get_mempolicy", "set_mempolicy", "migrate_pages"),
        EPERM,
        "NUMA memory policy (Flatpak's 'scary VM ops')",
    ),
    Rule(("set_mempolicy_home_node",), EPERM, "NUMA memory policy"),
    Rule(
        ("name_to_handle_at", "open_by_handle_at"),
        EPERM,
        "file handles: open_by_handle_at opens a file past the mounts that hide it",
    ),
    Rule(
        ("uselib", "_sysctl", "sysfs", "ustat", "lookup_dcookie", "nfsservctl"),
        EPERM,
        "obsolete calls",
    ),
    Rule(
        ("vm86", "vm86old", "iopl", "ioperm", "create_module", "get_kernel_syms", "query_module"),
        EPERM,
        "port I/O, vm86 and the old module calls",
    ),
    Rule(
        ("ioctl",),
        EPERM,
        "TIOCSTI and TIOCLINUX type into a terminal",
        arg=1,
        values=(TIOCSTI, TIOCLINUX),
    ),
    Rule(
        ("personality",),
        EPERM,
        "a personality that turns off address randomization or makes data executable",
        arg=0,
        values=PERSONALITIES,
        allowed=True,
    ),
    Rule(
        ("ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd"),
        EPERM,
        "before Linux 4.8 a tracer could change a call after the filter let it through",
        before=(4, 8),
    ),
)

# ------------------------------------------------------------------ the system call tables

#: The numbers of the calls :data:`REFUSED` names, by ABI (from the kernel's uapi headers:
#: ``asm/unistd_64.h``, ``asm/unistd_32.h``, ``asm-generic/unistd.h``; a test checks them
#: against the headers where they are installed). A call an ABI lacks is absent.
_X86_64 = {
    "add_key": 248, "keyctl": 250, "request_key": 249, "init_module": 175,
    "finit_module": 313, "delete_module": 176, "kexec_load": 246, "kexec_file_load": 320,
    "reboot": 169, "acct": 163, "swapon": 167, "swapoff": 168, "settimeofday": 164,
    "clock_settime": 227, "quotactl": 179, "quotactl_fd": 443, "syslog": 103, "unshare": 272,
    "setns": 308, "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161, "clone": 56,
    "clone3": 435, "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431,
    "fsmount": 432, "fspick": 433, "mount_setattr": 442, "bpf": 321, "perf_event_open": 298,
    "userfaultfd": 323, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
    "uselib": 134, "_sysctl": 156, "sysfs": 139, "ustat": 136, "lookup_dcookie": 212,
    "nfsservctl": 180, "iopl": 172, "ioperm": 173, "create_module": 174,
    "get_kernel_syms": 177, "query_module": 178, "move_pages": 279, "mbind": 237,
    "get_mempolicy": 239, "set_mempolicy": 238, "migrate_pages": 256,
    "set_mempolicy_home_node": 450, "name_to_handle_at": 303, "open_by_handle_at": 304,
    "ioctl": 16, "personality": 135, "ptrace": 101, "process_vm_readv": 310,
    "process_vm_writev": 311, "kcmp": 312, "pidfd_getfd": 438,
}  # fmt: skip
_I386 = {
    "add_key": 286, "keyctl": 288, "request_key": 287, "init_module": 128,
    "finit_module": 350, "delete_module": 129, "kexec_load": 283, "reboot": 88, "acct": 51,
    "swapon": 87, "swapoff": 115, "settimeofday": 79, "clock_settime": 264,
    "clock_settime64": 404, "stime": 25, "quotactl": 131, "quotactl_fd": 443, "syslog": 103,
    "unshare": 310, "setns": 346, "mount": 21, "umount": 22, "umount2": 52, "pivot_root": 217,
    "chroot": 61, "clone": 120, "clone3": 435, "open_tree": 428, "move_mount": 429,
    "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
    "bpf": 357, "perf_event_open": 336, "userfaultfd": 374, "io_uring_setup": 425,
    "io_uring_enter": 426, "io_uring_register": 427, "uselib": 86, "_sysctl": 149,
    "sysfs": 135, "ustat": 62, "lookup_dcookie": 253, "nfsservctl": 169, "vm86": 166,
    "vm86old": 113, "iopl": 110, "ioperm": 101, "create_module": 127, "get_kernel_syms": 130,
    "query_module": 167, "move_pages": 317, "mbind": 274, "get_mempolicy": 275,
    "set_mempolicy": 276, "migrate_pages": 294, "set_mempolicy_home_node": 450,
    "name_to_handle_at": 341, "open_by_handle_at": 342, "ioctl": 54, "personality": 136,
    "ptrace": 26, "process_vm_readv": 347, "process_vm_writev": 348, "kcmp": 349,
    "pidfd_getfd": 438,
}  # fmt: skip
_AARCH64 = {
    "add_key": 217, "keyctl": 219, "request_key": 218, "init_module": 105,
    "finit_module": 273, "delete_module": 106, "kexec_load": 104, "kexec_file_load": 294,
    "reboot": 142, "acct": 89, "swapon": 224, "swapoff": 225, "settimeofday": 170,
    "clock_settime": 112, "quotactl": 60, "quotactl_fd": 443, "syslog": 116, "unshare": 97,
    "setns": 268, "mount": 40, "umount2": 39, "pivot_root": 41, "chroot": 51, "clone": 220,
    "clone3": 435, "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431,
    "fsmount": 432, "fspick": 433, "mount_setattr": 442, "bpf": 280, "perf_event_open": 241,
    "userfaultfd": 282, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
    "lookup_dcookie": 18, "nfsservctl": 42, "move_pages": 239, "mbind": 235,
    "get_mempolicy": 236, "set_mempolicy": 237, "migrate_pages": 238,
    "set_mempolicy_home_node": 450, "name_to_handle_at": 264, "open_by_handle_at": 265,
    "ioctl": 29, "personality": 92, "ptrace": 117, "process_vm_readv": 270,
    "process_vm_writev": 271, "kcmp": 272, "pidfd_getfd": 438,
}  # fmt: skip


@dataclass(frozen=True)
class Abi:
    """One calling convention: its ``AUDIT_ARCH_*`` value, its numbers, and ``low``: calls
    numbered at or above it are another ABI's sharing this value (x86-64's x32)."""

    name: str
    audit: int
    numbers: dict[str, int]
    low: int | None = None


ABIS = {
    "x86_64": Abi("x86_64", 0xC000003E, _X86_64, low=0x40000000),  # __X32_SYSCALL_BIT
    "i386": Abi("i386", 0x40000003, _I386),
    "aarch64": Abi("aarch64", 0xC00000B7, _AARCH64),
}

#: The ABIs a process may call with, by ``platform.machine()``.
MACHINES = {"x86_64": ("x86_64", "i386"), "amd64": ("x86_64", "i386"), "aarch64": ("aarch64",)}

# ------------------------------------------------------------------ the BPF program

_LD_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ, _JGE, _JSET, _JA = 0x15, 0x35, 0x45, 0x05  # BPF_JMP | op | BPF_K
_RET = 0x06  # BPF_RET | BPF_K
RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_NR, _ARCH, _ARGS = 0, 4, 16  # offsets in struct seccomp_data (args: 8 bytes each)


def errno_action(number: int) -> int:
    """The filter's return value that fails a call with ``number`` (``SECCOMP_RET_ERRNO``)."""
    return _RET_ERRNO | (number & 0xFFFF)


def _op(code: int, k: int = 0, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k & 0xFFFFFFFF)


def _check(rule: Rule) -> list[bytes]:
    """The instructions after a call's number matched: each ends in a return."""
    refuse, allow = _op(_RET, errno_action(rule.errno)), _op(_RET, RET_ALLOW)
    if rule.arg is None:
        return [refuse]
    load = _op(_LD_ABS, _ARGS + 8 * rule.arg)  # the low 32 bits (both ABIs are little-endian)
    if rule.mask:
        return [load, _op(_JSET, rule.mask, jt=1), allow, refuse]
    n = len(rule.values)
    tests = [_op(_JEQ, v, jt=n - i) for i, v in enumerate(rule.values)]
    return [load, *tests, *((refuse, allow) if rule.allowed else (allow, refuse))]


def refusals(abi: Abi, kernel: tuple[int, int]) -> dict[int, Rule]:
    """The rule for each refused call number of ``abi`` on a ``kernel`` of that version."""
    out: dict[int, Rule] = {}
    for rule in REFUSED:
        if rule.before is not None and kernel >= rule.before:
            continue
        for name in rule.names:
            if name in abi.numbers:
                out[abi.numbers[name]] = rule
    return out


def _block(abi: Abi, kernel: tuple[int, int]) -> list[bytes]:
    """One ABI's part: load the number, refuse another ABI's range, then each refused call."""
    out = [_op(_LD_ABS, _NR)]
    if abi.low is not None:
        out += [_op(_JGE, abi.low, jf=1), _op(_RET, errno_action(ENOSYS))]
    for number, rule in sorted(refusals(abi, kernel).items()):
        check = _check(rule)
        out += [_op(_JEQ, number, jf=len(check)), *check]
    return [*out, _op(_RET, RET_ALLOW)]


def program(machine: str | None = None, kernel: tuple[int, int] | None = None) -> bytes | None:
    """The filter for ``machine`` (``platform.machine()``) and ``kernel`` (``(major,
    minor)``; this one's by default), as bwrap reads it: ``struct sock_filter`` after
    ``struct sock_filter``. None: no table for this machine."""
    abis = MACHINES.get(machine or platform.machine())
    if abis is None:
        return None
    version = kernel or _kernel()
    out = [_op(_LD_ABS, _ARCH)]
    for name in abis:
        block = _block(ABIS[name], version)
        out += [_op(_JEQ, ABIS[name].audit, jt=1), _op(_JA, len(block)), *block]
    out.append(_op(_RET, errno_action(ENOSYS)))  # an ABI with no table here (ARM on AArch64)
    return b"".join(out)


def _kernel() -> tuple[int, int]:
    """This kernel's ``(major, minor)`` (``(0, 0)`` where the release does not say)."""
    parts = (os.uname().release.split("-")[0].split(".") + ["0", "0"])[:2]
    try:
        return int(parts[0]), int("".join(c for c in parts[1] if c.isdigit()) or 0)
    except ValueError:
        return (0, 0)


# ------------------------------------------------------------------ how bwrap gets it

FD = 3  # the descriptor the program is opened on for bwrap (sh's redirect: one digit)


def problem() -> str:
    """ "" when commands run under the filter here, else the one line that says they do not."""
    if _held() is not None:
        return ""
    machine = platform.machine() or "this machine"
    why = (
        f"no table for {machine} (Larik has x86_64's and aarch64's)"
        if program() is None
        else "the kernel cannot hold it (memfd_create)"
    )
    return (
        f"sandbox: no system call filter: {why}; commands run without it, so the kernel "
        "keyring is shared with them and nested namespaces are allowed (docs/security.md)"
    )


def launch() -> tuple[list[str], list[str]]:
    """What a bwrap command line needs for the filter: the words before it (a shell that opens
    the program on :data:`FD`) and bwrap's flags. Nothing where there is no filter here."""
    fd = _held()
    if fd is None:
        return [], []
    prefix = ["/bin/sh", "-c", f'exec "$@" {FD}<"$0"', f"/proc/{os.getpid()}/fd/{fd}"]
    return prefix, ["--seccomp", str(FD)]


def _held() -> int | None:
    """The sealed memfd holding this process's program (made once per process), or None."""
    return _memfd(os.getpid())


@functools.cache
def _memfd(pid: int) -> int | None:
    """A memfd that holds :func:`program`, sealed so that no one can change it; None when
    there is no program for this machine or no memfd (the pid keys the cache: a forked
    child makes its own)."""
    data = program()
    if data is None or not hasattr(os, "memfd_create"):
        return None
    try:
        fd = os.memfd_create("larik-seccomp", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    except OSError:
        return None
    os.write(fd, data)
    seals = fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, seals)
    return fd
