"""Runs every conformance scenario over every adapter kit in tests/llm/providers/kits/."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

from tests.llm.providers import conformance, kits


def _kits():
    found = []
    for info in sorted(pkgutil.iter_modules(kits.__path__), key=lambda i: i.name):
        mod = importlib.import_module(f"{kits.__name__}.{info.name}")
        if hasattr(mod, "KIT"):
            found.append(mod.KIT)
    return found


KITS = _kits()


@pytest.mark.parametrize("kit", KITS, ids=lambda k: k.name)
@pytest.mark.parametrize("scenario", conformance.SCENARIOS, ids=lambda s: s.__name__[9:])
async def test_conformance(kit, scenario, loopback):
    await scenario(kit, loopback)


@pytest.mark.parametrize("kit", KITS, ids=lambda k: k.name)
@pytest.mark.parametrize("status,retryable", [(429, True), (500, True), (400, False)])
async def test_conformance_startup_error(kit, status, retryable, loopback):
    await conformance.scenario_startup_error(kit, loopback, status, retryable)


def test_every_adapter_has_a_kit():
    names = {k.name for k in KITS}
    expected = {"anthropic", "openai", "gemini", "ollama", "openai-compatible"}
    assert expected <= names, f"adapters without a conformance kit: {sorted(expected - names)}"
