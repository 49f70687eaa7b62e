"""No string stands alone as a statement where it is not a docstring: a second f-string line
without the parentheses that join it to the first is silently dropped (read_file said "[3 lines
longer than 2000 characters " and never "were cut]"). ruff's B018 does not look at strings."""

from __future__ import annotations

import ast
from pathlib import Path

import larik

SCOPES = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def _dangling(tree: ast.AST) -> list[int]:
    lines = []
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for i, st in enumerate(body):
            if not isinstance(st, ast.Expr) or not isinstance(
                st.value, ast.Constant | ast.JoinedStr
            ):
                continue
            if isinstance(st.value, ast.Constant) and not isinstance(st.value.value, str):
                continue  # `...` in a protocol's method
            if i == 0 and isinstance(node, SCOPES):
                continue  # the docstring
            after_assignment = i > 0 and isinstance(body[i - 1], ast.Assign | ast.AnnAssign)
            if after_assignment and isinstance(st.value, ast.Constant):
                continue  # an attribute's docstring (config fields)
            lines.append(st.lineno)
    return lines


def test_the_rule_finds_an_f_string_left_alone():
    source = (
        'def f(n):\n    text = ""\n    text += f"[{n} lines "\n    f"were cut]"\n    return text\n'
    )
    assert _dangling(ast.parse(source)) == [4]


def test_no_string_in_larik_is_a_statement_of_its_own():
    root = Path(larik.__file__).parent
    found = [
        f"{path.relative_to(root.parent)}:{line}"
        for path in sorted(root.rglob("*.py"))
        for line in _dangling(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert found == []
