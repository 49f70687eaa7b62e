"""Plan mode: the model reads and searches, changes nothing, and ends its turn with a plan.

In the ``plan`` permission mode (:mod:`.permissions`) the read tools run, explore subagents run,
and a bash command runs only when every simple command in it is in :data:`READ_ONLY` with
arguments that keep it read-only (:func:`command_problem`), it redirects no output to a file,
and the parse tree can vouch for it (:mod:`.shell`). A dangerous option counts in every way its
program reads it: a long one in any abbreviation (``sort --outp=F`` is ``--output``), with its
value attached or not, a short one anywhere in a cluster (``sort -no F``). A command a wrapper
runs (``nice``, ``timeout``, ``env``…) is checked as itself, with what the wrapper adds: no
variable but :data:`PLAN_ENV` (``RIPGREP_CONFIG_PATH=x rg`` is refused), and no argument known
only when it runs (``… | xargs rg``). Everything else is refused, with a reason
that tells the model to present its plan instead: file edits, other commands, worker
subagents, MCP tools without a read-only hint. Allow rules do not widen plan mode; deny rules
still hold.

A read-only command is still *asked about* (not run unasked) when it reads something the user
has not let the read tools read: a path outside the project, a path known only when it runs,
or — when a deny rule on a read tool is in force — a file such a rule names, or any folder walk
(``grep -r``, ``rg``, ``find``…), because the rule cannot be checked against what a walk meets.

Each user message sent in plan mode carries :data:`NOTE`, so the model knows the rules; the
turn's final text is the plan. The user accepts it (the front end switches to ``edits`` or
``ask`` and sends :func:`accepted`) or refines it (another turn in plan mode).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from dataclasses import dataclass, field

from .. import shell
from ..modes import Mode
from ..shell_options import long_name

__all__ = [
    "NOTE",
    "PLAN_ENV",
    "READ_ONLY",
    "ReadOnly",
    "accepted",
    "command_problem",
    "script_problem",
]

NOTE = (
    "[plan mode] The user wants a plan before any change. You may read files, search, run "
    "explore subagents and run read-only commands (ls, cat, head, grep, rg, find without "
    "-exec/-delete, git status/log/diff/show, …). Do not edit files or run anything else: "
    "such calls are refused. Investigate what you need, then end your reply with the plan: "
    "the steps, the files each one changes, and how to check the result. The user will "
    "accept it or ask you to refine it."
)


def accepted(mode: str) -> str:
    """The prompt that carries on once the user accepts the plan and leaves plan mode."""
    free = Mode(mode).writes_unasked
    how = "edit files" + (" freely" if free else "; the user approves each")
    return (
        f"The user accepted the plan. Plan mode is over: the permission mode is now {str(mode)!r}, "
        f"so you may {how}. Carry out the plan now, step by step, and check the result."
    )


@dataclass(frozen=True, slots=True)
class ReadOnly:
    """How a command stays read-only: the options it must not get, how many operands it may
    take, and for ``git`` the subcommands that are read-only."""

    forbidden: frozenset[str] = frozenset()
    """Options that write or run a program. A ``--long`` one is refused in any abbreviation
    (``--outp=F`` and ``--o F`` are ``--output``: GNU getopt and git take any unambiguous
    prefix, and an ambiguous one runs nothing), with its value attached or in the next word; a
    single-dash one (find's ``-exec``) is refused as that exact word."""
    letters: str = ""
    """Short options that write or run a program, refused anywhere in a cluster (``-no``, ``-oF``,
    ``-ro``) — even where another letter's value hides them (the safe direction)."""
    valued: str = ""
    """Short options taking a value (``-f N``), so that value is not counted as an operand.
    Every word is still checked for forbidden options, a value included."""
    operands: int | None = None
    """Most operands (words not starting with ``-``); None: any number."""
    walks: bool = False
    """Reads folders it is not named."""
    walk_letters: str = ""
    """…or does with one of these short options (``grep -r``)."""
    walk_options: frozenset[str] = frozenset()
    """…or with one of these long options, in any abbreviation (``grep --recursive``)."""
    subcommands: Mapping[str, ReadOnly] = field(default_factory=dict)
    """For a command such as git: the read-only subcommands; the first argument must be one."""

    @property
    def strict(self) -> bool:
        """Whether its arguments matter: a word known only when it runs (``$X``, a glob that
        may match a file named ``--pre=evil``, what xargs adds) is then refused."""
        return bool(self.forbidden or self.letters or self.operands is not None)


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


_PLAIN = ReadOnly()
# Every git command that reads revisions takes the diff options (--output writes, checked).
_GIT_REVS = _set("--output --ext-diff")
_GIT_LOG = ReadOnly(forbidden=_GIT_REVS | _set("--show-signature"), walks=True)  # gpg runs
_GRAPH = ReadOnly(forbidden=_GIT_REVS, walks=True)

#: The commands plan mode runs unasked, by name (never a path: ``./ls`` is not ``ls``), and
#: for each the options that would make it write or run a program. Every program here was gone
#: through for such options; a test walks this table.
READ_ONLY: dict[str, ReadOnly] = {
    **{
        name: _PLAIN
        for name in (
            "cat head tail wc nl cut tr fold column paste comm cmp stat basename dirname "
            "realpath readlink pwd echo printf true false test which type whoami id uname "
            "md5sum sha1sum sha256sum sha512sum od hexdump strings jq cd"
        ).split()
    },
    "ls": ReadOnly(walk_letters="R", walk_options=_set("--recursive")),
    **{
        name: ReadOnly(
            walk_letters="rRd",  # -d recurse
            walk_options=_set("--recursive --dereference-recursive --directories"),
        )
        for name in ("grep", "egrep", "fgrep")
    },
    "diff": ReadOnly(walk_letters="r", walk_options=_set("--recursive")),
    "rg": ReadOnly(forbidden=_set("--pre --hostname-bin"), walks=True),
    "find": ReadOnly(
        forbidden=_set("-exec -execdir -ok -okdir -delete -fprint -fprint0 -fprintf -fls"),
        walks=True,
    ),
    "tree": ReadOnly(letters="oR", walks=True),  # -R writes 00Tree.html in every folder
    "du": ReadOnly(walks=True),
    "sort": ReadOnly(
        forbidden=_set("--output --compress-program --temporary-directory"),
        letters="oT",  # -T: its temporary files
    ),
    "uniq": ReadOnly(valued="fsw", operands=1),  # `uniq IN OUT` writes OUT
    "xxd": ReadOnly(valued="cglnosR", operands=1),  # likewise
    "file": ReadOnly(forbidden=_set("--compile"), letters="C"),  # -C writes magic.mgc
    "git": ReadOnly(
        subcommands={
            "status": ReadOnly(),
            "log": _GIT_LOG,
            "diff": _GRAPH,
            "show": _GIT_LOG,
            "blame": _GRAPH,
            "grep": ReadOnly(forbidden=_set("--open-files-in-pager"), letters="O", walks=True),
            "ls-files": ReadOnly(),
            "ls-tree": ReadOnly(),
            "rev-parse": ReadOnly(),
            "rev-list": ReadOnly(forbidden=_GIT_REVS),
            "describe": ReadOnly(),
            "shortlog": _GRAPH,
            "cat-file": ReadOnly(walks=True),
            "merge-base": ReadOnly(),
            # listing only: any operand would create, rename or delete
            "branch": ReadOnly(
                forbidden=_set(
                    "--delete --move --copy --set-upstream-to --unset-upstream "
                    "--edit-description --force --track"
                ),
                letters="dDmMcCuf",
                operands=0,
            ),
            "tag": ReadOnly(operands=0),
            "remote": ReadOnly(operands=0),
        }
    ),
}

#: Variables a command in plan mode may be given (``LC_ALL=C sort``); any other one may change
#: what the program reads or runs (``RIPGREP_CONFIG_PATH``, ``GIT_*``…), so it is refused.
PLAN_ENV = ("LC_*", "LANG", "LANGUAGE", "TZ", "COLUMNS", "LINES", "NO_COLOR", "TERM")


@dataclass(frozen=True, slots=True)
class Reading:
    """What a read-only command reads that the read rules must see: literal words that look
    like paths, whether it walks folders, and words known only when it runs."""

    paths: tuple[str, ...] = ()
    walks: bool = False
    unknown: tuple[str, ...] = ()


def command_problem(cmd: shell.SimpleCommand) -> str:
    """Why this simple command is not read-only ("" when it is)."""
    problem, _ = _check(cmd)
    return problem


def _check(cmd: shell.SimpleCommand) -> tuple[str, Reading]:
    words = list(cmd.words)
    name = words[0].value if words else None
    if name is None:
        return "its command name is known only when it runs", Reading()
    spec = READ_ONLY.get(name)
    if spec is None:
        return f"{shell.short(name, 40)} is not a read-only command", Reading()
    args = words[1:]
    label = name
    if spec.subcommands:
        sub = args[0].value if args else None
        if sub is None or sub not in spec.subcommands:
            what = f"{name} {shell.short(args[0].raw, 30)}" if args else name
            return f"{what} is not one of the read-only {name} commands", Reading()
        spec, args, label = spec.subcommands[sub], args[1:], f"{name} {sub}"
    env = [v for v in cmd.env if not any(fnmatch.fnmatchcase(v, p) for p in PLAN_ENV)]
    if env:
        return (
            f"{label} is given {shell.short(env[0], 40)}, which may change what it does",
            Reading(),
        )
    if cmd.fed and spec.strict:
        return f"{label} gets arguments from its input (xargs), known only when it runs", Reading()
    return _arguments(spec, label, args, cmd.fed)


def _arguments(
    spec: ReadOnly, label: str, args: list[shell.Word], fed: bool
) -> tuple[str, Reading]:
    """Why these arguments make the command write or run something ("" when none does), and
    what it then reads."""
    operands = 0
    walks = spec.walks
    paths: list[str] = []
    unknown: list[str] = ["what xargs adds"] if fed else []
    skip = False  # this word is the value of the option before it
    ended = False  # after `--`: operands only (still checked: a value may hide an option)
    for w in args:
        v = w.value
        if v is None:
            if spec.strict:
                return f"{label}: {shell.short(w.raw, 40)} is known only when it runs", Reading()
            unknown.append(w.raw)
            continue
        bad = _dangerous(spec, v)
        if bad:
            return f"{label} {bad} writes or runs a program", Reading()
        if skip or ended or not v.startswith("-") or v == "-":
            paths.append(v)
            operands += 0 if skip else 1
            skip = False
            continue
        if v == "--":
            ended = True
            continue
        if v.startswith("--"):
            walks = walks or long_name(v, spec.walk_options) is not None
            if "=" in v:
                paths.append(v.split("=", 1)[1])
            continue
        if any(c in spec.walk_letters for c in v[1:]):
            walks = True
        at = next((j for j in range(1, len(v)) if v[j] in spec.valued), None)
        if at is not None and at + 1 == len(v):
            skip = True  # its value is the next word
        elif len(v) > 2:
            paths.append(v[2:])  # an attached value, e.g. -f/etc/x
    if spec.operands is not None and operands > spec.operands:
        return f"{label} with {operands} operands may write", Reading()
    return "", Reading(tuple(paths), walks, tuple(unknown))


def _dangerous(spec: ReadOnly, v: str) -> str:
    """The option that makes this word write or run a program, or ""."""
    if v.startswith("--"):
        return long_name(v, sorted(o for o in spec.forbidden if o.startswith("--"))) or ""
    if v.startswith("-") and len(v) > 1:
        if v in spec.forbidden:
            return v
        bad = next((c for c in v[1:] if c in spec.letters), "")
        return f"-{bad}" if bad else ""
    return ""


def script_problem(script: shell.ShellScript) -> tuple[str, list[Reading]]:
    """Why this command is not read-only ("" when it is), and what each simple command reads.
    Its redirections are the caller's to check (a write to ``/dev/null`` is harmless)."""
    if script.unvouched:
        return f"Larik cannot tell what it runs ({script.unvouched[0]})", []
    readings = []
    for cmd in script.commands:
        problem, reading = _check(cmd)
        if problem:
            return problem, []
        readings.append(reading)
    return "", readings
