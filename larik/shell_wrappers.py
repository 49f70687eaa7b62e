"""Programs that run another command given in their arguments, and how to find it.

:data:`WRAPPERS` is the table: for each wrapper, its options (read as its getopt reads them,
:mod:`.shell_options`) and where the command it runs is — after N operands (``timeout
DURATION``, ``taskset MASK``, ``flock FILE``, ``chroot DIR``), joined into one shell command line
(``watch``, ``sg``), as a user's shell's arguments (``su``, ``runuser``), in an option's value
(``flock -c``, ``su -c``, ``script -c``), or nowhere (``taskset -p``, ``command -v``). The
families a user meets every day were gone through option by option — bash's own (``command``,
``builtin``, ``exec``, ``time``, ``coproc``, ``!``), coreutils (``env``, ``nice``, ``nohup``,
``stdbuf``, ``timeout``, ``chroot``, ``runcon``), findutils (``xargs``), util-linux (``chrt``,
``choom``, ``coresched``, ``enosys``, ``flock``, ``ionice``, ``nsenter``, ``pipesz``,
``prlimit``, ``runuser``, ``script``, ``setarch`` and its aliases, ``setpgid``, ``setpriv``,
``setsid``, ``su``, ``taskset``, ``uclampset``, ``unshare``), procps (``watch``) — and the other
programs of the kind a project or a model is likely to use (``sudo``, ``doas``, ``pkexec``,
``busybox``, ``strace``, ``systemd-run``, ``parallel``…). The programs of those families that do
not run their arguments are in :data:`NOT_WRAPPERS`, so the decision is written down; any other
program is judged as itself.

:data:`OPTION_COMMANDS` holds the programs that are not wrappers but run a command named in an
option (``split --filter``, ``sort --compress-program``, ``tar --to-command``…); such an option is
matched in any abbreviation (:func:`.shell_options.abbreviates`).

:mod:`.shell_unwrap` reads one wrapper's words with its entry.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from .shell_options import Options

__all__ = ["NOT_WRAPPERS", "OPTION_COMMANDS", "WRAPPERS", "CommandWrapper"]

Shape = Literal["argv", "line", "user", "script"]


def _set(names: str) -> frozenset[str]:
    return frozenset(names.split())


@dataclass(frozen=True, slots=True)
class CommandWrapper:
    """How one wrapper finds the command it runs."""

    options: Options = field(default_factory=Options)
    operands: int = 0
    """Words between the options and the command: timeout's DURATION, flock's FILE."""
    number_operand: bool = False
    """The one operand is there only when it is a number (chrt's PRIORITY)."""
    lead: int = 0
    """Words before the options, when they do not start with ``-`` (setarch's ARCH)."""
    no_operands: frozenset[str] = frozenset()
    """Options after which no operand comes before the command (runcon -t, flock --fd)."""
    queries: frozenset[str] = frozenset()
    """Options after which it runs no command (command -v, taskset -p, ionice -p)."""
    strings: frozenset[str] = frozenset()
    """Options whose value is a shell command line it runs (flock -c, su -c, script -c); for
    flock and sg also the word right after the operands (``flock FILE -c LINE``)."""
    programs: frozenset[str] = frozenset()
    """Options whose value is a program it runs (su -s SHELL, fakeroot --faked)."""
    splits: frozenset[str] = frozenset()
    """Options whose value is split into more words in their place (env -S)."""
    sets: frozenset[str] = frozenset()
    """Options whose value names an environment variable it sets (``NAME`` or ``NAME=VALUE``)."""
    chdir: frozenset[str] = frozenset()
    """Options that make the command run in another directory (env -C, su -l, sudo -D)."""
    moves: bool = False
    """The command runs in another directory (or root) whatever the options (chroot)."""
    writes: frozenset[str] = frozenset()
    """Options that make it write a file (time -o, strace -o): allow rules and plan mode then
    see the wrapper itself, as for a wrapper that is not :attr:`transparent`."""
    assignments: bool = False
    """``NAME=VALUE`` words between the options and the command (env, sudo)."""
    shape: Shape = "argv"
    """Where the command is: ``argv`` the words after the operands; ``line`` those words joined
    by spaces, run by ``sh -c`` (watch, sg, parallel); ``user`` a USER then the user's shell's
    arguments (su, runuser); ``script`` a file to write, then the words after ``--`` joined."""
    argv: frozenset[str] = frozenset()
    """Options that make a ``line`` or ``user`` wrapper run its words as they are (watch -x,
    runuser -u USER)."""
    ends: frozenset[str] = frozenset()
    """Words that end the command (parallel's ``:::``)."""
    bare_shell: bool = False
    """With no command it runs a shell, which reads the commands it runs from its input."""
    fed: bool = False
    """It adds arguments read from its input to the command (xargs): they are known only when
    it runs."""
    opaque: str = ""
    """Why what it runs can never be told from its words (at: commands from its input)."""
    transparent: bool = True
    """Allow rules and plan mode see the command it runs; False: they see the wrapper (an
    allow rule must name it: ``bash: sudo make*``). Deny rules always see through."""


W, Opt = CommandWrapper, Options

#: Each wrapper and how to find what it runs. A test walks every option of every entry.
WRAPPERS: dict[str, CommandWrapper] = {
    # -- bash ---------------------------------------------------------------------------------
    "command": W(Opt("pvV"), queries=_set("-v -V")),
    "builtin": W(),
    "exec": W(Opt("cla:")),
    # the keyword's -p and GNU time's options
    "time": W(
        Opt("af:o:pqv", "append format= output= portability quiet verbose"),
        writes=_set("-o --output"),
    ),
    "coproc": W(),
    "!": W(),  # `! ! cmd`: the grammar reads the second `!` as a command name
    # -- coreutils ----------------------------------------------------------------------------
    "env": W(
        Opt(
            "a:C:iS:u:v0",
            "argv0= ignore-environment null unset= chdir= default-signal? ignore-signal? "
            "block-signal? list-signal-handling debug split-string=",
            dash=True,
        ),
        assignments=True,
        splits=_set("-S --split-string"),
        chdir=_set("-C --chdir"),
    ),
    "nice": W(Opt("n:", "adjustment=", numeric=True)),
    "nohup": W(),
    "stdbuf": W(Opt("i:o:e:", "input= output= error=")),
    "timeout": W(
        Opt("fk:ps:v", "foreground kill-after= preserve-status signal= verbose"), operands=1
    ),
    "chroot": W(
        Opt("", "groups= userspec= skip-chdir"),
        operands=1,
        moves=True,
        bare_shell=True,
        transparent=False,
    ),
    "runcon": W(
        Opt("r:t:u:l:c", "role= type= user= range= compute"),
        operands=1,
        no_operands=_set("-r -t -u -l -c --role --type --user --range --compute"),
        transparent=False,
    ),
    # -- findutils (find -exec is read in .shell) ---------------------------------------------
    "xargs": W(
        Opt(
            "0a:E:e::i::I:l::L:n:oprs:txP:d:",
            "null arg-file= delimiter= eof? replace? max-lines? max-args= open-tty "
            "interactive no-run-if-empty max-chars= show-limits verbose exit max-procs= "
            "process-slot-var=",
        ),
        sets=_set("--process-slot-var"),
        fed=True,
    ),
    # -- util-linux ---------------------------------------------------------------------------
    "chrt": W(
        Opt(
            "abdD:efimoOpP:T:rRU:X:Gv",
            "all-tasks batch clamp-min= clamp-max= deadline deadline-overrun ext fifo idle pid "
            "max other rr sched-runtime= sched-period= sched-deadline= reset-on-fork "
            "reclaim-grub verbose",
        ),
        number_operand=True,
        queries=_set("-p --pid -m --max"),
    ),
    "choom": W(Opt("n:p:", "adjust= pid=", stop=False), queries=_set("-p --pid")),
    "coresched": W(Opt("s:d:t:v", "source= dest= dest-type= verbose", stop=False), operands=1),
    "enosys": W(
        Opt("s:i:lmd::", "syscall= ioctl= list list-ioctl dump?"),
        queries=_set("-l --list -m --list-ioctl -d --dump"),
        transparent=False,
    ),
    "flock": W(
        Opt(
            "sexnoFuw:E:c:",
            "shared exclusive unlock nonblocking nb timeout= wait= conflict-exit-code= close "
            "no-fork verbose fcntl start= length= fd= command=",
        ),
        operands=1,
        no_operands=_set("--fd"),
        strings=_set("-c --command"),
        transparent=False,  # it creates FILE
    ),
    "ionice": W(
        Opt("n:c:p:P:u:t", "classdata= class= ignore pid= pgid= uid="),
        queries=_set("-p --pid -P --pgid -u --uid"),
    ),
    "nsenter": W(
        Opt(
            "at:m::u::i::n::N:p::C::U::T::S:G:r::w::W::ecFZ",
            "all target= mount? uts? ipc? net? net-socket= pid? user? cgroup? time? setuid= "
            "setgid= root? wd? wdns? env no-fork join-cgroup preserve-credentials keep-caps "
            "user-parent follow-context",
        ),
        chdir=_set("-r --root -w --wd -W --wdns"),
        bare_shell=True,
        transparent=False,
    ),
    "pipesz": W(
        Opt("cef:gin:oqs:v", "check fd= file= get quiet set= stdin stdout stderr verbose"),
        queries=_set("-g --get"),
    ),
    "prlimit": W(
        Opt(
            "c::d::e::f::i::l::m::n::q::r::s::t::u::v::x::y::p:o:",
            "pid= output= as? core? cpu? data? fsize? locks? memlock? msgqueue? nice? nofile? "
            "nproc? rss? rtprio? rttime? sigpending? stack? noheadings raw verbose",
        ),
        queries=_set("-p --pid"),
    ),
    "script": W(
        Opt(
            "aB:c:eE:fI:O:o:qm:T:t::",
            "append command= echo= return flush force log-in= log-out= log-io= log-timing= "
            "logging-format= output-limit= quiet timing?",
            stop=False,
        ),
        shape="script",
        strings=_set("-c --command"),
        bare_shell=True,
        transparent=False,  # it writes the typescript
    ),
    "setarch": W(
        Opt(
            "v3BFILRSTXZp:",
            "verbose addr-no-randomize fdpic-funcptrs mmap-page-zero addr-compat-layout "
            "read-implies-exec 32bit short-inode whole-seconds sticky-timeouts 3gb 4gb uname-2.6 "
            "list show? pid=",
        ),
        lead=1,
        queries=_set("--list --show -p --pid"),
        bare_shell=True,
    ),
    "setpgid": W(Opt("f", "foreground")),
    "setpriv": W(
        Opt(
            "d",
            "dump nnp no-new-privs inh-caps= ambient-caps= list-caps ruid= euid= rgid= egid= "
            "reuid= regid= clear-groups keep-groups init-groups groups= bounding-set= "
            "securebits= pdeathsig= ptracer= selinux-label= apparmor-profile= landlock-access= "
            "landlock-rule= landlock-support list-landlock-access list-landlock-rights= "
            "seccomp-filter= reset-env",
        ),
        queries=_set(
            "-d --dump --list-caps --landlock-support --list-landlock-access --list-landlock-rights"
        ),
        transparent=False,
    ),
    "setsid": W(Opt("cfw", "ctty fork wait")),
    "taskset": W(Opt("apc", "all-tasks pid cpu-list"), operands=1, queries=_set("-p --pid")),
    "uclampset": W(
        Opt("asRp:m:M:v", "all-tasks pid= system reset-on-fork verbose"),
        queries=_set("-p --pid -s --system"),
    ),
    "unshare": W(
        Opt(
            "fmuinpCTUrR:w:S:G:cl:",
            "mount? uts? ipc? net? pid? user? cgroup? time? fork kill-child? forward-signals "
            "mount-proc? mount-binfmt? map-user= map-users= map-group= map-groups= map-root-user "
            "map-current-user map-auto map-subids owner= propagation= setgroups= keep-caps "
            "setuid= setgid= root= wd= monotonic= boottime= load-interp= clear-env "
            "whitelist-env=",
        ),
        chdir=_set("-R --root -w --wd"),
        bare_shell=True,
        transparent=False,
    ),
    # -- procps -------------------------------------------------------------------------------
    "watch": W(
        Opt(
            "bCcd::egq:n:prtwxs:",
            "beep color no-color differences? errexit chgexit equexit= interval= precise "
            "no-rerun no-title no-wrap exec shotsdir=",
        ),
        shape="line",
        argv=_set("-x --exec"),
        writes=_set("-s --shotsdir"),
    ),
    # -- running as someone else: an allow rule must name them ----------------------------------
    "sudo": W(
        Opt(
            "Aa:BbC:D:Eeg:Hh::iKklNnPp:R:r:SsT:t:U:u:v",
            "askpass auth-type= background bell close-from= chdir= preserve-env? edit group= "
            "set-home host= login remove-timestamp reset-timestamp list non-interactive "
            "preserve-groups prompt= chroot= role= stdin shell type= command-timeout= "
            "other-user= user= validate",
        ),
        assignments=True,
        queries=_set("-e --edit -l --list -v --validate -K --remove-timestamp"),
        chdir=_set("-D --chdir -i --login -R --chroot"),
        bare_shell=True,
        transparent=False,
    ),
    "doas": W(Opt("a:C:Lnsu:"), queries=_set("-C -L"), bare_shell=True, transparent=False),
    "pkexec": W(
        Opt("", "user= disable-internal-agent keep-cwd"),
        moves=True,
        bare_shell=True,
        transparent=False,
    ),
    "gosu": W(operands=1, transparent=False),
    "su-exec": W(operands=1, transparent=False),
    "sg": W(
        Opt("", dash=True),
        operands=1,
        shape="line",
        strings=_set("-c"),
        bare_shell=True,
        transparent=False,
    ),
    # -- others of the kind ---------------------------------------------------------------------
    "busybox": W(
        Opt("", "list list-full install"),
        queries=_set("--list --list-full --install"),
        transparent=False,  # its applets are not the programs of the same names
    ),
    "toybox": W(transparent=False),
    "caffeinate": W(Opt("dimsut:w:")),
    "dbus-run-session": W(
        Opt("", "config-file= dbus-daemon="), programs=_set("--dbus-daemon"), transparent=False
    ),
    "dumb-init": W(Opt("cr:v", "single-child rewrite= verbose")),
    "eatmydata": W(),
    "fakeroot": W(
        Opt("l:f:i:s:ub:", "lib= faked= unknown-is-real fd-base="),
        programs=_set("-f --faked"),
        writes=_set("-s"),
        bare_shell=True,
        transparent=False,
    ),
    "firejail": W(Opt("", open_long=True), sets=_set("--env"), bare_shell=True, transparent=False),
    "ltrace": W(Opt("a:A:bcCD:e:fF:il:Ln:o:p:rs:StTu:w:x:"), writes=_set("-o"), transparent=False),
    "numactl": W(
        Opt(
            "ai:w:p:P:c:N:C:m:slHbS:f:o:L:tM:dDI:uTV",
            "all interleave= weighted-interleave= preferred= preferred-many= cpubind= "
            "cpunodebind= physcpubind= membind= show localalloc hardware balancing shm= file= "
            "offset= length= strict shmmode= dump dump-nodes shmid= huge touch verify",
        ),
        queries=_set("-s --show -H --hardware -S --shm -f --file"),
    ),
    "parallel": W(
        Opt(
            "0a:d:E:I:j:kmn:N:qrs:uvX",
            "null arg-file= delimiter= eof= jobs= keep-order max-args= max-replace-args= quote "
            "no-run-if-empty max-chars= ungroup verbose xargs bar eta progress dry-run halt= "
            "tag timeout= retries= delay= colsep= shuf group line-buffer joblog= results=",
        ),
        shape="line",
        ends=_set("::: :::: :::+ ::::+"),
        writes=_set("--joblog --results"),
        bare_shell=True,  # with no command it reads the commands from its input
        transparent=False,
    ),
    "strace": W(
        Opt("a:Ab:cCdDe:E:fFiI:kno:O:p:P:qrs:S:tTu:U:wxX:yYzZ"),
        sets=_set("-E"),
        writes=_set("-o"),
        transparent=False,
    ),
    "systemd-run": W(
        Opt(
            "rH:M:E:p:tPqGdSu:",
            "no-ask-password user system scope unit= property= description= slice= "
            "slice-inherit no-block remain-after-exit wait send-sighup service-type= uid= gid= "
            "nice= working-directory= same-dir setenv= pty pipe quiet collect shell "
            "path-property= socket-property= on-active= on-boot= on-startup= on-unit-active= "
            "on-unit-inactive= on-calendar= on-timezone-change on-clock-change timer-property= "
            "host= machine=",
        ),
        sets=_set("-E --setenv"),
        moves=True,  # a service starts in / unless told otherwise
        bare_shell=True,
        transparent=False,
    ),
    "switch_root": W(operands=1, transparent=False),  # NEWROOT INIT [ARGS]
    "tini": W(Opt("sp:vwgle:")),
    "valgrind": W(
        Opt("qvd", open_long=True), writes=_set("--log-file --xml-file"), transparent=False
    ),
    # -- commands from their input or from a file: never seen ------------------------------------
    "at": W(opaque="at runs the commands of its input or a file later"),
    "batch": W(opaque="batch runs the commands of its input later"),
    "crontab": W(opaque="crontab installs commands to run later"),
    "scriptlive": W(opaque="scriptlive replays a shell session from a file"),
}
# setarch's aliases name the architecture themselves
for _arch in "linux32 linux64 i386 i686 x86_64 uname26".split():
    WRAPPERS[_arch] = W(WRAPPERS["setarch"].options, queries=WRAPPERS["setarch"].queries)
WRAPPERS["runuser"] = W(
    Opt(
        "c:fg:G:lmpPTs:u:w:",
        "command= session-command= fast login preserve-environment pty no-pty shell= group= "
        "supp-group= user= whitelist-environment=",
        stop=False,
        dash=True,
    ),
    shape="user",
    strings=_set("-c --command --session-command"),
    programs=_set("-s --shell"),
    argv=_set("-u --user"),
    chdir=_set("-l --login -"),
    bare_shell=True,
    transparent=False,
)
WRAPPERS["su"] = W(
    Opt(
        "c:fg:G:lmpPTs:w:",
        "command= session-command= fast login preserve-environment pty no-pty shell= group= "
        "supp-group= whitelist-environment=",
        stop=False,
        dash=True,
    ),
    shape="user",
    strings=_set("-c --command --session-command"),
    programs=_set("-s --shell"),
    chdir=_set("-l --login -"),
    bare_shell=True,
    transparent=False,
)

#: Programs of the families above that run no command from their arguments (the decision
#: for each one, kept so that a new wrapper-like program is a conscious choice).
NOT_WRAPPERS: dict[str, frozenset[str]] = {
    "coreutils": _set(
        "[ arch b2sum base32 base64 basename basenc cat chcon chgrp chmod chown cksum comm cp "
        "csplit cut date dd df dir dircolors dirname du echo expand expr factor false fmt fold "
        "groups head hostid id install join link ln logname ls md5sum mkdir mkfifo mknod mktemp "
        "mv nl nproc numfmt od paste pathchk pinky pr printenv printf ptx pwd readlink realpath "
        "rm rmdir seq sha1sum sha224sum sha256sum sha384sum sha512sum shred shuf sleep sort "
        "split stat stty sum sync tac tail tee test touch tr true truncate tsort tty uname "
        "unexpand uniq unlink users vdir wc who whoami yes"
    ),
    "util-linux": _set(
        "addpart agetty blkdiscard blkid blkzone blockdev chcpu chmem ctrlaltdel delpart dmesg "
        "fallocate fincore findfs findmnt fsck fsfreeze fstrim getopt getty hardlink hwclock "
        "ipcmk ipcrm ipcs isosize last lastb ldattach logger losetup lsblk lscpu lsfd lsipc "
        "lsirq lslocks lslogins lsmem lsns mcookie mesg mkfs mkswap more mount mountpoint namei "
        "partx pivot_root readprofile rename.ul renice resizepart rev rtcwake scriptreplay "
        "setterm sulogin swaplabel swapoff swapon umount utmpdump wall wdctl whereis wipefs "
        "zramctl"
    ),
    "procps": _set(
        "free kill pgrep pidwait pkill pmap ps pwdx skill slabtop snice sysctl tload top "
        "uptime vmstat w"
    ),
    "findutils": _set("find"),  # its -exec, -execdir, -ok and -okdir are read in .shell
}
"""The programs of the families above that run no command given in their arguments — the
decision for each one, written down (sort, split, install: see :data:`OPTION_COMMANDS`;
agetty's login program and sulogin's shell run on a terminal, not from the words)."""

#: Options that run a command in programs that are not wrappers: ``line`` a shell command line,
#: ``program`` a program it runs, ``exec`` a shell command line after ``exec=``.
OPTION_COMMANDS: dict[str, dict[str, str]] = {
    "sort": {"--compress-program": "program"},
    "split": {"--filter": "line"},
    "install": {"--strip-program": "program"},
    "tar": {
        "--to-command": "line",
        "--use-compress-program": "line",
        "-I": "line",
        "--info-script": "line",
        "--new-volume-script": "line",
        "-F": "line",
        "--rsh-command": "program",
        "--checkpoint-action": "exec",
    },
}
