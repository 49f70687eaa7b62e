"""Undo, rewind and fork on the real agent (scripted provider, real git, real files)."""

from __future__ import annotations

import json

import pytest

from larik.agent.events import AgentEventType
from larik.agent.rewind import fork_session, turns_of
from larik.agent.transcript import load_transcript
from tests.patience import WAIT

from .conftest import of, run, script
from .test_checkpoints import git, tree_digest

E = AgentEventType


def call(name: str, i: int = 1, **args):
    return {"tool_calls": [{"name": name, "input": args, "id": f"c{i}"}]}


def done(text: str = "done"):
    return {"text": text}


def undo(agent, overwrite: bool = False):
    rewind = agent.checkpoints.plan_undo()
    assert rewind is not None
    return rewind, agent.checkpoints.carry_out(rewind, overwrite=overwrite)


async def test_undo_takes_back_a_write_that_made_a_new_file(make_agent, project):
    agent = await make_agent(script(call("write_file", path="new.txt", content="x\n"), done()))
    events = await run(agent, "make new.txt")
    assert (project / "new.txt").exists()
    cps = of(events, E.CHECKPOINT)
    assert [c.data.get("done", False) for c in cps] == [False, True]
    assert (
        cps[1].data["files"] == ["new.txt"]
        and cps[0].data["checkpoint"] == cps[1].data["checkpoint"]
    )
    rewind, undone = undo(agent)
    assert not (project / "new.txt").exists()
    assert undone.summary() == "took back turn 1: restored new.txt"


async def test_undo_takes_back_an_overwrite_and_an_edit(make_agent, project):
    agent = await make_agent(
        script(
            call("read_file", 0, path="calc.py"),
            call("write_file", path="calc.py", content="overwritten\n"),
            done(),
            call("read_file", 2, path="calc.py"),
            call("edit_file", 3, path="calc.py", old_string="overwritten", new_string="edited"),
            done(),
        )
    )
    original = (project / "calc.py").read_text()
    await run(agent, "overwrite")
    await run(agent, "edit")
    assert (project / "calc.py").read_text() == "edited\n"
    undo(agent)
    assert (project / "calc.py").read_text() == "overwritten\n"
    undo(agent)  # again: one turn further back
    assert (project / "calc.py").read_text() == original
    assert agent.checkpoints.plan_undo() is None


async def test_undo_takes_back_a_bash_rm_and_a_file_bash_made(make_agent, project):
    agent = await make_agent(
        script(call("bash", command="rm calc.py && mkdir -p out && echo hi > out/made.txt"), done())
    )
    start = tree_digest(project)
    await run(agent, "clean up")
    assert not (project / "calc.py").exists() and (project / "out" / "made.txt").exists()
    undo(agent)
    assert tree_digest(project) == start


async def test_a_turn_that_only_reads_takes_no_checkpoint(make_agent, project):
    agent = await make_agent(script(call("read_file", path="calc.py"), done()))
    events = await run(agent, "look")
    assert of(events, E.CHECKPOINT) == []
    assert agent.checkpoints.plan_undo() is None


async def test_any_bash_command_takes_a_checkpoint_first(make_agent, project):
    agent = await make_agent(script(call("bash", command="ls"), done()))
    events = await run(agent, "list")
    assert len(of(events, E.CHECKPOINT)) == 2
    assert agent.checkpoints.turns[0].files == []


async def test_the_transcript_records_checkpoints_so_a_resumed_session_can_undo(
    make_agent, project
):
    agent = await make_agent(
        script(
            call("read_file", 0, path="calc.py"),
            call("write_file", path="calc.py", content="v2\n"),
            done(),
        )
    )
    await run(agent, "change calc")
    agent.log.close()
    recs = load_transcript(agent.transcript_path).records
    kinds = [r["kind"] for r in recs]
    assert kinds.index("turn") < kinds.index("message") < kinds.index("checkpoint")
    cp = next(r for r in recs if r["kind"] == "checkpoint_done")
    assert cp["turn"] == 1 and cp["files"] == ["calc.py"] and len(cp["id"]) == 40
    resumed = await make_agent(script(), resume=agent.session_id)
    assert [t.files for t in resumed.checkpoints.turns] == [["calc.py"]]
    undo(resumed)
    assert "a - b" in (project / "calc.py").read_text()
    resumed.log.close()
    again = await make_agent(script(), resume=agent.session_id)
    assert again.checkpoints.plan_undo() is None  # the undo was recorded too


