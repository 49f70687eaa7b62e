"""Deny rules see through every argv wrapper (issue 22 item 10): the table ``WRAPPERS`` is
walked option by option, and the wrappers installed here are run for real to check that the
table reads them as they read themselves."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from larik import shell
from larik.agent.permissions import PermissionPolicy
from larik.agent.tools import get_tool
from larik.shell_options import Options
from larik.shell_wrappers import NOT_WRAPPERS, OPTION_COMMANDS, WRAPPERS, CommandWrapper
from tests.patience import WAIT

BASH = get_tool("bash")
RM = "rm -rf x"
DENY = ["bash: rm*"]


def decide(root: Path, command: str, *, allow=(), deny=DENY, mode="yolo"):
    assert BASH is not None
    policy = PermissionPolicy(root, mode, list(allow), list(deny))
    return policy.decide(BASH, BASH.args(command=command))


# -- what was reproduced, and its neighbours ---------------------------------------------------
# Each one ran rm under `deny = ["bash: rm*"]` in yolo mode before (checked against 754bfcc).
HIDDEN_RM = [
    "ionice rm -rf x",  # issue 22 item 10
    "taskset 1 rm -rf x",
    "flock f rm -rf x",
    "ionice -c2 -n7 rm -rf x",
    "taskset -c 0,1 rm -rf x",
    "flock -w 5 f -c 'rm -rf x'",
    "chrt -o 0 rm -rf x",
    "chroot / rm -rf x",
    "unshare -r rm -rf x",
    "nsenter -t 1 -m rm -rf x",
    "setpriv --nnp rm -rf x",
    "setarch x86_64 -R rm -rf x",
    "linux64 rm -rf x",
    "prlimit --nofile=10 rm -rf x",
    "su -c 'rm -rf x'",
    "su - root -c 'rm -rf x'",
    "runuser -u nobody -- rm -rf x",
    "script -qc 'rm -rf x' /dev/null",
    "watch rm -rf x",  # watch runs its words through sh -c
    "watch -n 1 'rm -rf x; ls'",
    "sudo A=1 rm -rf x",  # sudo takes NAME=VALUE before the command
    "env - rm -rf x",  # a lone `-` is env's -i
    "env -S 'rm -rf x'",
    "env -S '-i A=1 rm -rf x'",
    "split --filter='rm -rf x' big",
    "split --fil 'rm -rf x' big",
    "sort --compress-prog=rm big",
    "tar -I 'rm -rf x' -cf a.tar .",
    "tar --checkpoint=1 --checkpoint-action=exec='rm -rf x' -cf a.tar .",
    "busybox rm -rf x",
    "strace -f -o /dev/null rm -rf x",
    "systemd-run --user -E A=1 rm -rf x",
    "sg grp -c 'rm -rf x'",
    "parallel rm ::: a b",
]


@pytest.mark.parametrize("command", HIDDEN_RM)
def test_a_deny_rule_sees_through_the_wrapper(project, command):
    d = decide(project, command)
    assert d.verdict == "deny" and "'bash: rm*'" in d.reason, (command, d)


# A wrapper's option written as getopt reads it: an abbreviation, a value attached or not.
@pytest.mark.parametrize(
    "command",
    [
        "nice --adj=5 rm -rf x",
        "nice -10 rm -rf x",
        "nice --10 rm -rf x",
        "timeout --sig=KILL 5 rm -rf x",
        "timeout -sKILL -k1 5 rm -rf x",
        "timeout --pres 5 rm -rf x",
        "ionice --class=2 --classd=4 rm -rf x",
        "stdbuf --out=L rm -rf x",
        "env --unset=A -C /tmp rm -rf x",
        "xargs -I{} rm -rf {}",
    ],
)
def test_a_wrappers_options_are_read_as_its_getopt_reads_them(project, command):
    assert decide(project, command).verdict == "deny", command


@pytest.mark.parametrize(
    "command",
    [
        "echo 'rm -rf x' | unshare",  # with no command they run a shell on their input
        "echo 'rm -rf x' | su",
        "echo 'rm -rf x' | chroot /",
        "echo 'rm -rf x' | script -q /dev/null",
        "echo 'rm -rf x' | parallel",
        "echo 'rm -rf x' | at now",
        "env --ign rm -rf x",  # ambiguous (--ignore-environment, --ignore-signal): env refuses
        "nice $N rm -rf x",  # $N may be several words
        "timeout -s $SIG 5 rm -rf x",
        "xargs --process-slot-var=PATH ls",  # sets PATH for ls
    ],
)
def test_what_a_wrapper_runs_that_cannot_be_told_is_asked_firmly(project, command):
    d = decide(project, command)
    assert d.verdict == "ask" and d.firm, (command, d)


@pytest.mark.parametrize(
    "command", ["command -v rm", "ionice -p 1 rm", "taskset -p 1 2", "busybox --list", "chrt -m"]
)
def test_a_wrapper_that_runs_nothing_is_judged_as_itself(project, command):
    assert decide(project, command).verdict == "allow", command


# -- the table, walked -------------------------------------------------------------------------
def _prefix(name: str, o: Options) -> str | None:
    """The shortest abbreviation getopt takes for the long option ``name``, if shorter."""
    for n in range(3, len(name)):
        if [x for x in o.longs if x.startswith(name[:n])] == [name]:
            return name[:n]
    return None


def _value(opt: str, w: CommandWrapper) -> str:
    if opt in w.strings or opt in w.splits:
        return shlex.quote(RM)
    if opt in w.programs:
        return "rm"
    return "A=1" if opt in w.sets else "1"


def _tail(w: CommandWrapper, opts: list[str]) -> str:
    """What follows the options: operands, then the command (rm) in the wrapper's shape."""
    if any(o in w.strings or o in w.splits for o in opts):
        return ""  # the option's value is the command
    lead = "x86_64 " if w.lead else ""
    sep = "" if w.options.stop else "-- "
    if w.shape in ("user", "script") and not any(o in w.argv for o in opts):
        return lead + f"-c {shlex.quote(RM)}"
    ops = "" if any(o in w.no_operands for o in opts) else "1 " * w.operands
    env = "A=1 " if w.assignments else ""
    ends = " ::: a" if w.ends else ""
    return f"{lead}{sep}{ops}{env}{RM}{ends}"


