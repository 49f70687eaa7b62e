"""read_file's line numbers are for pointing, not for pasting (issue 24 item 2): write_file and
edit_file take the gutter off text that carries it on every line, and say so; ordinary text
that only looks numbered is left alone; a model's profile may turn the numbers off."""

from __future__ import annotations

from pathlib import Path

import pytest

from larik.agent.tools import ToolContext, get_tool
from larik.agent.tools._gutter import numbered, strip_gutter
from larik.config import Config, ModelOverride

from .conftest import resolved, run, script

pytestmark = pytest.mark.usefixtures("small_loop")  # the small profile's loop

SOURCE = "def add(a, b):\n\n    return a - b\n"


async def call(root: Path, name: str, ctx: ToolContext | None = None, **args):
    tool = get_tool(name)
    return await tool.run(tool.args.model_validate(args), ctx or ToolContext(root=root))


async def test_what_read_file_shows_comes_back_as_the_file_once_the_gutter_is_off(project):
    (project / "m.py").write_text(SOURCE)
    shown = (await call(project, "read_file", path="m.py")).content
    assert shown.startswith(numbered(1, "def add(a, b):"))
    assert strip_gutter(shown) == SOURCE.rstrip("\n")
    (project / "long.py").write_text("".join(f"x{i} = {i}\n" for i in range(1, 31)))
    page = (await call(project, "read_file", path="long.py", limit=10)).content
    assert "[lines 1-10 of 30; call read_file" in page  # its note goes with the gutter
    assert strip_gutter(page) == "".join(f"x{i} = {i}\n" for i in range(1, 11))


def test_text_that_only_looks_numbered_is_left_alone():
    assert strip_gutter("1\tAlice\n2\tBob\n") is None  # a TSV file: not read_file's width
    assert strip_gutter("     1\tone\n     3\tthree\n") is None  # not one after the other
    assert strip_gutter("     1\tone\nplain\n") is None  # not every line
    assert strip_gutter("1. first\n2. second\n") is None
    assert strip_gutter("") is None
    assert strip_gutter("     7\tx\r\n     8\r\n     9\ty\r\n") == "x\r\n\r\ny\r\n"


async def test_a_write_of_the_file_as_read_file_showed_it_is_written_without_the_gutter(
    make_agent, project
):
    """The 1.5B model's write_file: the file as read_file shows it, gutter and all."""
    (project / "paging.py").write_text(SOURCE)
    gutter = "".join(numbered(i, line) + "\n" for i, line in enumerate(SOURCE.splitlines(), 1))
    fixed = gutter.replace("a - b", "a + b")
    p = script(
        {"tool_calls": [{"name": "read_file", "input": {"path": "paging.py"}}]},
        {"tool_calls": [{"name": "write_file", "input": {"path": "paging.py", "content": fixed}}]},
        {"text": "done"},
    )
    agent = await make_agent(p)
    await run(agent)
    assert (project / "paging.py").read_text() == SOURCE.replace("a - b", "a + b")
    result = agent.messages[4].blocks[0]
    assert not result.is_error and "line-number gutter" in result.content


async def test_an_edit_quoting_old_string_with_the_gutter_edits_the_text_it_points_at(project):
    (project / "m.py").write_text(SOURCE)
    ctx = ToolContext(root=project)
    out = await call(
        project,
        "edit_file",
        ctx,
        path="m.py",
        old_string=numbered(3, "    return a - b"),
        new_string=numbered(3, "    return a + b"),
    )
    assert (project / "m.py").read_text() == SOURCE.replace("a - b", "a + b")
    assert "line-number gutter" in out.content


async def test_a_file_whose_lines_look_like_a_gutter_keeps_them(project):
    fixture = numbered(1, "alpha") + "\n" + numbered(2, "beta") + "\n"
    (project / "shown.txt").write_text(fixture)
    ctx = ToolContext(root=project)
    again = fixture.replace("beta", "gamma")
    await call(project, "write_file", ctx, path="shown.txt", content=again)
    assert (project / "shown.txt").read_text() == again  # its own text, as written
    await call(project, "edit_file", ctx, path="shown.txt", old_string="gamma", new_string="d")
    assert (project / "shown.txt").read_text() == fixture.replace("beta", "d")


async def test_a_profile_without_line_numbers_reads_plain_text_and_is_told_so(make_agent, project):
    p = script(
        {"tool_calls": [{"name": "read_file", "input": {"path": "calc.py"}}]}, {"text": "ok"}
    )
    p.model_id = "qwen2.5-coder-1.5b-instruct"
    cfg = Config(models={"qwen2.5-coder-1.5b-instruct": ModelOverride(line_numbers=False)})
    agent = await make_agent(p, resolver=lambda s: resolved(p, model=p.model_id), config=cfg)
    await run(agent)
    assert agent.messages[2].blocks[0].content == (project / "calc.py").read_text().rstrip("\n")
    spec = next(t for t in p.requests[0].tools if t.name == "read_file")
    assert "line numbers" not in spec.description
    assert "never copy them" not in p.requests[0].system[0]
    numbered_ = script({"text": "hi"})
    numbered_.model_id = "qwen2.5-coder-1.5b-instruct"
    agent = await make_agent(numbered_, resolver=lambda s: resolved(numbered_, model="q-1.5b"))
    await run(agent)
    assert "never copy them" in numbered_.requests[0].system[0]  # the small rules say so
