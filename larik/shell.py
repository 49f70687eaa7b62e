"""A bash command read the way bash reads it, for the permission rules.

The command is parsed with tree-sitter and the tree-sitter-bash grammar (the parser Codex and
Claude Code use for the same job), never split by hand. :func:`parse` returns a :class:`ShellScript`:

- ``commands``: every simple command anywhere in it — in a list, pipeline, subshell, ``{ …; }``
  group, ``if``/``for``/``while``/``case`` body, function body, ``$(…)``, backticks, ``<(…)``,
  ``>(…)``, a heredoc body, the string of ``bash -c``, and what ``find -exec`` runs. Each one is
  the *real* command: leading ``NAME=value`` assignments are dropped (their names kept in
  ``env``) and the wrappers in :data:`WRAPPERS` (``command``, ``env``, ``nice``, ``timeout``,
  ``ionice``, ``taskset``, ``flock``, ``sudo``, ``xargs``, … — :mod:`.shell_wrappers`) are seen
  through, with the shell lines and programs their options name (``flock -c``, ``su -c``,
  ``watch``'s words) and those of other programs' options (``split --filter``); its words as
  bash passes them after quote removal (``\\touch``, ``"to"uch`` and ``$'\\x74ouch'`` all read
  ``touch``);
- ``writes``: where output redirections (``>``, ``>>``, ``>|``, ``&>``, ``&>>``, ``N>``,
  ``>&file``, ``<>``) write;
- ``unvouched``: why the tree cannot vouch for what runs, if it cannot — a parse error, ``eval``,
  ``source``, ``trap``, a shell reading commands from its input, a command name bash has to
  expand (``$X``, ``$(…)``, a glob, a brace expansion), an assignment to a variable in
  :data:`LOADER_VARS` (``PATH``, ``LD_PRELOAD``, ``GIT_*``, …), arithmetic on a variable or a
  variable name taken from a variable (bash evaluates such a value as an expression, and an
  array subscript in it runs ``$(…)``), ``${!x}`` and ``${x@P}``.

How one word or piece of text reads (quote removal, expansions, backticks) is in
:mod:`.shell_words`; the walk of the tree in :mod:`.shell_reader`; the names bash gives a
meaning (shells, :data:`OPAQUE` builtins, :data:`LOADER_VARS`) in :mod:`.shell_names`. This
module is what they make and the one way in (:func:`parse`). tree_sitter is imported on the
first parse, not with this module, so starting the TUI stays fast.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .shell_names import LOADER_VARS, OPAQUE, SHELLS
from .shell_reader import Reader, SimpleCommand, parser
from .shell_words import Word, short
from .shell_wrappers import WRAPPERS, CommandWrapper

__all__ = [
    "LOADER_VARS",
    "OPAQUE",
    "SHELLS",
    "WRAPPERS",
    "ShellScript",
    "SimpleCommand",
    "Word",
    "CommandWrapper",
    "parse",
    "short",
    "syntax_tree",
]


@dataclass(frozen=True, slots=True)
class ShellScript:
    source: str
    commands: tuple[SimpleCommand, ...]
    writes: tuple[Word, ...]  # output redirection targets
    unvouched: tuple[str, ...]  # why the tree cannot vouch for what runs ("" when it can)
    changes_dir: bool  # cd/pushd/popd somewhere: relative paths are not from the project root
    makes_links: bool  # ln somewhere: a path checked now may lead elsewhere when written
    sources: tuple[str, ...]  # every command as written, for deny rules

    @property
    def vouched(self) -> bool:
        return not self.unvouched


def parse(command: str) -> ShellScript:
    """The command as bash would read it (cached: one command is looked at several times)."""
    return _parse(command)


@lru_cache(maxsize=256)
def _parse(command: str) -> ShellScript:
    r = Reader()
    try:
        r.read(command, 0)
    except (RecursionError, ValueError) as e:  # never a traceback: not vouched for, so asked
        r.unvouched.append(f"it could not be read ({type(e).__name__})")
    return ShellScript(
        source=command,
        commands=tuple(r.commands),
        writes=tuple(r.writes),
        unvouched=tuple(dict.fromkeys(r.unvouched)),
        changes_dir=r.changes_dir,
        makes_links=r.makes_links,
        sources=tuple(dict.fromkeys(r.sources)),
    )


def syntax_tree(source: bytes) -> Any:
    """tree-sitter's parse tree of a command (its root node), for a caller that needs to know
    where each part of it is (larik.custom_commands: how bash reads ``$1`` in a shell line)."""
    return parser().parse(source).root_node
