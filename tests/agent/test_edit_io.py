"""The edit workflow reads and writes only as the tools would (issue 42 item 12).

Every read the harness makes for the model is read_file's (deny rules, inside the project,
regular files only, a size bound: :mod:`larik.agent.edit_files`), every write is a write_file
call through the tool runner (permissions, deny rules, hooks, checkpoints), and a reply it
cannot place is refused. Real edit-workflow turns on the scripted provider, real files, a real
FIFO, real hooks (processes) and real pytest; and a walk of the workflow's modules, so a new
read or write cannot go around the seam.
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import sys
import threading
from pathlib import Path

import pytest

from larik.agent import own_tests
from larik.config import Config
from larik.config.providers import ModelOverride
from larik.config.tables import PermissionsConfig
from larik.hooks.config import HooksConfig

from .conftest import E, of, run, script

SECRET = "TOPSECRET-0451"
MISS = "<<<<<<< SEARCH\nnot in the file\n=======\nx = 2\n>>>>>>> REPLACE\n"
PASSING = "from calc import add\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n"
OWN = (
    f"{own_tests.FILE}\n```python\nfrom calc import add\n\n\n"
    "def test_sum():\n    assert add(2, 3) == 5\n```\n"
)
FIXED = "calc.py\n```python\ndef add(a, b):\n    return a + b\n```\n"


def edit_config(deny: list[str] | None = None, own: bool = False, **hooks) -> Config:
    return Config(
        models={"scripted/m": ModelOverride(workflow="edit", own_tests=own)},
        permissions=PermissionsConfig(deny=deny or []),
        hooks=HooksConfig.model_validate(hooks),
    )


def replies(first: str):
    """The model's reply, then no edit (twice: a request for a change asks once more)."""
    return script({"text": first}, {"text": "ok"}, {"text": "ok"})


def sent(p) -> str:
    """Everything the model was sent, over all its requests."""
    return "\n".join(m.text() for r in p.requests for m in r.messages)


def recorded(agent) -> str:
    return Path(agent.transcript_path).read_text()


def told(p, n: int = 1) -> str:
    return p.requests[n].messages[-1].text()


# -- reads ------------------------------------------------------------------------------------


async def test_a_denied_file_s_content_reaches_neither_the_model_nor_the_transcript(
    make_agent, project
):
    """A block on a file a read_file deny rule covers, whose search does not match: the
    harness used to send its whole content back as "the current content of" it."""
    (project / "secret.py").write_text(f"KEY = '{SECRET}'\n")
    for reply in (f"secret.py\n```python\n{MISS}```\n", "secret.py\n" + MISS):
        p = replies(reply)
        agent = await make_agent(p, config=edit_config(deny=["read_file: secret.py"]))
        await run(agent, "fix calc.py")
        assert SECRET not in sent(p) and SECRET not in recorded(agent)
        assert "secret.py: " in told(p) and "deny rule" in told(p)
        assert (project / "secret.py").read_text() == f"KEY = '{SECRET}'\n"


async def test_a_fifo_a_block_names_is_never_opened_and_the_turn_goes_on(make_agent, project):
    """Opening a FIFO for reading blocks until a writer comes (the event loop with it, past two
    SIGTERMs). A writer here waits to see whether anyone opens it; nobody may."""
    fifo = project / "pipe.py"
    os.mkfifo(fifo)
    opened = threading.Event()

    def writer() -> None:
        fd = os.open(fifo, os.O_WRONLY)  # returns only once a reader has opened it
        opened.set()
        with contextlib.suppress(OSError):  # no reader left: the test let the writer go
            os.write(fd, f"x = '{SECRET}'\n".encode())
        os.close(fd)

    t = threading.Thread(target=writer, daemon=True)
    t.start()
    try:
        p = replies("pipe.py\n" + MISS)
        agent = await make_agent(p, config=edit_config())
        events = await run(agent, "fix calc.py")
        assert not opened.is_set() and SECRET not in sent(p)
        assert of(events, E.TURN_END)  # the turn went on and ended, as any other
        assert "pipe.py: " in told(p) and "not a regular file" in told(p)
    finally:
        if not opened.is_set():  # let the writer go
            os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
        t.join(timeout=60)


async def test_a_huge_file_is_not_read_whole(make_agent, project):
    """A 300 MB file drove the harness to 15 GB; here a few MB whose last line is marked: a
    search that does not match used to bring the whole file back to the model."""
    big = project / "big.py"
    with big.open("w") as fh:
        line = "x = 1  # " + "y" * 90 + "\n"
        fh.write(line * 30_000)  # 3 MB
        fh.write(f"z = '{SECRET}'\n")
    p = replies("big.py\n" + MISS)
    agent = await make_agent(p, config=edit_config())
    await run(agent, "fix calc.py")
    assert SECRET not in sent(p) and SECRET not in recorded(agent)
    assert "big.py: " in told(p) and "over the limit" in told(p)


