"""Where to look (larik/agent/edit_point.py): the functions a failing test calls, shown.

Measured (qwen2.5-coder-1.5b, make-suite-pass): told only ``assert None == 'a'`` for
``rb.peek()``, the model fixed ``pop`` and rewrote ``peek``'s index three rounds running.
"""

from __future__ import annotations

from pathlib import Path

from larik.agent.edit_point import MAX_SUSPECTS, pointer, suspects

from .test_edit_workflow import first_for_test

RING = """class RingBuffer:
    def __init__(self, capacity):
        self._items = []

    def push(self, item):
        self._items.append(item)

    def peek(self):
        return None

    def pop(self):
        return self._items.pop()


def helper():
    return 1
"""
TEST = """from ring import RingBuffer


def test_peek():
    rb = RingBuffer(3)
    rb.push("a")
    assert rb.peek() == "a"


class TestPop:
    def test_pop_empty(self):
        rb = RingBuffer(2)
        with pytest.raises(IndexError):
            rb.pop()
"""
SHORT = """tests/test_ring.py:7: in test_peek
    assert rb.peek() == "a"
E   AssertionError: assert None == 'a'
=========================== short test summary info ============================
FAILED tests/test_ring.py::test_peek - AssertionError: assert None == 'a'
FAILED tests/test_ring.py::TestPop::test_pop_empty - Failed: DID NOT RAISE
"""
LONG = """    def test_peek():
        rb = RingBuffer(3)
        rb.push("a")
>       assert rb.peek() == "a"
E       AssertionError: assert None == 'a'

tests/test_ring.py:7: AssertionError
FAILED tests/test_ring.py::test_peek
"""


def project(tmp_path: Path) -> tuple[Path, list[str]]:
    (tmp_path / "tests").mkdir()
    (tmp_path / "ring.py").write_text(RING)
    (tmp_path / "tests" / "test_ring.py").write_text(TEST)
    return tmp_path, ["ring.py", "tests/test_ring.py"]


def test_the_failing_line_s_calls_come_first_then_the_test_s_own(tmp_path):
    root, shown = project(tmp_path)
    for output in (SHORT, LONG):
        found = suspects(output, root, shown)
        assert found[0].name == "RingBuffer.peek" and found[0].line == 8
        assert found[0].source == "    def peek(self):\n        return None"
    names = [s.name for s in suspects(SHORT, root, shown)]
    assert names == ["RingBuffer.peek", "RingBuffer.push", "RingBuffer.pop"]  # no constructor
    said = pointer(SHORT, root, shown)
    assert said.startswith(
        "Where to look: the failing tests call RingBuffer.peek (ring.py, line 8)"
    )
    assert "```python\n    def peek(self):\n        return None\n```" in said


def test_it_points_at_nothing_it_was_not_shown_or_cannot_read(tmp_path):
    """A hostile or broken project: a FAILED line naming a file outside the shown ones, a
    test that does not parse, a source that does not parse, names only a test file defines."""
    root, shown = project(tmp_path)
    assert suspects(SHORT, root, ["tests/test_ring.py"]) == []  # the source was not shown
    outside = "FAILED ../../etc/passwd.py::test_x\n>   assert peek()\n"
    assert [s.path for s in suspects(outside, root, shown)] == ["ring.py"]  # the line, not the file
    (root / "ring.py").write_text("def peek(:\n")
    assert suspects(SHORT, root, shown) == []
    (root / "ring.py").write_text(RING)
    (root / "tests" / "test_ring.py").write_text("def test_peek(:\n")
    assert [s.name for s in suspects(SHORT, root, shown)] == ["RingBuffer.peek"]
    assert pointer("1 passed\n", root, shown) == ""


def test_a_source_a_test_run_turned_into_a_link_outside_or_a_denied_file_is_not_read(tmp_path):
    """Hostile: the project's tests run before the pointer reads the files again, and may
    replace a shown file with a link to a secret outside the project (or to one a deny rule
    covers); the pointer reads only what read_file could show."""
    (tmp_path / "p").mkdir()
    root, shown = project(tmp_path / "p")
    secret = tmp_path / "secret.py"
    secret.write_text("class RingBuffer:\n    def peek(self):\n        return 'sk-secret'\n")
    (root / "ring.py").unlink()
    (root / "ring.py").symlink_to(secret)
    assert pointer(SHORT, root, shown) == ""
    (root / "ring.py").unlink()
    (root / "ring.py").write_text(RING)
    assert pointer(SHORT, root, shown, denied=lambda p: p.name == "ring.py") == ""
    assert "RingBuffer.peek" in pointer(SHORT, root, shown, denied=lambda p: False)


def test_at_most_a_few_and_a_long_function_is_named_not_shown(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(60))
    many = "".join(f"def f{i}():\n    return {i}\n\n\n" for i in range(6))
    (tmp_path / "m.py").write_text(many + f"def long():\n{body}\n    return 0\n")
    calls = " + ".join(f"f{i}()" for i in range(6))
    out = f">       assert long() + {calls} == 1\n"
    found = suspects(out, tmp_path, ["m.py"])
    assert len(found) == MAX_SUSPECTS
    assert found[0].name == "long" and found[0].source == ""
    assert "long (m.py, line 25)" in pointer(out, tmp_path, ["m.py"])


async def test_the_first_message_says_where_to_look_when_the_traceback_names_no_source(
    make_agent, project
):
    """The failing assertion is in the test; the function it calls is shown under the
    failure. A traceback that ends in the code names that line instead (blame, not this)."""
    test = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
    text = await first_for_test(make_agent, project, test)
    assert "Where to look: the failing tests call add (calc.py, line 1)" in text
    assert "calc.py, add:\n```python\ndef add(a, b):\n    return a - b\n```" in text
    assert text.index("Where to look") > text.index("The tests fail now")

    (project / "calc.py").write_text("def add(a, b):\n    return a - b - None\n")
    text = await first_for_test(make_agent, project, test)
    assert "Where to look" not in text  # the traceback blames calc.py's line
