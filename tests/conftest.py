"""Test-wide rules: no network but loopback, no keys, a private LARIK_HOME."""

from __future__ import annotations

import ipaddress
import os
import socket
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.loopback import WIRE, LoopbackServer
from tests.patience import WAIT
from tests.procs import MARK_VARIABLE

# Bytecode is cached, whatever the environment says. With PYTHONDONTWRITEBYTECODE set (this
# machine's shell sets it, and a CI started from that shell inherits it) nothing ever was: each xdist worker rewrote
# every test module's asserts (a collection took 12.5 s, 6 s from the cache) and every Larik
# process a test starts compiled its modules from source again (0.2 s and more a process).
# The test projects' own `python` keeps it off (`_suite_python`: a same-size edit within the
# second must not run an old .pyc).
if os.environ.pop("PYTHONDONTWRITEBYTECODE", None):
    sys.dont_write_bytecode = False

_KEY_VARS = [
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "OPENROUTER_API_KEY",
    "GROQ_API_KEY",
    "DEEPSEEK_API_KEY",
    "NVIDIA_API_KEY",
    "TOGETHER_API_KEY",
    "FIREWORKS_API_KEY",
    "CEREBRAS_API_KEY",
    "MISTRAL_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_BASE_URL",
    "OLLAMA_HOST",
    "OLLAMA_API_KEY",
    "GOOGLE_GEMINI_BASE_URL",
    "XAI_API_KEY",
]

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _loopback_only(addr: object) -> None:
    if isinstance(addr, tuple) and addr:
        host = str(addr[0])
        try:
            ok = ipaddress.ip_address(host.split("%")[0]).is_loopback
        except ValueError:
            ok = host == "localhost"
        if not ok:
            raise ConnectionRefusedError(f"tests may only connect to loopback, not {host}")


def _guarded_connect(self: socket.socket, addr: object) -> None:
    _loopback_only(addr)
    return _real_connect(self, addr)


def _guarded_connect_ex(self: socket.socket, addr: object) -> int:
    _loopback_only(addr)
    return _real_connect_ex(self, addr)


socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]


#: Modules of real processes, servers and clusters, and of long sessions: each test in them is
#: marked ``slow`` (they held the largest shares of ``pytest --durations=0``), so that
#: ``pytest -m "not slow"`` is the quick set a developer runs while working. CI runs them all.
SLOW = frozenset(
    {
        "tests/bench/test_check_confined.py",
        "tests/bench/test_ray.py",
        "tests/llm/providers/test_llamacpp_integration.py",
        "tests/llm/local/test_cli.py",
        "tests/llm/local/test_engine.py",
        "tests/mcp/test_agent.py",
        "tests/mcp/test_bounds.py",
        "tests/mcp/test_oauth.py",
        "tests/test_jobs_processes.py",
        "tests/test_printmode_processes.py",
        "tests/tui/test_mcp.py",
        "tests/tui/test_quit_signals.py",
        "tests/tui/test_resume_long.py",
    }
)

#: Modules whose tests share one expensive thing (a module-scoped Ray cluster, a llama.cpp
#: server, a hostile MCP server): kept on one xdist worker (``--dist loadgroup``), so a run
#: starts it once. (Any other test is a unit of its own under loadgroup: a module-scoped
#: fixture not listed here is started on each worker its tests land on, and again after
#: another module's test ran between two of them.)
ONE_WORKER = {
    "tests/bench/test_ray.py": "ray",
    "tests/llm/providers/test_llamacpp_integration.py": "llamacpp",
    "tests/mcp/test_bounds.py": "mcp-bounds",
}


#: xdist workers per core for ``-n auto``: the suite mostly waits (a pilot's pauses for an idle
#: app, real processes starting, servers answering) — five TUI, MCP and ACP modules took 84 s
#: with 2 workers on 2 cores and 63 s with 4, for 8% more CPU.
WORKERS_PER_CORE = 2


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto``'s worker count (PYTEST_XDIST_AUTO_NUM_WORKERS, when set, still decides)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS") or config.option.numprocesses != "auto":
        return None  # xdist's own count
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return WORKERS_PER_CORE * (cores or 1)  # (macOS has no sched_getaffinity)


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = Path(config.rootpath)
    for item in items:
        try:
            module = item.path.relative_to(root).as_posix()
        except ValueError:
            continue
        if module in SLOW:
            item.add_marker(pytest.mark.slow)
        group = ONE_WORKER.get(module)
        if group is None and (mark := item.get_closest_marker("xdist_group")) is not None:
            group = mark.args[0] if mark.args else mark.kwargs.get("name")
        if group:  # a module of the table, or a test marked @pytest.mark.xdist_group(NAME)
            keep_on_one_worker(item, group)


