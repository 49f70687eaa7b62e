"""`import larik` and `larik --help` stay light: no vendor SDK, no Textual."""

import subprocess
import sys

HEAVY = ("anthropic", "openai", "google.genai", "textual", "mcp", "ray", "pygls", "lsprotocol")

PROBE = """
import sys
{stmt}
heavy = {heavy!r}
print("LOADED:" + ",".join(sorted(h for h in heavy if h in sys.modules)))
"""


def _loaded(stmt: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(stmt=stmt, heavy=HEAVY)],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip().splitlines()[-1].removeprefix("LOADED:")


def test_import_larik_imports_no_sdk():
    stmt = (
        "import larik, larik.llm, larik.llm.types, larik.llm.provider, larik.llm.errors, "
        "larik.llm.replay, larik.llm.retry, larik.llm.fallback, larik.llm.timeout, "
        "larik.llm.providers.scripted, larik.agent.transcript"
    )
    assert _loaded(stmt) == ""


def test_larik_help_imports_no_sdk():
    stmt = (
        "sys.argv = ['larik', '--help']\nfrom larik import cli\n"
        "try:\n    cli.main()\nexcept SystemExit:\n    pass"
    )
    assert _loaded(stmt) == ""


def test_bench_and_its_ray_module_import_no_ray():
    """Ray (a second to import) loads only when ``--ray`` is given."""
    stmt = (
        "import larik.commands.bench, larik.bench.ray_run, larik.bench.runner\n"
        "sys.argv = ['larik', 'bench', '--help']\nfrom larik import cli\n"
        "try:\n    cli.main()\nexcept SystemExit:\n    pass"
    )
    assert _loaded(stmt) == ""


def test_larik_version_runs():
    out = subprocess.run(
        [sys.executable, "-m", "larik.cli", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.startswith("larik ")


def test_commands_and_skills_are_not_imported_before_the_first_frame():
    """Custom commands and skills are found after the TUI's first frame (tui/custom.py, the
    agent's creation): their modules and PyYAML are not part of start-up, nor of --help."""
    stmt = "import larik.tui.app, larik.tui.screens.chat, larik.tui.slash, larik.printmode"
    late = ("yaml", "larik.custom_commands", "larik.agent.skills", "larik.frontmatter")
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(stmt=stmt, heavy=late)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip().splitlines()[-1] == "LOADED:"


def test_mcp_oauth_is_imported_only_when_such_a_server_starts():
    """The OAuth client (and the SDK's auth) is not part of the TUI's start-up, of print mode's
    or of ``larik mcp``: a server with auth = "oauth" imports it, in a thread, as it starts."""
    stmt = (
        "import larik.tui.app, larik.tui.mcp, larik.tui.screens.mcp, larik.printmode, "
        "larik.mcp.manager, larik.mcp.server, larik.commands.mcp"
    )
    late = ("larik.mcp.oauth", "mcp", "httpx2")
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(stmt=stmt, heavy=late)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip().splitlines()[-1] == "LOADED:"
