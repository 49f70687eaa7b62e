"""Counted nouns agree with their number (issue 25 item 16): ``larik.words`` says ``1 tool``,
and no message in the package builds a count by hand (``{n} tools``, ``file(s)``)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from larik.words import count, plural

LARIK = Path(__file__).resolve().parents[1] / "larik"
NOUNS = (
    "tools|messages|files|lines|models|tasks|runs|calls|words|items|sessions|skills|jobs|turns"
    "|servers|commands|entries|images|prompts|resources|changes|checks|errors|results"
)
# "{n} tools", "{n} earlier messages", "{n} model calls": a number before a plural noun
COUNTED = re.compile(rf"^[ +]?(?:[a-z-]+ )?(?:{NOUNS})\b")
MAYBE_PLURAL = re.compile(r"[a-z]\(s\)")  # "file(s)"; "http(s)" is a scheme, not a count
# the lowest layer imports no other package (tests/test_layers.py): its few counts say it inline
INLINE = {LARIK / "llm"}
# fragments after a name, not a number ("{label} runs a hook", "{tool.name} calls are"), and
# the small model's reply rules, where "file(s)" is one or more (its wording is measured)
NOT_COUNTS = {
    "permissions.py": {" calls are"},
    "plan.py": {" commands"},
    "shell_reader.py": {" runs", " runs: an option's value", " -c runs is not literal"},
    "trust_words.py": {" runs a hook: "},
    "edit_reply.py": {"How to reply: for each file you change, write its path alone"},
    "words.py": {"Counted nouns in what Larik says: ``1 tool``, ``2 tools`` — "},
}


def test_count_agrees_with_the_number():
    assert count(1, "tool") == "1 tool"
    assert count(0, "tool") == "0 tools"
    assert count(2, "earlier message") == "2 earlier messages"
    assert count(1, "entry", "entries") == "1 entry"
    assert count(3, "entry", "entries") == "3 entries"
    assert count(1200, "file") == "1,200 files"
    assert plural(1, "line") == "line"


def _hand_made_counts(path: Path) -> list[str]:
    out = []
    allowed = NOT_COUNTS.get(path.name, set())
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if MAYBE_PLURAL.search(node.value.replace("http(s)", "")) and not any(
                node.value.startswith(a) for a in allowed
            ):
                out.append(f"{path.name}:{node.lineno}: {node.value[:60]!r}")
        if isinstance(node, ast.JoinedStr):
            parts = node.values
            for before, after in zip(parts, parts[1:], strict=False):
                if (
                    isinstance(before, ast.FormattedValue)
                    and isinstance(after, ast.Constant)
                    and COUNTED.match(str(after.value))
                    and str(after.value) not in allowed
                ):
                    out.append(f"{path.name}:{node.lineno}: {{…}}{str(after.value)[:40]!r}")
    return out


def test_no_message_counts_by_hand():
    found = [
        hit
        for path in sorted(LARIK.rglob("*.py"))
        if not any(d in path.parents for d in INLINE)
        for hit in _hand_made_counts(path)
    ]
    assert found == []


def test_the_walk_finds_a_hand_made_count(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text('n = 1\na = f"{n} tools"\nb = "1 file(s)"\nc = f"+{n} lines"\nd = "http(s)"\n')
    assert len(_hand_made_counts(bad)) == 3
