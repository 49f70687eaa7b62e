"""The sandbox holds for root too (issue 22 item 1): what a command run as root tried, and that
each attempt is refused. CI runs as root, so these run there as root with real bubblewrap.

Each escape is tried with the system call itself (Python's ctypes), not only with the
util-linux tool: ``mount`` and ``umount`` refuse a non-root uid on their own, before the kernel
is asked, and that would prove nothing about the sandbox. On the code before this change (root
kept every capability, no user or pid namespace) every one of them got out."""

from __future__ import annotations

import ast
import asyncio
import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from larik import sandbox as sb
from larik.agent.tools import ToolContext
from larik.agent.tools import bash as bash_tool
from larik.config import Config
from larik.sandbox import confinement
from tests.patience import WAIT

from .sandbox_kit import SECRET, run

pytestmark = pytest.mark.usefixtures("needs_bwrap")

MARK = "env-of-a-process-outside-0451"
# the interpreter itself, not the venv's link to it: a venv under /tmp (CI clones there) is
# hidden by the sandbox's private /tmp, and the escapes need only the standard library
PY = os.path.realpath(sys.executable)


@pytest.fixture
def neighbour() -> Iterator[subprocess.Popen[bytes]]:
    """A host process outside the sandbox, with a secret in its environment (as Larik's own
    process has the provider keys in its)."""
    proc = subprocess.Popen(
        ["sleep", "300"], env={"PATH": os.environ["PATH"], "LARIK_SECRET": MARK}
    )
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait()


def _try(project: Path, body: str, box: sb.Sandbox | None = None) -> str:
    """Run a Python escape attempt inside the sandbox; its output."""
    script = project / "escape.py"
    prelude = textwrap.dedent(
        """
        import ctypes, os, sys
        libc = ctypes.CDLL(None, use_errno=True)
        def say(what, rc):
            err = os.strerror(ctypes.get_errno()) if rc != 0 else ""
            print(what, "OK" if rc == 0 else "REFUSED", err, flush=True)
        """
    )
    script.write_text(prelude + textwrap.dedent(body))
    out, _ = run(project, f"{PY} -I escape.py", box or sb.Sandbox())
    return out


def _mount_point(path: Path) -> Path:
    path = path.resolve()
    while not os.path.ismount(path):
        path = path.parent
    return path


def test_no_capability_is_left_inside(project):
    out, _ = run(project, "grep Cap /proc/self/status; id -u", sb.Sandbox())
    caps = dict(line.split(":\t") for line in out.splitlines() if line.startswith("Cap"))
    assert caps["CapEff"] == caps["CapPrm"] == caps["CapBnd"] == "0000000000000000", out
    if os.geteuid() == 0:
        assert out.splitlines()[-2] == str(confinement.NOBODY)  # root is nobody inside


def test_a_read_only_mount_cannot_be_made_writable(project, outside):
    target = outside / "ESCAPED"
    out = _try(
        project,
        f"""
        MS_REMOUNT, MS_BIND = 32, 4096
        for where in ("/", {str(_mount_point(outside))!r}):
            say("remount " + where, libc.mount(None, where.encode(), None, MS_REMOUNT | MS_BIND, None))
        try:
            open({str(target)!r}, "w").write("x")
            print("WROTE")
        except OSError as e:
            print("write refused:", e)
        """,
    )
    tool, _ = run(project, "mount -o remount,rw,bind / ; echo x > " + str(target), sb.Sandbox())
    assert "remount / REFUSED" in out and "WROTE" not in out, out
    assert not target.exists(), out + tool


def test_a_hidden_folder_cannot_be_unmounted(project, home):
    out = _try(
        project,
        f"""
        MNT_DETACH = 2
        ssh = {str(home / ".ssh")!r}
        say("umount", libc.umount2(ssh.encode(), MNT_DETACH))
        try:
            print(open(ssh + "/id_rsa").read())
        except OSError as e:
            print("read refused:", e)
        """,
    )
    tool, _ = run(project, f"umount -l {home}/.ssh; cat {home}/.ssh/id_rsa", sb.Sandbox())
    assert "umount REFUSED" in out, out
    assert SECRET not in out + tool


