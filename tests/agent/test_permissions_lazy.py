"""The bash grammar loads when the first bash command is checked, not when Larik starts."""

import subprocess
import sys

PROBE = """
import sys
{stmt}
print(",".join(m for m in ("tree_sitter", "tree_sitter_bash") if m in sys.modules) or "-")
"""


def _loaded(stmt: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(stmt=stmt)], capture_output=True, text=True, check=True
    )
    return out.stdout.strip().splitlines()[-1]


def test_the_permission_policy_imports_without_the_parser():
    assert _loaded("import larik.agent, larik.agent.permissions, larik.shell") == "-"


def test_the_app_imports_without_the_bash_grammar():
    # textual's TextArea brings tree_sitter itself; the bash grammar is Larik's to load
    assert "tree_sitter_bash" not in _loaded("import larik.tui.app")


def test_checking_a_bash_command_loads_it():
    stmt = "from larik.shell import parse\nparse('ls')"
    assert _loaded(stmt) == "tree_sitter,tree_sitter_bash"
