"""One fact, one place (issue 44): the permission modes are ``larik.modes.Mode`` and the
reasoning efforts ``larik.llm.effort.Effort``; nothing else in ``larik/`` lists them again.

The walk looks at every module's literals: a tuple, list, set or dict (its keys) of two or more
mode names, or of two or more effort names, is a copy of the list — as is a string that spells
two of them one after the other (``"low, medium, high or max"``, ``"ask|edits"``), the text of
an error or a help line that drifts when the list changes (docstrings are prose: not walked).
The enumeration's own module is the one place allowed to spell them. Write ``Mode.EDITS``, ``Effort.HIGH``, ``Mode.words()``,
``Effort.words()`` instead.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

LARIK = Path(__file__).resolve().parents[1] / "larik"

MODE_NAMES = frozenset({"ask", "edits", "yolo", "plan"})
EFFORT_NAMES = frozenset({"low", "medium", "high", "max"})
HOMES = {"modes.py": MODE_NAMES, "llm/effort.py": EFFORT_NAMES}  # where each list is spelled


def _spelled(names: frozenset[str]) -> re.Pattern[str]:
    word = "|".join(sorted(names))
    return re.compile(rf"\b({word})\b(,\s*|\s*\|\s*|\s+or\s+|\s+and\s+|/)`?\b({word})\b")


SPELLED = {MODE_NAMES: _spelled(MODE_NAMES), EFFORT_NAMES: _spelled(EFFORT_NAMES)}


def _strings(nodes: list[ast.expr | None]) -> list[str]:
    return [n.value for n in nodes if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def copies(source: str, skip: frozenset[str] = frozenset()) -> list[str]:
    """Where ``source`` lists the modes or the efforts again: ``"LINE: what"`` each."""
    found = []
    tree = ast.parse(source)
    prose = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}  # docstrings
    for node in ast.walk(tree):
        if id(node) in prose:
            continue
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            items = _strings(list(node.elts))
        elif isinstance(node, ast.Dict):
            items = _strings(list(node.keys))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            for names, pattern in SPELLED.items():
                if names is not skip and (m := pattern.search(node.value)):
                    found.append(f"{node.lineno}: {m.group(0)!r} in a string")
            continue
        else:
            continue
        for names in (MODE_NAMES, EFFORT_NAMES):
            if names is not skip and len(names & set(items)) >= 2:
                found.append(f"{node.lineno}: {sorted(names & set(items))}")
    return sorted(found, key=lambda h: int(h.split(":")[0]))


def test_no_module_but_the_enumerations_own_lists_the_modes_or_the_efforts():
    found = {}
    paths = list(LARIK.rglob("*.py"))
    assert len(paths) > 100
    for path in paths:
        rel = path.relative_to(LARIK).as_posix()
        if hits := copies(path.read_text(), HOMES.get(rel, frozenset())):
            found[rel] = hits
    assert found == {}


def test_the_walk_sees_each_way_of_copying_the_list():
    source = '''
CYCLE = ("ask", "edits", "plan")
MODES = {"ask": "confirm", "yolo": "never ask"}
if mode in ["edits", "yolo"]: pass
mode: Literal["ask", "edits"] = "ask"
BUDGETS = {"low": 1, "high": 3}
raise ValueError("unknown effort: use low, medium, high or max")
HELP = "/effort low|medium"
FINE = ("allow", "ask")  # one mode name: a verdict, not the list
"""A docstring may say ask, edits or yolo."""
'''
    hits = copies(source)
    assert [h.split(":")[0] for h in hits] == ["2", "3", "4", "5", "6", "7", "8"]
    assert copies(source, MODE_NAMES) == [h for h in hits if int(h.split(":")[0]) >= 6]