async def test_a_file_the_user_changed_after_the_turn_is_a_conflict(make_agent, project):
    agent = await make_agent(
        script(
            {
                "tool_calls": [
                    {"name": "read_file", "input": {"path": "calc.py"}, "id": "0"},
                    {
                        "name": "write_file",
                        "input": {"path": "calc.py", "content": "a\n"},
                        "id": "1",
                    },
                    {"name": "write_file", "input": {"path": "b.txt", "content": "b\n"}, "id": "2"},
                ]
            },
            done(),
        )
    )
    await run(agent, "two files")
    (project / "calc.py").write_text("the user's fix\n")
    rewind = agent.checkpoints.plan_undo()
    assert rewind.conflicts == ["calc.py"] and rewind.files == ["b.txt", "calc.py"]
    undone = agent.checkpoints.carry_out(rewind)
    assert (project / "calc.py").read_text() == "the user's fix\n"
    assert not (project / "b.txt").exists()
    assert "kept your changes to calc.py" in undone.summary()


async def test_rewind_takes_back_every_turn_from_n(make_agent, project):
    agent = await make_agent(
        script(
            call("write_file", 1, path="one.txt", content="1\n"),
            done(),
            call("write_file", 2, path="two.txt", content="2\n"),
            done(),
            call("write_file", 3, path="three.txt", content="3\n"),
            done(),
        )
    )
    for p in ("one", "two", "three"):
        await run(agent, p)
    rewind = agent.checkpoints.plan_rewind(2)
    assert [t.n for t in rewind.turns] == [3, 2]
    agent.checkpoints.carry_out(rewind)
    assert (project / "one.txt").exists()
    assert not (project / "two.txt").exists() and not (project / "three.txt").exists()


async def test_the_users_git_state_is_untouched_by_turns_and_undo(make_agent, git_project):
    git(git_project, "add", "-A")
    git(git_project, "commit", "-qm", "init")
    git(git_project, "branch", "side")
    state = tree_digest(git_project / ".git")
    agent = await make_agent(
        script(call("bash", command="echo more >> calc.py && touch made.txt"), done()),
        cwd=git_project,
    )
    await run(agent, "go")
    undo(agent)
    assert tree_digest(git_project / ".git") == state
    assert git(git_project, "status", "--porcelain") == ""


async def test_no_git_turns_checkpoints_off_with_one_warning_and_the_turn_goes_on(
    make_agent, project, monkeypatch, tmp_path
):
    agent = await make_agent(script(call("write_file", path="x.txt", content="x"), done()))
    empty = tmp_path / "nogit"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    events = await run(agent, "write")
    warnings = [e.text for e in of(events, E.NOTICE) if "checkpoint" in e.text]
    assert len(warnings) == 1 and "checkpoints are off" in warnings[0]
    assert (project / "x.txt").exists() and of(events, E.TURN_END)


async def test_a_fork_copies_the_session_and_leaves_the_original_byte_identical(
    make_agent, project
):
    agent = await make_agent(
        script(call("write_file", 1, path="a.txt", content="a"), done("one"), done("two"))
    )
    await run(agent, "first")
    await run(agent, "second")
    agent.log.close()
    original = agent.transcript_path.read_bytes()
    whole = fork_session(project, agent.transcript_path)
    cut = fork_session(project, agent.transcript_path, before_turn=2)
    assert agent.transcript_path.read_bytes() == original
    forked = await make_agent(script(), resume=whole)
    assert [m.text() for m in forked.messages] == [m.text() for m in agent.messages]
    header = json.loads(forked.transcript_path.read_bytes().split(b"\n")[0])
    assert header["forked_from"] == {"session": agent.session_id, "turn": None}
    at2 = await make_agent(script(done("again")), resume=cut)
    assert [m.text() for m in at2.messages] == ["first", "", "", "one"][: len(at2.messages)]
    assert [t.prompt for t in at2.checkpoints.turns] == ["first"]
    await run(at2, "second, differently")
    assert [t.n for t in at2.checkpoints.turns] == [1, 2]
    undo(at2)  # the fork keeps turn 1's checkpoint
    assert not (project / "a.txt").exists()
    assert agent.transcript_path.read_bytes() == original


