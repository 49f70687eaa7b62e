"""What the file tools call after a write: :meth:`LspSession.after_write` returns the lines
to append to the result — only the errors and warnings the write introduced.

One server per language for the session's project root, started on the first write of a
file of that language (never before: start-up pays nothing), through the sandbox with the
project read-only. Trust: with ``[lsp] enabled`` unset, servers start only in a trusted
project (a server runs the project's plugins and configs); elsewhere the first write says so
once. A program the project ships (``.venv/bin``, ``node_modules/.bin``, any path inside it) is
used only in a trusted project: ``[lsp] enabled = true`` in an untrusted one finds servers on
``PATH`` alone (:func:`.servers.find`). A server that hangs, crashes or sends bad frames is
ended, said once, and started again at most once per session; no write waits longer than ``start_ms`` (a server's first) or
``wait_ms``.
"""

from __future__ import annotations

import asyncio
import os
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

from ..others_text import one_line
from .servers import SUFFIXES, Found, find, language_of, project_own, specs

__all__ = ["LspSession", "for_session", "format_line", "status_text"]

_SEVERITY = {1: "error", 2: "warning", 3: "info", 4: "hint"}
MAX_MESSAGE = 200  # characters of a diagnostic's message said
MAX_CODE = 60  # characters of its code
MAX_COMMAND_FILES = 50  # files a shell command changed that are checked (the rest counted)
SLOW_SNAPSHOT = 2.0  # seconds: a project whose snapshot after a command takes longer is not
# snapshotted after commands again in the session (a huge tree)


class Checkpoints(Protocol):
    """What the session's checkpoints (:class:`larik.agent.rewind.Checkpointer`) tell: the
    files changed since the turn's checkpoint or the last call — which paths, at most how
    many — as ``Changes`` (``files``: (path, bytes before or None, bytes now); ``more``)."""

    def changes(self, want: Callable[[bytes], bool], most: int) -> Awaitable[Any]: ...


_REPORTED = (1, 2)  # errors and warnings; info and hints are noise after an edit


def _trusted(config: Any) -> bool:
    """Whether the user trusts the project folder: :attr:`larik.config.Config.folder_trusted`,
    which every way of trusting it sets (with gated settings or none)."""
    return bool(getattr(config, "folder_trusted", False))


def _untrusted(what: str) -> str:
    """Why no language server starts in an untrusted project; ``what`` would have run."""
    return (
        f"lsp: no language server in this untrusted project ({what} would run its plugins and "
        "configs); trust the folder (--trust-project, `larik trust yes`, trusted_projects) or "
        "set [lsp] enabled = true in your own config (docs/lsp.md)"
    )


def for_session(
    config: Any, root: Path, sandbox: Any = None, checkpoints: Checkpoints | None = None
) -> LspSession:
    """The session's language servers (none started yet); ``checkpoints``: the session's,
    which tell what a command changed."""
    return LspSession(config, root, sandbox, checkpoints)


def format_line(shown: str, d: Any) -> str:
    """``file:line:col severity code message`` of one diagnostic: one line, its code and
    message each bounded and cleaned (:func:`larik.others_text.one_line`) — a server's text.
    Nothing else a diagnostic carries (source, related information, a code's link) is said."""
    code = f" {one_line(d.code, MAX_CODE)}" if d.code not in (None, "") else ""
    message = one_line(d.message, MAX_MESSAGE)
    sev = _SEVERITY.get(int(d.severity or 1), "error")
    pos = d.range.start
    return f"{shown}:{pos.line + 1}:{pos.character + 1} {sev}{code} {message}"


def _key(d: Any) -> tuple[int, str, str]:
    return (int(d.severity or 1), str(d.code or ""), str(d.message))


