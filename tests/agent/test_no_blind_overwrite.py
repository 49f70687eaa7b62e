"""write_file over an existing file and edit_file need the file read in this session and
unchanged since; a write that guts a file says so. Through the agent on scripted models."""

from __future__ import annotations

import os

from larik.agent.events import Approval
from larik.llm.types import StopReason

from .conftest import E, Roles, approver, of, run, script

CALC = "def add(a, b):\n    return a - b\n"


def call(name: str, **args):
    return {"tool_calls": [{"name": name, "input": args}]}


READ = call("read_file", path="calc.py")
EDIT = call("edit_file", path="calc.py", old_string="a - b", new_string="a + b")


async def results(make_agent, *turns, **kw):
    agent = await make_agent(script(*turns, {"text": "done"}), **kw)
    events = await run(agent)
    return [e for e in of(events, E.TOOL_END)], agent


async def test_writing_over_a_file_never_read_is_refused_and_the_file_kept(make_agent, project):
    [end], _ = await results(make_agent, call("write_file", path="calc.py", content="junk\n"))
    assert end.is_error and "calc.py has not been read in this session" in end.text
    assert "read_file" in end.text and (project / "calc.py").read_text() == CALC


async def test_editing_a_file_never_read_is_refused(make_agent, project):
    [end], _ = await results(make_agent, EDIT)
    assert end.is_error and "has not been read" in end.text
    assert (project / "calc.py").read_text() == CALC


async def test_a_refused_edit_shows_the_file_so_the_next_try_can_go_through(make_agent, project):
    # small models repeat the refused edit instead of calling read_file: the refusal shows the
    # file (read_file's page), which then counts as read, and the same edit goes through
    ends, _ = await results(make_agent, EDIT, EDIT)
    assert ends[0].is_error and "nothing was changed" in ends[0].text
    assert "     1\tdef add(a, b):\n     2\t    return a - b" in ends[0].text
    assert not ends[1].is_error and (project / "calc.py").read_text().endswith("a + b\n")


async def test_a_refused_write_does_not_count_as_a_read(make_agent, project):
    junk = call("write_file", path="calc.py", content="junk\n")
    ends, _ = await results(make_agent, junk, junk)
    assert [e.is_error for e in ends] == [True, True] and "def add" not in ends[0].text
    assert (project / "calc.py").read_text() == CALC


async def test_after_a_read_edits_and_writes_go_through_and_chain(make_agent, project):
    ends, _ = await results(
        make_agent,
        READ,
        EDIT,
        call("edit_file", path="calc.py", old_string="a + b", new_string="b + a"),
        call("write_file", path="calc.py", content="def add(a, b):\n    return a + b\n"),
    )
    assert [e.is_error for e in ends] == [False, False, False, False]
    assert (project / "calc.py").read_text().endswith("return a + b\n")


async def test_a_new_file_needs_no_read_and_may_be_rewritten_by_its_author(make_agent, project):
    ends, _ = await results(
        make_agent,
        call("write_file", path="new.py", content="x = 1\n"),
        call("write_file", path="new.py", content="x = 2\n"),
    )
    assert not any(e.is_error for e in ends) and (project / "new.py").read_text() == "x = 2\n"


async def test_a_file_changed_on_disk_after_the_read_must_be_read_again(make_agent, project):
    p = script(READ, {"text": "read it"}, EDIT, READ, EDIT, {"text": "done"})
    agent = await make_agent(p)
    await run(agent)
    (project / "calc.py").write_text(CALC + "# the user's note\n")
    events = await run(agent)
    ends = of(events, E.TOOL_END)
    assert ends[0].is_error and "changed on disk since you last read it" in ends[0].text
    assert not ends[2].is_error  # after reading it again
    assert (project / "calc.py").read_text().endswith("a + b\n# the user's note\n")


async def test_a_command_that_changes_the_file_makes_the_view_stale(make_agent, project):
    ends, _ = await results(
        make_agent, READ, call("bash", command="echo '# more' >> calc.py"), EDIT
    )
    assert ends[2].is_error and "changed on disk" in ends[2].text


async def test_a_touch_with_the_same_content_is_no_change(make_agent, project):
    p = script(READ, {"text": "read it"}, EDIT, {"text": "done"})
    agent = await make_agent(p)
    await run(agent)
    st = (project / "calc.py").stat()
    os.utime(project / "calc.py", ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    (project / "calc.py").write_text(CALC)  # rewritten, same bytes
    ends = of(await run(agent), E.TOOL_END)
    assert not ends[0].is_error, ends[0].text


async def test_ask_mode_refuses_before_asking_the_user(make_agent, project):
    ok = approver(Approval(allow=True))
    [end], _ = await results(
        make_agent,
        call("write_file", path="calc.py", content="x\n"),
        permission_mode="ask",
        approver=ok,
    )
    assert end.is_error and "has not been read" in end.text and ok.asked == []


async def test_a_write_that_guts_a_file_says_so(make_agent, project):
    body = "".join(f"def f{i}():\n    return {i}\n\n" for i in range(20))
    (project / "big.py").write_text(body)
    (project / "notes.txt").write_text("".join(f"note {i}\n" for i in range(40)))
    ends, _ = await results(
        make_agent,
        call("read_file", path="big.py"),
        call("write_file", path="big.py", content="junk = 1\n"),  # refused: _guard
        call("write_file", path="big.py", content="junk = 1\n", confirm_destructive=True),
        call("write_file", path="small.py", content="a\n"),
        call("read_file", path="calc.py"),
        call("write_file", path="calc.py", content="def add(a, b):\n    return a + b\n"),
        call("read_file", path="notes.txt"),
        call("write_file", path="notes.txt", content="one note\n"),
    )
    assert ends[1].is_error and "remove 20 of the 20 top-level definitions" in ends[1].text
    assert "warning: big.py went from 40 to 1 non-blank line" in ends[2].text
    assert "edit_file" in ends[2].text
    assert "warning: notes.txt went from 40 to 1 non-blank line" in ends[7].text
    assert "warning" not in ends[3].text and "warning" not in ends[5].text


async def test_a_subagent_has_not_seen_what_the_parent_read(make_agent, project):
    worker = script(EDIT, {"text": "could not edit"})
    worker.name, worker.model_id = "mid", "builder"
    main = script(
        {
            "tool_calls": [
                {"name": "read_file", "input": {"path": "calc.py"}},
                {"name": "task", "input": {"role": "worker", "prompt": "fix add"}},
            ]
        },
        {"text": "ok"},
    )
    agent = await make_agent(main, resolver=Roles(main, worker=worker))
    await run(agent)
    refused = worker.requests[1].messages[-1].blocks[0]
    assert refused.is_error and "has not been read" in refused.content


async def test_the_issue_case_a_blind_junk_overwrite_repeated_ends_stuck(make_agent, project):
    junk = call("write_file", path="calc.py", content="pass\n")
    p = script(*[junk] * 50)
    agent = await make_agent(p)
    events = await run(agent)
    assert (project / "calc.py").read_text() == CALC
    assert of(events, E.TURN_END)[0].stop_reason is StopReason.STUCK
    assert len(p.requests) <= 5
