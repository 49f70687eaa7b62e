"""No import cycle between Larik's top-level packages (issue 12).

Each module belongs to a unit: ``larik.X`` (a package or a top-level module). A feature
package's config section (``hooks/config.py``, ``mcp/config.py``) belongs to ``config``, whose
schema embeds it. Every import counts, those under ``if TYPE_CHECKING:`` too: a type is a
dependency, and a type-only import up a layer is how ``llm`` came to import ``config`` back.
The imports still pointing up are listed in ``KNOWN_UPWARD``, each with its reason; fixing one
means deleting its row (the last test fails while a row names an import that is gone).

Size by design (issue 44): no module past 500 lines, no class with more than 25 methods, but
those in ``LONG_MODULES`` and ``BIG_CLASSES``, each with its reason, which only shrink.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

from .agent.test_agent_structure import _cycles

#: on one worker (tests/conftest.py), which walks Larik's modules once for all of them
pytestmark = pytest.mark.xdist_group("layers")

LARIK = Path(__file__).resolve().parents[1] / "larik"
SECTIONS = ("larik.hooks.config", "larik.mcp.config")  # config sections owned by their feature

KNOWN_UPWARD: set[tuple[str, str]] = set()  # none left (issue 23): keep it so


def _unit(module: str) -> str:
    if module.startswith(SECTIONS):
        return "config"
    return module.split(".")[1]


def _imports(path: Path, package: list[str]) -> set[str]:
    """The larik modules ``path`` imports, anywhere in it (functions, TYPE_CHECKING too)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            out.add(module)
            if not node.module:  # from . import x, from .. import trust
                out.update(f"{module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return {m for m in out if m.startswith("larik.") and m.count(".") >= 1}


def _unit_graph(root: Path = LARIK) -> dict[str, set[str]]:
    """Which unit imports which (a fresh copy: callers may change it). Larik's own is walked
    once per test process: a walk parses its ~280 modules (2 MB), and four tests ask for it,
    1.5-2 s each in a worker whose heap the parse makes the collector walk again and again."""
    graph = _larik_graph() if root == LARIK else _walk(root)
    return {unit: set(deps) for unit, deps in graph.items()}


@functools.cache
def _larik_graph() -> dict[str, set[str]]:
    return _walk(LARIK)


def _walk(root: Path) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in root.rglob("*.py"):
        rel = path.relative_to(root.parent).with_suffix("").parts
        module = ".".join(rel[:-1] if path.name == "__init__.py" else rel)
        if module == "larik":
            continue  # the package's face: the version
        me = _unit(module)
        deps = {_unit(m) for m in _imports(path, list(rel[:-1]))}
        graph.setdefault(me, set()).update(d for d in deps if d != me)
    for deps in list(graph.values()):
        for d in deps:
            graph.setdefault(d, set())
    return graph


def test_no_import_cycle_between_larik_packages():
    graph = _unit_graph()
    assert {"llm", "config", "routing", "agent", "tui"} <= set(graph)  # the walk found them
    for upper, lower in KNOWN_UPWARD:
        graph[upper].discard(lower)
    assert _cycles(graph) == []


def test_llm_imports_no_other_package_not_even_for_a_type():
    """The lowest layer: config, routing, the agent and the front ends build on it."""
    assert _unit_graph()["llm"] <= {"__version__"}


def test_each_known_upward_import_is_still_there():
    graph = _unit_graph()
    assert [edge for edge in sorted(KNOWN_UPWARD) if edge[1] not in graph[edge[0]]] == []


def test_the_walk_counts_a_type_only_import_and_sees_the_cycle_it_makes(tmp_path):
    (tmp_path / "larik" / "llm").mkdir(parents=True)
    (tmp_path / "larik" / "config").mkdir()
    (tmp_path / "larik" / "llm" / "endpoint.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..config import Config\n"
    )
    (tmp_path / "larik" / "config" / "__init__.py").write_text("from ..llm import endpoint\n")
    graph = _unit_graph(tmp_path / "larik")
    assert graph == {"llm": {"config"}, "config": {"llm"}}
    assert _cycles(graph) == [{"llm", "config"}]


# -- size by design (issue 44 item 8) ---------------------------------------------------------
# A module near its limit is a sign to split it by responsibility, never to shave it: the
# limits below hold for every module and class of larik/ but those listed, each with its
# reason. A listed one that got under its limit must leave its table (the tables only shrink).

MAX_LINES = 500
MAX_METHODS = 25  # functions defined in a class's body: methods and properties alike
CEILING = 700  # what a listed module may not grow past while it waits for its split

SPLIT_44 = "split in issue 44 by the agent/session/TUI redesign"

#: The modules past MAX_LINES, relative to larik/, and why they may be for now.
LONG_MODULES: dict[str, str] = {
    "agent/checkpoints.py": SPLIT_44,
    "agent/rewind.py": SPLIT_44,
    "tui/widgets/conversation.py": SPLIT_44,
}

#: The classes with more than MAX_METHODS methods ("module:Class"), and why they may be for now.
BIG_CLASSES: dict[str, str] = {
    "tui/vim.py:Vim": SPLIT_44,
    "tui/widgets/conversation.py:ConversationView": SPLIT_44,
    "tui/widgets/prompt_input.py:PromptInput": SPLIT_44,
    "tui/widgets/rendered_lines.py:RenderedLines": SPLIT_44,
    "tui/app.py:LarikApp": SPLIT_44,  # start-up, the start-up questions and quitting, together
    # a Protocol: a member per thing the session reads or sets of an agent (a wide seam; the
    # status value and the parts are to narrow it)
    "session/port.py:AgentPort": SPLIT_44,
}


def _module_lines(root: Path = LARIK) -> dict[str, int]:
    return dict(_lines_in(root))


def _class_methods(root: Path = LARIK) -> dict[str, int]:
    """Each class of the package ("module:Class", nested ones too) and how many functions its
    own body defines."""
    return dict(_methods_in(root))


@functools.cache
def _lines_in(root: Path) -> dict[str, int]:
    return {
        p.relative_to(root).as_posix(): len(p.read_text().splitlines()) for p in root.rglob("*.py")
    }


@functools.cache
def _methods_in(root: Path) -> dict[str, int]:  # one parse of the package for the tests here
    out: dict[str, int] = {}
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                defs = [
                    n for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
                ]
                out[f"{path.relative_to(root).as_posix()}:{node.name}"] = len(defs)
    return out


def _over(counts: dict[str, int], limit: int, allowed: dict[str, str]) -> dict[str, int]:
    return {name: n for name, n in sorted(counts.items()) if n > limit and name not in allowed}


def test_no_module_of_larik_is_past_500_lines():
    sizes = _module_lines()
    assert len(sizes) > 100 and "printmode.py" in sizes
    assert _over(sizes, MAX_LINES, LONG_MODULES) == {}


def test_a_module_waiting_for_its_split_does_not_grow_past_700_lines():
    sizes = _module_lines()
    assert {m: sizes[m] for m in LONG_MODULES if sizes.get(m, 0) > CEILING} == {}


def test_no_class_of_larik_has_more_than_25_methods():
    methods = _class_methods()
    assert methods.get("session/core.py:Session", 0) > 10  # the walk sees a real class
    assert _over(methods, MAX_METHODS, BIG_CLASSES) == {}


def test_each_listed_exception_is_still_over_its_limit():
    """A module or class that got under its limit leaves its table, so the tables shrink and
    never name what is gone or fixed."""
    sizes, methods = _module_lines(), _class_methods()
    assert [m for m in LONG_MODULES if sizes.get(m, 0) <= MAX_LINES] == []
    assert [c for c in BIG_CLASSES if methods.get(c, 0) <= MAX_METHODS] == []


def test_the_size_rules_see_a_long_module_and_a_big_class(tmp_path):
    (tmp_path / "larik" / "tui").mkdir(parents=True)
    methods = "".join(f"    def m{i}(self):\n        pass\n" for i in range(26))
    (tmp_path / "larik" / "tui" / "big.py").write_text(f"class Big:\n{methods}")
    (tmp_path / "larik" / "small.py").write_text("class Small:\n    async def m(self): ...\n")
    root = tmp_path / "larik"
    assert _over(_module_lines(root), MAX_LINES, {}) == {}
    assert _over(_module_lines(root), 50, {}) == {"tui/big.py": 53}
    assert _class_methods(root) == {"tui/big.py:Big": 26, "small.py:Small": 1}
    assert _over(_class_methods(root), MAX_METHODS, {}) == {"tui/big.py:Big": 26}
    assert _over(_class_methods(root), MAX_METHODS, {"tui/big.py:Big": "why"}) == {}


def test_no_import_points_up_any_more():
    """Issue 23 emptied KNOWN_UPWARD: the process helpers went to larik/processes.py, paths.py
    to larik/, the command-file scan to larik/command_files.py and trust.py. A new upward
    import is a cycle the first test finds; this keeps the table from growing back."""
    assert KNOWN_UPWARD == set()


def test_the_agent_and_the_mcp_client_stand_side_by_side():
    """Both keep one tool contract (larik/tool_contract.py) and run programs in one sandbox
    (larik/sandbox/); the session plugs the MCP servers into the agent as its tool source.
    Neither imports the other: mcp/tools.py imported the agent's tools for the contract, and
    mcp/server.py the agent's sandbox, until issue 23."""
    graph = _unit_graph()
    assert {"tool_contract", "sandbox"} <= graph["mcp"] & graph["agent"]
    assert "agent" not in graph["mcp"] and "mcp" not in graph["agent"]


# The faces: each builds a Session (larik/session/) and drives it; none builds the agent or the
# MCP servers itself. ``larik mcp list --check`` asks mcp.manager.check_servers.
FACES = ("tui", "printmode", "bench", "cli", "acp", "interactive", "commands", "_entry")
FACES += ("print_options", "print_signals", "print_outcome", "print_lines")  # print mode's parts
CONSTRUCTORS = {
    "larik.agent": {"Agent"},
    "larik.agent.agent": {"Agent"},
    "larik.agent.create": {"create"},
    "larik.mcp": {"McpManager"},
    "larik.mcp.manager": {"McpManager"},
}
MODULES = ("larik.agent.agent", "larik.agent.create")  # the modules that hold them


def _constructors_imported(path: Path, package: list[str]) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            for name in (a.name for a in node.names):
                if name in CONSTRUCTORS.get(module, set()) or f"{module}.{name}" in MODULES:
                    found.append(f"{module}.{name}")
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name in MODULES]
        elif isinstance(node, ast.Constant) and node.value in MODULES:
            found.append(f"import_module({node.value!r})")
    return found


