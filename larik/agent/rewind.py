"""Undo, rewind and fork: taking a session's turns back, built on the checkpoint store
(larik/agent/checkpoints.py).

The agent owns a :class:`Checkpointer`. Each user turn is numbered (1, 2, … in the order of the
session's prompts, forks included); before the first tool call of a turn that may change files
(any ``bash`` command, ``write_file``, ``edit_file``, a subagent that is not ``explore``) it
snapshots the project, and when the turn ends it snapshots it again and records which files the
turn changed. The transcript holds it all, so a resumed (or forked) session can still undo::

    {"kind": "turn", "turn": 3, "at": "2026-12-01T10:00:00+00:00"}          before the prompt
    (and "typed": what was typed — "/review x", "fix @app.py" — when the prompt's message is
    more: a command's expansion, attached files, a hook's context, plan mode's note)
    {"kind": "checkpoint", "id": "<tree>", "turn": 3, "rules": "<sha256>", "bytecode": "<blob>"}
    {"kind": "checkpoint_done", "id": "<tree>", "turn": 3, "after": "<tree>", "files": [...]}
    {"kind": "undo", "turns": [3], "saved": "<tree>", "files": [...], "kept": [...]}
    (or "undo_incomplete", with "refused": [[path, why], ...]: the turns are not undone)

``/undo`` takes back the newest turn with changes that is not undone yet (repeated, it walks
back); ``/rewind N`` takes back turns N and later. A file someone changed after the turn that
last changed it is a conflict: :class:`Rewind` lists them, and the caller decides (overwrite, or
keep those files as they are). A conversation rewind is :func:`fork_session` at that turn: a new
session with the records before turn N's prompt; the original is never modified.

The snapshot at the end of a turn obeys the ignore rules of the one before it (``rules``: a
turn that writes ``*`` into a ``.gitignore`` cannot hide what it planted; see
:mod:`.checkpoint_rules`). ``checkpoint_done`` also names what the turn's snapshot could not
record: ``left`` (folders of more new files than a checkpoint records, with their numbers)
and ``repos`` (git repositories the turn made); the undo says so.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..words import count, plural
from .checkpoints import CheckpointError, Plan, Restored, ShadowRepo, Step, show
from .events import AgentEvent, AgentEventType, NoticeLevel

__all__ = [
    "Changes",
    "Checkpointer",
    "Rewind",
    "Turn",
    "fork_session",
    "one_line",
    "turns_of",
]

_ID = re.compile(r"[0-9a-f]{40}")
_RULES = re.compile(r"[0-9a-f]{64}")
MAX_FILES_LISTED = 200  # files named in one transcript record (the trees hold them all)


def one_line(text: str) -> str:
    """A prompt on one line (for lists)."""
    return " ".join(text.split())


@dataclass
class Turn:
    n: int
    prompt: str  # its text as typed
    at: str = ""  # when it started (ISO 8601), "" when not recorded
    before: str = ""  # the checkpoint taken before its first change ("" none: no changes)
    after: str = ""  # the files' state it left ("" not recorded: it never ended cleanly)
    files: list[str] = field(default_factory=list)  # what it changed, printable
    undone: bool = False
    rules: str = ""  # the ignore rules of its checkpoint (the end's snapshot obeys them)
    left: list[tuple[str, int]] = field(default_factory=list)  # folders not recorded, printable
    repos: list[str] = field(default_factory=list)  # git repositories it made (not recorded)
    big: list[str] = field(default_factory=list)  # files it made over the size limit
    seen: str = ""  # the files' state its last look at changes saw (Checkpointer.changes)
    listed: str = ""  # the bytecode files before it (a list in the store: checkpoint_bytecode)
    bytecode: list[str] = field(default_factory=list)  # bytecode files it wrote, printable

    @property
    def changed(self) -> bool:
        """Whether it may have changed files (a turn that never ended cleanly may have)."""
        return bool(self.before) and (bool(self.files) or bool(self.bytecode) or not self.after)


def turns_of(records: list[dict[str, Any]]) -> list[Turn]:
    """The user turns of a session, from its transcript records (a reader of records that are
    not this module's own, or are malformed, skips them)."""
    out: list[Turn] = []
    at = typed = ""
    for rec in records:
        kind = rec.get("kind")
        if kind == "turn":
            at, typed = _text(rec.get("at")), _text(rec.get("typed"))
        elif _is_prompt(rec):  # the edit workflow's messages are no prompts
            prompt = _prompt_text(rec.get("message")) or ""
            out.append(Turn(len(out) + 1, typed or prompt, at))
            at = typed = ""
        elif kind in ("checkpoint", "checkpoint_done"):
            t = _nth(out, rec.get("turn"))
            cid = rec.get("id")
            if t is None or not isinstance(cid, str) or not _ID.fullmatch(cid):
                continue
            if kind == "checkpoint":
                t.before = cid
                rules = _text(rec.get("rules"))
                t.rules = rules if _RULES.fullmatch(rules) else ""
                listed = _text(rec.get("bytecode"))
                t.listed = listed if _ID.fullmatch(listed) else ""
            elif t.before == cid and _ID.fullmatch(_text(rec.get("after"))):
                t.after = rec["after"]
                t.files = _strings(rec.get("files"))
                t.repos = _strings(rec.get("repos"))
                t.big = _strings(rec.get("big"))
                t.bytecode = _strings(rec.get("bytecode"))
                left = rec.get("left")
                t.left = [
                    (x[0], x[1])
                    for x in (left if isinstance(left, list) else [])
                    if isinstance(x, list) and len(x) == 2 and isinstance(x[0], str)
                    and isinstance(x[1], int)
                ]  # fmt: skip
        elif kind == "undo":
            for n in rec.get("turns") or []:
                t = _nth(out, n)
                if t is not None:
                    t.undone = True
    return out


def _nth(turns: list[Turn], n: object) -> Turn | None:
    if isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= len(turns):
        return turns[n - 1]
    return None


def _text(v: object) -> str:
    return v if isinstance(v, str) else ""


def _strings(v: object) -> list[str]:
    return [x for x in v if isinstance(x, str)] if isinstance(v, list) else []


def _prompt_text(message: object) -> str | None:
    """The text of a user prompt message; None for anything else (replies, tool results)."""
    if hasattr(message, "model_dump"):
        message = message.model_dump(mode="json")  # type: ignore[union-attr]
    if not isinstance(message, dict) or message.get("role") != "user":
        return None
    blocks = message.get("blocks")
    if not isinstance(blocks, list) or not blocks:
        return None
    if all(isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks):
        return None
    texts = [b.get("text") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
    return "\n".join(t for t in texts if isinstance(t, str))


@dataclass
class Rewind:
    """Taking back ``turns`` (newest first): what it would do, before anything is written."""

    turns: list[Turn]
    plan: Plan

    @property
    def files(self) -> list[str]:
        return [show(p) for p in self.plan.paths]

    @property
    def conflicts(self) -> list[str]:
        return [show(p) for p in self.plan.conflicts]


@dataclass
class Undone:
    turns: list[int]
    restored: Restored
    left: list[tuple[str, int]] = field(default_factory=list)  # folders the turns' ends left out
    repos: list[str] = field(default_factory=list)  # git repositories the turns made
    max_files: int = 0  # the limit that left them out
    big: list[str] = field(default_factory=list)  # files the turns made over the size limit
    max_size: str = ""  # that limit, in words ("5 MiB")

    @property
    def complete(self) -> bool:
        """Whether every file was restored (or kept, as asked): the turns are undone."""
        return self.restored.complete

    def summary(self) -> str:
        """One line: which turns, which files, and what could not be taken back; when a file
        could not be restored (the turns are then not undone), one more line for each."""
        r = self.restored
        what = f"{plural(len(self.turns), 'turn')} " + ", ".join(str(n) for n in self.turns)
        parts = []
        if r.changed:
            parts.append("restored " + _names(r.changed))
        if r.kept:
            parts.append("kept your changes to " + _names(r.kept))
        if r.bytecode:
            parts.append("removed the Python bytecode written since: " + _names(r.bytecode))
        parts += self.not_recorded()
        if not r.complete:
            head = f"{what} is not taken back yet: {count(len(r.refused), 'file')} could not be"
            head += " restored (below); " + "; ".join([*parts, "undo again once they can be"])
            lines = [f"could not restore {show(p)}: {why}" for p, why in r.refused]
            return "\n".join([head, *lines])
        if not parts:
            return f"{what}: the files were already as they were before it"
        if not r.changed:  # it said "took back turn 1" with nothing restored
            return f"{what}: nothing was restored: " + "; ".join(parts)
        return f"took back {what}: " + "; ".join(parts)

    def not_recorded(self) -> list[str]:
        """What the checkpoints could not hold, so the undo left it as it is."""
        out = []
        if self.left:
            n = sum(k for _, k in self.left)
            under = _and([f"{name} ({k:,})" for name, k in self.left[:8]])
            more = f" and {len(self.left) - 8} more" if len(self.left) > 8 else ""
            out.append(
                f"left {count(n, 'file')} not recorded, more new files than the "
                f"{self.max_files:,} a checkpoint records, under {under}{more}: "
                "what the turn did there is as it left it"
            )
        if self.repos:
            out.append(
                f"left {_and(self.repos[:8])} (a git repository the turn made: not recorded)"
            )
        if self.big:
            more = f" and {len(self.big) - 8} more" if len(self.big) > 8 else ""
            out.append(
                f"left {_and(self.big[:8])}{more} (over {self.max_size} when the turn "
                "ended: not recorded)"
            )
        return out


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _names(paths: list[bytes], most: int = 8) -> str:
    shown = [show(p) for p in paths[:most]]
    more = f" and {len(paths) - most} more" if len(paths) > most else ""
    return ", ".join(shown) + more


Record = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class Changes:
    """What :meth:`Checkpointer.changes` found: ``files`` as (path relative to the project,
    its bytes before — None when new —, its bytes now), and ``more`` not looked at."""

    files: list[tuple[bytes, bytes | None, bytes]]
    more: int = 0


class Checkpointer:
    """A session's checkpoints: taken by the agent's hooks, used by undo and rewind.

    ``record`` appends a record to the session's transcript. Git runs in a worker thread (a
    snapshot takes tens of milliseconds, the first one in a big project longer). A snapshot
    that fails turns checkpoints off for the session, with one warning."""

    def __init__(
        self, root: Path, record: Record, *, enabled: bool = True, repo: ShadowRepo | None = None
    ) -> None:
        self.root = root
        self._record = record
        self.enabled = enabled
        self._repo = repo
        self.turns: list[Turn] = []
        self._current: Turn | None = None
        self._lock = asyncio.Lock()
        self._warm: asyncio.Future[None] | None = None
        self._listing: asyncio.Future[str] | None = None  # the turn's bytecode, listed
        self._told_left: tuple[str, ...] = ()

    @property
    def repo(self) -> ShadowRepo:
        if self._repo is None:
            self._repo = ShadowRepo.for_project(self.root)
        return self._repo

    def load(self, records: list[dict[str, Any]]) -> None:
        """A resumed session: its turns so far."""
        self.turns = turns_of(records)

    # -- the agent's hooks ------------------------------------------------------------------
    def begin_turn(self, prompt: str, typed: str = "") -> None:
        """``prompt``: the text of the user's message; ``typed``: what the user typed, when the
        message is more (a command's expansion, attached files, a hook's context, plan mode's
        note) — kept in the record when it differs, for the lists and /rewind."""
        turn = Turn(len(self.turns) + 1, typed or prompt, _now())
        self.turns.append(turn)
        self._current = turn
        rec: dict[str, Any] = {"kind": "turn", "turn": turn.n, "at": turn.at}
        self._record({**rec, "typed": typed} if typed and typed != prompt else rec)
        if self.enabled and self._warm is None:
            self._warm = asyncio.get_running_loop().run_in_executor(None, self._warm_up)
        if self.enabled:
            self._listing = asyncio.get_running_loop().run_in_executor(None, self._list_bytecode)

    def _warm_up(self) -> None:
        """The session's first snapshot, while the model thinks: in a project never
        checkpointed before it stores every file (seconds for thousands), after that it fills
        the index's stat cache; the turn's own checkpoint then costs only what changed."""
        try:
            self.repo.snapshot()
        except CheckpointError:
            pass  # the turn's own checkpoint says why

    def _list_bytecode(self) -> str:
        """The bytecode files as the turn begins, listed while the model thinks: before the
        turn's first change, which is all that counts (one written in between is the user's,
        and removing bytecode loses nothing: checkpoint_bytecode). "" when it failed."""
        try:
            return self.repo.bytecode()
        except CheckpointError:
            return ""

    async def before_change(self, emit: Callable[[AgentEvent], None] | None = None) -> None:
        """Before a tool call that may change files: the turn's checkpoint, once; its event
        (or the warning that checkpoints are off) goes to ``emit``."""
        turn = self._current
        if turn is None or turn.before or not self.enabled:
            return
        async with self._lock:
            if turn.before or not self.enabled:
                return
            notice = None
            if self._warm is not None:
                # the warm-up first: run after this checkpoint, it would stage files the turn is
                # writing, and the turn's end would then misjudge which files are new (and which
                # folders to leave out): a late warm-up left a generated dist/ behind an undo
                await self._warm
            listed = await self._listing if self._listing is not None else ""
            try:
                snap = await asyncio.to_thread(self.repo.snapshot)
            except CheckpointError as e:
                ev = self._off(str(e))
            else:
                turn.before, turn.rules, turn.listed = snap.tree, snap.rules, listed
                rec = {"kind": "checkpoint", "id": snap.tree, "turn": turn.n, "rules": snap.rules}
                self._record({**rec, "bytecode": listed} if listed else rec)
                data = {"checkpoint": snap.tree, "turn": turn.n}
                ev = AgentEvent(AgentEventType.CHECKPOINT, data=data)
                notice = self._left_out(snap.left)
        if emit is not None:
            emit(ev)
            if notice is not None:
                emit(notice)

    async def changes(self, want: Callable[[bytes], bool], most: int) -> Changes | None:
        """Mid-turn, after a command: the files changed since the turn's checkpoint (or this
        turn's last call) whose path ``want`` takes, each a regular file now — at most
        ``most`` of them with what they held before and hold now, and how many more there
        were. It is a snapshot under the turn's rules, as :meth:`end_turn` takes (whose own
        then only walks the tree: the work is the same, done sooner); a symlink is never
        followed, nor a FIFO read. None: no checkpoint this turn (checkpoints off, or
        nothing changed files yet) or the snapshot failed (the turn's end says why)."""
        turn = self._current
        if turn is None or not turn.before or not self.enabled:
            return None
        async with self._lock:
            try:
                return await asyncio.to_thread(self._changes, turn, want, most)
            except CheckpointError:
                return None

    def _changes(self, turn: Turn, want: Callable[[bytes], bool], most: int) -> Changes:
        snap = self.repo.snapshot(rules=turn.rules)
        diff = self.repo.diff(turn.seen or turn.before, snap.tree)
        turn.seen = snap.tree
        picked = [
            (p, old)
            for p, (old, new) in sorted(diff.items())
            if new is not None and new.mode != "120000" and want(p)
        ]
        olds = {e.oid for _, e in picked[:most] if e is not None and e.mode != "120000"}
        blobs = self.repo.contents(olds)
        files = []
        for p, e in picked[:most]:
            now = self.repo.read_now(p)
            if now is not None:  # a regular file still, reached through no symlink
                before = blobs.get(e.oid) if e is not None and e.mode != "120000" else None
                files.append((p, before, now))
        return Changes(files, len(picked) - min(len(picked), most))

    def _left_out(self, left: tuple[tuple[bytes, int], ...]) -> AgentEvent | None:
        """The notice that checkpoints leave folders out (once per session and set)."""
        names = tuple(show(p) for p, _ in left)
        if not names or names == self._told_left:
            return None
        self._told_left = names
        where = _and([f"{show(p)} ({count(n, 'file')})" for p, n in left[:8]])
        text = (
            f"checkpoints leave out {where}: "
            f"more new files than the {self.repo.limits.max_files:,} a checkpoint records; "
            "/undo cannot restore files there"
        )
        self._record({"kind": "notice", "text": text, "level": "info"})
        return AgentEvent(AgentEventType.NOTICE, text=text, level=NoticeLevel.INFO)

    def end_turn(self) -> list[AgentEvent]:
        """When the turn is over (also on an interrupt): record what it changed. Synchronous,
        so it can run while an interrupted turn is being closed."""
        turn, self._current = self._current, None
        if turn is None or not turn.before or not self.enabled:
            return []
        try:
            snap = self.repo.snapshot(rules=turn.rules)  # the rules before it, not its own
            changed = self.repo.changed(turn.before, snap.tree)
            caches = self.repo.bytecode_since(turn.listed, turn.rules) if turn.listed else []
        except CheckpointError as e:
            return [self._off(str(e))]
        turn.bytecode = [show(p) for p in caches]
        turn.after = snap.tree
        turn.files = [show(p) for p in changed]
        turn.left = [(show(p), n) for p, n in snap.left]
        turn.repos = [show(p) for p in snap.repos]
        turn.big = [show(p) for p in snap.big]
        rec: dict[str, Any] = {"kind": "checkpoint_done", "id": turn.before, "turn": turn.n}
        rec.update(after=snap.tree, files=turn.files[:MAX_FILES_LISTED])
        if len(changed) > MAX_FILES_LISTED:
            rec["more_files"] = len(changed) - MAX_FILES_LISTED
        if snap.skipped:
            rec["skipped"] = [show(p) for p in snap.skipped[:MAX_FILES_LISTED]]
        if turn.left:
            rec["left"] = [list(x) for x in turn.left[:MAX_FILES_LISTED]]
        if turn.repos:
            rec["repos"] = turn.repos[:MAX_FILES_LISTED]
        if turn.big:
            rec["big"] = turn.big[:MAX_FILES_LISTED]
        if turn.bytecode:
            rec["bytecode"] = turn.bytecode[:MAX_FILES_LISTED]
        self._record(rec)
        data = {"checkpoint": turn.before, "turn": turn.n, "files": turn.files, "done": True}
        return [AgentEvent(AgentEventType.CHECKPOINT, data=data)]

    def _off(self, why: str) -> AgentEvent:
        self.enabled = False
        text = f"checkpoints are off for this session ({why}); /undo cannot take turns back"
        self._record({"kind": "notice", "text": text, "level": "warning"})
        return AgentEvent(AgentEventType.NOTICE, text=text, level=NoticeLevel.WARNING)

    # -- undo and rewind ----------------------------------------------------------------------
    def last_undoable(self) -> Turn | None:
        for t in reversed(self.turns):
            if t.changed and not t.undone:
                return t
        return None

    def plan_undo(self) -> Rewind | None:
        """Taking back the newest turn that changed files and is not undone; None when none."""
        turn = self.last_undoable()
        return self._plan([turn]) if turn is not None else None

    def plan_rewind(self, n: int) -> Rewind:
        """Taking back turn ``n`` and every later turn (their file changes)."""
        if not 1 <= n <= len(self.turns):
            raise CheckpointError(f"no turn {n}: this session has turns 1 to {len(self.turns)}")
        todo = [t for t in self.turns[n - 1 :] if t.changed and not t.undone]
        return self._plan(list(reversed(todo)))

    def _plan(self, turns: list[Turn]) -> Rewind:
        steps = []
        ended: dict[int, str] = {}  # a turn that never ended: its files now, under its rules
        for t in turns:
            if not t.after and not self._next_before(t) and t.rules:
                ended[t.n] = self.repo.snapshot(rules=t.rules).tree
        current = self.repo.snapshot()
        for t in turns:  # newest first
            after = t.after or self._next_before(t) or ended.get(t.n) or current.tree
            steps.append(Step(t.before, after))
        plan = self.repo.plan(steps, current)
        oldest = turns[-1] if turns else None
        if oldest is not None and oldest.listed and oldest.rules:
            plan.bytecode = self.repo.bytecode_since(oldest.listed, oldest.rules)
        return Rewind(turns, plan)

    def _next_before(self, turn: Turn) -> str:
        for t in self.turns[turn.n :]:
            if t.before:
                return t.before
        return ""

    def carry_out(self, rewind: Rewind, *, overwrite: bool = False) -> Undone:
        """Write the files back and record it. Conflicts are kept unless ``overwrite``.

        The turns count as undone only when every file was restored (or kept, as asked):
        otherwise the record says ``undo_incomplete`` with what was refused, and the same
        undo can be done again (what was restored then is no longer to do)."""
        restored = self.repo.apply(rewind.plan, overwrite=overwrite)
        ns = [t.n for t in rewind.turns]
        kind = "undo" if restored.complete else "undo_incomplete"
        rec: dict[str, Any] = {"kind": kind, "turns": ns, "saved": rewind.plan.current.tree}
        rec.update(
            files=[show(p) for p in restored.changed][:MAX_FILES_LISTED],
            kept=[show(p) for p in restored.kept][:MAX_FILES_LISTED],
        )
        if restored.bytecode:
            rec["bytecode"] = [show(p) for p in restored.bytecode][:MAX_FILES_LISTED]
        if restored.refused:
            rec["refused"] = [[show(p), why] for p, why in restored.refused][:MAX_FILES_LISTED]
        try:
            self._record(rec)
        except OSError as e:  # a full disk: the files are back, the transcript does not say so
            raise CheckpointError(
                f"the files were restored but the undo could not be written to the session "
                f"({e.strerror or e}); undo again to record it"
            ) from None
        if restored.complete:
            for t in rewind.turns:
                t.undone = True
        left = [x for t in rewind.turns for x in t.left]
        repos = [r for t in rewind.turns for r in t.repos]
        big = [b for t in rewind.turns for b in t.big]
        limits = self.repo.limits
        n = limits.max_file_bytes
        size = f"{n // (1024 * 1024)} MiB" if n >= 1024 * 1024 else f"{n:,} bytes"
        return Undone(ns, restored, left, repos, limits.max_files, big, size)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


# -- forks ----------------------------------------------------------------------------------
def fork_session(root: Path, source: Path, *, before_turn: int | None = None) -> str:
    """A new session of project ``root`` copied from transcript ``source``: all of it, or
    only what came before turn ``before_turn``'s prompt. ``source`` is only read. Returns the
    new session's id."""
    from .sessions import project_dir
    from .transcript import Transcript, TranscriptError, load_transcript, new_session_id

    loaded = load_transcript(source)
    records = loaded.records
    if before_turn is not None:
        cut = _cut_before(records, before_turn)
        if cut is None:
            raise TranscriptError(
                f"no turn {before_turn} in session {loaded.session_id}: "
                f"it has {len(turns_of(records))}"
            )
        records = records[:cut]
    new_id = new_session_id()
    header = loaded.header
    extra: dict[str, Any] = {"forked_from": {"session": loaded.session_id, "turn": before_turn}}
    if isinstance(header.get("model"), str):
        extra["model"] = header["model"]
    cwd = header.get("cwd") if isinstance(header.get("cwd"), str) else str(root)
    with Transcript.create(
        project_dir(root) / f"{new_id}.jsonl", cwd=cwd, session_id=new_id, **extra
    ) as t:
        for rec in records:
            if rec.get("kind") == "message":
                t.append_message(rec["message"])
            else:
                t.append(rec)
    return new_id


def _is_prompt(rec: dict[str, Any]) -> bool:
    """A record of a user's prompt: a message with text that the edit workflow did not write
    (``"harness": true``). The one rule :func:`turns_of` and :func:`fork_session` count by."""
    return (
        rec.get("kind") == "message"
        and not rec.get("harness")
        and _prompt_text(rec.get("message")) is not None
    )


def _cut_before(records: list[dict[str, Any]], n: int) -> int | None:
    """The index of the first record of turn ``n`` (its ``turn`` record, or its prompt)."""
    count = 0
    for i, rec in enumerate(records):
        if _is_prompt(rec):
            count += 1
            if count == n:
                while i > 0 and records[i - 1].get("kind") == "turn":
                    i -= 1
                return i
    return None
