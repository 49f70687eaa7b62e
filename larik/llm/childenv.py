"""The environment a child process gets: Larik's own without its credentials.

A command, a hook, an MCP or language server, the local engine: none of them sees a key. Left
out are the variables Larik's providers read their keys from (the registry's
``credential_env_names``) and, as Codex's default shell environment policy does, every variable
whose name contains KEY, SECRET, TOKEN or PASSWORD (any case), unless named in
``LARIK_BASH_KEEP_ENV`` (comma-separated names, in the user's own environment).

It lives in ``llm`` because which variables are credentials is the providers' fact; the lowest
layer's own children (the local engine) use it, and ``larik.processes`` re-exports it for the
rest.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = ["KEEP_ENV", "SECRET_NAME_PARTS", "child_env", "is_secret_name"]

SECRET_NAME_PARTS = ("KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD")
KEEP_ENV = "LARIK_BASH_KEEP_ENV"  # names to pass on although they look like credentials


def is_secret_name(name: str, providers: frozenset[str] = frozenset()) -> bool:
    """Whether variable ``name`` holds a credential: a provider's key variable, or a name with
    KEY, SECRET, TOKEN or PASSWORD in it (any case)."""
    upper = name.upper()
    return name in providers or any(part in upper for part in SECRET_NAME_PARTS)


def child_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a command runs with: ``base`` (default ``os.environ``) without its
    credentials, unless named in ``LARIK_BASH_KEEP_ENV``; pagers off, no git prompts."""
    from . import registry

    env = dict(os.environ if base is None else base)
    keep = {n.strip() for n in env.get(KEEP_ENV, "").split(",") if n.strip()}
    providers = frozenset(
        n
        for name in registry.names()
        if (spec := registry.get(name))
        for n in spec.credential_env_names
    )
    out = {k: v for k, v in env.items() if k in keep or not is_secret_name(k, providers)}
    out.update(PAGER="cat", GIT_PAGER="cat", GIT_TERMINAL_PROMPT="0")
    return out