def _face_files(root: Path = LARIK) -> list[Path]:
    return [
        p for p in root.rglob("*.py") if p.relative_to(root).parts[0].removesuffix(".py") in FACES
    ]


def test_no_face_but_the_session_builds_the_agent_or_the_mcp_servers():
    files = _face_files()
    assert {p.relative_to(LARIK).parts[0] for p in files} >= {"tui", "bench", "printmode.py"}
    found = {
        str(p.relative_to(LARIK)): hits
        for p in files
        if (hits := _constructors_imported(p, list(p.relative_to(LARIK.parent).parts[:-1])))
    }
    assert found == {}


def test_the_face_rule_sees_an_agent_built_by_a_face(tmp_path):
    (tmp_path / "larik" / "tui" / "screens").mkdir(parents=True)
    (tmp_path / "larik" / "printmode.py").write_text("from .agent import Agent\n")
    (tmp_path / "larik" / "tui" / "screens" / "chat.py").write_text(
        "def f():\n    from ...mcp.manager import McpManager\n    from ...agent import agent\n"
    )
    root = tmp_path / "larik"
    found = {
        str(p.relative_to(root)): _constructors_imported(
            p, list(p.relative_to(tmp_path).parts[:-1])
        )
        for p in _face_files(root)
    }
    assert found == {
        "printmode.py": ["larik.agent.Agent"],
        "tui/screens/chat.py": ["larik.mcp.manager.McpManager", "larik.agent.agent"],
    }


