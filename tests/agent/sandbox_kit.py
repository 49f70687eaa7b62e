"""What the sandbox tests share besides their fixtures (``needs_bwrap``, ``outside``, ``home``
in conftest.py): a command run through the real bash tool."""

from __future__ import annotations

import asyncio
from pathlib import Path

from larik import sandbox as sb
from larik.agent.tools import ToolContext
from larik.agent.tools import bash as bash_tool

SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- sk-SECRET-do-not-leak"
GIT = "git -c user.name=t -c user.email=t@example.com"


def run(
    root: Path, command: str, box: sb.Sandbox | None, *, sandbox: bool = True
) -> tuple[str, dict]:
    args = bash_tool.Args(command=command, sandbox=sandbox)
    result = asyncio.run(bash_tool.run(args, ToolContext(root=root, sandbox=box)))
    return result.content, result.data
