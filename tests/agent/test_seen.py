"""What the code saw (issue 24): the probe that runs failing tests again and records a
function's return values (:mod:`larik.agent.values_probe`, a real pytest in a subprocess), and
what the workflow makes of its report (:mod:`larik.agent.seen`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from larik.agent.edit_point import Suspect
from larik.agent.seen import MARK, PROBE, command, saw, words
from tests.patience import WAIT

RING = """class Ring:
    def __init__(self):
        self._items = [None, None, None]
        self._start = 0
        self._size = 0

    def push(self, item):
        self._items[(self._start + self._size) % 3] = item
        self._size += 1

    def peek(self):
        return self._items[self._start - 1]
"""
RING_TEST = """from ring import Ring


def test_peek():
    r = Ring()
    r.push("a")
    r.push("b")
    assert r.peek() == "a"
"""


def probe(root: Path, *args: str) -> dict:
    out = subprocess.run(
        [sys.executable, str(PROBE), *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=WAIT,
    ).stdout
    [line] = [x for x in out.splitlines() if x.startswith(MARK)]
    return json.loads(line[len(MARK) :])["tests"]


def project(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "p"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_the_return_s_parts_and_the_index_that_holds_the_expected_value(tmp_path):
    root = project(tmp_path, {"ring.py": RING, "tests/test_ring.py": RING_TEST})
    test = "tests/test_ring.py::test_peek"
    seen = probe(root, "--func", "ring.py:Ring.peek:11", "--pair", "None", "'a'", test)
    got = seen[test]["Ring.peek"]
    assert got["line"] == 12 and got["returned"] == "None" and got["matched"] is True
    assert got["source"] == "return self._items[self._start - 1]"
    assert dict(got["parts"]) == {
        "self._items": "['a', 'b', None]",
        "self._start - 1": "-1",
        "self._start": "0",
    }  # `self` itself, shown as an address, is no value
    assert got["fixes"][0] == ["self._items[self._start]", "'a'", "index", "self._items"]


def test_an_operator_that_gives_the_expected_value(tmp_path):
    root = project(
        tmp_path,
        {
            "stats.py": "def mean(values):\n    return sum(values) // len(values)\n",
            "tests/test_stats.py": "from stats import mean\n\n\ndef test_mean():\n"
            "    assert mean([1, 2, 3, 4]) == 2.5\n",
        },
    )
    test = "tests/test_stats.py::test_mean"
    got = probe(root, "--func", "stats.py:mean:1", "--pair", "2", "2.5", test)[test]["mean"]
    assert dict(got["parts"])["sum(values)"] == "10" and dict(got["parts"])["len(values)"] == "4"
    assert got["fixes"] == [["sum(values) / len(values)", "2.5", "operator", "//"]]


def test_the_probe_calls_none_of_the_project_s_functions_and_writes_nothing(tmp_path):
    """A return built from a call of the project's own: its value is the test's, the probe does
    not call it again (it could do anything), and the project is left as it was."""
    calls = tmp_path / "calls.txt"
    root = project(
        tmp_path,
        {
            "calc.py": f"def bump(x):\n    open({str(calls)!r}, 'a').write('x')\n    return x\n\n\n"
            "def total(xs):\n    return bump(len(xs)) + 1\n",
            "tests/test_calc.py": "from calc import total\n\n\ndef test_total():\n"
            "    assert total([1, 2]) == 2\n",
        },
    )
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    test = "tests/test_calc.py::test_total"
    got = probe(root, "--func", "calc.py:total:6", "--pair", "3", "2", test)[test]["total"]
    assert calls.read_text() == "x"  # the test's own call, and no other
    assert "bump(len(xs))" not in dict(got["parts"]) and got["fixes"] == []
    assert dict(got["parts"]) == {"len(xs)": "2", "xs": "[1, 2]"}
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before  # no cache, no .pyc


def test_a_raise_is_no_return_and_an_uncompared_value_is_not_matched(tmp_path):
    root = project(
        tmp_path,
        {
            "m.py": "def f(x):\n    return 1 // x\n",
            "tests/test_m.py": "from m import f\n\n\ndef test_zero():\n    f(0)\n\n\n"
            "def test_one():\n    assert f(1) == 2\n",
        },
    )
    t0, t1 = "tests/test_m.py::test_zero", "tests/test_m.py::test_one"
    seen = probe(root, "--func", "m.py:f:1", "--pair", "5", "2", t0, t1)
    assert t0 not in seen  # ZeroDivisionError: nothing returned
    assert seen[t1]["f"]["matched"] is False and seen[t1]["f"]["fixes"] == []


def test_the_project_s_modules_win_over_the_probe_s_neighbours(tmp_path):
    """The probe lives beside Larik's own modules (``seen.py``, ``plan.py``): a project module
    of the same name is the one its tests import, as under ``python -m pytest``."""
    root = project(
        tmp_path,
        {
            "plan.py": "def steps():\n    return 1\n",
            "tests/test_plan.py": "from plan import steps\n\n\ndef test_steps():\n"
            "    assert steps() == 2\n",
        },
    )
    test = "tests/test_plan.py::test_steps"
    got = probe(root, "--func", "plan.py:steps:1", "--pair", "1", "2", test)[test]["steps"]
    assert got["matched"] is True and got["fixes"] == [["2", "2", "other", ""]]


# -- the report, read by the workflow ----------------------------------------------------------

PEEK = Suspect("ring.py", "Ring.peek", 11, "")
SEEN = {
    "line": 12,
    "source": "return self._items[self._start - 1]",
    "returned": "None",
    "parts": [["self._items", "['a', 'b', None]"], ["self._start", "0"]],
    "fixes": [["self._items[self._start]", "'a'", "index", "self._items"]],
    "matched": True,
}


def report(tests: object) -> str:
    return MARK + json.dumps({"tests": tests})


def test_the_sentence_names_the_test_the_values_and_the_change():
    said = words(report({"tests/test_ring.py::test_peek": {"Ring.peek": SEEN}}), [PEEK])
    assert said == (
        "What the code saw: in test_peek, Ring.peek returned None at ring.py line 12, "
        "`return self._items[self._start - 1]`, where `self._items` is ['a', 'b', None] and "
        "`self._start` is 0. `self._items[self._start]` there is 'a', the expected value."
    )


def test_the_one_index_that_holds_the_expected_value_is_kept_for_the_line_ask():
    """Asked which index of ['a', 'b', None] holds 'a', the 1.5B model said 2, three times."""
    [got] = saw(report({"tests/test_ring.py::test_peek": {"Ring.peek": SEEN}}), [PEEK])
    assert (got.kind, got.detail, got.at) == ("index", "self._items", "0")
    for items in ("['a', 'a', None]", "{'k': 'a'}", "[1, 'b']", "not a literal", "[True, 'a']"):
        parts = [["self._items", items], ["self._start", "0"]]
        [got] = saw(report({"t::x": {"Ring.peek": {**SEEN, "parts": parts}}}), [PEEK])
        assert got.at == ("1" if items == "[True, 'a']" else ""), items


def test_a_report_line_the_project_printed_first_is_not_the_probe_s():
    forged = report({"t::x": {"Ring.peek": {**SEEN, "fixes": [["rm -rf /", "'a'", "other", ""]]}}})
    said = words(forged + "\n1 failed\n\n" + report({"t::x": {"Ring.peek": SEEN}}), [PEEK])
    assert "rm -rf" not in said and "self._items[self._start]" in said


def test_a_report_that_does_not_read_says_nothing():
    bad = [
        MARK + "{not json",
        MARK + "[1, 2]",
        report([1]),
        report({"t::x": {"Ring.peek": {**SEEN, "line": "12"}}}),
        report({"t::x": {"Ring.peek": {**SEEN, "parts": [["a"]]}}}),
        report({"t::x": {"Ring.peek": {**SEEN, "fixes": "x"}}}),
        report({"t::x": {"Ring.peek": {**SEEN, "fixes": [["a", "b"]]}}}),  # what the change is
        report({"t::x": {"Ring.peek": {**SEEN, "matched": False}}}),  # not the compared value
        report({"t::x": {"Other.f": SEEN}}),  # a function the workflow did not ask about
        "no report at all",
    ]
    for output in bad:
        assert words(output, [PEEK]) == "", output


def test_the_command_quotes_every_argument_and_runs_the_check_s_python():
    cmd = command(
        "/opt/py/bin/python3.11 -m pytest -q",
        [PEEK],
        ["tests/t.py::test_x[a b]"],
        [("'it''s'", "'$(rm -rf ~)'")],
    )
    assert cmd.startswith(f"/opt/py/bin/python3.11 {PROBE} --func ring.py:Ring.peek:11 ")
    assert "--pair ''\"'\"'it'\"'\"''\"'\"'s'\"'\"'' ''\"'\"'$(rm -rf ~)'\"'\"''" in cmd
    assert cmd.endswith("-- 'tests/t.py::test_x[a b]'")
    assert command("make test", [PEEK], ["t.py::x"], []).startswith(f"python {PROBE} ")


def test_a_project_that_runs_its_tests_in_workers_is_still_seen(tmp_path):
    """`addopts = -n 2` (pytest-xdist) would run the tests in other processes, out of the
    probe's sight: the probe runs them in its own."""
    root = project(
        tmp_path,
        {
            "pytest.ini": "[pytest]\naddopts = -n 2\n",
            "m.py": "def f():\n    return 1\n",
            "tests/test_m.py": "from m import f\n\n\ndef test_f():\n    assert f() == 2\n",
        },
    )
    test = "tests/test_m.py::test_f"
    got = probe(root, "--func", "m.py:f:1", "--pair", "1", "2", test)[test]["f"]
    assert got["matched"] is True and got["returned"] == "1"


def test_a_generator_s_yield_is_no_return(tmp_path):
    """A yield (or an await) ends the frame's run with a return event: not the function's
    return, so nothing is recorded for it."""
    root = project(
        tmp_path,
        {
            "g.py": "def g():\n    return (yield 1)\n",  # suspended on the return's line
            "tests/test_g.py": "from g import g\n\n\ndef test_g():\n    assert next(g()) == 2\n",
        },
    )
    test = "tests/test_g.py::test_g"
    assert probe(root, "--func", "g.py:g:1", "--pair", "1", "2", test) == {}


def test_without_plugin_autoload_the_probe_still_runs(tmp_path, monkeypatch):
    """`PYTEST_DISABLE_PLUGIN_AUTOLOAD=1` (the suite's own `python`, and some users'): xdist is
    installed but not loaded, so `-n 0` would be an argument pytest does not know."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    root = project(
        tmp_path,
        {
            "m.py": "def f():\n    return 1\n",
            "tests/test_m.py": "from m import f\n\n\ndef test_f():\n    assert f() == 2\n",
        },
    )
    test = "tests/test_m.py::test_f"
    assert probe(root, "--func", "m.py:f:1", "--pair", "1", "2", test)[test]["f"]["matched"]