def test_the_hosts_network_namespace_cannot_be_entered(project, neighbour):
    host_net = os.readlink("/proc/self/ns/net")
    pids = [os.getpid(), neighbour.pid, 1]
    out = _try(
        project,
        f"""
        CLONE_NEWNET = 0x40000000
        for pid in {pids!r}:
            try:
                fd = os.open(f"/proc/{{pid}}/ns/net", os.O_RDONLY)
            except OSError as e:
                print("open refused", pid, e)
                continue
            say("setns", libc.setns(fd, CLONE_NEWNET))
            print("now in", os.readlink("/proc/self/ns/net"))
        """,
    )
    tool, _ = run(
        project,
        f"nsenter --net=/proc/{neighbour.pid}/ns/net readlink /proc/self/ns/net",
        sb.Sandbox(),
    )
    assert host_net not in out and host_net not in tool, out + tool
    assert "setns OK" not in out, out


def test_no_process_outside_can_be_seen_read_or_traced(project, home, neighbour):
    out = _try(
        project,
        f"""
        PTRACE_ATTACH = 16
        for pid in ({neighbour.pid}, {os.getpid()}):
            for what in ("environ", "cmdline"):
                try:
                    print(what, pid, open(f"/proc/{{pid}}/{{what}}", "rb").read())
                except OSError as e:
                    print(what, "refused", pid, e)
            if pid == {neighbour.pid}:  # (attaching to pytest itself would stop it)
                say("ptrace", libc.ptrace(PTRACE_ATTACH, pid, None, None))
            try:
                os.kill(pid, 0)
                print("can signal", pid)
            except OSError as e:
                print("signal refused", pid, e)
        # the host's root and its hidden keys through another process's root
        for pid in (1, {neighbour.pid}, {os.getpid()}):
            try:
                print(open(f"/proc/{{pid}}/root{home}/.ssh/id_rsa").read())
            except OSError as e:
                print("root refused", pid, e)
        print("pids:", sorted(int(p) for p in os.listdir("/proc") if p.isdigit()))
        """,
    )
    assert MARK not in out and SECRET not in out, out
    assert "ptrace OK" not in out and "can signal" not in out, out
    assert "sleep" not in out, out  # the neighbour's command line is not visible either
    pids = ast.literal_eval(out.split("pids:")[1].splitlines()[0])
    assert max(pids) < 100, out  # the sandbox's own few processes only
    assert neighbour.poll() is None


def test_a_write_through_proc_root_stays_inside(project, outside, neighbour):
    pids = (1, neighbour.pid, os.getpid())
    tries = "; ".join(f"echo x > /proc/{pid}/root{outside}/ESCAPED{pid}" for pid in pids)
    out, _ = run(project, tries, sb.Sandbox())
    assert list(outside.glob("ESCAPED*")) == [], out


def test_keystrokes_cannot_be_pushed_into_the_terminal(project):
    """TIOCSTI: a command with the user's terminal could type a command into it. bwrap's
    --new-session takes the terminal away (and there is no capability to override that)."""
    master, slave = os.openpty()
    script = project / "sti.py"
    script.write_text(
        "import fcntl, termios\n"
        "try:\n"
        "    fcntl.ioctl(0, termios.TIOCSTI, b'x')\n"
        "    print('PUSHED')\n"
        "except OSError as e:\n"
        "    print('refused', e)\n"
    )
    argv = sb.Sandbox().wrap([PY, "-I", str(script)], project)

    def controlling_tty() -> None:
        import fcntl
        import termios

        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    try:
        done = subprocess.run(
            argv,
            stdin=slave,
            capture_output=True,
            start_new_session=True,
            preexec_fn=controlling_tty,
            timeout=WAIT,
        )
    finally:
        os.close(slave)
        os.close(master)
    assert b"refused" in done.stdout and b"PUSHED" not in done.stdout, done


def test_a_root_owned_project_stays_writable(project):
    out, data = run(project, "echo ok > made.txt && mkdir -p a/b && echo in > a/b/c", sb.Sandbox())
    assert data["exit_code"] == 0, out
    assert (project / "a" / "b" / "c").read_text() == "in\n"
    st = (project / "made.txt").stat()
    assert (st.st_uid, st.st_gid) == (os.geteuid(), os.getegid())  # the host's ids, not nobody


# ------------------------------------------------------------------------ the probe


