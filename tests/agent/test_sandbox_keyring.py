"""The kernel keyring is not shared, and the refused calls are refused (issue 42 item 4), in real
bubblewrap, as root and — where an interpreter with Larik's dependencies is open to ``nobody``
— as a user without privilege (``setpriv``).

Keyrings are not namespaced: before the filter, a sandboxed command read a ``user`` key from
Larik's session keyring and planted one that Larik then saw, as root and not. Every system call
is made with ctypes, the way a hostile command would (no ``keyctl`` program is needed). The
filter as a program is tests/agent/test_sandbox_seccomp.py."""

from __future__ import annotations

import ast
import asyncio
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from larik import sandbox as sb
from larik.agent.tools import ToolContext
from larik.agent.tools import bash as bash_tool
from larik.sandbox import seccomp as sc

from .sandbox_kit import run

pytestmark = pytest.mark.usefixtures("needs_bwrap")

PY = os.path.realpath(sys.executable)  # as in test_sandbox_root.py: the interpreter itself
REPO = Path(__file__).resolve().parents[2]
SECRET = "key-payload-0451-do-not-leak"
ABI = sc.ABIS[sc.MACHINES.get(platform.machine(), ("x86_64",))[0]]
NUMBERS = json.dumps(ABI.numbers)

#: Inside the sandbox: look for Larik's key, read it, plant keys, list /proc/keys.
INSIDE = textwrap.dedent(
    """
    import ctypes, json, os, sys
    N = json.loads(sys.argv[1])
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    def say(what, rc):
        print(what, rc if rc >= 0 else os.strerror(ctypes.get_errno()), flush=True)
    found = libc.syscall(N["keyctl"], 10, -3, b"user", b"larik-test-secret", 0)  # SEARCH @s
    say("search", found)
    buf = ctypes.create_string_buffer(256)
    say("read", libc.syscall(N["keyctl"], 11, found, buf, 256))  # KEYCTL_READ
    print("payload", buf.value.decode(errors="replace"))
    for ring in (-3, -4, -5):  # the session, user and user-session keyrings
        say("add", libc.syscall(N["add_key"], b"user", b"planted", b"x", 1, ring))
    say("join", libc.syscall(N["keyctl"], 1, None))  # a session keyring of its own
    say("request", libc.syscall(N["request_key"], b"user", b"larik-test-secret", None, -3))
    try:
        print("proc-keys", open("/proc/keys").read().replace(chr(10), " | "))
    except OSError as e:
        print("proc-keys", e.strerror)
    """
)

#: On the host, as Larik: a session keyring of this process's own holding a key, then the
#: command through the real bash tool, then what is in the keyrings after it.
HOST = textwrap.dedent(
    """
    import asyncio, ctypes, json, sys
    from pathlib import Path
    from larik import sandbox as sb
    from larik.agent.tools import ToolContext
    from larik.agent.tools import bash as bash_tool
    N, project, py, secret = json.loads(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4]
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    assert libc.syscall(N["keyctl"], 1, None) > 0  # JOIN_SESSION_KEYRING: a new anonymous one
    key = libc.syscall(N["add_key"], b"user", b"larik-test-secret", secret.encode(),
                       len(secret), -3)
    assert key > 0, ctypes.get_errno()
    command = f"{py} -I inside.py '{sys.argv[1]}'"
    ctx = ToolContext(root=project, sandbox=sb.Sandbox())
    done = asyncio.run(bash_tool.run(bash_tool.Args(command=command), ctx))
    planted = [libc.syscall(N["keyctl"], 10, ring, b"user", b"planted", 0) for ring in (-3, -4, -5)]
    buf = ctypes.create_string_buffer(256)
    libc.syscall(N["keyctl"], 11, key, buf, 256)
    print(json.dumps({"inside": done.content, "planted": planted, "kept": buf.value.decode()}))
    """
)


@pytest.fixture
def open_project() -> Iterator[Path]:
    """A project folder ``nobody`` can write (under ``/tmp``: pytest's own is root's, 0700)."""
    path = Path(tempfile.mkdtemp(prefix="larik-keyring-"))
    path.chmod(0o777)
    (path / "inside.py").write_text(INSIDE)
    (path / "inside.py").chmod(0o644)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _host(argv_prefix: list[str], py: str, project: Path, env: dict[str, str]) -> dict:
    done = subprocess.run(
        [*argv_prefix, py, "-c", HOST, NUMBERS, str(project), py, SECRET],
        capture_output=True,
        text=True,
        env=env,
        cwd=project,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _assert_not_shared(seen: dict) -> None:
    inside = seen["inside"]
    assert SECRET not in inside, inside  # not read …
    assert "search Operation not permitted" in inside, inside  # … nor even found
    assert inside.count("add Operation not permitted") == 3, inside
    assert "join Operation not permitted" in inside and "request Operation not permitted" in inside
    assert "larik-test-secret" not in inside  # /proc/keys does not name it either
    assert all(rc < 0 for rc in seen["planted"]), seen  # nothing planted where Larik looks
    assert seen["kept"] == SECRET  # and Larik's own key is as it was


def _env(home: Path, pythonpath: str) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(home),
        "PYTHONPATH": pythonpath,
    }


