"""``larik local pull`` against a loopback fake of the Hub (``HF_ENDPOINT``): a pinned file is
checked by sha256 (a mismatch is deleted and said), a cut connection resumes where it stopped,
a stalled server is one line and the next pull starts afresh, a 404 and an unreachable Hub
are one line, and only https (or loopback) endpoints are used."""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from larik.llm.errors import LocalModelError
from larik.llm.local import catalog
from larik.llm.local.pull import hub_endpoint, pull
from larik.llm.local.store import Store

from .fakehub import FakeHub, File

pytest.importorskip("huggingface_hub")

REPO = "Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF"
NAME = "qwen2.5-coder-0.5b"
BODY = b"GGUF" + random.Random(29).randbytes(600_000)


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "DOWNLOAD_CHUNK_SIZE", 1 << 16)  # (10 MB: longer than BODY)
    h = FakeHub().start()
    monkeypatch.setenv("HF_ENDPOINT", h.url)
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    yield h
    h.stop()


@pytest.fixture
def pinned(monkeypatch: pytest.MonkeyPatch) -> catalog.Row:
    """The catalog's 0.5B row, pinned to the fake's bytes (the real file is 491 MB)."""
    row = replace(catalog.row(NAME), sha256=File(BODY).sha256, size=len(BODY))
    monkeypatch.setattr(catalog, "CATALOG", (row, *catalog.CATALOG[1:]))
    monkeypatch.setattr(catalog, "_BY_NAME", {r.name: r for r in catalog.CATALOG})
    return row


def _pull(source: str, tmp_path: Path, store: Store):
    said: list[str] = []
    entry = pull(source, store, cache_dir=tmp_path / "hf", say=said.append, progress=False)
    return entry, said


def test_a_catalog_model_is_pulled_at_its_pinned_commit_and_checked(hub, pinned, store, tmp_path):
    hub.files[f"{REPO}/{pinned.file}"] = File(BODY)
    entry, said = _pull(NAME, tmp_path, store)
    assert entry.name == NAME and entry.sha256 == pinned.sha256 and entry.source == "hub"
    assert Path(entry.path).read_bytes() == BODY and str(tmp_path / "hf") in entry.path
    assert store.get(NAME) == entry  # the index has it: plain larik can use it now
    assert any(f"/resolve/{pinned.revision}/" in path for _, path, _ in hub.requests)
    assert "491 MB" not in said[0] and pinned.size_text in said[0]
    again, _ = _pull(NAME, tmp_path, store)  # cached: nothing downloaded twice
    assert again == entry and sum(m == "GET" for m, _, _ in hub.requests) == 1


def test_a_tampered_download_is_deleted_and_said(hub, pinned, store, tmp_path):
    hub.files[f"{REPO}/{pinned.file}"] = File(BODY[:-1] + b"!")
    with pytest.raises(LocalModelError) as info:
        _pull(NAME, tmp_path, store)
    message = str(info.value)
    assert "sha256 mismatch" in message and "deleted" in message and "\n" not in message
    assert [
        p for p in (tmp_path / "hf").rglob("*") if p.is_file() and p.stat().st_size > 1000
    ] == []
    assert store.get(NAME) is None


def test_a_cut_connection_resumes_where_it_stopped(hub, pinned, store, tmp_path):
    hub.files[f"{REPO}/{pinned.file}"] = File(BODY, drop_after=250_000)
    entry, _ = _pull(NAME, tmp_path, store)
    assert Path(entry.path).read_bytes() == BODY
    ranges = [r for m, _, r in hub.requests if m == "GET"]
    assert ranges[0] == "" and _offset(ranges[1]) > 100_000  # the rest only


def test_a_stalled_server_is_one_line_leaves_nothing_half_done_and_the_next_pull_works(
    hub, pinned, store, tmp_path, monkeypatch
):
    from huggingface_hub import constants, file_download

    monkeypatch.setattr(constants, "HF_HUB_DOWNLOAD_TIMEOUT", 0.5)
    monkeypatch.setattr(file_download.time, "sleep", lambda s: None)  # its retry pauses
    hub.files[f"{REPO}/{pinned.file}"] = File(BODY, stall_after=200_000)
    with pytest.raises(LocalModelError) as info:
        _pull(NAME, tmp_path, store)
    assert "stalled: run it again" in str(info.value) and "\n" not in str(info.value)
    assert store.get(NAME) is None and list((tmp_path / "hf").rglob("*.incomplete")) == []
    gets = [r for m, _, r in hub.requests if m == "GET"]
    assert gets[0] == "" and _offset(gets[1]) > 100_000  # it tried to resume, in vain
    hub.release.set()  # the server is fine again
    hub.requests.clear()
    entry, _ = _pull(NAME, tmp_path, store)
    assert Path(entry.path).read_bytes() == BODY


def _offset(range_header: str) -> int:
    assert range_header.startswith("bytes=") and range_header.endswith("-"), range_header
    return int(range_header[6:-1])


def test_a_missing_file_is_one_line(hub, store, tmp_path):
    with pytest.raises(
        LocalModelError, match=r"no such file on http://127\.0\.0\.1:\d+ \(HTTP 404\)"
    ):
        _pull("someone/some-GGUF/model-q4.gguf", tmp_path, store)


def test_offline_is_one_line(store, tmp_path, monkeypatch):
    import socket
    from types import SimpleNamespace

    from huggingface_hub.utils import _http

    pauses: list[float] = []  # the Hub client's back-off between its retries (1+2+4+8+8 s)
    monkeypatch.setattr(_http, "time", SimpleNamespace(sleep=pauses.append))
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    with pytest.raises(LocalModelError) as info:
        _pull("qwen2.5-coder-0.5b", tmp_path, store)
    assert "cannot reach" in str(info.value) and "\n" not in str(info.value)
    assert pauses, "the Hub client no longer pauses through _http.time: this stand-in is stale"


