"""One language server over stdio, on ``pygls``'s client and ``lsprotocol``'s types.

The server runs in its own process group (killed with its children when it hangs), through
the sandbox when there is one. Its frames are read here, bounded: a header line over 8 KiB,
a ``Content-Length`` over :data:`MAX_MESSAGE` or a body that is not JSON marks the server
broken (:attr:`Server.broken` says why) and ends it — no traceback, no unbounded read.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

from .. import processes

logging.getLogger("pygls").addHandler(logging.NullHandler())  # its errors are ours to say
logging.getLogger("pygls").propagate = False

__all__ = ["MAX_DIAGNOSTICS", "MAX_MESSAGE", "Server"]

MAX_MESSAGE = 8 * 1024 * 1024  # bytes of one frame's body
MAX_HEADER = 8192
MAX_DIAGNOSTICS = 500  # kept per file: a flood is cut here
_LENGTH = re.compile(rb"Content-Length:\s*(\d+)\s*", re.IGNORECASE)


def _section(settings: dict[str, Any], section: str | None) -> Any:
    """``settings``' part named by a dotted ``section`` (all of it for none); None: absent."""
    got: Any = settings
    for part in (section or "").split(".") if section else ():
        got = got.get(part) if isinstance(got, dict) else None
    return got


class Server:
    """A started server for ``root``: :meth:`start`, then :meth:`sync` each write."""

    def __init__(
        self, argv: Sequence[str], root: Path, init_options: Any = None, settings: Any = None
    ) -> None:
        self.argv = list(argv)
        self.root = root
        self.init_options = init_options
        self.settings = settings or {}
        self.broken = ""  # why it no longer serves ("": it does)
        self.skipped = 0  # messages of a shape that could not be read, skipped
        self.client = LanguageClient("larik", "1")
        self.diagnostics: dict[str, list[lsp.Diagnostic]] = {}
        self._published: dict[str, int] = {}  # uri -> how many times published
        self._changed = asyncio.Event()
        self._texts: dict[str, tuple[int, str]] = {}  # uri -> (version, text) as last sent
        self._proc: asyncio.subprocess.Process | None = None
        self._token = ""
        self._reader: asyncio.Task[None] | None = None
        self._paths: dict[str, Path] = {}  # uri -> the path it was opened as
        self.pull = False  # the server answers textDocument/diagnostic (its capabilities say)

        @self.client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def _publish(_ls: object, params: lsp.PublishDiagnosticsParams) -> None:
            self.diagnostics[params.uri] = list(params.diagnostics[:MAX_DIAGNOSTICS])
            self._published[params.uri] = self._published.get(params.uri, 0) + 1
            self._changed.set()

        @self.client.feature(lsp.CLIENT_REGISTER_CAPABILITY)
        def _register(_ls: object, params: lsp.RegistrationParams) -> None:
            if any(r.method == lsp.TEXT_DOCUMENT_DIAGNOSTIC for r in params.registrations):
                self.pull = True  # announced late (basedpyright): pulled from now on
                self._changed.set()

        @self.client.feature(lsp.CLIENT_UNREGISTER_CAPABILITY)
        def _unregister(_ls: object, params: lsp.UnregistrationParams) -> None:
            if any(r.method == lsp.TEXT_DOCUMENT_DIAGNOSTIC for r in params.unregisterations):
                self.pull = False

        # what servers ask of a client, answered as an editor would: basedpyright ends itself
        # when a refresh it asks for is answered "method not found"
        @self.client.feature(lsp.WORKSPACE_DIAGNOSTIC_REFRESH)
        def _refresh(_ls: object, _params: None) -> None:
            self._changed.set()

        @self.client.feature(lsp.WORKSPACE_CONFIGURATION)
        def _configuration(_ls: object, params: lsp.ConfigurationParams) -> list[Any]:
            return [_section(self.settings, item.section) for item in params.items]

        @self.client.feature(lsp.WINDOW_WORK_DONE_PROGRESS_CREATE)
        def _progress(_ls: object, _params: lsp.WorkDoneProgressCreateParams) -> None:
            return None

    async def start(self) -> None:
        """Spawn and ``initialize`` (the caller bounds the time)."""
        env = processes.child_env()
        self._proc = proc = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            cwd=self.root,
            env=env,
            start_new_session=True,
        )
        self._token = processes.start_token(proc.pid)
        assert proc.stdin is not None and proc.stdout is not None
        self.client.protocol.set_writer(proc.stdin)  # type: ignore[arg-type]
        self._reader = asyncio.create_task(self._read(proc.stdout))
        uri = self.root.as_uri()
        result = await self.client.initialize_async(
            lsp.InitializeParams(
                process_id=None,
                root_uri=uri,
                workspace_folders=[lsp.WorkspaceFolder(uri=uri, name=self.root.name)],
                initialization_options=self.init_options,
                capabilities=lsp.ClientCapabilities(
                    text_document=lsp.TextDocumentClientCapabilities(
                        synchronization=lsp.TextDocumentSyncClientCapabilities(did_save=True),
                        publish_diagnostics=lsp.PublishDiagnosticsClientCapabilities(
                            version_support=True
                        ),
                        diagnostic=lsp.DiagnosticClientCapabilities(dynamic_registration=True),
                    ),
                    workspace=lsp.WorkspaceClientCapabilities(
                        workspace_folders=True, configuration=True
                    ),
                ),
            )
        )
        self.client.initialized(lsp.InitializedParams())
        caps = (
            result.get("capabilities") if isinstance(result, dict) else result.capabilities
        )  # typed, or the raw dict of a result lsprotocol could not type (_untyped)
        provider = (
            caps.get("diagnosticProvider")
            if isinstance(caps, dict)
            else getattr(caps, "diagnostic_provider", None)
        )
        self.pull = self.pull or bool(provider)

    async def _read(self, reader: asyncio.StreamReader) -> None:
        why = "it closed its output"
        try:
            while True:
                length = -1
                while True:  # the header lines
                    line = await reader.readuntil(b"\n")
                    if len(line) > MAX_HEADER:
                        raise ValueError("a header line over 8 KiB")
                    if not line.strip():
                        break
                    if m := _LENGTH.fullmatch(line):
                        length = int(m.group(1))
                if length < 0:
                    raise ValueError("a frame without Content-Length")
                if length > MAX_MESSAGE:
                    raise ValueError(f"a message of {length} bytes (at most {MAX_MESSAGE})")
                body = await reader.readexactly(length)
                try:
                    raw = json.loads(body)
                except ValueError:
                    raise ValueError("a message that is not JSON") from None
                try:  # one message of a shape pygls cannot type is skipped, as pygls does
                    message = json.loads(body, object_hook=self.client.protocol.structure_message)
                except Exception:
                    self._untyped(raw)
                    continue
                self.client.protocol.handle_message(message)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        except asyncio.LimitOverrunError:
            why = "a header line over the limit"
        except ValueError as e:
            why = f"it sent {e}"
        except Exception as e:
            why = f"it sent a message Larik could not read ({type(e).__name__})"
        self.broken = self.broken or why
        self._changed.set()
        self.kill()

    def _untyped(self, raw: Any) -> None:
        """A message lsprotocol could not type (ruff's and pylsp's ``initialize`` results
        carry shapes it refuses): a response settles its request untyped, the rest is
        skipped."""
        self.skipped += 1
        if not isinstance(raw, dict) or "id" not in raw:
            return
        fut = self.client.protocol._request_futures.pop(raw["id"], None)
        if fut is not None and not fut.done():
            fut.set_result(raw.get("result"))

    def uri(self, path: Path) -> str:
        return path.resolve().as_uri()

    def opened(self, path: Path) -> str | None:
        """The text last sent for ``path`` (None: not open)."""
        got = self._texts.get(self.uri(path))
        return None if got is None else got[1]

    def open_files(self) -> list[tuple[Path, str]]:
        """Each file the server has open, with the text it was last sent."""
        return [(self._paths[uri], text) for uri, (_, text) in self._texts.items()]

    def send(self, path: Path, text: str, language: str, save: bool = False) -> int:
        """didOpen or didChange ``path`` to ``text`` (and didSave); the publish count before."""
        uri = self.uri(path)
        before = self._published.get(uri, 0)
        self._changed.clear()
        if uri not in self._texts:
            self._texts[uri] = (1, text)
            self._paths[uri] = path
            self.client.text_document_did_open(
                lsp.DidOpenTextDocumentParams(
                    lsp.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)
                )
            )
        else:
            version = self._texts[uri][0] + 1
            self._texts[uri] = (version, text)
            self.client.text_document_did_change(
                lsp.DidChangeTextDocumentParams(
                    lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
                    [lsp.TextDocumentContentChangeWholeDocument(text=text)],
                )
            )
        if save:
            self.client.text_document_did_save(
                lsp.DidSaveTextDocumentParams(lsp.TextDocumentIdentifier(uri=uri), text=text)
            )
        return before

    async def wait(self, path: Path, before: int, seconds: float) -> list[lsp.Diagnostic] | None:
        """The diagnostics published for ``path`` after ``before`` publishes, within
        ``seconds``; None: none came in time (or the server broke)."""
        uri = self.uri(path)
        if self.pull:
            return await self._pull(uri, seconds)
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        while self._published.get(uri, 0) <= before and not self.broken:
            if self.pull:  # registered while waiting
                return await self._pull(uri, end - loop.time())
            left = end - loop.time()
            if left <= 0:
                return None
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), left)
            except TimeoutError:
                return None
        return None if self.broken else self.diagnostics.get(uri, [])

    async def _pull(self, uri: str, seconds: float) -> list[lsp.Diagnostic] | None:
        """``textDocument/diagnostic`` for ``uri``, within ``seconds``: the full report's items
        (cut at :data:`MAX_DIAGNOSTICS`), the last ones for "unchanged"; None: no answer in
        time, an error answer, or the server broke."""
        params = lsp.DocumentDiagnosticParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
        try:
            report: Any = await asyncio.wait_for(
                self.client.text_document_diagnostic_async(params), seconds
            )
        except (TimeoutError, Exception):
            return None
        if self.broken:
            return None
        if isinstance(report, dict):  # untyped (_untyped): typed here, or skipped
            if report.get("kind") == "unchanged":
                return self.diagnostics.get(uri, [])
            items = report.get("items")
            if not isinstance(items, list):
                return None
            try:
                typed = self.client.protocol._converter.structure(
                    items[:MAX_DIAGNOSTICS], list[lsp.Diagnostic]
                )
            except Exception:
                self.skipped += 1
                return None
        elif isinstance(report, lsp.UnchangedDocumentDiagnosticReport):
            return self.diagnostics.get(uri, [])
        else:
            typed = list(getattr(report, "items", None) or [])[:MAX_DIAGNOSTICS]
        self.diagnostics[uri] = typed
        return typed

    async def close(self, grace: float = 1.0) -> None:
        """``shutdown``/``exit``, then the group killed if it is still there after ``grace``."""
        proc = self._proc
        if proc is None:
            return
        if proc.returncode is None and not self.broken:
            try:
                await asyncio.wait_for(self.client.shutdown_async(None), grace)
                self.client.exit(None)
                await asyncio.wait_for(proc.wait(), grace)
            except (TimeoutError, Exception):
                pass
        self.kill()
        if proc.returncode is None:
            try:  # killed with its group: reaped at once
                await asyncio.wait_for(proc.wait(), grace)
            except TimeoutError:
                pass
        if proc.stdin is not None:
            proc.stdin.close()
        if self._reader is not None:
            self._reader.cancel()
            await asyncio.gather(self._reader, return_exceptions=True)

    def kill(self) -> None:
        proc = self._proc
        if proc is None:
            return
        processes.kill_group(proc.pid, self._token)
        if proc.stdin is not None and not proc.stdin.is_closing():
            proc.stdin.close()
        for fut in list(self.client.protocol._request_futures.values()):
            if not fut.done():
                fut.set_exception(ConnectionError("the language server ended"))