def test_turns_of_skips_malformed_and_hostile_records():
    recs = [
        {
            "kind": "message",
            "message": {"role": "user", "blocks": [{"type": "text", "text": "hi"}]},
        },
        {"kind": "checkpoint", "id": "--output=/etc/passwd", "turn": 1},
        {"kind": "checkpoint", "id": "a" * 40, "turn": 7},
        {"kind": "checkpoint", "id": "b" * 40, "turn": True},
        {"kind": "checkpoint_done", "id": "c" * 40, "turn": 1, "after": "x", "files": "no"},
        {"kind": "undo", "turns": "1"},
    ]
    (turn,) = turns_of(recs)
    assert turn.before == "" and turn.after == "" and not turn.undone


async def test_a_turn_making_files_with_odd_names_keeps_the_transcript_valid_and_undoes(
    make_agent, project
):
    agent = await make_agent(
        script(
            call("bash", command="printf x > $'caf\\xe9.txt' && printf y > $'two\\nlines'"), done()
        )
    )
    events = await run(agent, "odd names")
    files = of(events, E.CHECKPOINT)[-1].data["files"]
    assert files == ["caf\\xe9.txt", "two\\nlines"]
    agent.log.close()
    loaded = load_transcript(agent.transcript_path)
    assert not loaded.problems
    resumed = await make_agent(script(), resume=agent.session_id)
    undo(resumed)
    assert sorted(p.name for p in project.iterdir()) == ["calc.py"]


async def test_an_interrupted_turn_records_what_it_changed_and_can_be_undone(make_agent, project):
    import asyncio

    from .test_interrupt import interrupt_when

    agent = await make_agent(
        script(call("bash", command="echo half > half.txt; rm calc.py; sleep 30"), done())
    )

    async def written():
        for _ in range(500):
            if (project / "half.txt").exists() and not (project / "calc.py").exists():
                return
            await asyncio.sleep(0.01)

    await interrupt_when(agent, "go", lambda ev: ev.type is E.TOOL_START, ready=written)
    assert agent.checkpoints.turns[0].files == ["calc.py", "half.txt"]
    undo(agent)
    assert sorted(p.name for p in project.iterdir()) == ["calc.py"]
    agent.log.close()
    kinds = [r["kind"] for r in load_transcript(agent.transcript_path).records]
    assert kinds.index("checkpoint_done") < kinds.index("undo")


async def test_a_turn_that_never_recorded_its_end_is_undone_from_the_files_now(make_agent, project):
    """A crash between the checkpoint and the turn's end: the files as they are now stand in
    for what the turn left."""
    agent = await make_agent(script(call("write_file", path="x.txt", content="x"), done()))
    await run(agent, "write")
    turn = agent.checkpoints.turns[0]
    turn.after, turn.files = "", []
    assert turn.changed
    rewind = agent.checkpoints.plan_undo()
    assert rewind.files == ["x.txt"] and rewind.conflicts == []
    agent.checkpoints.carry_out(rewind)
    assert not (project / "x.txt").exists()