def test_offline_the_hub_clients_retries_log_nothing(store, tmp_path, monkeypatch, caplog):
    """Its two lines per retry (``'… Connection refused' thrown while requesting HEAD …``,
    ``Retrying in 1s [Retry 1/5].``) came before Larik's one line: ten of them."""
    import logging
    import socket
    from types import SimpleNamespace

    from huggingface_hub.utils import _http

    monkeypatch.setattr(_http, "time", SimpleNamespace(sleep=lambda _s: None))
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    caplog.set_level(logging.DEBUG)
    with pytest.raises(LocalModelError, match="cannot reach"):
        _pull("qwen2.5-coder-0.5b", tmp_path, store)
    assert [r.getMessage() for r in caplog.records if r.name.startswith("huggingface_hub")] == []
    assert logging.getLogger("huggingface_hub").level != logging.CRITICAL + 1  # given back


def test_only_an_https_or_loopback_endpoint_is_used(store, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", "http://hub.example.com")
    with pytest.raises(LocalModelError, match="HF_ENDPOINT"):
        _pull("qwen2.5-coder-0.5b", tmp_path, store)
    assert hub_endpoint({}) == "https://huggingface.co"
    assert hub_endpoint({"HF_ENDPOINT": "https://mirror.example/"}) == "https://mirror.example"


def test_an_unknown_source_names_what_can_be_pulled(store, tmp_path):
    with pytest.raises(LocalModelError, match="qwen2.5-coder-1.5b"):
        _pull("gpt-7", tmp_path, store)


def test_a_local_file_is_linked_in_named_by_the_catalog_when_its_sha256_is_a_rows(
    pinned, store, tmp_path
):
    src = tmp_path / "downloaded.gguf"
    src.write_bytes(BODY[:4] + (3).to_bytes(4, "little") + bytes(16) + BODY[24:])  # a GGUF v3
    plain, _ = _pull(str(src), tmp_path, store)
    assert plain.name == "downloaded" and plain.source == "file"
    assert os.path.samefile(plain.path, src) and Path(plain.path).parent == store.files_dir
    store.remove("downloaded")
    assert src.exists() and not Path(plain.path).exists()  # the user's own file stays


# -- a download stops at its size (issue 42, item 10) ------------------------------------------
# Before, a Hub streaming more than the catalog's size had it all written (723 MB against
# 491 MB) before the sha256 check, and an endless stream would fill the disk.


class _Largest:
    """The largest file seen under ``root`` while the pull runs (sampled from a thread)."""

    def __init__(self, root: Path) -> None:
        self.root, self.seen, self._stop = root, 0, threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.is_set():
            for path in self.root.rglob("*") if self.root.exists() else ():
                try:
                    self.seen = max(self.seen, path.stat().st_size)
                except OSError:
                    pass  # renamed or deleted meanwhile
            time.sleep(0.005)

    def __enter__(self) -> _Largest:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(30)


def _stopped_pull(source: str, tmp_path: Path, store: Store, pin: int) -> tuple[str, int]:
    """The one-line error of a pull that must be stopped, and the largest file it wrote. The
    pull runs in a thread, watched until it ends or writes past ``pin`` (the tree before the
    fix went on for ever: the Hub client tries again as long as bytes keep coming)."""
    said: list[BaseException] = []

    def pulling() -> None:
        try:
            _pull(source, tmp_path, store)
        except BaseException as e:
            said.append(e)

    puller = threading.Thread(target=pulling, daemon=True)
    with _Largest(tmp_path / "hf") as largest:
        puller.start()
        end = time.monotonic() + 60
        while puller.is_alive() and largest.seen <= pin and time.monotonic() < end:
            puller.join(0.05)
    assert largest.seen <= pin, f"{largest.seen} bytes written against {pin}"
    assert not puller.is_alive(), "the pull went on"
    assert len(said) == 1 and isinstance(said[0], LocalModelError), said
    return str(said[0]), largest.seen


@pytest.mark.parametrize(
    "close_delimited", [False, True], ids=["announced-longer", "announced-pinned-streams-more"]
)
def test_a_pinned_download_stops_at_the_pinned_size_and_leaves_nothing(
    hub, pinned, store, tmp_path, close_delimited
):
    hub.files[f"{REPO}/{pinned.file}"] = File(
        BODY, overflow=40 * len(BODY), close_delimited=close_delimited
    )
    message, _ = _stopped_pull(NAME, tmp_path, store, pinned.size)
    assert "stopped" in message and f"{pinned.size:,} bytes the catalog pins" in message
    assert "partial file was deleted" in message and "\n" not in message
    assert [
        p for p in (tmp_path / "hf").rglob("*") if p.is_file() and p.stat().st_size > 1000
    ] == []
    assert store.get(NAME) is None


def test_an_unpinned_download_stops_at_the_size_the_hub_announced(hub, store, tmp_path):
    hub.files["someone/models/tiny.gguf"] = File(
        BODY, overflow=40 * len(BODY), close_delimited=True
    )
    message, _ = _stopped_pull("someone/models/tiny.gguf", tmp_path, store, len(BODY))
    assert f"{len(BODY):,} bytes the Hub announced" in message and "\n" not in message
    assert [
        p for p in (tmp_path / "hf").rglob("*") if p.is_file() and p.stat().st_size > 1000
    ] == []
