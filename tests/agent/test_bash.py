"""The bash tool against what a model or a repository's script may try: reading the user's
keys from the environment, and outliving an interrupt."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from larik import processes
from larik.agent.tools import ToolContext
from larik.agent.tools import bash as bash_tool
from larik.llm import registry
from tests.patience import WAIT, until

from .test_tools import gone

KEYS = {
    "ANTHROPIC_API_KEY": "sk-ant-api03-aaaaSECRETaaaa",
    "OPENAI_API_KEY": "sk-proj-bbbbSECRETbbbb",
    "GROQ_API_KEY": "gsk_ccccSECRETcccc",
    "GEMINI_API_KEY": "AIzaddddSECRETdddd",
    "GITHUB_TOKEN": "ghp_eeeeSECRETeeee",
    "AWS_SECRET_ACCESS_KEY": "ffffSECRETffff",
    "my_service_apikey": "ggggSECRETgggg",
    "DB_PASSWORD": "hhhhSECREThhhh",
}


async def run(root: Path, command: str, ctx: ToolContext | None = None) -> str:
    args = bash_tool.Args(command=command)
    return (await bash_tool.run(args, ctx or ToolContext(root=root))).content


@pytest.fixture
def keys(monkeypatch):
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("ORDINARY_SETTING", "visible")
    return KEYS


async def test_a_command_that_prints_the_keys_prints_nothing_of_them(project, keys):
    out = await run(
        project,
        'echo "[$ANTHROPIC_API_KEY][$GROQ_API_KEY][$GITHUB_TOKEN]"; env; '
        "cat /proc/self/environ | tr '\\0' '\\n'; "
        "python3 -c 'import os; print(dict(os.environ))'",
    )
    assert "[][][]" in out
    assert "SECRET" not in out
    assert "ORDINARY_SETTING=visible" in out  # only credentials are left out


async def test_a_provider_key_variable_with_an_unusual_name_is_left_out_too(project, monkeypatch):
    registry.register("corp-llm", lambda **kw: None, ["CORP_LLM_CREDENTIAL"])
    try:
        monkeypatch.setenv("CORP_LLM_CREDENTIAL", "corp-SECRET-value")
        assert "SECRET" not in await run(project, "env")
    finally:
        registry.unregister("corp-llm")


async def test_the_user_can_pass_named_variables_on(project, keys, monkeypatch):
    monkeypatch.setenv(processes.KEEP_ENV, "GITHUB_TOKEN, DB_PASSWORD")
    out = await run(project, 'echo "[$GITHUB_TOKEN][$DB_PASSWORD][$ANTHROPIC_API_KEY]"')
    assert f"[{keys['GITHUB_TOKEN']}][{keys['DB_PASSWORD']}][]" in out


def test_the_child_environment_is_computed_from_the_one_registry():
    env = processes.child_env(
        {"PATH": "/bin", "NVIDIA_API_KEY": "x", "HOME": "/h", "SSH_AUTH_SOCK": "/s"}
    )
    assert env["PATH"] == "/bin" and env["HOME"] == "/h" and env["SSH_AUTH_SOCK"] == "/s"
    assert "NVIDIA_API_KEY" not in env and env["GIT_TERMINAL_PROMPT"] == "0"
    for name in registry.names():
        for var in registry.get(name).credential_env_names:
            assert processes.is_secret_name(var, frozenset([var]))


async def test_the_command_can_be_killed_from_the_first_moment_it_runs(project):
    """An interrupt can come while the command is being started; the command (and anything it
    already started) must be known by then, or it outlives the interrupt."""
    ctx = ToolContext(root=project)
    pidfile = project / "child.pid"
    task = asyncio.create_task(
        bash_tool.run(bash_tool.Args(command=f"sleep 300 & echo $! > {pidfile}; wait"), ctx)
    )
    await asyncio.sleep(0)  # the tool runs up to its first pause
    assert ctx.processes, "the command's process group is not known yet"
    await until(lambda: pidfile.exists() and pidfile.read_text().strip(), "the shell's child")
    child = int(pidfile.read_text())
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await gone(child) and not ctx.processes


async def test_an_interrupt_while_waiting_for_a_background_child_kills_it(project, monkeypatch):
    """The shell has exited; a child it left in the background still holds the output."""
    monkeypatch.setattr(bash_tool, "GRACE", 10 * WAIT)  # still waiting when it is interrupted
    pidfile = project / "child.pid"
    ctx = ToolContext(root=project)
    task = asyncio.create_task(
        bash_tool.run(bash_tool.Args(command=f"sleep 300 & echo $! > {pidfile}"), ctx)
    )
    await until(lambda: pidfile.exists() and pidfile.read_text().strip(), "the shell's child")
    child = int(pidfile.read_text())
    pgid = next(iter(ctx.processes))
    assert await gone(pgid)  # the shell is done; only its child is left
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await gone(child)
