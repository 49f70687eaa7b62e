"""A full disk ends print mode cleanly (issue 42, item 15): a write of the session's files
(the transcript, the session log, checkpoints) that fails — here a file-size limit
(RLIMIT_FSIZE with SIGXFSZ ignored: EFBIG, as a full disk's ENOSPC) on the real ``larik -p``
with a scripted model — is one line on stderr, the result (with the error) on stdout in
json and stream-json, exit code 1, and no traceback. Before, the transcript's last write
ended the run with a traceback and no result."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys

import pytest

from .test_printmode import write_script

WAIT = 120.0


def _limited(size: int):
    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    return limit


@pytest.mark.parametrize("size", [100, 300], ids=["at-the-start", "at-the-end"])
@pytest.mark.parametrize("fmt", ["json", "stream-json", "text"])
def test_a_session_file_that_cannot_be_written_ends_the_run_in_one_line(tmp_path, size, fmt):
    root = tmp_path / "proj"
    root.mkdir()
    model = write_script(tmp_path / "s.json", {"text": "hello there, this is a reply"})
    proc = subprocess.run(
        [sys.executable, "-m", "larik.cli", "-p", "hi", "-m", model, "--output-format", fmt],
        capture_output=True,
        text=True,
        cwd=root,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        preexec_fn=_limited(size),
        timeout=WAIT,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 1, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if "cannot write" in line]
    assert lines == ["larik: cannot write the session's files: File too large"], proc.stderr
    if fmt != "text":
        result = json.loads(proc.stdout.splitlines()[-1])
        assert result["type"] == "result" and result["ok"] is False
        assert "cannot write the session's files" in result["error"]
