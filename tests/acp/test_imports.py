"""``larik acp`` stays light: ``larik --help`` imports nothing of it, and when it answers
``initialize`` no vendor SDK (nor Textual, nor Typer, nor the ACP SDK) is imported yet."""

from __future__ import annotations

import json
import subprocess
import sys

from .client import ROOT, WAIT, env

HEAVY = ("anthropic", "openai", "google.genai", "textual", "mcp", "ray", "typer", "acp", "pydantic")

HELP = """
import sys
sys.argv = ['larik', '--help']
from larik import cli
try:
    cli.main()
except SystemExit:
    pass
print("LOADED:" + ",".join(sorted(m for m in sys.modules if m == "acp" or m.startswith(("acp.", "larik.acp")))))
"""

AT_INITIALIZE = """
import sys
from larik.acp import handshake
answer = handshake.initialize_result
heavy = {heavy!r}

def probe(*args):
    result = answer(*args)  # its reading of the user's config too
    loaded = sorted(h for h in heavy if h in sys.modules)
    print("LOADED:" + ",".join(loaded), file=sys.stderr, flush=True)
    return result

handshake.initialize_result = probe
sys.argv = ["larik", "acp"]
from larik import _entry
_entry.main()  # the console script's way in
"""


def test_larik_help_imports_nothing_of_acp():
    out = subprocess.run(
        [sys.executable, "-c", HELP], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert out.stdout.strip().splitlines()[-1] == "LOADED:"


def test_no_vendor_sdk_is_imported_when_initialize_is_answered(tmp_path):
    request = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
    proc = subprocess.run(
        [sys.executable, "-c", AT_INITIALIZE.format(heavy=HEAVY)],
        input=json.dumps(request) + "\n",
        capture_output=True,
        text=True,
        timeout=WAIT,
        cwd=tmp_path,
        env=env(),
    )
    assert json.loads(proc.stdout.splitlines()[0])["result"]["protocolVersion"] == 1
    [line] = [x for x in proc.stderr.splitlines() if x.startswith("LOADED:")]
    assert line == "LOADED:"


def test_stdin_that_is_not_a_pipe_is_read_to_its_end(tmp_path):
    """``larik acp < /dev/null`` ends at once (epoll never reports /dev/null ready: it hung)."""
    proc = subprocess.run(
        [sys.executable, "-m", "larik._entry", "acp"],
        stdin=subprocess.DEVNULL, capture_output=True, timeout=WAIT, cwd=tmp_path, env=env(),
    )  # fmt: skip
    assert proc.returncode == 0 and proc.stdout == b""


def test_a_bad_permission_mode_is_one_line_and_exit_code_2(tmp_path):
    request = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
    proc = subprocess.run(
        [sys.executable, "-m", "larik._entry", "acp", "--permission-mode", "godmode"],
        input=json.dumps(request) + "\n", capture_output=True, text=True, timeout=WAIT,
        cwd=tmp_path, env=env(),
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "larik acp: unknown permission mode 'godmode': use ask, edits, yolo, plan"
    ]
