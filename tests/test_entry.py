"""The ``larik`` console script (larik._entry): --version without importing anything heavy, and
``larik`` alone (or with its TUI options) straight to the TUI without Typer, as Typer would."""

import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

import larik
from larik import _entry, interactive
from larik.cli import app as typer_app
from larik.cli import optional_resume
from tests.patience import WAIT

HEAVY = ("typer", "pydantic", "anthropic", "openai", "google.genai", "httpx2", "textual", "rich")

PROBE = """
import sys
sys.argv = ["larik", {flag!r}]
from larik._entry import main
main()
heavy = {heavy!r}
print("LOADED:" + ",".join(sorted(h for h in heavy if h in sys.modules)))
"""


def _run(flag: str) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(flag=flag, heavy=HEAVY)],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip().splitlines()


def test_version_flag_prints_the_version_and_imports_nothing_heavy():
    lines = _run("--version")
    assert lines[0] == f"larik {larik.__version__}"
    assert lines[-1] == "LOADED:"


def test_short_version_flag_prints_the_version_and_imports_nothing_heavy():
    lines = _run("-V")
    assert lines[0] == f"larik {larik.__version__}"
    assert lines[-1] == "LOADED:"


def test_other_arguments_go_to_the_typer_app():
    out = subprocess.run(
        [sys.executable, "-m", "larik._entry", "--help"], capture_output=True, text=True
    )
    assert out.returncode == 0
    assert "Usage:" in out.stdout


# -- `larik` alone (and its TUI options) starts the TUI without Typer -------------------------

FAST = """
import sys
sys.argv = ["larik", *{argv!r}]
import larik.interactive as interactive

seen = {{}}

def run_interactive(cwd, model="", effort=None, permission_mode=None, session=None):
    seen.update(model=model, effort=effort, permission_mode=permission_mode, session=session)
    seen["loaded"] = sorted(h for h in {heavy!r} if h in sys.modules)
    return 0

interactive.run_interactive = run_interactive
from larik._entry import main
try:
    main()
except SystemExit as e:
    seen["exit"] = e.code
print("SEEN:" + repr(seen))
"""


def test_bare_larik_reaches_the_tui_with_nothing_heavy_imported():
    out = subprocess.run(
        [sys.executable, "-c", FAST.format(argv=[], heavy=HEAVY)],
        capture_output=True,
        text=True,
        check=True,
    )
    seen = eval(out.stdout.strip().splitlines()[-1].removeprefix("SEEN:"))
    assert seen["loaded"] == [] and seen["exit"] == 0
    assert seen["session"] is None and seen["model"] == ""


def test_bare_larik_without_a_terminal_is_the_same_line_and_code_as_through_typer(tmp_path):
    def run(module: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", module],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            cwd=tmp_path,
        )

    fast, typer = run("larik._entry"), run("larik.cli")
    assert fast.returncode == typer.returncode == 2
    assert fast.stderr == typer.stderr == interactive.NO_TERMINAL + "\n"
    assert fast.stdout == typer.stdout == ""


TUI_FORMS = [
    [],
    ["-c"],
    ["--continue"],
    ["-m", "anthropic/claude-sonnet-4-5"],
    ["--model", "openai/gpt-5"],
    ["--model=ollama/qwen3:8b"],
    ["--effort", "high"],
    ["--effort=low", "--permission-mode", "yolo"],
    ["--permission-mode=edits"],
    ["-r", "20261130-120000-abcdef"],
    ["--resume", "20261130-120000-abcdef", "-c"],
    ["--resume=latest"],
    ["-c", "-m", "m", "--effort", "max", "--permission-mode", "ask"],
]


