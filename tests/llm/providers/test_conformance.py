"""Runs every conformance scenario over every registered adapter kind, each with its kit.

The kinds come from the registry, not from a list here: a kind registered without a kit in
``tests/llm/providers/kits/`` fails ``test_conformance[...-KIND]`` loudly. A kit module names its
kind in ``KIT.name``; a kit for a kind that only tests know (``KIND`` in its module, e.g. the
``azure-like`` variant) registers that kind while its tests run. Kinds that run in-process
(``scripted``: no wire to conform to) are the only ones without a kit.
"""

from __future__ import annotations

import functools
import importlib
import json
import pkgutil
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from larik.llm import registry
from tests.llm.providers import conformance, kits
from tests.loopback import ENDS


def _kit_modules() -> list[Any]:
    found = []
    for info in sorted(pkgutil.iter_modules(kits.__path__), key=lambda i: i.name):
        found.append(importlib.import_module(f"{kits.__name__}.{info.name}"))
    return found


MODULES = _kit_modules()
KITS = {m.KIT.name: m.KIT for m in MODULES if hasattr(m, "KIT")}
TEST_KINDS = {m.KIND.name: m.KIND for m in MODULES if hasattr(m, "KIND")}
KIND_NAMES = [k.name for k in registry.kinds() if not k.in_process] + [
    name for name in TEST_KINDS if registry.kind(name) is None
]


def kit_for(kind: str) -> Any:
    """The conformance kit of ``kind``; a failure naming the kind when there is none."""
    kit = KITS.get(kind)
    if kit is None:
        pytest.fail(f"adapter kind {kind!r} has no conformance kit in tests/llm/providers/kits/")
    return kit


@pytest.fixture
def kind(request: pytest.FixtureRequest) -> Iterator[str]:
    """The kind under test, registered for the test when only a kit declares it."""
    name = request.param
    entry = TEST_KINDS.get(name)
    added = entry is not None and registry.kind(name) is None
    if added:
        registry.register_kind(entry)
    try:
        yield name
    finally:
        if added:
            registry.unregister_kind(name)


@pytest.mark.parametrize("kind", KIND_NAMES, indirect=True)
@pytest.mark.parametrize("scenario", conformance.SCENARIOS, ids=lambda s: s.__name__[9:])
async def test_conformance(kind, scenario, loopback):
    await scenario(kit_for(kind), loopback)


@pytest.mark.parametrize("kind", KIND_NAMES, indirect=True)
@pytest.mark.parametrize("status,retryable", [(429, True), (500, True), (400, False)])
async def test_conformance_startup_error(kind, status, retryable, loopback):
    await conformance.scenario_startup_error(kit_for(kind), loopback, status, retryable)


def test_the_built_in_kinds_are_all_run():
    expected = {"anthropic", "openai", "gemini", "ollama", "openai-compatible"}
    assert expected <= set(KIND_NAMES)


def test_a_kind_registered_without_a_kit_fails_the_suite():
    entry = registry.Kind(name="kitless-test-kind", adapter="x:Y", warm_modules=())
    registry.register_kind(entry)
    try:
        assert "kitless-test-kind" in [k.name for k in registry.kinds() if not k.in_process]
        with pytest.raises(pytest.fail.Exception, match="kitless-test-kind.*no conformance kit"):
            kit_for("kitless-test-kind")
    finally:
        registry.unregister_kind("kitless-test-kind")


def test_a_kind_cannot_be_described_without_its_warm_up_modules():
    with pytest.raises(TypeError, match="warm_modules"):
        registry.Kind(name="x", adapter="x:Y")  # type: ignore[call-arg]


# -- the warm-up entry is checked against what the adapter really imports ---------------------

_WARM_PROBE = r"""
import asyncio, importlib, json, os, sys, traceback
from larik.llm import registry
from larik.tui.warmup import sdk_modules, warm
from tests.loopback import LoopbackServer
from larik.llm.types import Usage
from tests.llm.providers.conformance import request


def probe(kind, module):
    mod = importlib.import_module(module)
    if getattr(mod, "KIND", None) is not None and registry.kind(kind) is None:
        registry.register_kind(mod.KIND)
    kit = mod.KIT
    server = LoopbackServer().start()
    server.add(kit.text_reply(["hi"], Usage(input=1, output=1)))
    provider = kit.make(server.url)
    warm(sdk_modules(kind))
    before = set(sys.modules)

    async def run():
        return [ev async for ev in provider.stream(request(kit))]

    asyncio.run(run())
    new = {m.split(".")[0] for m in sys.modules} - {m.split(".")[0] for m in before}
    return sorted(m for m in new if m not in sys.stdlib_module_names)


for kind, module in json.loads(sys.argv[1]):  # each in a child forked from this process
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        try:
            line = {"kind": kind, "new": probe(kind, module)}
        except BaseException:
            line = {"kind": kind, "error": traceback.format_exc()}
        sys.stdout.write(json.dumps(line) + "\n")
        sys.stdout.flush()
        os._exit(0)
    os.waitpid(pid, 0)
"""


@functools.cache
def _warm_probes() -> dict[str, dict[str, Any]]:
    """What streaming a first reply imported after each kind's warm-up, each kind in a
    process of its own: one process imports what every probe imports first (Larik's registry
    and warm-up, the test server), then forks a child per kind, which imports its kit and SDK
    from there, as a fresh process would (a fresh process per kind paid the first part again:
    0.8 s of CPU each)."""
    pairs = [
        [kind, next(m.__name__ for m in MODULES if getattr(m, "KIT", None) is kit_for(kind))]
        for kind in KIND_NAMES
    ]
    out = subprocess.run(
        [sys.executable, "-c", _WARM_PROBE, json.dumps(pairs)],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = [json.loads(x) for x in out.stdout.splitlines() if x.startswith('{"kind"')]
    return {line["kind"]: line for line in lines}


@pytest.mark.xdist_group("warm-probes")  # one worker runs the probes (tests/conftest.py)
@pytest.mark.parametrize("kind", KIND_NAMES)
def test_the_warm_up_imports_what_the_adapter_imports_when_it_first_streams(kind):
    """After the TUI's warm-up for ``kind``, streaming a first reply imports no third-party
    package: a kind whose ``warm_modules`` forgot its SDK fails here."""
    probe = _warm_probes()[kind]
    assert "error" not in probe, probe.get("error")
    assert probe["new"] == []


@pytest.mark.parametrize("kind", KIND_NAMES, indirect=True)
@pytest.mark.parametrize("end", ENDS)
@pytest.mark.parametrize("scenario", conformance.CUT_SCENARIOS, ids=lambda s: s.__name__[9:])
async def test_conformance_cut_stream(kind, end, scenario, loopback):
    """Every kind, every way a body can end early (issue 42 item 6)."""
    await scenario(kit_for(kind), loopback, end)
