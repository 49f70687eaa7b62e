"""Destructive calls need more than a guess (issue 24 item 4): a short replace_all, an edit of
many places, a write that drops most of a file's definitions are refused with the reason unless
the call confirms it; a Python file that no longer parses says so in the result at once."""

from __future__ import annotations

from pathlib import Path

import pytest

from larik.agent.tools import ToolContext, ToolError, get_tool
from larik.agent.tools._guard import MAX_REPLACEMENTS, MIN_PATTERN

from .conftest import run, script

# the module the 1.5B model hit with old_string "    1", replace_all: 112 replacements
PAGING = "PAGES = [\n" + "".join(f"    1{i % 10},\n" for i in range(40)) + "]\n"
MODULE = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(6))


async def call(root: Path, name: str, **args):
    tool = get_tool(name)
    return await tool.run(tool.args.model_validate(args), ToolContext(root=root))


async def test_a_replace_all_of_four_spaces_and_a_digit_is_refused(make_agent, project):
    (project / "paging.py").write_text(PAGING)
    bad = {"path": "paging.py", "old_string": "    1", "new_string": "", "replace_all": True}
    p = script(
        {"tool_calls": [{"name": "read_file", "input": {"path": "paging.py"}}]},
        {"tool_calls": [{"name": "edit_file", "input": bad}]},
        {"text": "ok"},
    )
    agent = await make_agent(p)
    await run(agent)
    assert (project / "paging.py").read_text() == PAGING
    result = agent.messages[4].blocks[0]
    assert result.is_error
    assert "refused: replace_all with old_string '    1' (1 non-space character)" in result.content
    assert "would replace 40 places" in result.content
    assert "confirm_destructive: true" in result.content  # how to say it means it


async def test_the_same_call_confirmed_is_made(project):
    (project / "paging.py").write_text(PAGING)
    out = await call(
        project,
        "edit_file",
        path="paging.py",
        old_string="    1",
        new_string="    2",
        replace_all=True,
        confirm_destructive=True,
    )
    assert "40 replacements" in out.content and "    1" not in (project / "paging.py").read_text()


async def test_a_long_pattern_replaced_in_many_places_is_refused_a_few_are_not(project):
    many = "".join("value = compute(x)\n" for _ in range(MAX_REPLACEMENTS + 1))
    (project / "many.py").write_text(many)
    with pytest.raises(ToolError, match=f"would replace {MAX_REPLACEMENTS + 1} occurrences"):
        await call(
            project,
            "edit_file",
            path="many.py",
            old_string="compute(x)",
            new_string="compute(y)",
            replace_all=True,
        )
    assert (project / "many.py").read_text() == many
    few = "".join("value = compute(x)\n" for _ in range(3))
    (project / "few.py").write_text(few)
    out = await call(
        project,
        "edit_file",
        path="few.py",
        old_string="compute(x)",
        new_string="compute(y)",
        replace_all=True,
    )
    assert "3 replacements" in out.content
    assert len("compute(x)") >= MIN_PATTERN


async def test_a_write_that_drops_most_definitions_is_refused_and_nothing_is_written(project):
    (project / "mod.py").write_text(MODULE)
    fragment = "def f0(x):\n    return x\n"
    with pytest.raises(ToolError, match="remove 5 of the 6 top-level definitions of mod.py"):
        await call(project, "write_file", path="mod.py", content=fragment)
    assert (project / "mod.py").read_text() == MODULE
    kept = MODULE.replace("return x + 1", "return x - 1").replace("def f5", "def g5")
    out = await call(project, "write_file", path="mod.py", content=kept)  # one renamed: fine
    assert not out.is_error
    out = await call(project, "write_file", path="mod.py", content=fragment, confirm_destructive=1)
    assert (project / "mod.py").read_text() == fragment


async def test_an_edit_that_cuts_away_most_definitions_is_refused(project):
    (project / "mod.py").write_text(MODULE)
    tail = MODULE[MODULE.index("def f1") :]
    with pytest.raises(ToolError, match="top-level definitions"):
        await call(project, "edit_file", path="mod.py", old_string=tail, new_string="")
    assert (project / "mod.py").read_text() == MODULE


async def test_a_python_file_that_no_longer_parses_says_so_with_line_and_message(project):
    (project / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    out = await call(
        project, "edit_file", path="calc.py", old_string="return a + b", new_string="return (a +"
    )
    first = out.content.splitlines()[:3]
    assert any("calc.py no longer parses as Python: line 2" in line for line in first), first
    out = await call(project, "write_file", path="calc.py", content="def f(:\n")
    assert "calc.py still does not parse as Python: line 1" in out.content
    out = await call(project, "write_file", path="calc.py", content="def f():\n    pass\n")
    assert "parse" not in out.content
    out = await call(project, "write_file", path="notes.txt", content="def f(:\n")
    assert "parse" not in out.content  # not Python


@pytest.mark.parametrize("content", ["-" * 100_000 + "1", "(" * 100_000, "x = 1\x00\n"])
async def test_source_that_breaks_the_parser_is_reported_not_raised(project, content):
    out = await call(project, "write_file", path="deep.py", content=content)
    assert "deep.py no longer parses as Python" in out.content