def _through_typer(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> dict:
    seen: dict = {}

    def fake(
        cwd,
        model="",
        effort=None,
        permission_mode=None,
        session=None,
        trust_project=False,
        prompt="",
        max_budget_usd=None,
    ):
        seen.update(model=model, effort=effort, permission_mode=permission_mode, session=session)
        return 0

    monkeypatch.setattr(interactive, "run_interactive", fake)
    result = CliRunner().invoke(typer_app, optional_resume(argv), prog_name="larik")
    assert result.exit_code == 0, result.output
    return seen


def _fast(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> dict:
    seen: dict = {}

    def fake(
        cwd,
        model="",
        effort=None,
        permission_mode=None,
        session=None,
        trust_project=False,
        prompt="",
        max_budget_usd=None,
    ):
        seen.update(model=model, effort=effort, permission_mode=permission_mode, session=session)
        return 0

    def no_typer() -> None:
        raise AssertionError(f"{argv} went to Typer")

    monkeypatch.setattr(interactive, "run_interactive", fake)
    monkeypatch.setattr("larik.cli.main", no_typer)
    monkeypatch.setattr(sys, "argv", ["larik", *argv])
    with pytest.raises(SystemExit) as exit_:
        _entry.main()
    assert exit_.value.code == 0
    return seen


@pytest.mark.parametrize("argv", TUI_FORMS, ids=lambda a: " ".join(a) or "(none)")
def test_the_tui_options_are_read_as_typer_reads_them_without_typer(argv, monkeypatch):
    assert _fast(argv, monkeypatch) == _through_typer(argv, monkeypatch)


@pytest.mark.parametrize(
    "argv",
    [
        ["-m"],  # a value missing
        ["--model"],
        ["--model="],
        ["-m", "--effort", "high"],  # a value that looks like an option
        ["-m=x"],  # Typer reads "=x"
        ["-m", "a", "-m", "b"],  # repeated: Typer keeps the last
        ["-c", "-c"],
        ["-cm", "x"],
        ["--resume"],  # lists the sessions
        ["--resume", "-c"],
        ["--resume="],
        ["--bogus"],
        ["-x"],
        ["models"],  # subcommands, print mode, help
        ["-p", "hi"],
        ["--help"],
        ["-m", "x", "extra"],
        ["--version", "-c"],
        ["--"],
    ],
    ids=lambda a: " ".join(a),
)
def test_other_command_lines_go_to_typer(argv):
    assert _entry.interactive_args(argv) is None


@pytest.mark.parametrize("argv", [["-m"], ["--bogus"], ["--effort"], ["-m", "a", "-x"]])
def test_a_bad_flag_gives_typers_error_and_exit_code(argv, tmp_path):
    def run(module: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", module, *argv],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            cwd=tmp_path,
        )

    fast, typer = run("larik._entry"), run("larik.cli")
    assert fast.returncode == typer.returncode == 2
    assert fast.stderr == typer.stderr and "Error" in fast.stderr


def _on_pty(argv: list[str], cwd: Path, timeout: float = WAIT) -> tuple[int, str]:
    """Run ``argv`` on a pseudo-terminal until it exits: (exit code, what it wrote)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        argv, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, start_new_session=True
    )
    os.close(slave)
    out = b""
    end = time.monotonic() + timeout
    try:
        while time.monotonic() < end:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # the child is gone and the pty closed
                    break
                if not chunk:
                    break
                out += chunk
            elif proc.poll() is not None:
                break
        code = proc.wait(timeout=max(0.1, end - time.monotonic()))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    return code, out.decode("utf-8", "replace")


_ERROR_LINE = re.compile(r"larik: [^\r\n\x1b]*")


@pytest.mark.parametrize("argv", [[], ["-m", "scripted/x.json"]], ids=["bare", "with -m"])
def test_a_broken_config_ends_the_tui_with_one_line_and_code_2_as_through_typer(argv, tmp_path):
    from larik.config import user_config_path

    user_config_path().parent.mkdir(parents=True, exist_ok=True)
    user_config_path().write_text('max_turns = "many"\n')
    fast = _on_pty([sys.executable, "-m", "larik._entry", *argv], tmp_path)
    typer = _on_pty([sys.executable, "-m", "larik.cli", *argv], tmp_path)
    assert fast[0] == typer[0] == 2
    lines = [_ERROR_LINE.findall(out) for _, out in (fast, typer)]
    assert lines[0] == lines[1] and len(lines[0]) == 1
    assert lines[0][0].startswith(f"larik: {user_config_path()}")
    assert "max_turns: should be a whole number (got 'many')" in lines[0][0]
    assert "Traceback" not in fast[1]