def keep_on_one_worker(item: pytest.Item, group: str) -> None:
    """``item`` goes to the worker of ``group``'s other tests (``--dist loadgroup``). xdist
    marks it so by appending ``@group`` to the item's nodeid, setting ``item._nodeid``, which
    pytest 9.2 no longer reads (its nodeid is ``item._id``, a ``NodeId``): with xdist 3.8 the
    group was silently dropped, and a module's Ray cluster, llama.cpp or MCP server was
    started on each worker, and again after another module's test between two of its own.
    Where that is so, the group is put in the nodeid here, as xdist would."""
    item.add_marker(pytest.mark.xdist_group(group))
    grouping = getattr(item.config.option, "loadgroup", False)  # set in xdist's workers
    if grouping and not hasattr(item, "_nodeid") and hasattr(item, "_id"):
        from _pytest.nodeid import NodeId

        item._id = NodeId.parse(f"{item.nodeid}@{group}")


@pytest.fixture(scope="session")
def _suite_python() -> Iterator[Path | None]:
    """A folder with ``python`` and ``python3`` that run this suite's own interpreter, for the
    commands tests run (``python -m pytest`` in a project: its check). Found on ``PATH`` they
    were whatever the machine had first: with pyenv a shim (~1 s to pick a version, in bash)
    for a global interpreter with dozens of pytest plugins (~1 s more), 2-3 s per check,
    and pytest only because that interpreter happened to have it. It runs as a bench check
    does (``larik/bench/tasks.run_check``): a plain pytest (no plugin of the suite's, such as
    pytest-asyncio's warning about its settings, in what a check prints) and no bytecode
    written (a test's file and the edit it gets come within a second, at the same size: a
    ``.pyc`` of the first would pass for the second, which the slow shim hid). In ``/var/tmp``,
    since the sandbox covers ``/tmp`` (and shows the suite's interpreter); None where it
    cannot be made (``PATH`` is then left as it is)."""
    import shutil
    import tempfile

    try:
        folder = Path(tempfile.mkdtemp(prefix="larik-tests-python-", dir="/var/tmp"))
    except OSError:
        yield None
        return
    try:
        for name in ("python", "python3"):
            script = folder / name
            script.write_text(
                "#!/bin/sh\nPYTEST_DISABLE_PLUGIN_AUTOLOAD=1 PYTHONDONTWRITEBYTECODE=1 "
                f'exec "{sys.executable}" "$@"\n'
            )
            script.chmod(0o755)
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(autouse=True)
def _hermetic(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path_factory: pytest.TempPathFactory,
    _suite_python: Path | None,
) -> None:
    hermetic_env(monkeypatch, tmp_path_factory.mktemp("larik-home"))
    if _suite_python is not None:
        monkeypatch.setenv("PATH", f"{_suite_python}{os.pathsep}{os.environ.get('PATH', '')}")