def forms(name: str, w: CommandWrapper) -> list[tuple[str, str]]:
    """Every way the table says the wrapper can be given rm to run, each with the verdict a
    `bash: rm*` deny rule must reach in yolo mode ("allow" after an option that runs nothing)."""
    out = [(f"{name} {_tail(w, [])}", "deny")]
    o = w.options
    written: list[tuple[str, list[str]]] = []  # (the options as written, their names)
    for opt, kind in o.shorts.items():
        v = _value(opt, w)
        if kind == "flag":
            written.append((opt, [opt]))
        elif kind == "value":
            written += [(f"{opt} {v}", [opt]), (f"{opt}{v}", [opt])]
        else:
            written += [(opt, [opt]), (f"{opt}{v}", [opt])]
    for opt, kind in o.longs.items():
        v = _value(opt, w)
        short = _prefix(opt, o)
        for spelled in [opt] + ([short] if short else []):
            if kind == "flag":
                written.append((spelled, [opt]))
            elif kind == "value":
                written += [(f"{spelled} {v}", [opt]), (f"{spelled}={v}", [opt])]
            else:
                written += [(spelled, [opt]), (f"{spelled}={v}", [opt])]
    if o.numeric:
        written += [("-5", []), ("--5", []), ("-+5", [])]
    if o.dash:
        written.append(("-", ["-"]))
    if o.open_long:
        written += [("--some-option", []), ("--some-option=1", [])]
        written += [(f"{s}=A=1", [s]) for s in w.sets]
    for strings in sorted(w.strings - set(o.shorts) - set(o.longs)):
        # flock FILE -c LINE, sg GROUP -c LINE: after the operands
        out.append((f"{name} {'1 ' * w.operands}{strings} {shlex.quote(RM)}", "deny"))
    for text, names in written:
        expected = "allow" if any(n in w.queries for n in names) else "deny"
        out.append((f"{name} {text} {_tail(w, names)}".rstrip(), expected))
    return out


@pytest.mark.parametrize("name", sorted(WRAPPERS))
def test_every_option_of_every_wrapper_is_seen_through_by_a_deny_rule(project, name):
    w = WRAPPERS[name]
    if w.opaque:
        d = decide(project, f"{name} x")
        assert d.verdict == "ask" and d.firm and w.opaque in d.reason
        return
    wrong = [
        (cmd, expected, d.verdict, d.reason)
        for cmd, expected in forms(name, w)
        if (d := decide(project, cmd)).verdict != expected
    ]
    assert not wrong, wrong


@pytest.mark.parametrize("name", sorted(n for n, w in WRAPPERS.items() if w.bare_shell))
def test_a_wrapper_that_runs_a_shell_when_given_no_command_is_not_vouched_for(project, name):
    w = WRAPPERS[name]
    lead = "x86_64 " if w.lead else ""
    cmd = f"echo {shlex.quote(RM)} | {name} {lead}{'1 ' * w.operands}".rstrip()
    d = decide(project, cmd)
    assert d.verdict == "ask" and d.firm, (cmd, d)
    assert "runs a shell that reads its input" in d.reason or "reads the commands" in d.reason


@pytest.mark.parametrize("name", sorted(n for n, w in WRAPPERS.items() if not w.opaque))
def test_an_allow_rule_sees_through_a_transparent_wrapper_only(project, name):
    w = WRAPPERS[name]
    cmd = f"{name} {_tail(w, [])}".replace(RM, "touch x")
    got = decide(project, cmd, allow=["bash: touch*"], deny=(), mode="ask").verdict
    expected = "allow" if w.transparent and w.shape == "argv" else "ask"
    assert got == expected, cmd


