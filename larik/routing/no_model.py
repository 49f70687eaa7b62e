"""What a face says when there is no model: the rule's reasons (:class:`NoModelError`, from
:func:`larik.routing.targets.default_model`) and what one look at this machine found — each
local server that answers, with the one line that would use it.

A server that answers is not a default (a port that answers is not a choice the user made, and
which of its models is a guess); it is what the message offers. ``larik -p``, ``larik acp`` and
``larik bench`` say it through :func:`explain`; the TUI offers the same servers' models in its
picker (``tui/screens/no_model.py``).
"""

from __future__ import annotations

from typing import Any

from .targets import NoModelError

__all__ = ["NoModelError", "explain", "found_here"]

#: How many of a server's models a line names before "and N more".
SHOWN = 3
#: Seconds a server that listens has to list its models. Longer than the picker's look: this
#: is the error path, a refused port answers at once, and a busy server is still one to name.
LOOK = 5.0


async def found_here(config: Any, use: str) -> str:
    """The local servers that answer now and the line that would use each (``use``: the face's
    command with ``{spec}`` for the model, e.g. ``larik acp -m {spec}``); or that none does."""
    from .local import discover, servers

    try:
        found = [m for m in await discover(config, timeout=LOOK) if m.provider != "local"]
        where = {s.provider: s.address for s in servers(config, one_per_address=False)}
    except Exception:  # a look that failed is said as one, never a traceback
        return "no local model server could be asked"
    if not found:
        return (
            "no local model server answers at the usual ports (`larik models --scan` looks on "
            "every port)"
        )
    lines = []
    for provider in dict.fromkeys(m.provider for m in found):
        specs = [m.spec for m in found if m.provider == provider]
        more = f" and {len(specs) - SHOWN} more" if len(specs) > SHOWN else ""
        at = where.get(provider, provider)
        lines.append(
            f"a local server answers at {at} ({', '.join(specs[:SHOWN])}{more}): "
            f"run `{use.format(spec=specs[0])}`"
        )
    return "; ".join(lines)


async def explain(err: NoModelError, config: Any, use: str) -> str:
    """``err``'s line, then what this machine has (:func:`found_here`)."""
    return f"{err}; {await found_here(config, use)}"