def _fake_bwrap(folder: Path, refuse: str) -> Path:
    """A bwrap that logs its arguments and refuses ``refuse`` the way a kernel without user
    namespaces does, else runs the real one."""
    real = subprocess.run(["which", "bwrap"], capture_output=True, text=True).stdout.strip()
    fake = folder / "bwrap"
    fake.write_text(
        "#!/bin/sh\n"
        f'echo "$@" >> {folder}/argv\n'
        f'for a in "$@"; do [ "$a" = "{refuse}" ] && '
        "{ echo 'bwrap: No permissions to create new namespace' >&2; exit 1; }; done\n"
        f'exec {real} "$@"\n'
    )
    fake.chmod(0o755)
    return fake


def test_the_probe_tries_the_flags_every_command_gets(tmp_path, monkeypatch, project):
    folder = tmp_path / "bin"
    folder.mkdir()
    _fake_bwrap(folder, "--never")
    monkeypatch.setenv("PATH", f"{folder}:{os.environ['PATH']}")
    assert sb.probe() == ""
    probed = (folder / "argv").read_text().split()
    flags = [f for f in confinement.isolation() if f.startswith("--")]
    assert [f for f in flags if f not in probed] == []
    wrapped = sb.Sandbox().wrap(["true"], project)
    assert [f for f in flags if f not in wrapped] == []


def test_where_user_namespaces_are_refused_the_session_says_so_once_and_falls_back(
    tmp_path, monkeypatch
):
    folder = tmp_path / "bin"
    folder.mkdir()
    _fake_bwrap(folder, "--unshare-user")
    monkeypatch.setenv("PATH", f"{folder}:{os.environ['PATH']}")
    why = sb.probe()
    assert why == "bwrap cannot start: bwrap: No permissions to create new namespace"
    monkeypatch.setattr(sb, "probe", lambda: why)
    box, notes = sb.for_session(Config(), tmp_path)
    assert box is None and len(notes) == 1 and why in notes[0] and "unsandboxed" in notes[0]


@pytest.mark.skipif(os.geteuid() != 0, reason="what root loses: the override of file modes")
def test_root_in_a_project_it_does_not_own_is_told_what_that_means(tmp_path):
    owned = tmp_path / "theirs"
    owned.mkdir()
    os.chown(owned, 1234, 1234)
    box, notes = sb.for_session(Config(), owned)
    assert box is not None and len(notes) == 1 and "uid 1234" in notes[0], notes
    out, data = run(owned, "echo x > made.txt", box)
    assert data["exit_code"] != 0 and "Permission denied" in out  # what the notice warned of
    assert sb.for_session(Config(), tmp_path)[1] == []  # root's own project: nothing to say


def test_a_background_job_sees_no_process_outside_either(project, neighbour):
    from larik.agent.jobs import JobTable

    async def go() -> str:
        table = JobTable()
        ctx = ToolContext(root=project, sandbox=sb.Sandbox(), jobs=table)
        look = f"cat /proc/{neighbour.pid}/environ; kill -9 {neighbour.pid}; echo looked"
        await bash_tool.run(bash_tool.Args(command=look, background=True), ctx)
        seen = ""
        end = time.monotonic() + WAIT
        while time.monotonic() < end:
            await table.wait(1, 0.2)
            seen += table.read(1).content
            if table.get(1).state != "running":
                break
        await table.close()
        return seen

    seen = asyncio.run(go())
    assert "looked" in seen and MARK not in seen
    assert neighbour.poll() is None  # not killed


@pytest.mark.skipif(os.geteuid() != 0, reason="root's commands keep uid 0 for file access")
def test_what_only_root_may_read_is_hidden_from_roots_commands_too(project, monkeypatch, home):
    """$HOME is the fake one here: root's own home's secrets are hidden all the same."""
    readable = [p for p in ("/etc/shadow", "/etc/gshadow") if Path(p).exists()]
    root_ssh = Path(os.path.expanduser("~root")) / ".ssh"
    out, _ = run(
        project, "; ".join(f"head -c 40 {p}" for p in readable) + "; echo done", sb.Sandbox()
    )
    assert "root:" not in out, out  # shadow's first line is root's
    assert confinement.hidden_paths().count(root_ssh) == 1
    assert home / ".ssh" in confinement.hidden_paths()