def hermetic_env(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """No keys, and Larik's home, config and state in ``home``."""
    for var in _KEY_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LARIK_HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "xdg-config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / "xdg-state"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / "claude"))  # not the real ~/.claude
    monkeypatch.setenv("NO_COLOR", "1")


@pytest.fixture(scope="module")
def module_hermetic(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The same for a module-scoped fixture (a server started once for a module's tests,
    before any test's own ``_hermetic``): the home it set."""
    home = tmp_path_factory.mktemp("larik-module-home")
    with pytest.MonkeyPatch.context() as monkeypatch:
        hermetic_env(monkeypatch, home)
        yield home


@pytest.fixture(autouse=True)
def _fresh_cooldowns() -> Iterator[None]:
    from larik.llm.fallback import cooldowns

    cooldowns.clear()
    yield
    cooldowns.clear()


@pytest.fixture(autouse=True)
def _fresh_host_guards() -> Iterator[None]:
    """The folders a test's sessions guarded (larik/host_programs.py) are the test's own: one
    test's project (a wide root, ``/``) does not keep the next from finding git."""
    from larik import host_programs

    saved = set(host_programs._guarded)
    yield
    host_programs._guarded.clear()
    host_programs._guarded.update(saved)


@pytest.fixture(autouse=True)
def _fresh_secrets() -> Iterator[None]:
    from larik.llm.secrets import forget_all

    forget_all()
    yield
    forget_all()


@pytest.fixture(autouse=True)
def _young_idle_collections(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """The TUI's idle collection (``larik/tui/gcpolicy.collect_idle``: unfreeze, a full
    collection, freeze again), which every app runs at its first frame, walks the whole heap of
    the process: in a test worker that is every module and test the worker has loaded, about
    0.2-0.3 s per app (a fifth of a TUI test's CPU), where Larik itself has ~20-90 ms to walk.
    Tests stand it in with a young collection and a freeze, what it leaves the app (its objects
    out of the collector's sight); ``@pytest.mark.full_gc`` keeps the real one (the tests of
    gcpolicy). Whatever a test froze is given back after it, so the rest of the suite runs with
    a normal collector."""
    import gc

    if request.node.get_closest_marker("full_gc") is None:
        from larik.tui import gcpolicy

        def young() -> None:
            gc.collect(1)
            gc.freeze()

        monkeypatch.setattr(gcpolicy, "collect_idle", young)
    yield
    gc.unfreeze()  # (a list splice; gc.get_freeze_count() would walk the frozen objects)


#: Textual's parsed CSS, shared by every app of a test process (see ``_parsed_css_shared``).
_PARSED_CSS: dict[tuple[object, ...], list[Any]] = {}


@pytest.fixture(autouse=True)
def _parsed_css_shared() -> None:
    """Textual parses each app's CSS afresh (its cache is the stylesheet's, and a theme's
    variables re-parse into a new stylesheet): a tenth of a TUI test's CPU. Larik runs one app
    per process, but a test worker runs hundreds, so the tests share the parsed rules between
    apps, keyed by everything the parse reads (the CSS, where it is from, its defaults flag,
    tie breaker and scope, and the variables). Textual itself hands the same parsed rules to
    every parse of one stylesheet; CSS with errors still raises at each parse. Installed once
    Textual is imported (the first test of a module that imports it lazily parses as usual)."""
    stylesheet = sys.modules.get("textual.css.stylesheet")
    if stylesheet is None or getattr(stylesheet.Stylesheet._parse_rules, "shared", False):
        return
    parse_rules = stylesheet.Stylesheet._parse_rules

    def shared(
        self: Any,
        css: str,
        read_from: Any,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[Any]:
        key = (
            css,
            read_from,
            is_default_rules,
            tie_breaker,
            scope,
            *sorted(self._variables.items()),
        )
        rules = _PARSED_CSS.get(key)
        if rules is None:
            rules = parse_rules(self, css, read_from, is_default_rules, tie_breaker, scope)
            if len(_PARSED_CSS) > 5000:
                _PARSED_CSS.clear()
            _PARSED_CSS[key] = rules
        return rules

    shared.shared = True  # type: ignore[attr-defined]
    stylesheet.Stylesheet._parse_rules = shared


@pytest.fixture(autouse=True)
def _pilots_wait_the_ceiling() -> None:
    """Textual's pilot gives a screen's widgets 30 s to take the messages pending at each
    ``pause`` and key press, then raises ``WaitForScreenTimeout``: a fixed deadline a loaded
    machine can miss (a resumed session drawing its history in idle slices). Here it is the
    suite's ceiling. Installed once Textual is imported, as the CSS above."""
    if "textual.app" not in sys.modules:
        return
    import textual.pilot as pilot

    if getattr(pilot.Pilot._wait_for_screen, "patient", False):
        return
    wait_for_screen = pilot.Pilot._wait_for_screen

    async def patient(self: Any, timeout: float = WAIT) -> bool:
        return await wait_for_screen(self, max(timeout, WAIT))

    patient.patient = True  # type: ignore[attr-defined]
    pilot.Pilot._wait_for_screen = patient


@pytest.fixture
def loopback() -> Iterator[LoopbackServer]:
    server = LoopbackServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def wire_dir():
    if not WIRE.is_dir():
        pytest.skip("../shared/wire is absent")
    return WIRE


def pytest_report_header(config: pytest.Config) -> str:
    return f"wire recordings: {WIRE if WIRE.is_dir() else 'absent (those tests skip)'}; pid {os.getpid()}"


@pytest.fixture
def mark(monkeypatch: pytest.MonkeyPatch) -> str:
    """A fresh mark in this process's environment, inherited by every process its commands
    start (tests/procs.py: ``carrying(mark)`` finds them; this process itself does not carry
    it, since /proc shows the environment a process was started with)."""
    value = uuid.uuid4().hex
    monkeypatch.setenv(MARK_VARIABLE, value)
    return value