class LspSession:
    HEADING = "language server: the edit introduced"  # the first line of a report

    def __init__(
        self,
        config: Any,
        root: Path,
        sandbox: Any = None,
        checkpoints: Checkpoints | None = None,
    ) -> None:
        cfg = getattr(config, "lsp", None)
        self.checkpoints = checkpoints  # what tells a command's changes, or None
        self._snapshot_slow = False
        self.config = config
        self.root = root.resolve()
        self.sandbox = sandbox
        self.enabled: bool | None = getattr(cfg, "enabled", None)
        self.wait = getattr(cfg, "wait_ms", 1500) / 1000
        self.start_wait = getattr(cfg, "start_ms", 5000) / 1000
        self.max_lines = getattr(cfg, "max_lines", 10)
        self.servers: dict[str, Any] = {}  # language -> client.Server
        self.found: dict[str, Found | None] = {}
        self.starts: Counter[str] = Counter()
        self.notices: list[str] = []  # said once each; the caller shows them
        self._said: set[str] = set()
        self._broken_said: set[str] = set()  # languages whose server's stop was said
        self._started: list[Any] = []  # every server started, the broken ones too: all closed
        self._lock = asyncio.Lock()
        self.count = 0  # diagnostics reported this session (the status line's count)
        self._step: dict[str, set[tuple[int, str, str]]] = {}  # file -> said this step
        self.last: dict[str, list[str]] = {}  # server name -> its last report's lines (/lsp)

    def _notice(self, text: str) -> str:
        if text in self._said:
            return ""
        self._said.add(text)
        self.notices.append(text)
        return text

    def allowed(self) -> str:
        """ "" when servers may start here, "off", or "untrusted"."""
        if self.enabled is False:
            return "off"
        if self.enabled or _trusted(self.config):
            return ""
        return "untrusted"

    def refusal(self, path: Path) -> str:
        """The one line saying why no server starts for ``path`` in this untrusted project,
        naming the one that would run for its language: found on ``PATH``, else the
        project's own ("" when there is none)."""
        serving = [s for s in specs(self.config) if s.serves(path)]
        found = next((f for s in serving if (f := self._locate(s))), None)
        own = "" if found else next((o for s in serving if (o := project_own(s, self.root))), "")
        what = found.spec.name if found else f"its own {own}" if own else ""
        return _untrusted(what) if what else ""

    def project_bins(self) -> bool:
        """Whether programs inside the project (its ``.venv/bin``, ``node_modules/.bin``) may
        be run as servers: only in a trusted project, never by ``[lsp] enabled`` alone."""
        return _trusted(self.config)

    def _locate(self, spec: Any) -> Found | None:
        """``spec``'s program as this session may run it (see :meth:`project_bins`)."""
        return find(spec, self.root, project_bins=self.project_bins())

    def _find(self, language: str, path: Path) -> Found | None:
        if language not in self.found:
            self.found[language] = next(
                (f for s in specs(self.config) if s.serves(path) and (f := self._locate(s))),
                None,
            )
        return self.found[language]

    async def _server(self, language: str, path: Path) -> tuple[Any, str]:
        """The running server for ``language`` (None, and a notice or "", when there is none)."""
        server = self.servers.get(language)
        if server is not None and not server.broken:
            return server, ""
        why = self.allowed()
        if why:
            line = "" if why == "off" else self.refusal(path)
            return None, self._notice(line) if line else ""
        found = self._find(language, path)
        if found is None:
            return None, ""
        if server is not None:  # broken: started again once per session
            if self.starts[language] >= 2:
                return None, ""
        self.starts[language] += 1
        from .client import Server

        argv = list(found.argv)
        if self.sandbox is not None and getattr(self.sandbox, "active", False):
            import dataclasses  # the session's sandbox (larik/sandbox/), the project read-only

            argv = dataclasses.replace(self.sandbox, mode="read-only").wrap(argv, self.root)
        server = Server(argv, self.root, found.spec.init_options, found.spec.settings)
        self.servers[language] = server
        self._started.append(server)
        try:
            await asyncio.wait_for(server.start(), self.start_wait)
        except Exception as e:
            server.broken = server.broken or (
                f"it did not start within {self.start_wait:g} s"
                if isinstance(e, TimeoutError)
                else f"it failed to start ({type(e).__name__})"
            )
            server.kill()
        if server.broken:
            return None, self._broken(language, server.broken)
        return server, ""

    def _left(self, until: float | None) -> float:
        """How long one wait for diagnostics may take: ``wait_ms``, or what is left of it
        before ``until`` (a command's files share one ``wait_ms`` after the first)."""
        if until is None:
            return self.wait
        return max(0.0, min(self.wait, until - asyncio.get_running_loop().time()))

    def _broken(self, language: str, why: str) -> str:
        """The one notice a language's server gets in a session: a restart that fails too (a
        crash, then a slow start on a loaded machine) says nothing more."""
        if language in self._broken_said:
            return ""
        self._broken_said.add(language)
        found = self.found.get(language)
        name = found.spec.name if found is not None else language
        return self._notice(f"lsp: {name} stopped: {why}; edits go on without its diagnostics")

    def new_step(self) -> None:
        """The model's next step (one reply's tool calls): what a step said of a file is not
        said again in it — a second edit of the file that leaves (or brings back) the same
        error says nothing more."""
        self._step.clear()

    async def after_command(self) -> str:
        """After a shell command: the files it changed, each told to its server as a write
        (what :meth:`after_write` reports). Which files: those the session's checkpoints saw
        change (``Checkpoints.changes``, the snapshot the turn's end takes anyway, taken
        early), of a language whose server runs or may start here — new files too; at most
        ``MAX_COMMAND_FILES``, the rest counted in one line. Without checkpoints (off, or the
        snapshot got too slow), only the files the servers have open are read again. The
        first file is bounded as an edit is (its server may be starting); all the others
        share one ``wait_ms`` after it, and none is started once that has passed."""
        if self.enabled is False:
            return ""
        got = await self._changed_by_command()
        changed, more = got if got is not None else (self._open_changed(), 0)
        loop = asyncio.get_running_loop()
        end = None
        out, left = [], more
        for i, (path, text, now) in enumerate(changed):
            if end is not None and loop.time() > end:
                left += len(changed) - i
                break
            shown = (
                str(path.relative_to(self.root)) if path.is_relative_to(self.root) else str(path)
            )
            if said := await self.after_write(path, text, now, shown, until=end):
                out.append(said)
            if end is None:  # after the first: a server it started is running now
                end = loop.time() + self.wait
        if left:
            out.append(
                f"lsp: {left} more changed {'file' if left == 1 else 'files'} not checked (at "
                f"most {MAX_COMMAND_FILES} after a command, within {self.wait:g} s)"
            )
        return "\n".join(out)

    def _open_changed(self) -> list[tuple[Path, str, str]]:
        """The files the servers have open that differ on disk from what they were sent."""
        changed = []
        for server in list(self.servers.values()):
            if server.broken:
                continue
            for path, text in server.open_files()[:MAX_COMMAND_FILES]:
                try:
                    if path.stat().st_size > 2 * 1024 * 1024:
                        continue
                    now = path.read_text(encoding="utf-8", errors="replace")
                except OSError:  # gone, or unreadable: nothing to say of it here
                    continue
                if now != text:
                    changed.append((path, text, now))
        return changed

    def _serving(self) -> set[str]:
        """The languages a changed file would be checked in: a server runs for it, or one is
        found that may start here and has not failed twice."""
        langs = set()
        for language, suffixes in SUFFIXES.items():
            server = self.servers.get(language)
            if server is not None and not server.broken:
                langs.add(language)
            elif self.starts[language] < 2 and language not in self._broken_said:
                found = self._find(language, Path("x" + suffixes[0]))
                if found is not None and not self.allowed():
                    langs.add(language)
        return langs

    async def _changed_by_command(self) -> tuple[list[tuple[Path, str, str]], int] | None:
        """The files the command changed, from the checkpoints (None: none to ask)."""
        if self.checkpoints is None or self._snapshot_slow:
            return None
        langs = self._serving()
        if not langs:
            return [], 0  # nothing would check them: no snapshot taken for it
        loop = asyncio.get_running_loop()
        t = loop.time()
        got = await self.checkpoints.changes(
            lambda p: language_of(Path(os.fsdecode(p))) in langs, MAX_COMMAND_FILES
        )
        took = loop.time() - t
        if took > SLOW_SNAPSHOT:
            self._snapshot_slow = True
            self._notice(
                f"lsp: files a command changes are no longer looked for in this session (the "
                f"project's snapshot took {took:.1f} s); the files the servers have open still are"
            )
        if got is None:
            return None
        files = []
        for rel, before, now in got.files:
            path = self.root / os.fsdecode(rel)
            old = before.decode("utf-8", "replace") if before is not None else ""
            server = self.servers.get(language_of(path))
            if server is not None and (seen := server.opened(path)) is not None:
                old = seen  # what its server was last told (an edit_file's text, say)
            new = now.decode("utf-8", "replace")
            if new != old:
                files.append((path, old, new))
        return files, got.more

    async def after_write(
        self, path: Path, old: str, new: str, shown: str, until: float | None = None
    ) -> str:
        """Lines for the result of a write of ``path`` from ``old`` to ``new``: the errors and
        warnings it introduced, at most ``max_lines``, or a one-line notice, or ""."""
        language = language_of(path)
        if not language or self.enabled is False:
            return ""
        try:
            async with self._lock:  # one write at a time: one start, one baseline per file
                return await self._after_write(language, path, old, new, shown, until)
        except Exception as e:
            server = self.servers.get(language)
            if server is not None:
                server.broken = server.broken or f"{type(e).__name__}: {e}"[:200]
                server.kill()
            return self._broken(language, f"{type(e).__name__}")

    async def _after_write(
        self, language: str, path: Path, old: str, new: str, shown: str, until: float | None
    ) -> str:
        server, notice = await self._server(language, path)
        if server is None:
            return notice
        baseline: list[Any] = []
        if old and server.opened(path) != old:  # what the file had before, as the server sees it
            before = server.send(path, old, language)
            got = await server.wait(path, before, self._left(until))
            baseline = got or []
        elif old:
            baseline = list(server.diagnostics.get(server.uri(path), []))
        before = server.send(path, new, language, save=True)
        after = await server.wait(path, before, self._left(until))
        if after is None:
            return self._broken(language, server.broken) if server.broken else ""
        seen = Counter(_key(d) for d in baseline if d.severity in _REPORTED or not d.severity)
        said = self._step.setdefault(str(path.resolve()), set())
        added = []
        for d in after:
            if d.severity not in _REPORTED and d.severity:
                continue
            k = _key(d)
            if seen[k]:
                seen[k] -= 1
                continue
            if k not in said:
                added.append(d)
        said.update(_key(d) for d in added)
        if not added:
            return ""
        self.count += len(added)
        lines = [format_line(shown, d) for d in added[: self.max_lines]]
        found = self.found.get(language)
        if found is not None:
            self.last[found.spec.name] = lines
        if len(added) > self.max_lines:
            lines.append(f"… and {len(added) - self.max_lines} more")
        return self.HEADING + "\n" + "\n".join(lines)

    def status(self) -> dict[str, Any]:
        """What ``larik lsp`` and ``/lsp`` show: each server Larik would use (found where, the
        project's own or not), which runs, why one stopped, its last report's lines, and why
        none would run here ("" when they may). Starts nothing."""
        rows: list[dict[str, Any]] = []
        bins = self.project_bins()
        running = {
            self.found[lang].spec.name: server  # type: ignore[union-attr]
            for lang, server in self.servers.items()
            if self.found.get(lang) is not None
        }
        why = self.allowed()
        if why == "untrusted":
            why = _untrusted("a server")
        for spec in specs(self.config):
            found = self._locate(spec)
            server = running.get(spec.name)
            rows.append(
                {
                    "name": spec.name,
                    "languages": list(spec.languages),
                    "path": found.argv[0] if found else None,
                    "in_project": bool(found and found.in_project),
                    "not_run": "" if bins else project_own(spec, self.root),
                    "running": server is not None and not server.broken,
                    "stopped": server.broken if server is not None else "",
                    "last": list(self.last.get(spec.name, [])),
                }
            )
        off = "lsp: off ([lsp] enabled = false)" if why == "off" else why
        return {"servers": rows, "off": off, "count": self.count}

    async def close(self) -> None:
        servers, self._started, self.servers = self._started, [], {}
        await asyncio.gather(*(s.close() for s in servers), return_exceptions=True)


def status_text(status: dict[str, Any]) -> str:
    """:meth:`LspSession.status` as lines of text (one a server, its last report under it)."""
    lines = [status["off"]] if status["off"] else []
    for r in status["servers"]:
        where = r["path"] or "not found"
        if r["in_project"]:
            where += " (the project's own)"
        if r.get("not_run"):
            where += f" — not {r['not_run']}: the project's own runs only in a trusted project"
        if r["running"]:
            where += " — running"
        elif r["stopped"]:
            where += f" — stopped: {r['stopped']}"
        lines.append(f"{r['name']:<28} {','.join(r['languages']):<12} {where}")
        lines.extend(f"    {line}" for line in r["last"])
    return "\n".join(lines)
