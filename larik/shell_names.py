"""The names bash gives a meaning a permission rule must know: the shells whose ``-c`` string
is a command of its own (:data:`SHELLS`), the builtins that run a string or a file as code or
change how later commands read (:data:`OPAQUE`), and the variables that change which program
runs or what it loads (:data:`LOADER_VARS`). :mod:`.shell_reader` reads a command with them.
"""

from __future__ import annotations

__all__ = ["LOADER_VARS", "OPAQUE", "SHELLS", "loader_var"]


# Shells: with -c their string is parsed like the command itself; with no -c and no script they
# read commands from their input, which the tree cannot see.
SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh"})

# Builtins that run a string or a file as shell code, or change how commands are read.
OPAQUE: dict[str, str] = {
    "eval": "eval runs a string as code",
    "source": "source runs a file as code",
    ".": ". runs a file as code",
    "trap": "trap runs a string as code later",
    "fc": "fc runs commands from the history",
    "enable": "enable can load builtins from a shared library",
    "shopt": "shopt can turn on aliases and other ways a later command is read differently",
    "alias": "alias changes what a later command name runs",
    "hash": "hash -p changes what a later command name runs",
    "let": "let evaluates its arguments as arithmetic (a[$(cmd)] in a value runs cmd)",
}

# Variables that change which program runs or what code it loads: an assignment to one (as
# `NAME=… cmd`, `env NAME=… cmd` or on its own) is never vouched for. Names and prefixes
# (ending in `*`), compared upper-case. Not a complete list: a rule covers a program, and
# a program that reads the environment for code is known to the user who allows it.
LOADER_VARS = tuple(
    """
    PATH ENV BASH_ENV BASH_FUNC_* SHELLOPTS BASHOPTS PS4 PROMPT_COMMAND HOME XDG_CONFIG_HOME
    ZDOTDIR LD_* DYLD_* GCONV_PATH GLIBC_TUNABLES MALLOC_* LOCPATH NLSPATH TERMINFO
    PYTHON* NODE_OPTIONS NODE_PATH NPM_CONFIG_* PERL* RUBY* GEM_* BUNDLE_* JAVA_* _JAVA_* JDK_*
    MAVEN_* GRADLE_* GIT_* GO* CARGO* RUSTC* RUSTFLAGS RUSTDOCFLAGS RUSTUP_* UV_* PIP_*
    CC CXX CPP LD AR MAKE* MFLAGS EDITOR VISUAL PAGER MANPAGER LESS* BROWSER SSH_* SUDO_*
    SHELL RIPGREP_CONFIG_PATH TAR_OPTIONS RSYNC_RSH PARALLEL
    """.split()
)


def loader_var(name: str) -> bool:
    up = name.upper()
    return any(up.startswith(v[:-1]) if v.endswith("*") else up == v for v in LOADER_VARS)
