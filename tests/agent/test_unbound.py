"""A read of a function's own variable before anything sets it (larik/agent/unbound.py).

Measured (qwen2.5-coder-1.5b, cli-add-flags): the model dropped ``text = fh.read()`` and kept
``text = text.lower()``; the test saw only an empty stdout, for three rounds.
"""

from __future__ import annotations

import sys
from pathlib import Path

from larik.agent.unbound import unbound_reads

from .conftest import run, script
from .test_edit_workflow import edit_config

DROPPED = """import argparse


def main(argv=None):
    parser = argparse.ArgumentParser()
    args = parser.parse_args(argv)
    with open(args.path) as fh:
        if args.ignore_case:
            text = text.lower()
        counts = len(text)
    return counts
"""

#: correct code the check must not judge: branches, loops, try, closures, :=, comprehensions
CORRECT = """
def branches(argv):
    with open(argv) as fh:
        text = fh.read()
        if argv:
            text = text.lower()
    return text


def loop(xs):
    first = True
    for x in xs:
        if first:
            prev = x
            first = False
        else:
            print(prev)  # set by an earlier iteration
    total = 0
    for x in xs:
        total += x
    while xs:
        if len(xs) > 3:
            last = xs.pop()
        else:
            print(last)
            break
    return total


def tries():
    try:
        import json
    except ImportError:
        json = None
    try:
        v = json.loads("1")
    except ValueError as e:
        v = e
    finally:
        pass
    return v


def closures(xs):
    y = [z for z in xs if z]
    if (n := len(xs)) > 1:
        pass

    def inner():
        return later

    later = 1
    result: int

    def setter():
        nonlocal result
        result = 2

    setter()
    return y, n, inner, result


def globals_():
    global G
    G = G + 1
    return G


class C:
    def m(self, *args, **kw):
        for k in kw:
            args = (*args, k)
        return args
"""


def test_a_variable_read_before_it_is_set_is_found():
    assert unbound_reads(DROPPED) == [
        "line 9: main() reads `text` before anything sets it (an UnboundLocalError when that "
        "line runs): set `text` before it"
    ]
    assert unbound_reads("def f():\n    count += 1\n    return count\n")[0].startswith(
        "line 2: f() reads `count`"
    )
    only_one_branch = "def f(a):\n    if a:\n        x = 1\n    else:\n        print(x)\n"
    assert unbound_reads(only_one_branch)[0].startswith("line 5: f() reads `x`")


def test_correct_code_is_not_judged():
    assert unbound_reads(CORRECT) == []
    assert unbound_reads("def broken(:\n") == []


def test_what_the_file_already_did_is_not_said():
    assert unbound_reads(DROPPED, before=DROPPED) == []
    assert unbound_reads(DROPPED, before="def main():\n    return 1\n") == unbound_reads(DROPPED)


def test_larik_s_own_code_and_the_standard_library_are_not_judged():
    """A corpus of working code: the check says nothing of it (a few known real
    reads-before-set in third-party packages aside, none of it is Larik's or the stdlib's)."""
    import larik

    roots = [Path(larik.__file__).parent, Path(sys.base_prefix) / "lib" / "python3.11" / "json"]
    roots.append(Path(sys.base_prefix) / "lib" / "python3.11" / "asyncio")
    said = {}
    for root in roots:
        for f in root.rglob("*.py"):
            if m := unbound_reads(f.read_text(encoding="utf-8")):
                said[str(f)] = m
    assert said == {}


async def test_the_read_is_said_with_the_failure(make_agent, project):
    """The workflow names the line, with the test's empty-output failure."""
    (project / "tests").mkdir()
    (project / "tests" / "test_up.py").write_text(
        "from up import up\n\n\ndef test_up():\n    assert up('a') == 'A'\n"
    )
    (project / "up.py").write_text("def up(s):\n    return s\n")
    wrong = "up.py\n```python\ndef up(s):\n    if s:\n        t = t.upper()\n    return t\n```\n"
    right = "up.py\n```python\ndef up(s):\n    return s.upper()\n```\n"
    p = script({"text": wrong}, {"text": right})
    agent = await make_agent(p, config=edit_config())
    await run(agent, "Make up() upper-case its argument. Fix up.py.")
    told = p.requests[1].messages[-1].text()
    assert (
        "A mistake in your edit:\n- up.py, line 3: up() reads `t` before anything sets it" in told
    )
    assert (project / "up.py").read_text() == "def up(s):\n    return s.upper()\n"