# -- what the turn hid (issue 22 item 13) -----------------------------------------------------
async def test_undo_takes_back_what_a_turn_hid_behind_its_own_gitignore(make_agent, project):
    (project / "pkg").mkdir()
    (project / "pkg" / "util.py").write_text("X = 1\n")
    start = tree_digest(project)
    command = (
        "printf '*\\n' > .gitignore && printf '*\\n' > pkg/.gitignore"
        " && echo 'import os' > sitecustomize.py && echo 'import x' > pkg/evil.pth"
        " && echo changed > calc.py"
    )
    agent = await make_agent(script(call("bash", command=command), done()))
    await run(agent, "plant")
    assert (project / "sitecustomize.py").exists()
    rewind, undone = undo(agent)
    assert tree_digest(project) == start, undone.summary()
    assert {"sitecustomize.py", ".gitignore", "pkg/evil.pth", "calc.py"} <= set(rewind.files)


async def test_a_turn_that_made_more_files_than_a_checkpoint_records_is_still_undone(tmp_path):
    from larik.agent.checkpoints import Limits, ShadowRepo
    from larik.agent.rewind import Checkpointer

    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("original\n")
    (root / "keep.txt").write_text("keep\n")
    records: list[dict] = []
    repo = ShadowRepo(root, tmp_path / "shadow", Limits(max_files=50))
    cp = Checkpointer(root, records.append, repo=repo)
    start = tree_digest(root)
    cp.begin_turn("build it")
    await cp.before_change()
    (root / "src" / "app.py").write_text("edited by the turn\n")
    (root / "keep.txt").unlink()
    (root / "sitecustomize.py").write_text("import os\n")
    for folder, n in (("build", 60), ("dist", 30)):
        (root / folder).mkdir()
        for i in range(n):
            (root / folder / f"{i}.o").write_text("o\n")
    cp.end_turn()
    rewind = cp.plan_undo()
    assert rewind is not None
    undone = cp.carry_out(rewind)
    assert (root / "src" / "app.py").read_text() == "original\n"
    assert (root / "keep.txt").exists() and not (root / "sitecustomize.py").exists()
    assert not (root / "dist").exists() and len(list((root / "build").iterdir())) == 60
    text = undone.summary()
    assert text.startswith("took back turn 1: restored ") and "and 25 more" in text
    assert "left 60 files not recorded" in text and "the 50 a checkpoint records" in text
    assert "under build/ (60)" in text
    # a resumed session reads the same from the transcript
    [done_rec] = [r for r in records if r["kind"] == "checkpoint_done"]
    assert done_rec["left"] == [["build/", 60]]
    prompt = {"role": "user", "blocks": [{"type": "text", "text": "build it"}]}
    [turn] = turns_of([{"kind": "message", "message": prompt}, *records])
    assert turn.left == [("build/", 60)] and len(turn.rules) == 64
    for f in (root / "build").iterdir():
        f.unlink()
    (root / "build").rmdir()
    assert tree_digest(root) == start


async def test_the_turns_checkpoint_waits_for_the_sessions_warm_up_snapshot(tmp_path, monkeypatch):
    """The warm-up snapshot ``begin_turn`` starts in a thread may get the CPU late on a busy
    machine; had it run after the turn's checkpoint, it would stage files the turn was writing
    and the turn's end would misjudge which files are new: the scenario above then kept dist/
    after the undo (it failed so twice in whole-suite runs). The checkpoint waits for it."""
    import asyncio
    import threading

    from larik.agent.checkpoints import ShadowRepo
    from larik.agent.rewind import Checkpointer

    gate, warmed = threading.Event(), threading.Event()

    class HeldWarmUp(Checkpointer):
        def _warm_up(self) -> None:
            gate.wait(WAIT)  # a warm-up thread that has not had the CPU yet
            super()._warm_up()
            warmed.set()

    started_with_warm_up_done: list[bool] = []
    to_thread = asyncio.to_thread

    async def recording_to_thread(func, /, *args, **kwargs):
        started_with_warm_up_done.append(warmed.is_set())
        return await to_thread(func, *args, **kwargs)

    monkeypatch.setattr(asyncio, "to_thread", recording_to_thread)
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    cp = HeldWarmUp(root, lambda rec: None, repo=ShadowRepo(root, tmp_path / "shadow"))
    cp.begin_turn("edit it")
    checkpoint = asyncio.create_task(cp.before_change())
    await asyncio.sleep(0)  # the checkpoint's first step runs
    gate.set()
    await checkpoint
    assert started_with_warm_up_done == [True]
    assert cp.turns[0].before


