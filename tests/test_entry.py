"""The ``larik`` console script (larik._entry) answers --version without importing anything heavy."""

import subprocess
import sys

import larik

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
