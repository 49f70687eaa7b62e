"""The ``local`` kind: a model Larik runs itself (``local/NAME``, pulled with ``larik local``).

The adapter is the openai-compatible one, pointed at the embedded engine
(:mod:`larik.llm.local.engine`) — llama.cpp's own server, so it gets llama.cpp's preset: the
``/props`` probe (the window the engine really loaded, whether its template takes tools), the
repeat penalty, grammar-constrained tool calls for a small model. The engine is started when the
first request or probe needs it, in a thread (it takes seconds to load a model), and never at
start-up: the TUI draws its first frame first. A ``larik local serve`` already running for the
model, or ``base_url`` in ``[providers.local]``, is used instead of starting one.

Options (``[providers.local.options]``): ``context`` (the window to load), ``threads``,
``chat_template`` (``chatml-fenced-tools`` or ``builtin``); the rest go to the
openai-compatible adapter. The model's size comes from the catalog or the file
(``model_params``), so the small-model profile applies before any probe.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncGenerator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import APIError, ConfigError, LocalModelError
from ..types import Request, StreamEvent
from .presets import PRESETS

if TYPE_CHECKING:
    from ..endpoint import Endpoint
    from ..local.engine import Settings
    from .openai_compat import OpenAICompatProvider

__all__ = ["LocalProvider"]

_ENGINE_OPTIONS = ("context", "threads", "chat_template")


class LocalProvider:
    def __init__(self, endpoint: Endpoint, *, model: str, **options: Any) -> None:
        self.endpoint = endpoint
        self.name = endpoint.name
        self.model = model
        self._engine_options = {k: options.pop(k) for k in _ENGINE_OPTIONS if k in options}
        options.pop("reasoning_history", None)
        self._options = options
        self._inner: OpenAICompatProvider | None = None
        self._settings: Settings | None = None
        self._lock = asyncio.Lock()
        if not endpoint.base_url and endpoint.local_dir is None:
            raise ConfigError(f"{self.name}: the local kind needs the config's state folder")
        from ..local.engine import install_exit_hooks

        install_exit_hooks()  # here, in the main thread: the engine starts in a worker

    async def _ready(self) -> OpenAICompatProvider:
        async with self._lock:
            if self._inner is None:
                url = self.endpoint.base_url  # the API root of a server the user runs
                endpoint = self.endpoint
                if not url:
                    cancel = threading.Event()  # a cancelled turn, a quit: the start ends too
                    try:
                        root, key = await asyncio.to_thread(self._start, cancel)
                    except asyncio.CancelledError:
                        cancel.set()
                        raise
                    from ..secrets import remember

                    remember(key)  # masked by value wherever text leaves Larik
                    endpoint = replace(endpoint, api_key=key)
                    url = root.rstrip("/") + "/v1"
                from .openai_compat import OpenAICompatProvider

                endpoint = replace(endpoint, base_url=url)
                self._inner = OpenAICompatProvider(
                    endpoint, preset=PRESETS["llamacpp"], **self._options
                )
            return self._inner

    def _start(self, cancel: threading.Event) -> tuple[str, str]:
        """The engine's base URL and key: one already serving the model, else a new one
        (blocking, until ``cancel`` is set)."""
        from ..local.engine import ensure, running
        from ..local.store import Store

        assert self.endpoint.local_dir is not None
        store = Store(Path(self.endpoint.local_dir))
        entry = store.find(self.model)
        url, key = running(store, entry)
        if url:
            return url, key
        engine = ensure(self._fit(store, entry), cancel=cancel)
        return engine.base_url, engine.api_key

    def _fit(self, store: Any, entry: Any) -> Settings:
        from ..local.engine import fit

        o = self._engine_options
        try:
            n_ctx = int(o["context"]) if "context" in o else None
            threads = int(o["threads"]) if "threads" in o else None
        except (TypeError, ValueError):
            raise ConfigError(f"{self.name}: context and threads must be numbers") from None
        template = str(o["chat_template"]) if "chat_template" in o else None
        self._settings = fit(entry, store, n_ctx=n_ctx, threads=threads, template=template)
        return self._settings

    async def _inner_or_error(self) -> OpenAICompatProvider:
        try:
            return await self._ready()
        except LocalModelError as e:  # one line, never retried: the same start fails the same
            raise APIError(0, str(e), retryable=False, provider=self.name) from None

    async def stream(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        if self._inner is None and not self.endpoint.base_url:  # the wait is said, not silent
            yield StreamEvent.notice(f"starting the local engine for {self.model} (loading it)")
        inner = await self._inner_or_error()
        async for event in inner.stream(request):
            yield event

    async def context_window(self, model: str) -> int | None:
        return await (await self._inner_or_error()).context_window(model)

    async def supports_tools(self, model: str) -> bool | None:
        return await (await self._inner_or_error()).supports_tools(model)

    def effort_applies(self, model: str) -> bool | None:
        """False for a catalog model (none of them reasons); not known for another file."""
        from ..local import catalog

        row = catalog.row(model)
        return None if row is None else row.reasoning

    async def model_params(self, model: str) -> float | None:
        """Billions of parameters: the catalog's, or the file's size label."""
        from ..local import catalog

        row = catalog.row(model)
        if row is not None:
            return row.params_b
        if self._settings is not None and self._settings.params_b is not None:
            return self._settings.params_b
        return await (await self._inner_or_error()).model_params(model)