async def test_a_turn_that_stops_ignoring_a_folder_does_not_make_undo_delete_it(
    make_agent, project
):
    (project / ".gitignore").write_text("build/\n")
    (project / "build").mkdir()
    (project / "build" / "out.o").write_text("the user's own build\n")
    start = tree_digest(project)
    agent = await make_agent(script(call("bash", command=": > .gitignore"), done()))
    await run(agent, "un-ignore")
    rewind, _ = undo(agent)
    assert rewind.files == [".gitignore"]
    assert tree_digest(project) == start


async def test_a_file_the_turn_made_too_big_to_record_is_named_by_the_undo(tmp_path):
    from larik.agent.checkpoints import Limits, ShadowRepo
    from larik.agent.rewind import Checkpointer

    root = tmp_path / "proj"
    root.mkdir()
    (root / "data.bin").write_bytes(b"d" * 500)  # big before the turn: not the turn's
    repo = ShadowRepo(root, tmp_path / "shadow", Limits(max_file_bytes=100))
    cp = Checkpointer(root, lambda rec: None, repo=repo)
    cp.begin_turn("pad it")
    await cp.before_change()
    (root / "sitecustomize.py").write_text("import os\n" + "#" * 200)  # padded past the limit
    (root / "small.py").write_text("x\n")
    cp.end_turn()
    rewind = cp.plan_undo()
    assert rewind is not None
    undone = cp.carry_out(rewind)
    assert not (root / "small.py").exists()
    text = undone.summary()
    assert "left sitecustomize.py (over 100 bytes when the turn ended: not recorded)" in text
    assert "data.bin" not in text


@pytest.mark.xfail(
    strict=True,
    reason="undo takes back what a checkpoint records: a turn's writes into an ignored folder "
    "(a .venv's site-packages, node_modules/) stay (docs/undo.md, docs/security.md)",
)
async def test_a_pth_file_planted_in_the_venv_is_undone(make_agent, project):
    site = project / ".venv" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    start = tree_digest(project)
    plant = "echo 'import os' > .venv/lib/python3.11/site-packages/evil.pth && echo x > calc.py"
    agent = await make_agent(script(call("bash", command=plant), done()))
    await run(agent, "plant")
    undo(agent)
    assert tree_digest(project) == start


def test_a_fork_before_turn_n_counts_turns_as_the_turn_list_does(project):
    """The edit workflow's own messages (``"harness": true``) are no prompts: the turn list
    skipped them, the fork counted them and cut inside turn 1 — the fork ended on turn 1's
    prompt, and the prompt sent next made two prompts in a row (``## You`` twice)."""
    from larik.agent.sessions import project_dir
    from larik.agent.transcript import Transcript, new_session_id
    from larik.llm.types import Block, Message

    def said(text: str) -> Message:
        return Message(role="assistant", blocks=[Block.text_block(text)])

    sid = new_session_id()
    path = project_dir(project) / f"{sid}.jsonl"
    with Transcript.create(path, cwd=project, session_id=sid) as t:
        t.append({"kind": "turn", "turn": 1, "at": "2026-12-01T10:00:00+00:00"})
        t.append_message(Message.user("first"))
        t.append_message(said("a reply with an edit"))
        t.append_message(Message.user("the edit workflow's feedback"), harness=True)
        t.append_message(said("fixed"))
        t.append({"kind": "turn", "turn": 2, "at": "2026-12-01T10:01:00+00:00"})
        t.append_message(Message.user("second"))
        t.append_message(said("two"))
    assert [t.prompt for t in turns_of(load_transcript(path).records)] == ["first", "second"]
    cut = fork_session(project, path, before_turn=2)
    forked = load_transcript(project_dir(project) / f"{cut}.jsonl").messages
    assert [m.text() for m in forked] == [
        "first",
        "a reply with an edit",
        "the edit workflow's feedback",
        "fixed",
    ]