def test_an_option_that_makes_a_wrapper_write_takes_it_out_of_an_allow_rule(project):
    allow = ["bash: touch*"]
    assert decide(project, "time touch x", allow=allow, deny=(), mode="ask").verdict == "allow"
    d = decide(project, "time -o /tmp/out touch x", allow=allow, deny=(), mode="ask")
    assert d.verdict == "ask"


def test_the_families_were_gone_through_once_each():
    decided = [n for names in NOT_WRAPPERS.values() for n in names]
    assert len(decided) == len(set(decided))
    assert not set(decided) & set(WRAPPERS)
    assert set(OPTION_COMMANDS) - {"tar"} <= set(decided)  # not wrappers, but options run
    for name in ("env", "nice", "nohup", "stdbuf", "timeout", "chroot", "runcon"):  # coreutils
        assert name in WRAPPERS
    for name in ("watch", "xargs", "flock", "ionice", "taskset", "chrt", "setsid", "unshare"):
        assert name in WRAPPERS


@pytest.mark.parametrize("name", sorted(n for names in NOT_WRAPPERS.values() for n in names))
def test_a_program_that_runs_no_arguments_is_judged_as_itself(project, name):
    cmd = f"{name} rm -rf x" + (" ]" if name == "[" else "")
    assert decide(project, cmd, deny=["bash: rm -rf *"]).verdict == "allow", cmd


def test_an_unknown_wrapper_like_program_is_asked_about_in_ask_mode(project):
    d = decide(project, "mywrapper rm -rf x", allow=["bash: rm*"], deny=(), mode="ask")
    assert d.verdict == "ask"


@pytest.mark.xfail(
    strict=True,
    reason="a program outside the table that runs code (an interpreter, a build tool, a wrapper "
    "Larik does not know) is judged as itself: a deny rule on a command is a guard against a "
    "confused model, not a boundary; the sandbox is (docs/security.md)",
)
@pytest.mark.parametrize(
    "command", ["proot -0 rm -rf x", "python3 -c 'import os; os.system(\"rm -rf x\")'"]
)
def test_a_deny_rule_sees_through_a_program_outside_the_table(project, command):
    assert decide(project, command).verdict != "allow"


# -- real processes: the table reads the wrappers installed here as they read themselves -----------
REAL = [
    "nice -n 5 {P} a b",
    "nice -5 {P} a b",
    "nice --adj=3 {P} a b",
    "ionice -c2 -n7 {P} a b",
    "ionice --class=2 --classd=4 {P} a b",
    "taskset 1 {P} a b",
    "taskset --cpu 0 {P} a b",
    "chrt -o 0 {P} a b",
    "chrt --other 0 {P} a b",
    "flock {D}/lock {P} a b",
    "flock --time 3 -x {D}/lock {P} a b",
    "flock -n {D}/lock -c '{P} a b'",
    "timeout -s KILL 5 {P} a b",
    "timeout --sig=TERM -k 1 5 {P} a b",
    "env - A=1 {P} a b",
    "env -S '{P} a b'",
    "env -u X -C /tmp {P} a b",
    "nohup {P} a b",
    "setsid --wait --fork {P} a b",
    "stdbuf --out=L {P} a b",
    "setarch x86_64 -R {P} a b",
    "linux64 {P} a b",
    "prlimit --nof=1024:2048 --core {P} a b",
    "choom -n 0 -- {P} a b",
    "script -qc '{P} a b' /dev/null",
    "su -s /bin/sh -c '{P} a b' root",
    "runuser -u root -- {P} a b",
    "unshare -r {P} a b",
    "chroot --skip-chdir / {P} a b",
    "setpriv --nnp {P} a b",
    "strace -qq -o /dev/null {P} a b",
    "fakeroot -- {P} a b",
    "echo b | xargs {P} a",
    "echo b | xargs -I{{}} {P} a {{}}",
    "sg root -c '{P} a b'",
    "watch -g -n 0.1 -x {P} a b",  # the probe prints its pid: the output changes, watch ends
]


@pytest.mark.parametrize("template", REAL)
def test_what_an_installed_wrapper_runs_is_what_the_table_reads(tmp_path, template):
    probe = tmp_path / "probe"
    ran = tmp_path / "ran"
    probe.write_text(f'#!/bin/sh\nprintf "%s" "$*" > {ran}\necho $$\n')
    probe.chmod(0o755)
    cmd = template.format(P=probe, D=tmp_path)
    programs = [t for t in shlex.split(cmd) if t in WRAPPERS]
    missing = [p for p in programs if shutil.which(p) is None]
    if missing:
        pytest.skip(f"{missing[0]} is not installed")
    script = shell.parse(cmd)
    views = [v for c in script.commands for v in c.views]
    seen = any(v.startswith(f"{probe} a") for v in views)
    assert seen or script.unvouched, (cmd, views)  # never a command it missed
    env = {**os.environ, "SHELL": "/bin/sh"}
    subprocess.run(
        ["bash", "-c", cmd], stdin=subprocess.DEVNULL, capture_output=True, timeout=WAIT, env=env
    )
    if not ran.exists():
        pytest.skip(f"{programs[-1]} could not run here (privileges, kernel)")
    assert ran.read_text() == "a b" and seen, (cmd, views)
