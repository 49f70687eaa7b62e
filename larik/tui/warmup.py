"""Import the current model's SDK in a background thread, before the first request needs it.

Adapters import their SDK when they first stream (``anthropic`` alone takes most of a second
to import), which would freeze the screen just after the first prompt is sent. Once the agent
is ready (after the first frame), the app imports that SDK in a worker thread instead; the
event loop keeps running meanwhile, and the adapter's own import is then instant. What the
first frame does not draw but the first reply does (``UI_MODULES``) is imported there too.

The collector is paused while the thread imports: a full collection started by the imports'
allocations would hold the GIL, and so the screen, for tens of milliseconds. What was imported
lives as long as the process, so it is frozen out of later collections.
"""

from __future__ import annotations

import gc
import importlib
from typing import Any

__all__ = ["UI_MODULES", "WarmUp", "sdk_modules", "warm"]

UI_MODULES: tuple[str, ...] = ("rich.markdown", "rich.json")


def sdk_modules(provider_name: str, config: Any = None) -> tuple[str, ...]:
    """The modules the adapter of ``provider_name`` imports when it first streams (its kind's
    ``warm_modules`` in the registry)."""
    from ..llm import registry
    from ..llm.endpoint import kind_of

    kind = registry.kind(kind_of(provider_name, config) or provider_name)
    return kind.warm_modules if kind is not None else ()


def warm(modules: tuple[str, ...]) -> None:
    """Import ``modules`` (run in a thread); a failure is left for the real import to report."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        for name in modules:
            try:
                importlib.import_module(name)
            except Exception:  # the adapter reports it, with context, when it needs the module
                continue
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


class WarmUp:
    """The warm-up thread of a screen: ``start`` it for a provider once the agent is there;
    ``await done()`` before the first request (awaited, the screen and the keys stay live —
    the adapter's own import would block the loop on the module's import lock meanwhile)."""

    def __init__(self, run_worker: Any) -> None:
        self._run_worker = run_worker  # a DOMNode's run_worker
        self._worker: Any = None

    def start(self, provider_name: str, config: Any = None) -> None:
        try:
            modules = sdk_modules(provider_name, config)
        except Exception:  # only an optimisation
            modules = ()
        mods = UI_MODULES + modules
        self._worker = self._run_worker(
            lambda: warm(mods), thread=True, group="warmup", exit_on_error=False
        )

    async def done(self) -> None:
        worker = self._worker
        if worker is not None and worker.is_running:
            try:
                await worker.wait()
            except Exception:  # cancelled or failed: the adapter's import reports it
                pass
