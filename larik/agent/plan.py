"""Plan mode: the model reads and searches, changes nothing, and ends its turn with a plan.

In the ``plan`` permission mode (:mod:`.permissions`) the read tools run, explore subagents run,
and a bash command runs only when every simple command in it is in :data:`READ_ONLY` with
arguments that keep it read-only (:func:`command_problem`), it redirects no output to a file,
and the parse tree can vouch for it (:mod:`.shell`). Everything else is refused, with a reason
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

from collections.abc import Mapping
from dataclasses import dataclass, field

from .. import shell

__all__ = ["NOTE", "READ_ONLY", "ReadOnly", "accepted", "command_problem", "script_problem"]

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
    how = "edit files" + (" freely" if mode in ("edits", "yolo") else "; the user approves each")
    return (
        f"The user accepted the plan. Plan mode is over: the permission mode is now {mode!r}, "
        f"so you may {how}. Carry out the plan now, step by step, and check the result."
    )


@dataclass(frozen=True, slots=True)
class ReadOnly:
    """How a command stays read-only: the options it must not get, how many operands it may
    take, and for ``git`` the subcommands that are read-only."""

    forbidden: frozenset[str] = frozenset()
    """Options that write or run a program: exact words (``-exec``) or ``--long`` names
    (``--output`` also refuses ``--output=x``)."""
    letters: str = ""
    """Short options that write or run a program, refused alone or in a bundle (``-ro``)."""
    operands: int | None = None
    """Most operands (words not starting with ``-``); None: any number."""
    walks: bool | str = False
    """Reads folders it is not named (True), or does with one of these short options."""
    subcommands: Mapping[str, ReadOnly] = field(default_factory=dict)
    """For a command such as git: the read-only subcommands; the first argument must be one."""

    @property
    def strict(self) -> bool:
        """Whether its arguments matter: a word known only when it runs (``$X``, a glob that
        may match a file named ``--pre=evil``) is then refused."""
        return bool(self.forbidden or self.letters or self.operands is not None)


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


_PLAIN = ReadOnly()
_GIT_DIFF = ReadOnly(forbidden=_set("--output --ext-diff"), walks=True)

#: The commands plan mode runs unasked, by name (never a path: ``./ls`` is not ``ls``). A test
#: walks this table.
READ_ONLY: dict[str, ReadOnly] = {
    **{
        name: _PLAIN
        for name in (
            "cat head tail wc nl cut tr fold column paste comm cmp diff stat file basename "
            "dirname realpath readlink pwd echo printf true false test which type whoami id "
            "uname md5sum sha1sum sha256sum sha512sum od hexdump strings jq cd"
        ).split()
    },
    "ls": ReadOnly(walks="R"),
    "grep": ReadOnly(walks="rR"),
    "egrep": ReadOnly(walks="rR"),
    "fgrep": ReadOnly(walks="rR"),
    "rg": ReadOnly(forbidden=_set("--pre --hostname-bin"), walks=True),
    "find": ReadOnly(
        forbidden=_set("-exec -execdir -ok -okdir -delete -fprint -fprint0 -fprintf -fls"),
        walks=True,
    ),
    "tree": ReadOnly(letters="o", walks=True),
    "du": ReadOnly(walks=True),
    "sort": ReadOnly(forbidden=_set("--output --compress-program"), letters="o"),
    "uniq": ReadOnly(operands=1),  # `uniq IN OUT` writes OUT
    "xxd": ReadOnly(operands=1),  # likewise
    "file": ReadOnly(forbidden=_set("--compile"), letters="C"),  # -C writes magic.mgc
    "git": ReadOnly(
        subcommands={
            "status": ReadOnly(),
            "log": _GIT_DIFF,
            "diff": _GIT_DIFF,
            "show": _GIT_DIFF,
            "blame": ReadOnly(walks=True),
            "grep": ReadOnly(forbidden=_set("--open-files-in-pager"), letters="O", walks=True),
            "ls-files": ReadOnly(),
            "ls-tree": ReadOnly(),
            "rev-parse": ReadOnly(),
            "rev-list": ReadOnly(),
            "describe": ReadOnly(),
            "shortlog": ReadOnly(walks=True),
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
    operands = 0
    walks = spec.walks is True
    paths: list[str] = []
    unknown: list[str] = []
    for w in args:
        v = w.value
        if v is None:
            if spec.strict:
                return f"{label}: {shell.short(w.raw, 40)} is known only when it runs", Reading()
            unknown.append(w.raw)
            continue
        if v.startswith("--"):
            if v.split("=", 1)[0] in spec.forbidden:
                return f"{label} {v.split('=', 1)[0]} writes or runs a program", Reading()
            if "=" in v:
                paths.append(v.split("=", 1)[1])
        elif v.startswith("-") and len(v) > 1:
            if v in spec.forbidden:
                return f"{label} {v} writes or runs a program", Reading()
            bad = next((c for c in v[1:] if c in spec.letters), "")
            if bad:
                return f"{label} -{bad} writes or runs a program", Reading()
            if isinstance(spec.walks, str) and any(c in spec.walks for c in v[1:]):
                walks = True
            if len(v) > 2:
                paths.append(v[2:])  # an attached value, e.g. -f/etc/x
        else:
            operands += 1
            paths.append(v)
    if spec.operands is not None and operands > spec.operands:
        return f"{label} with {operands} operands may write", Reading()
    return "", Reading(tuple(paths), walks, tuple(unknown))


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