def test_a_command_cannot_read_or_plant_a_key_in_larik_s_keyrings(open_project):
    seen = _host([], PY, open_project, _env(open_project, str(REPO)))
    _assert_not_shared(seen)


def _nobody_python(project: Path) -> tuple[str, str] | None:
    """An interpreter ``nobody`` can run that imports Larik and its dependencies, and the
    PYTHONPATH it needs; None when there is none here (a virtualenv under root's home)."""
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    site = [p for p in sys.path if p.endswith("site-packages") and os.path.isdir(p)]
    path = os.pathsep.join([str(REPO), *site])
    want = f"{sys.version_info[0]}.{sys.version_info[1]}"
    for py in dict.fromkeys([PY, "/usr/bin/python3"]):
        check = (  # the interpreter's own folder too: a loader may find another libpython
            "import os, sys, larik.agent.tools.bash; "
            "print('%d.%d' % sys.version_info[:2], os.access(os.path.dirname(sys.executable), os.X_OK))"
        )
        try:
            done = subprocess.run(
                [*NOBODY, py, "-c", check],
                capture_output=True,
                text=True,
                env=_env(project, path),
                cwd=project,
                timeout=60,
            )
        except OSError:
            continue
        if done.returncode == 0 and done.stdout.split() == [want, "True"]:
            return py, path
    return None


NOBODY = ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"]


@pytest.mark.skipif(os.geteuid() != 0, reason="the test makes itself nobody with setpriv")
def test_a_user_s_command_cannot_read_or_plant_a_key_either(open_project):
    found = _nobody_python(open_project)
    if found is None:
        pytest.skip("no interpreter with Larik's dependencies that nobody may run")
    py, path = found
    seen = _host(NOBODY, py, open_project, _env(open_project, path))
    _assert_not_shared(seen)


# ------------------------------------------------------------------ the refused calls, inside

CALLS = textwrap.dedent(
    """
    import ctypes, json, os, sys
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    wrong = {}
    for name, (nr, args, want) in json.loads(open("calls.json").read()).items():
        ctypes.set_errno(0)
        rc = libc.syscall(nr, *[ctypes.c_long(a) for a in args])
        got = ctypes.get_errno() if rc < 0 else 0
        if got != want:
            wrong[name] = [rc, os.strerror(got) if got else "allowed"]
    print("WRONG", json.dumps(wrong))
    """
)

#: Arguments that make a narrowed rule refuse; every other call gets zeros (refused before
#: the kernel reads them). clone is left to the program's own test: unfiltered, it would fork.
ARGS = {"unshare": [0x10000000], "ioctl": [0, 0x5412, 0], "personality": [0x0040000]}
SKIPPED = {"clone"}


def test_each_refused_call_fails_with_its_errno_inside(project):
    calls = {}
    for number, rule in sc.refusals(ABI, sc._kernel()).items():
        for name in rule.names:
            if ABI.numbers.get(name) == number and name not in SKIPPED:
                calls[name] = [number, ARGS.get(name, [0] * 6), rule.errno]
    assert {"keyctl", "add_key", "request_key", "unshare", "mount", "bpf"} <= set(calls)
    (project / "calls.json").write_text(json.dumps(calls))
    (project / "calls.py").write_text(CALLS)
    out, data = run(project, f"{PY} -I calls.py", sb.Sandbox())
    assert data["exit_code"] == 0, out
    line = next(x for x in out.splitlines() if x.startswith("WRONG "))
    assert json.loads(line[6:]) == {}


@pytest.mark.skipif(shutil.which("unshare") is None, reason="util-linux's unshare")
def test_a_refused_call_s_failure_says_it_may_be_the_sandbox(project):
    out, data = run(project, "unshare -U true", sb.Sandbox())
    assert data["exit_code"] != 0 and "Operation not permitted" in out, out
    assert "new namespaces and mounts are refused" in out


