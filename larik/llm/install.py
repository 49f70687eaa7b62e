"""How to add one of Larik's extras (``local``, ``ray``) to the Larik that runs: the one command
for this installation, found from the installation itself.

``pip install 'larik[local]'`` works only for a Larik installed from an index, and Larik is
installed from a checkout or a git URL. The installation says how it was made:

* where from — the distribution's ``direct_url.json`` (PEP 610): an editable checkout's folder,
  a git URL and its revision, a local folder or an archive; none means an index. A ``larik``
  imported from a checkout that was never installed (``PYTHONPATH``) is that checkout;
* by which tool — the interpreter's prefix: a ``uv tool`` environment holds ``uv-receipt.toml``,
  a ``pipx`` one ``pipx_metadata.json``; a virtualenv made by uv has no pip (its
  ``pyvenv.cfg`` says ``uv = …``); anything else is pip's, run with this interpreter unless it
  is the active environment's.

:func:`extra_command` is what every message naming an extra says; a face that shows it in
markup (the TUI) escapes it. Reading the metadata is a few small files, once per process.
"""

from __future__ import annotations

import functools
import json
import os
import shlex
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.metadata import Distribution
from pathlib import Path
from urllib.parse import unquote, urlsplit

__all__ = ["Installation", "extra_command", "installation"]

NAME = "larik"


@dataclass(frozen=True, slots=True)
class Installation:
    """How Larik was installed: ``source`` (a path, a PEP 508 URL, or "" for an index),
    whether it is editable, and the ``tool`` that manages its environment."""

    source: str = ""
    editable: bool = False
    vcs: bool = False  # source is a URL (git+https://…@rev), not a path
    tool: str = "pip"  # "pip", "uv-pip" (a uv virtualenv without pip), "uv-tool", "pipx"
    python: str = ""  # the interpreter to run pip with ("": the active environment's pip)

    def requirement(self, extra: str) -> str:
        """Larik with ``extra`` from where it came, as one shell word."""
        if not self.source:
            return shlex.quote(f"{NAME}[{extra}]")
        if self.vcs:
            return shlex.quote(f"{NAME}[{extra}] @ {self.source}")
        return shlex.quote(f"{self.source}[{extra}]")

    def command(self, extra: str) -> str:
        """The one command that adds ``extra`` to this installation."""
        edit = "--editable " if self.editable else ""
        want = self.requirement(extra)
        if self.tool == "uv-tool":
            return f"uv tool install --force {edit}{want}"
        if self.tool == "pipx":
            return f"pipx install --force {edit}{want}"
        edit = "-e " if self.editable else ""
        if self.tool == "uv-pip":
            return f"uv pip install --python {shlex.quote(self.python)} {edit}{want}"
        pip = f"{shlex.quote(self.python)} -m pip" if self.python else "pip"
        return f"{pip} install {edit}{want}"


def extra_command(extra: str) -> str:
    """The command that installs Larik's ``extra`` into the Larik that runs."""
    return _running().command(extra)


@functools.cache
def _running() -> Installation:
    return installation()


def installation(
    paths: list[str] | None = None,
    prefix: Path | None = None,
    executable: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> Installation:
    """How Larik was installed: the distribution found on ``paths`` (default ``sys.path``) and
    the environment at ``prefix`` (default ``sys.prefix``), run by ``executable``."""
    here = Path(prefix if prefix is not None else sys.prefix)
    python = executable if executable is not None else sys.executable
    env = os.environ if environ is None else environ
    source, editable, vcs = _source(paths)
    tool = _tool(here)
    own_pip = tool == "pip" and not _active(here, env)
    return Installation(source, editable, vcs, tool, python if tool == "uv-pip" or own_pip else "")


def _source(paths: list[str] | None) -> tuple[str, bool, bool]:
    """(where from, editable, a URL) — from the distribution's direct_url.json, or the checkout
    a larik that was never installed is imported from."""
    from importlib.metadata import distributions

    dist = next(iter(distributions(name=NAME, path=paths)), None) if paths else _installed()
    if dist is None:
        checkout = Path(__file__).resolve().parents[2]
        if paths is None and (checkout / "pyproject.toml").is_file():
            return str(checkout), True, False
        return "", False, False
    try:
        data = json.loads(dist.read_text("direct_url.json") or "null")
    except (OSError, ValueError, RecursionError):
        data = None
    if not isinstance(data, dict) or not isinstance(data.get("url"), str):
        return "", False, False  # from an index
    url: str = data["url"]
    vcs = data.get("vcs_info")
    if isinstance(vcs, dict):
        rev = vcs.get("requested_revision") or vcs.get("commit_id") or ""
        kind = vcs.get("vcs") or "git"
        return f"{kind}+{url}" + (f"@{rev}" if rev else ""), False, True
    parts = urlsplit(url)
    if parts.scheme != "file":
        return url, False, True  # an archive's URL
    folder = data.get("dir_info")
    editable = isinstance(folder, dict) and folder.get("editable") is True
    return unquote(parts.path), editable, False


def _installed() -> Distribution | None:
    """The installed distribution whose package is the one running (None: none is)."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        dist = distribution(NAME)
    except PackageNotFoundError:
        return None
    running = Path(__file__).resolve().parents[1]
    try:
        files = [Path(str(dist.locate_file(f))).resolve() for f in dist.files or ()]
    except (OSError, ValueError):
        return dist
    if any(f == running / "__init__.py" for f in files):
        return dist  # an ordinary install: its files are the running package
    if _checkout_of(dist) == running.parent:  # an editable install of this checkout
        return dist
    return None  # installed, but this larik runs from elsewhere (a checkout on PYTHONPATH)


def _checkout_of(dist: Distribution) -> Path | None:
    try:
        url = json.loads(dist.read_text("direct_url.json") or "null")["url"]
        return Path(unquote(urlsplit(url).path)).resolve()
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _tool(prefix: Path) -> str:
    if (prefix / "uv-receipt.toml").is_file():
        return "uv-tool"
    if (prefix / "pipx_metadata.json").is_file():
        return "pipx"
    try:
        config = (prefix / "pyvenv.cfg").read_text(encoding="utf-8")
    except OSError:
        return "pip"
    made_by_uv = any(line.split("=")[0].strip() == "uv" for line in config.splitlines())
    has_pip = any((prefix / "lib").glob("python*/site-packages/pip"))
    return "uv-pip" if made_by_uv and not has_pip else "pip"


def _active(prefix: Path, environ: Mapping[str, str]) -> bool:
    """Whether ``prefix`` is the active virtualenv (its ``pip`` is the one a shell runs)."""
    active = environ.get("VIRTUAL_ENV", "")
    try:
        return bool(active) and Path(active).resolve() == prefix.resolve()
    except OSError:
        return False