def test_the_seam_reads_only_what_read_file_could_show(tmp_path: Path):
    from larik.agent import edit_files

    root = tmp_path / "p"
    root.mkdir()
    (root / "ok.py").write_text("x = 1\n")
    (root / "deny.py").write_text(SECRET)
    (root / "big.py").write_text("x" * (edit_files.MAX_BYTES + 1))
    (root / "bin.dat").write_bytes(b"\x00\x01" * 10)
    (tmp_path / "out.py").write_text(SECRET)
    (root / "link.py").symlink_to(tmp_path / "out.py")
    os.mkfifo(root / "fifo.py")
    denied = lambda p: p.name == "deny.py"  # noqa: E731
    assert edit_files.read_shown(root, "ok.py", denied) == "x = 1\n"
    for rel in ("deny.py", "big.py", "bin.dat", "link.py", "fifo.py", "../out.py", "nope.py"):
        assert edit_files.read_shown(root, rel, denied) is None, rel
        now = edit_files.current(root, rel, denied)
        assert now.text is None and (now.why or rel == "nope.py"), rel


# -- writes -----------------------------------------------------------------------------------

HOOK = """
import json, sys
event = json.loads(sys.stdin.read())
with open(sys.argv[1], "a") as fh:
    fh.write(json.dumps([event.get("tool_name"), event.get("tool_input", {}).get("path")]) + "\\n")
"""


@pytest.fixture
def passing(project: Path) -> Path:
    """A project whose tests pass before the change: own_tests asks for the model's first."""
    (project / "tests").mkdir()
    (project / "tests" / "test_calc.py").write_text(PASSING)
    return project


async def test_own_tests_are_written_through_the_runner_so_deny_rules_hold(make_agent, passing):
    p = script({"text": OWN}, {"text": FIXED})
    agent = await make_agent(p, config=edit_config(deny=["write_file: *"], own=True))
    events = await run(agent, "make add return the sum of its two arguments")
    starts = [e.tool_input.get("command", "") for e in of(events, E.TOOL_START)]
    assert own_tests.COMMAND not in starts  # never placed, so never run
    denied = [e for e in of(events, E.TOOL_END) if e.data.get("denied")]
    assert any(e.tool_input.get("path") == own_tests.FILE for e in denied)
    assert told(p).startswith("Your tests are not used: ") and "write_file: *" in told(p)
    assert not (passing / own_tests.FILE).exists()


async def test_own_tests_are_written_through_the_runner_so_hooks_see_them(
    make_agent, passing, tmp_path
):
    hooks = passing / ".hooks"
    hooks.mkdir()
    (hooks / "log.py").write_text(HOOK)
    log = hooks / "calls.log"
    hook = {"command": f"{sys.executable} {hooks / 'log.py'} {log}"}
    p = script({"text": OWN}, {"text": FIXED})
    config = edit_config(own=True, PreToolUse=[hook], PostToolUse=[hook])
    agent = await make_agent(p, config=config)
    await run(agent, "make add return the sum of its two arguments")
    calls = [tuple(json.loads(x)) for x in log.read_text().splitlines()]
    wrote = [c for c in calls if c[1] == own_tests.FILE]
    assert len(wrote) == 2  # before and after the write
    assert (passing / "calc.py").read_text().endswith("return a + b\n")
    assert not (passing / own_tests.FILE).exists()  # the harness's file, gone with the turn


# -- replies the harness cannot place -------------------------------------------------------


