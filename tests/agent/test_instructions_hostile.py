"""A project's instruction files (AGENTS.md, CLAUDE.md) and skills' SKILL.md go into the system
prompt: what a hostile repository puts there must not carry the user's secrets to the model,
hang the start, or get past the user's deny rules (issue 22 item 2). Real symlinks, FIFOs and
files; the prompt checked is the one the scripted model received."""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path

from larik.agent import prompt
from larik.agent.permissions import PermissionPolicy
from larik.agent.skills import discover_skills
from larik.config import Config, PermissionsConfig

from .conftest import E, of, run, script

SECRET = "ghp_SECRETTOKEN1234567890"


def _outside_secret(tmp_path: Path) -> Path:
    home = tmp_path / "home" / ".ssh"
    home.mkdir(parents=True)
    key = home / "id_rsa"
    key.write_text(f"-----BEGIN OPENSSH PRIVATE KEY-----\n{SECRET}\n")
    return key


async def test_an_agents_md_linked_to_a_key_outside_the_project_is_not_sent(
    make_agent, project, tmp_path
):
    (project / "AGENTS.md").symlink_to(_outside_secret(tmp_path))
    p = script({"text": "ok"})
    agent = await make_agent(p)
    events = await run(agent)
    assert SECRET not in "".join(p.requests[0].system)
    notices = [e.text for e in of(events, E.NOTICE)]
    assert any(
        n.startswith("AGENTS.md was not read") and "outside the project" in n for n in notices
    )


async def test_an_agents_md_linked_to_proc_self_environ_does_not_send_the_environment(
    make_agent, project
):
    first = Path("/proc/self/environ").read_bytes().split(b"\0")[0].decode()  # NAME=value
    assert "=" in first
    (project / "AGENTS.md").symlink_to("/proc/self/environ")
    p = script({"text": "ok"})
    agent = await make_agent(p)
    events = await run(agent)
    assert first not in "".join(p.requests[0].system)
    assert any("AGENTS.md was not read" in e.text for e in of(events, E.NOTICE))


def test_a_link_through_a_folder_that_leads_out_is_refused_too(project, tmp_path):
    key = _outside_secret(tmp_path)
    (project / "docs").symlink_to(key.parent)
    (project / "CLAUDE.md").symlink_to("docs/id_rsa")
    found = prompt.project_instructions(project)
    assert found.name == "" and SECRET not in found.body
    assert found.skipped and "CLAUDE.md" in found.skipped[0]


def test_a_fifo_is_named_and_skipped_without_opening_it(project):
    os.mkfifo(project / "AGENTS.md")  # opened for reading, it would block the start
    (project / "CLAUDE.md").write_text("Claude rules")
    found = prompt.project_instructions(project)
    assert (found.name, found.body) == ("CLAUDE.md", "Claude rules")
    assert found.skipped == (
        "AGENTS.md was not read into the system prompt: it is a named pipe (FIFO), not a "
        "regular file",
    )


def test_a_folder_a_device_and_a_dangling_link_are_named(project):
    (project / "AGENTS.md").mkdir()
    (project / "CLAUDE.md").symlink_to("/dev/zero")
    found = prompt.project_instructions(project)
    assert found.name == ""
    assert "AGENTS.md" in found.skipped[0] and "a directory" in found.skipped[0]
    assert "CLAUDE.md" in found.skipped[1] and "outside the project" in found.skipped[1]
    (project / "AGENTS.md").rmdir()
    (project / "AGENTS.md").symlink_to("missing.md")
    assert "a symlink to nothing" in prompt.project_instructions(project).skipped[0]


def test_a_huge_file_is_read_only_as_far_as_the_cut(project):
    (project / "AGENTS.md").write_bytes(b"x" * 30_000_000)
    tracemalloc.start()
    try:
        found = prompt.project_instructions(project)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "AGENTS.md cut at" in found.body
    assert peak < 2_000_000  # bytes: the whole file would be 30 MB (and its text as much again)


async def test_a_deny_rule_keeps_an_instruction_file_out_even_through_a_link_inside(
    make_agent, project
):
    (project / ".env").write_text(f"TOKEN={SECRET}\n")
    (project / "AGENTS.md").symlink_to(".env")
    config = Config(permissions=PermissionsConfig(deny=["*: .env"]))
    p = script({"text": "ok"})
    events = await run(await make_agent(p, config=config))
    assert SECRET not in "".join(p.requests[0].system)
    assert "AGENTS.md was not read into the system prompt: a permissions.deny rule covers it" in [
        e.text for e in of(events, E.NOTICE)
    ]


async def test_a_link_to_a_file_inside_the_project_is_read(make_agent, project):
    (project / "docs").mkdir()
    (project / "docs" / "agents.md").write_text("Use tabs.")
    (project / "AGENTS.md").symlink_to("docs/agents.md")
    p = script({"text": "ok"})
    events = await run(await make_agent(p))
    assert "Project instructions from AGENTS.md:\n\nUse tabs." in p.requests[0].system[1]
    assert not of(events, E.NOTICE)


def test_a_skill_a_deny_rule_covers_is_not_listed(project):
    folder = project / ".larik" / "skills" / "deploy"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: deploy\ndescription: {SECRET}\n---\nbody\n")
    assert discover_skills(project).names() == ["deploy"]
    policy = PermissionPolicy(project, deny=["read_file: .larik/skills/*"])
    denied = discover_skills(project, policy.denies_path)
    assert denied.names() == [] and "deny" in denied.problems[0]
