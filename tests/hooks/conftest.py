"""Hooks on agents driven by the scripted provider; hook scripts are small Python programs."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from larik.config import Config, PermissionsConfig
from larik.hooks.config import HooksConfig

from ..agent.conftest import make_agent, project  # noqa: F401  (fixtures)


@pytest.fixture
def hook_dir(project: Path) -> Path:  # noqa: F811  (the fixture imported above)
    """Inside the project: hooks run in the OS sandbox, where only the project is writable
    (and the host's /tmp, where tmp_path is, is hidden by the sandbox's private one)."""
    d = project / ".hooks"
    d.mkdir()
    return d


def py_hook(folder: Path, name: str, body: str) -> str:
    """A hook command running ``body`` as a Python program (json and sys imported; the
    event's JSON is ``event``; ``log`` appends it to NAME.log beside the script)."""
    script = folder / f"{name}.py"
    log = folder / f"{name}.log"
    script.write_text(
        "import json, os, sys\n"
        "event = json.loads(sys.stdin.read() or 'null')\n"
        f"def log():\n    open({str(log)!r}, 'a').write(json.dumps(event) + '\\n')\n" + body
    )
    return f"{sys.executable} {script}"


def logged(folder: Path, name: str) -> list[dict[str, Any]]:
    import json

    path = folder / f"{name}.log"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def config(mode: str = "yolo", deny: list[str] | None = None, **events: Any) -> Config:
    return Config(
        permissions=PermissionsConfig(mode=mode, deny=deny or []),
        hooks=HooksConfig.model_validate(events),
    )