@pytest.mark.parametrize(
    "header",
    [
        "~/pwn.txt",
        "~/.bashrc",
        "/etc/x",
        "$HOME/pwn.txt",
        "../x",
        "**~/pwn.txt**",
        "# ~/pwn.txt",
        "C:\\pwn.py",
        "{project}/calc.py",
    ],
)
async def test_a_reply_headed_by_a_path_it_cannot_place_is_refused(
    make_agent, project, tmp_path, monkeypatch, header
):
    """The whole file went into the request's own file when the parser did not know the
    header as a path; a path outside the project, ~, absolute or with .. is never placed."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    header = header.format(project=project)
    before = (project / "calc.py").read_text()
    reply = f"Here it is.\n\n{header}\n```python\nPWNED = 1\n```\n"
    p = replies(reply)
    agent = await make_agent(p, config=edit_config())
    await run(agent, "fix calc.py")
    assert (project / "calc.py").read_text() == before
    assert not list(home.iterdir()) and not (tmp_path / "x").exists()
    assert "Not applied" in told(p) and "relative to the project's root" in told(p)


async def test_a_path_on_the_fence_it_cannot_place_is_refused(make_agent, project):
    before = (project / "calc.py").read_text()
    p = replies("```python ~/pwn.py\nPWNED = 1\n```\n")
    agent = await make_agent(p, config=edit_config())
    await run(agent, "fix calc.py")
    assert (project / "calc.py").read_text() == before
    assert "relative to the project's root" in told(p)


# -- the walk -------------------------------------------------------------------------------

AGENT = Path(own_tests.__file__).parent
#: the one module of the workflow that reads and writes files, for all the others
SEAM = "edit_files"


def _local_imports(tree: ast.AST) -> list[str]:
    """The larik.agent modules a module imports when it runs (not for type checking only)."""
    typing_only = {
        id(sub)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for sub in ast.walk(node)
    }
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1 and id(node) not in typing_only:
            names = [node.module.split(".")[0]] if node.module else [a.name for a in node.names]
            out += [n for n in names if (AGENT / f"{n}.py").exists()]
    return out


def workflow_modules() -> list[str]:
    """Every module of the edit workflow: what edit_turn runs on (its imports, theirs, …)
    and every edit_*.py, found, not listed, so a new one is walked too. values_probe.py is
    not among them: it is a script the workflow runs as a sandboxed command (:mod:`.seen`)."""
    found: set[str] = set()
    todo = ["edit_turn", *(p.stem for p in AGENT.glob("edit_*.py")), "own_tests"]
    while todo:
        name = todo.pop()
        if name not in found:
            found.add(name)
            todo += _local_imports(ast.parse((AGENT / f"{name}.py").read_text()))
    return sorted(found - {SEAM})


#: methods that open, read, write, move or remove a file, whatever they are called on
IO_METHODS = {
    "read_text",
    "read_bytes",
    "write_text",
    "write_bytes",
    "open",
    "touch",
    "unlink",
    "rmdir",
    "mkdir",
    "symlink_to",
    "hardlink_to",
    "fdopen",
    "mkfifo",
}
#: modules whose every call here is file I/O (os.remove, os.replace, shutil.copy, io.open)
IO_MODULES = {"os", "io", "shutil", "tempfile"}
#: os's functions that only look (a stat is no read of a file's content)
OS_LOOKS = {"fspath", "fsdecode", "fsencode", "getcwd", "environ", "sep", "pathsep"}
#: the file tools' own helpers: only the seam imports them
TOOL_IO = {"_files", "read_file", "write_file", "edit_file"}


def _io_calls(tree: ast.AST) -> list[str]:
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name) and f.id == "open":
                out.append(f"open() at line {node.lineno}")
            elif isinstance(f, ast.Attribute):
                mod = f.value.id if isinstance(f.value, ast.Name) else ""
                if f.attr in IO_METHODS or (mod in IO_MODULES and f.attr not in OS_LOOKS):
                    out.append(f"{mod}.{f.attr}() at line {node.lineno}")
        elif isinstance(node, ast.ImportFrom):
            module = (node.module or "").split(".")[-1]
            names = [a.name for a in node.names]
            hits = [n for n in [module, *names] if n in TOOL_IO]
            out += [f"imports {h} at line {node.lineno}" for h in hits]
    return out


def test_no_module_of_the_workflow_reads_or_writes_but_through_the_seam():
    """A new read or write in the workflow (a Path.read_text, an open, os.open, the file
    tools' helpers) fails here: it goes through :mod:`larik.agent.edit_files`."""
    modules = workflow_modules()
    assert {"edit_turn", "edit_apply", "own_tests", "seen", "skips", "examples"} <= set(modules)
    found: dict[str, list[str]] = {}
    for name in modules:
        calls = _io_calls(ast.parse((AGENT / f"{name}.py").read_text(), filename=name))
        if calls:
            found[name] = calls
    assert found == {}


def test_the_walk_sees_a_read_and_a_write():
    """The walk cannot pass by missing what it looks for."""
    src = (
        "from .tools._files import read_text\n"
        "def f(p):\n    p.read_text()\n    open(p)\n    os.open(p, 0)\n    p.write_bytes(b'')\n"
        "    os.unlink(p)\n    shutil.copy(p, p)\n"
    )
    assert len(_io_calls(ast.parse(src))) == 7
    plain = "re.sub('a', 'b', 'c')\n'x'.replace('a', 'b')\n[1].remove(1)\nos.fspath(p)\n"
    assert _io_calls(ast.parse(plain)) == []
