"""The TUI's name for local-server discovery; it lives in :mod:`larik.routing.local` (one
discovery for the picker, the no-model screen, ``larik models`` and routing)."""

from __future__ import annotations

from ..routing.local import LocalModel, LocalServer, discover, servers

__all__ = ["LocalModel", "LocalServer", "discover", "servers"]