# The faces reach the agent only through the session: its status value and its named methods
# (larik/session/port.py), never ``session.agent``; and the saved sessions (transcripts,
# checkpoints, rewinds) only through the session store (larik/session/store.py).
SESSION_FACES = (*FACES, "print_lines")
AGENT_STORES = (
    "larik.agent.transcript",
    "larik.agent.sessions",
    "larik.agent.checkpoints",
    "larik.agent.checkpoint_",
    "larik.agent.rewind",
    "larik.agent.session_log",
)


def _agent_reads(path: Path) -> list[str]:
    """Each ``X.agent`` the module reads (a session's, a screen's that hands it on, …)."""
    return [
        f"{node.lineno}: {ast.unparse(node)}"
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Attribute) and node.attr == "agent"
    ]


def _stores_imported(path: Path, package: list[str]) -> list[str]:
    """The agent's store modules ``path`` imports (``from ..agent import rewind`` too)."""
    found = set(_imports(path, package))
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, node.module])
            found.update(f"{module}.{a.name}" for a in node.names)
    return sorted({".".join(m.split(".")[:3]) for m in found if m.startswith(AGENT_STORES)})


def _face_findings(root: Path, rule: str) -> dict[str, list[str]]:
    files = [
        p
        for p in root.rglob("*.py")
        if p.relative_to(root).parts[0].removesuffix(".py") in SESSION_FACES
    ]
    out = {}
    for p in files:
        package = list(p.relative_to(root.parent).parts[:-1])
        hits = _agent_reads(p) if rule == "reads" else _stores_imported(p, package)
        if hits:
            out[str(p.relative_to(root))] = hits
    return out


def test_no_face_reads_the_agent_of_a_session():
    """What a face shows is ``Session.status`` (a frozen SessionStatus); what it does is a
    named method of the session or of one of its parts (store, servers, settings)."""
    assert _face_findings(LARIK, "reads") == {}


def test_no_face_imports_the_agents_stores():
    """``larik undo``, ``/resume``'s list, ACP's fork: all through larik/session/store.py."""
    assert _face_findings(LARIK, "stores") == {}


def test_the_face_rules_see_an_agent_read_and_a_store_import(tmp_path):
    (tmp_path / "larik" / "tui").mkdir(parents=True)
    (tmp_path / "larik" / "commands").mkdir()
    (tmp_path / "larik" / "tui" / "slash.py").write_text(
        "def f(session):\n    return getattr(session.agent, 'jobs', None)\n"
    )
    (tmp_path / "larik" / "commands" / "undo.py").write_text(
        "def f():\n    from ..agent.rewind import Checkpointer\n"
        "    from ..agent import checkpoint_files\n"
    )
    (tmp_path / "larik" / "print_lines.py").write_text("from .agent.transcript import load\n")
    root = tmp_path / "larik"
    assert _face_findings(root, "reads") == {"tui/slash.py": ["2: session.agent"]}
    assert _face_findings(root, "stores") == {
        "commands/undo.py": ["larik.agent.checkpoint_files", "larik.agent.rewind"],
        "print_lines.py": ["larik.agent.transcript"],
    }
