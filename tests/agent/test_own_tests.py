"""The request's tests, written first (larik/agent/own_tests.py, ``[models] own_tests``).

When the project's tests pass before the change they cannot tell a right edit from a wrong
one; the model is asked for tests of the request first, and those that fail on the code as it
is become the change's check. Scripted model, real files, real bash (sandboxed), real pytest.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from larik.agent import own_tests
from larik.agent.events import Approval
from larik.config import Config
from larik.config.providers import ModelOverride

from .conftest import E, approver, of, run, script
from .test_edit_workflow import FIXED, first_text

FILE = own_tests.FILE
PASSING = "from calc import add\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n"
OWN = f"{FILE}\n```python\nfrom calc import add\n\n\ndef test_sum():\n    assert add(2, 3) == 5\n```\n"
REQUEST = "make add return the sum of its two arguments"


def own_config(on: bool = True) -> Config:
    return Config(models={"scripted/m": ModelOverride(workflow="edit", own_tests=on)})


@pytest.fixture
def passing(project: Path) -> Path:
    """A project whose tests pass before the change: they do not check the request."""
    (project / "tests").mkdir()
    (project / "tests" / "test_calc.py").write_text(PASSING)
    return project


def commands(events) -> list[str]:
    return [e.tool_input.get("command", "") for e in of(events, E.TOOL_START)]


async def test_tests_that_fail_on_the_code_as_it_is_become_the_change_s_check(make_agent, passing):
    p = script({"text": OWN}, {"text": FIXED})
    agent = await make_agent(p, config=own_config())
    events = await run(agent, REQUEST)
    assert first_text(p).endswith(own_tests.ASK)
    asked = p.requests[1].messages[-1].blocks[-1].text
    assert asked.startswith("Your tests check the change: they fail on the code as it is now.")
    assert "assert -1 == 5" in asked
    assert "Where to look: the failing tests call add (calc.py, line 1)" in asked
    assert asked.endswith("calc.py (or the file to change) with its complete new content.")
    assert (passing / "calc.py").read_text().endswith("return a + b\n")
    ran = commands(events)
    assert ran.count(own_tests.COMMAND) == 2  # on the code as it was, and after the edit
    assert len(p.requests) == 2 and agent.messages[-1].text().startswith("Use + instead of -.")
    assert not (passing / FILE).exists()  # the harness's file, gone with the turn


async def test_a_wrong_edit_is_told_by_the_model_s_tests_and_they_go_when_the_rounds_end(
    make_agent, passing
):
    wrong = "calc.py\n```python\ndef add(a, b):\n    return a * b\n```\n"
    p = script({"text": OWN}, {"text": wrong}, {"text": wrong}, {"text": wrong})
    agent = await make_agent(p, config=own_config())
    await run(agent, REQUEST)
    told = p.requests[2].messages[-1].blocks[-1].text
    assert own_tests.COMMAND in told and "assert 6 == 5" in told  # the project's tests pass
    assert len(p.requests) == 4  # the tests' reply, then the edit rounds as ever
    assert not (passing / FILE).exists()


async def test_tests_that_already_pass_or_do_not_parse_are_dropped_and_said(make_agent, passing):
    for reply, why in (
        (f"{FILE}\n```python\ndef test_x(:\n```\n", "no test file that Python can parse"),
        (
            f"{FILE}\n```python\nimport nowhere_at_all\n\ndef test_x():\n    pass\n```\n",
            "exit code 2",
        ),
        ("I would test the sum.", "no test file"),
    ):
        p = script({"text": reply}, {"text": FIXED})
        agent = await make_agent(p, config=own_config())
        events = await run(agent, REQUEST)
        asked = p.requests[1].messages[-1].blocks[-1].text
        assert asked.startswith("Your tests are not used: ") and why in asked, asked
        assert commands(events).count(own_tests.COMMAND) <= 1  # not a check of the edit
        assert not (passing / FILE).exists()
        (passing / "calc.py").write_text("def add(a, b):\n    return a - b\n")


async def test_tests_that_pass_are_asked_for_once_more_then_dropped(make_agent, passing):
    """The 1.5B model's first tests of an LRU cache put and got one key, which the broken
    cache did right: they are asked for again, as tests of what the code does not do yet."""
    same = f"{FILE}\n```python\n{PASSING}```\n"
    p = script({"text": same}, {"text": OWN}, {"text": FIXED})
    agent = await make_agent(p, config=own_config())
    await run(agent, REQUEST)
    assert p.requests[1].messages[-1].blocks[-1].text == own_tests.AGAIN
    assert p.requests[2].messages[-1].blocks[-1].text.startswith("Your tests check the change")
    assert (passing / "calc.py").read_text().endswith("return a + b\n")

    (passing / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    p = script({"text": same}, {"text": same}, {"text": FIXED})
    agent = await make_agent(p, config=own_config())
    await run(agent, REQUEST)
    asked = p.requests[2].messages[-1].blocks[-1].text
    assert asked.startswith("Your tests are not used: they pass on the code as it is now")
    assert len(p.requests) == 3 and not (passing / FILE).exists()


async def test_off_or_when_a_test_fails_already_nothing_is_asked_first(make_agent, project):
    p = script({"text": FIXED})
    agent = await make_agent(p, config=own_config(on=False))
    (project / "tests").mkdir()
    (project / "tests" / "test_calc.py").write_text(PASSING)
    await run(agent, REQUEST)
    assert own_tests.ASK not in first_text(p)
    # the harness's file is a write no question covers: only where edits go unasked
    p = script({"text": FIXED})
    yes = approver(*[Approval(allow=True)] * 4)  # the tests run, the edit is written
    agent = await make_agent(p, config=own_config(), permission_mode="ask", approver=yes)
    await run(agent, REQUEST)
    assert yes.asked  # the project's tests ran before the first message, with the user's yes
    assert own_tests.ASK not in first_text(p) and not (project / FILE).exists()
    (project / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (project / "tests" / "test_calc.py").write_text(
        PASSING + "\n\ndef test_s():\n    assert add(2, 3) == 5\n"
    )
    p = script({"text": FIXED})
    agent = await make_agent(p, config=own_config())
    await run(agent, REQUEST)  # a failing test checks the change already
    assert own_tests.ASK not in first_text(p) and len(p.requests) == 1


async def test_a_user_s_file_or_a_link_of_that_name_is_neither_replaced_nor_removed(
    make_agent, passing, tmp_path
):
    """A repository that ships the harness's file name — its own file, or a link to a file
    outside — gets it back as it was, and nothing is written through the link."""
    outside = tmp_path / "outside.py"
    for make in ("file", "link"):
        target = passing / FILE
        if make == "file":
            target.write_text("# the user's own\n")
        else:
            target.unlink()
            target.symlink_to(outside)
        p = script({"text": OWN}, {"text": FIXED})
        agent = await make_agent(p, config=own_config())
        await run(agent, REQUEST)
        asked = p.requests[1].messages[-1].blocks[-1].text
        assert f"the project already has a {FILE}" in asked
        assert target.is_symlink() if make == "link" else target.read_text() == "# the user's own\n"
        assert not outside.exists()
        (passing / "calc.py").write_text("def add(a, b):\n    return a - b\n")


async def test_a_reply_that_edits_the_model_s_own_tests_is_refused(make_agent, passing):
    """Its tests are the check: a later reply rewriting them to pass is not applied."""
    cheat = f"{FILE}\n```python\ndef test_sum():\n    assert True\n```\n"
    p = script({"text": OWN}, {"text": cheat}, {"text": FIXED})
    agent = await make_agent(p, config=own_config())
    await run(agent, REQUEST)
    told = p.requests[2].messages[-1].blocks[-1].text
    assert f"{FILE}: your tests of the request, the check of this change" in told
    assert (passing / "calc.py").read_text().endswith("return a + b\n")
    assert not (passing / FILE).exists()


async def test_a_test_that_fails_on_its_own_mistake_is_taken_out_and_the_rest_kept(
    make_agent, passing
):
    """Measured: the 1.5B model's tests called the project's test helper ``run`` without
    importing it; every test failed with a NameError in the test file, not on the code."""
    own = (
        f"{FILE}\n```python\nfrom calc import add\n\n\n"
        "def test_cli():\n    assert run('2 3') == '5'\n\n\n"
        "@pytest.mark.skipif(False, reason='')\ndef test_setup(nope):\n    pass\n\n\n"
        "def test_sum():\n    assert add(2, 3) == 5\n```\n"
    ).replace("from calc", "import pytest\nfrom calc")
    p = script({"text": own}, {"text": FIXED})
    agent = await make_agent(p, config=own_config())
    events = await run(agent, REQUEST)
    asked = p.requests[1].messages[-1].blocks[-1].text
    assert asked.startswith("Your tests check the change") and "assert -1 == 5" in asked
    assert "test_cli" not in asked and "test_setup" not in asked  # the run after they went
    assert commands(events).count(own_tests.COMMAND) == 3  # run, run without them, the edit's
    assert (passing / "calc.py").read_text().endswith("return a + b\n")

    only = f"{FILE}\n```python\ndef test_cli():\n    assert run('2 3') == '5'\n```\n"
    (passing / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    p = script({"text": only}, {"text": FIXED})
    agent = await make_agent(p, config=own_config())
    await run(agent, REQUEST)
    asked = p.requests[1].messages[-1].blocks[-1].text
    assert asked.startswith(
        "Your tests are not used: they fail on their own mistakes (NameError: name 'run' is not "
        "defined), not on the code."
    )
    assert not (passing / FILE).exists()


def test_a_name_error_in_the_code_the_tests_call_is_the_code_s_failure():
    output = (
        "_____ test_a _____\nlarik_request_check.py:4: in test_a\n    f()\n"
        "calc.py:2: in f\n    return g()\nE   NameError: name 'g' is not defined\n"
        "_____ test_b _____\nlarik_request_check.py:7: in test_b\n    run()\n"
        "E   NameError: name 'run' is not defined\n"
        "_____ ERROR at setup of test_c _____\nfile larik_request_check.py, line 9\n"
        "E       fixture 'nope' not found\n"
    )
    assert own_tests.broken(output) == ["test_b", "test_c"]
