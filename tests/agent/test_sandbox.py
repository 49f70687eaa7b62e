"""The OS sandbox (bubblewrap) against what a confused model or a hostile repository's script
tries: writing outside the project, reading the user's keys, reaching the network.

These run real bwrap. Without it they are skipped — except in CI (``LARIK_CI=1``, set by
``.ci/run``, which installs bubblewrap), where a missing sandbox fails."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import time
from pathlib import Path

import pytest

from larik import sandbox as sb
from larik.agent.events import Approval
from larik.agent.permissions import PermissionPolicy
from larik.agent.tools import ToolContext, get_tool
from larik.agent.tools import bash as bash_tool
from larik.config import state_dir, user_config_path
from tests.patience import WAIT, until

from .sandbox_kit import GIT, run

pytestmark = pytest.mark.usefixtures("needs_bwrap")


def test_the_project_is_writable_and_outside_it_is_read_only(tmp_path, outside):
    project = tmp_path / "proj"
    project.mkdir()
    out, data = run(project, f"echo ok > made.txt && echo bad > {outside}/evil.txt", sb.Sandbox())
    assert (project / "made.txt").read_text() == "ok\n"
    assert not (outside / "evil.txt").exists()
    assert "Read-only file system" in out and data["exit_code"] != 0
    assert "this may be the sandbox" in out  # the result says why
    # the same command without a sandbox really writes there: the refusal was the sandbox's
    run(project, f"echo bad > {outside}/evil.txt", None)
    assert (outside / "evil.txt").exists()


def test_the_hosts_tmp_is_not_written(tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    out, _ = run(
        project,
        f"echo x > {tmp_path}/evil.txt; echo y > /tmp/scratch-$$ && echo wrote",
        sb.Sandbox(),
    )
    assert not (tmp_path / "evil.txt").exists()
    assert "wrote" in out  # a private /tmp: tools that need scratch space still work


def test_extra_writable_paths_are_writable(tmp_path, outside):
    project = tmp_path / "proj"
    project.mkdir()
    box = sb.from_config("workspace-write", False, [str(outside)], project)
    run(project, f"echo ok > {outside}/allowed.txt", box)
    assert (outside / "allowed.txt").read_text() == "ok\n"


def test_read_only_mode_writes_nothing(tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    out, data = run(project, "echo x > made.txt", sb.Sandbox(mode="read-only"))
    assert not (project / "made.txt").exists()
    assert data["exit_code"] != 0 and "Read-only file system" in out


def test_secrets_in_home_and_larik_state_are_invisible(home):
    project = home / "src" / "proj"
    project.mkdir(parents=True)
    box = sb.from_config("workspace-write", False, [str(home)], project)  # $HOME itself visible
    secrets = [
        "~/.ssh/id_rsa",
        "~/.aws/credentials",
        "~/.config/gcloud/creds.json",
        "~/.netrc",
        str(user_config_path().parent / "secret.toml"),
        str(state_dir() / "secret.toml"),
    ]
    out, _ = run(project, "cat ~/notes.txt; " + "; ".join(f"cat {s}" for s in secrets), box)
    assert "ordinary file" in out  # the home folder is there...
    assert "sk-SECRET" not in out  # ...its keys are not
    out, _ = run(project, "ls -a ~/.ssh ~/.aws; cp ~/.ssh/id_rsa ./stolen", box)
    assert "credentials" not in out and "\nid_rsa" not in out  # not even listed
    assert not (project / "stolen").exists()


#: Other coding tools' logins (OAuth tokens of the plans Larik signs in to), and the Hub's.
LOGINS = (
    ".codex/auth.json",
    ".config/github-copilot/hosts.json",
    ".claude/.credentials.json",
    ".cache/huggingface/token",
    ".huggingface/token",
)


def test_other_tools_logins_are_invisible_where_their_variables_put_them_too(
    home, outside, monkeypatch
):
    for name in LOGINS:
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(f"sk-SECRET {name}")
    (home / ".claude" / "settings.json").write_text("ordinary file")  # the rest is seen
    moved = {"CODEX_HOME": outside / "codex", "HF_HOME": outside / "hf"}
    for variable, folder in moved.items():
        folder.mkdir()
        (folder / ("auth.json" if variable == "CODEX_HOME" else "token")).write_text("sk-SECRET")
        monkeypatch.setenv(variable, str(folder))
    project = home / "src" / "proj"
    project.mkdir(parents=True)
    box = sb.from_config("workspace-write", False, [], project)
    looks = [f"~/{name}" for name in LOGINS] + ["$CODEX_HOME/auth.json", "$HF_HOME/token"]
    out, _ = run(
        project, "cat ~/.claude/settings.json; " + "; ".join(f"cat {p}" for p in looks), box
    )
    assert "ordinary file" in out
    assert "sk-SECRET" not in out


def _listener() -> tuple[socket.socket, int]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)  # connections complete in the backlog: no accept needed
    return server, server.getsockname()[1]


CONNECT = 'python3 -c \'import socket,sys; socket.create_connection(("127.0.0.1", {port}), 3); print("CONNECTED")\''


def test_the_network_is_off_unless_allowed(tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    server, port = _listener()
    with server:
        out, data = run(project, CONNECT.format(port=port), sb.Sandbox())
        assert "CONNECTED" not in out and data["exit_code"] != 0
        assert "this may be the sandbox" in out and "network off" in out
        out, _ = run(project, CONNECT.format(port=port), sb.Sandbox(network=True))
        assert "CONNECTED" in out  # the same call with the network allowed gets through


def test_a_command_killed_in_the_sandbox_leaves_no_process(tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    args = bash_tool.Args(command="sleep 300 & sleep 300; echo never", timeout=1)
    ctx = ToolContext(root=project, sandbox=sb.Sandbox())
    result = asyncio.run(bash_tool.run(args, ctx))
    assert result.data["timed_out"]
    assert not ctx.processes
    # no process of that group survives
    alive = [
        p
        for p in Path("/proc").iterdir()
        if p.name.isdigit() and _cmd(p) == "sleep\x00300\x00" and _in(p, project)
    ]
    assert not alive


def _cmd(p: Path) -> str:
    try:
        return (p / "cmdline").read_text()
    except OSError:
        return ""


def _in(p: Path, project: Path) -> bool:
    try:
        return os.readlink(p / "cwd") == str(project.resolve())
    except OSError:
        return False


# ------------------------------------------------------------------------ leaving the sandbox


def test_only_the_user_can_let_a_command_out_of_the_sandbox(tmp_path, outside):
    project = tmp_path / "proj"
    project.mkdir()
    tool = get_tool("bash")
    args = bash_tool.Args(command=f"echo x > {outside}/out.txt", sandbox=False)
    for mode in ("ask", "edits", "yolo"):
        policy = PermissionPolicy(project, mode, allow=["bash: *"], sandbox=sb.Sandbox())
        d = policy.decide(tool, args)
        assert d.verdict == "ask" and d.firm, mode  # allow rules and yolo do not let it out
        # print mode: no one to ask, so never
        why = asyncio.run(policy.check(tool, args, {}, ToolContext(root=project)))
        assert why is not None and "outside the OS sandbox" in why.text(), mode
    # plan mode still refuses a write, sandbox or not
    plan = PermissionPolicy(project, "plan", sandbox=sb.Sandbox())
    assert plan.decide(tool, args).verdict == "deny"
    # the sandboxed call itself is decided as usual
    inside = bash_tool.Args(command="ls")
    assert (
        PermissionPolicy(project, "yolo", sandbox=sb.Sandbox()).decide(tool, inside).verdict
        == "allow"
    )
    # without a sandbox, sandbox: false changes nothing
    assert PermissionPolicy(project, "yolo").decide(tool, args).verdict == "allow"


def test_the_user_approves_a_rerun_outside_the_sandbox(tmp_path, outside):
    project = tmp_path / "proj"
    project.mkdir()
    tool = get_tool("bash")
    asked = []

    async def approver(req):
        asked.append(req)
        return Approval(allow=True)

    box = sb.Sandbox()
    policy = PermissionPolicy(project, "yolo", approver=approver, sandbox=box)
    args = bash_tool.Args(command=f"echo x > {outside}/out.txt", sandbox=False)
    ctx = ToolContext(root=project, sandbox=box)
    assert asyncio.run(policy.check(tool, args, {}, ctx)) is None
    assert len(asked) == 1  # asked even in yolo mode
    assert "OUTSIDE the OS sandbox" in asked[0].summary and asked[0].always == ""
    result = asyncio.run(bash_tool.run(args, ctx))
    assert (outside / "out.txt").exists() and not result.data["sandboxed"]


# ------------------------------------------------------------------------ where there is none


def test_no_sandbox_is_said_once_and_commands_fall_back_to_prompts(monkeypatch, tmp_path):
    from larik.config import Config

    monkeypatch.setattr(sb, "probe", lambda: "bubblewrap (bwrap) is not installed")
    box, note = sb.for_session(Config(), tmp_path)
    assert box is None and len(note) == 1 and "bwrap" in note[0] and "prompts" in note[0]
    box, note = sb.for_session(Config(sandbox={"mode": "off"}), tmp_path)
    assert box is None and note == []  # turned off on purpose: nothing to say


def test_on_macos_the_notice_says_there_is_no_sandbox_there_yet(monkeypatch, tmp_path):
    from larik.config import Config

    monkeypatch.setattr(sb.sys, "platform", "darwin")
    why = sb.probe()  # not cached: only its run of one bwrap is
    assert why == "bubblewrap needs Linux, not macOS (sandbox-exec is planned for macOS)"
    monkeypatch.setattr(sb, "probe", lambda: why)
    box, note = sb.for_session(Config(), tmp_path)
    assert box is None and note == [
        f"no OS sandbox: {why}; commands run unsandboxed, guarded by the permission prompts "
        "only (docs/security.md)"
    ]


def test_a_background_job_runs_in_the_same_sandbox(tmp_path, outside, home):
    """background: true is no way out of the sandbox: the same writes refused, the same secrets
    hidden, and the job's result says when a failure may be the sandbox's."""
    from larik.agent.jobs import JobTable

    project = tmp_path / "proj"
    project.mkdir()

    async def go() -> tuple[str, str]:
        table = JobTable()
        ctx = ToolContext(root=project, sandbox=sb.Sandbox(), jobs=table)
        write = f"echo bad > {outside}/evil.txt"
        first = await bash_tool.run(bash_tool.Args(command=write, background=True), ctx)
        look = f"cat {home}/.ssh/id_rsa; ls -a {home}/.ssh; echo listed"
        seen = [(await bash_tool.run(bash_tool.Args(command=look, background=True), ctx)).content]
        while table.get(2).state == "running" or "listed" not in "".join(seen):
            await table.wait(2, 1)
            seen.append(table.read(2).content)
        await table.close()
        output = [line for s in seen for line in s.splitlines() if not line.startswith("[")]
        return first.content, "\n".join(output)

    first, second = asyncio.run(go())
    assert not (outside / "evil.txt").exists()
    assert "Read-only file system" in first and "this may be the sandbox" in first
    assert "No such file" in second and "SECRET" not in second  # ~/.ssh is an empty folder


@pytest.mark.parametrize("hooks_folder", [True, False])
def test_a_sandboxed_command_cannot_plant_what_git_runs_outside_it(tmp_path, hooks_folder):
    """The project is writable, but ``.git/hooks`` and ``.git/config`` are what the user's own
    git runs later, outside any sandbox (a pre-commit hook, ``core.fsmonitor``,
    ``core.hooksPath``): a sandboxed command must not write them (Codex keeps ``.git``
    read-only for the same reason). Ordinary git work still does."""
    project = tmp_path / "proj"
    project.mkdir()
    run(project, "git init -q .", None)
    if not hooks_folder:  # a repository without the folder: it must not be made either
        shutil.rmtree(project / ".git" / "hooks")
    config = (project / ".git" / "config").read_text()
    plant = (
        "mkdir -p .git/hooks; printf '#!/bin/sh\\ntouch pwned\\n' > .git/hooks/pre-commit; "
        "chmod +x .git/hooks/pre-commit; git config core.fsmonitor 'touch pwned'; "
        "echo '[core]' >> .git/config; "
        f"echo hi > a.txt && {GIT} add a.txt && {GIT} commit -qm first && echo committed"
    )
    out, _ = run(project, plant, sb.Sandbox())
    assert not (project / ".git" / "hooks" / "pre-commit").exists(), out
    assert (project / ".git" / "config").read_text() == config, out
    assert "committed" in out and not (project / "pwned").exists(), out
    out, _ = run(project, "git config core.fsmonitor 'touch pwned'", sb.Sandbox())
    assert "this may be the sandbox" in out and ".git/config" in out


def _alive(marker: str) -> list[int]:
    """Host pids whose command line holds ``marker``."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and marker in (proc / "cmdline").read_bytes().decode(
                "utf-8", "replace"
            ):
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def test_a_sandboxed_job_that_leaves_its_process_group_still_ends_with_it(tmp_path):
    """setsid takes a process out of the job's group, not out of its pid namespace: when the
    job ends, the namespace ends, and every process in it (issue 22 item 1)."""
    from larik.agent.jobs import JobTable

    project = tmp_path / "proj"
    project.mkdir()
    marker = f"{os.getpid()}7"  # sleep's argument: a number no other test sleeps
    command = f"setsid sleep {marker} & echo started; wait"

    async def go() -> list[int]:
        table = JobTable()
        ctx = ToolContext(root=project, sandbox=sb.Sandbox(), jobs=table)
        await bash_tool.run(bash_tool.Args(command=command, background=True), ctx)
        await until(lambda: _alive(f"sleep\x00{marker}"), "the setsid sleep", every=0.1)
        await table.close()
        end = time.monotonic() + WAIT  # the namespace's end kills it; reaping takes a moment
        while _alive(f"sleep\x00{marker}") and time.monotonic() < end:
            await asyncio.sleep(0.05)
        return _alive(f"sleep\x00{marker}")

    left = asyncio.run(go())
    for pid in left:
        os.kill(pid, 9)
    assert left == []