def test_ordinary_work_still_runs_under_the_filter(project):
    (project / "t.c").write_text(
        "#include <pthread.h>\n#include <stdio.h>\n"
        "static void *f(void *a) { return a; }\n"
        'int main(void) { pthread_t t; pthread_create(&t, 0, f, 0); pthread_join(t, 0); puts("C-RAN"); }\n'
    )
    (project / "test_it.py").write_text("def test_it():\n    assert 1 + 1 == 2\n")
    steps = [
        f"{PY} -I -c 'import threading, subprocess; t = threading.Thread(target=print); "
        't.start(); t.join(); subprocess.run(["true"], check=True); print("PY-RAN")\'',
        "git init -q . && git -c user.name=t -c user.email=t@e add -A "
        "&& git -c user.name=t -c user.email=t@e commit -qm x && echo GIT-RAN",
        f"{sys.executable} -m pytest -q -p no:cacheprovider test_it.py >/dev/null && echo PYTEST-RAN",
    ]
    want = ["PY-RAN", "GIT-RAN", "PYTEST-RAN"]
    if shutil.which("cc"):
        steps.append("cc -pthread -o t t.c && ./t")
        want.append("C-RAN")
    if shutil.which("strace"):  # ptrace stays allowed: the command's own processes only
        steps.append("strace -f -o /dev/null true && echo TRACED")
        want.append("TRACED")
    out, data = run(project, " ; ".join(steps), sb.Sandbox())
    assert [w for w in want if w not in out] == [], out


# ------------------------------------------------------------------ every caller gets it

#: Every place that makes a bwrap command line, and how it starts it. A new caller of
#: ``Sandbox.wrap`` fails here until it is listed (and the filter needs nothing of it: the
#: command line carries it).
CALLERS = {
    "larik/agent/tools/bash.py": "spawn_shell (foreground, background jobs), editor_argv",
    "larik/sandbox/programs.py": "hook_launcher: hooks (larik/hooks/process.py Popen)",
    "larik/mcp/stdio.py": "command_line: stdio MCP servers (the SDK's process)",
    "larik/lsp/session.py": "_server: language servers (larik/lsp/client.py)",
    "larik/bench/confine.py": "run: bench checks",
    "larik/sandbox/__init__.py": "probe: the real line of `true`, once",
}


def _wrap_callers() -> set[str]:
    found = set()
    for path in sorted((REPO / "larik").rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "wrap"
                and not (isinstance(node.func.value, ast.Name) and node.func.value.id == "line")
                and not (isinstance(node.func.value, ast.Subscript))  # rich's Text.wrap
            ):
                found.add(str(path.relative_to(REPO)))
    return found


def test_every_bwrap_command_line_is_made_by_wrap_and_carries_the_filter(project):
    assert _wrap_callers() == set(CALLERS)
    for mode in ("workspace-write", "read-only"):
        argv = sb.Sandbox(mode=mode).wrap(["true"], project)
        opener, flags = sc.launch()
        assert argv[: len(opener)] == opener and flags
        bwrap = next(i for i, word in enumerate(argv) if os.path.basename(word) == "bwrap")
        assert argv[bwrap + 1 : argv.index("--", bwrap)].count("--seccomp") == 1


KEYCTL = f"{PY} -I -c 'import ctypes,os; l=ctypes.CDLL(None,use_errno=True); " + (
    f"r=l.syscall({ABI.numbers['keyctl']},0,-3,0); "
    'print("KEYCTL", r if r>=0 else os.strerror(ctypes.get_errno()))\''
)


def test_each_way_a_command_starts_refuses_the_keyring(project):
    from larik.agent.jobs import JobTable
    from larik.bench import confine
    from larik.hooks.config import HookEntry
    from larik.sandbox.programs import hook_launcher

    refused = "KEYCTL Operation not permitted"
    box = sb.Sandbox()
    out, _ = run(project, KEYCTL, box)
    assert refused in out, ("bash", out)

    async def job() -> str:
        table = JobTable()
        ctx = ToolContext(root=project, sandbox=box, jobs=table)
        started = await bash_tool.run(bash_tool.Args(command=KEYCTL, background=True), ctx)
        seen = started.content
        for _ in range(300):
            await table.wait(1, 0.2)
            seen += table.read(1).content
            if table.get(1).state != "running":
                break
        await table.close()
        return seen

    assert refused in asyncio.run(job()), "background job"
    launched = hook_launcher(box, project)(HookEntry(command=KEYCTL), KEYCTL)
    for name, argv in (
        ("hook", launched.argv),
        ("editor", bash_tool.editor_argv(KEYCTL, project, box)),
    ):
        assert argv is not None
        done = subprocess.run(argv, capture_output=True, text=True, cwd=project, timeout=120)
        assert refused in done.stdout, (name, done)
    ran = confine.run(["bash", "-c", KEYCTL], project, {}, timeout=120)
    assert refused in ran.output, ("bench", ran)
