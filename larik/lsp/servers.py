"""The language servers Larik knows (a table a test walks) and how one is found.

A server is found on ``PATH`` or, in a trusted project only, in the project's own ``.venv/bin``
or ``node_modules/.bin`` — never installed. One found in the project is the project's code: in
an untrusted project (even with the user's ``[lsp] enabled = true``) nothing inside the project
is run, whichever way it is named (its bins, a ``PATH`` entry leading into it, a configured
path). :mod:`.session` starts servers only where the project is trusted or the user's config
says so.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "KNOWN",
    "SUFFIXES",
    "Found",
    "ServerSpec",
    "find",
    "language_of",
    "project_own",
    "specs",
]

#: File suffixes of each language id.
SUFFIXES: dict[str, tuple[str, ...]] = {
    "python": (".py", ".pyi"),
    "typescript": (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs"),
    "go": (".go",),
    "rust": (".rs",),
    "c": (".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh"),
}

#: Where a project keeps its own programs.
PROJECT_BINS = (".venv/bin", "node_modules/.bin")


@dataclass(frozen=True)
class ServerSpec:
    name: str
    command: tuple[str, ...]
    languages: tuple[str, ...]
    globs: tuple[str, ...] = ()
    init_options: dict | None = None  # type: ignore[type-arg]
    settings: dict | None = None  # type: ignore[type-arg]  # workspace/configuration's answers

    def serves(self, path: Path) -> bool:
        if self.globs:
            return any(fnmatch.fnmatch(path.name, g) for g in self.globs)
        return language_of(path) in self.languages


#: The known servers, preferred first within a language. Python's order is measured
#: (benchmarks/lsp.py, docs/performance.md): the type checkers first, all under 300 ms a warm
#: edit when pulled (basedpyright 26-74 ms median, ty 5.5 ms: pyright's fuller checks before a
#: 0.0 release), then ruff (1 ms, lint only), pylsp last (510 ms: a hard-coded 0.5 s debounce).
KNOWN: tuple[ServerSpec, ...] = (
    # basedpyright's own default ("recommended") warns of every unannotated parameter: a new
    # untyped file is hundreds of lines of them; "standard" is pyright's default, and a
    # project's own pyrightconfig.json / [tool.basedpyright] still decides (it outranks these)
    ServerSpec(
        "basedpyright",
        ("basedpyright-langserver", "--stdio"),
        ("python",),
        settings={"basedpyright": {"analysis": {"typeCheckingMode": "standard"}}},
    ),
    ServerSpec("pyright", ("pyright-langserver", "--stdio"), ("python",)),
    ServerSpec("ty", ("ty", "server"), ("python",)),
    # ruff before pylsp: both find pyflakes' errors, ruff's in ~2 ms, pylsp's after its fixed
    # 0.5 s lint debounce (docs/performance.md, benchmarks/lsp.py)
    ServerSpec("ruff", ("ruff", "server"), ("python",)),
    ServerSpec("pylsp", ("pylsp",), ("python",)),
    ServerSpec(
        "typescript-language-server", ("typescript-language-server", "--stdio"), ("typescript",)
    ),
    ServerSpec("gopls", ("gopls",), ("go",)),
    ServerSpec("rust-analyzer", ("rust-analyzer",), ("rust",)),
    ServerSpec("clangd", ("clangd",), ("c",)),
)


@dataclass(frozen=True)
class Found:
    spec: ServerSpec
    argv: tuple[str, ...]  # the program resolved to an absolute path
    in_project: bool  # found in the project's .venv/node_modules: the project's own code


def language_of(path: Path) -> str:
    for lang, suffixes in SUFFIXES.items():
        if path.suffix in suffixes:
            return lang
    return ""


def specs(config: object | None) -> list[ServerSpec]:
    """The servers ``[lsp]`` leaves: its own first, then the known ones not disabled."""
    cfg = getattr(config, "lsp", None)
    disabled = set(getattr(cfg, "disabled", ()) or ())
    added = [
        ServerSpec(
            name,
            tuple(s.command),
            tuple(s.languages),
            tuple(s.globs),
            dict(s.init_options),
            dict(s.settings),
        )
        for name, s in (getattr(cfg, "servers", None) or {}).items()
    ]
    names = {s.name for s in added}
    return added + [s for s in KNOWN if s.name not in disabled and s.name not in names]


def find(spec: ServerSpec, root: Path, *, project_bins: bool) -> Found | None:
    """``spec``'s program, else None: not found. With ``project_bins`` (a trusted project) the
    project's own bins come first, then ``PATH``. Without it nothing inside ``root`` is used:
    not its bins, not a ``PATH`` entry that is relative or leads into the project (a venv the
    user activated, ``.``), not a program that resolves into it, not a configured path there."""
    program = spec.command[0]
    if "/" in program:
        path = Path(program) if Path(program).is_absolute() else root / program
        inside = _inside(path, root)
        if not path.is_file() or (inside and not project_bins):
            return None
        return Found(spec, (str(path), *spec.command[1:]), inside)
    if project_bins:
        own = _project_bin(program, root)
        if own:
            return Found(spec, (own, *spec.command[1:]), True)
        exe = shutil.which(program)
        return Found(spec, (exe, *spec.command[1:]), _inside(Path(exe), root)) if exe else None
    for entry in os.environ.get("PATH", os.defpath).split(os.pathsep):
        if not entry or not os.path.isabs(entry) or _inside(Path(entry), root):
            continue
        exe = shutil.which(program, path=entry)
        if exe and not _inside(Path(exe), root):
            return Found(spec, (exe, *spec.command[1:]), False)
    return None


def project_own(spec: ServerSpec, root: Path) -> str:
    """The path of ``spec``'s program in the project's own bins ("" when it ships none): what
    an untrusted project is not allowed to run, for ``larik lsp`` to name."""
    program = spec.command[0]
    if "/" in program:
        path = Path(program) if Path(program).is_absolute() else root / program
        return str(path) if path.is_file() and _inside(path, root) else ""
    return _project_bin(program, root)


def _project_bin(program: str, root: Path) -> str:
    """``program`` in the project's ``.venv/bin`` or ``node_modules/.bin`` ("": in neither)."""
    for sub in PROJECT_BINS:
        exe = shutil.which(program, path=str(root / sub))
        if exe:
            return exe
    return ""


def _inside(path: Path, root: Path) -> bool:
    """``path``, symlinks resolved, is ``root`` or under it."""
    try:
        return path.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):  # a loop: treat as the project's, never run it
        return True
