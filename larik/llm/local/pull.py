"""``larik local pull SOURCE``: a model onto this machine, checked by sha256, named in the index.

SOURCE is a catalog name (``qwen2.5-coder-1.5b``: its repository, commit, file, size and
sha256 are pinned in :mod:`.catalog`), ``REPO/FILE.gguf`` on Hugging Face (its sha256 is
recorded, not checked: nothing pins it), or a path to a ``.gguf`` file here (hard-linked, else
copied, under ``<state>/local/models/``; named by the catalog when its sha256 is a row's).

Downloads go through ``huggingface_hub.hf_hub_download``: resumable (a transfer cut off goes on
from where it stopped, with a ``Range`` request; over Hugging Face's Xet storage, chunks fetched
once are not fetched again), cached (the Hugging Face cache, where
``HF_HOME`` puts it), with its progress bar, from ``HF_ENDPOINT`` when set — which must be
https, or http on a loopback address (a test's fake Hub). A pinned file whose bytes do not hash
to the catalog's sha256 is deleted and reported. A download stops at its size: the catalog's
pinned size, or for an unpinned file the size the Hub announced — a Hub that announces another
size, or streams more (an endless stream would fill the disk), is stopped before the byte past
it is written, its partial file deleted, and said in one line. Every failure — offline, a 404, a stalled
server — is one line. Nothing is downloaded but what the user asked for.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import LocalModelError
from ..net import validate_base_url
from . import catalog
from .store import Entry, Store, name_for

__all__ = ["DEFAULT_ENDPOINT", "hub_endpoint", "pull", "reporting_bar", "sha256_of"]

DEFAULT_ENDPOINT = "https://huggingface.co"
Say = Callable[[str], None]


def hub_endpoint(environ: dict[str, str] | None = None) -> str:
    """``HF_ENDPOINT`` (checked: https, or http on loopback), else the Hub's own address."""
    env = os.environ if environ is None else environ
    url = (env.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).strip().rstrip("/")
    try:
        validate_base_url(url)
    except ValueError as e:
        raise LocalModelError(f"environment variable HF_ENDPOINT: {e}") from None
    return url


def pull(
    source: str,
    store: Store,
    *,
    cache_dir: Path | None = None,
    say: Say = print,
    progress: bool = True,
    tqdm_class: Any = None,
) -> Entry:
    """Pull ``source`` (see the module docstring) and add it to ``store``'s index;
    ``tqdm_class``: the download's progress bar (:func:`reporting_bar` for a screen)."""
    source = source.strip()
    path = Path(source).expanduser()
    if source.endswith(".gguf") and (path.is_file() or not _looks_like_repo(source)):
        return _from_file(path, store, say)
    row = catalog.row(source)
    if row is not None:
        return _from_hub(
            store,
            _Wanted(row.repo, row.file, row.revision, row.sha256, row.size),
            row.name,
            cache_dir,
            say,
            progress,
            tqdm_class,
        )
    if _looks_like_repo(source) and source.endswith(".gguf"):
        owner, name, file = source.split("/", 2)
        repo = f"{owner}/{name}"
        wanted = _Wanted(repo, file, None, "", None)
        return _from_hub(store, wanted, name_for(file), cache_dir, say, progress, tqdm_class)
    names = ", ".join(r.name for r in catalog.CATALOG)
    raise LocalModelError(
        f"{source!r} is not a model Larik knows: pull one of {names}, "
        "REPO/FILE.gguf on Hugging Face, or a path to a .gguf file"
    )


def _looks_like_repo(source: str) -> bool:
    parts = source.split("/")
    return len(parts) >= 3 and all(parts) and not source.startswith((".", "/", "~"))


def _from_file(path: Path, store: Store, say: Say) -> Entry:
    if not path.is_file():
        raise LocalModelError(f"no such model file: {path}")
    from .gguf import read_meta

    read_meta(path)  # one line when it is no GGUF
    say(f"checking {path} …")
    digest = sha256_of(path)
    row = catalog.by_sha256(digest)
    name = row.name if row is not None else name_for(path.name)
    target = store.files_dir / (row.file if row is not None else path.name)
    target.parent.mkdir(parents=True, exist_ok=True)
    if not (target.exists() and os.path.samefile(target, path)):
        target.unlink(missing_ok=True)
        try:
            os.link(path, target)
        except OSError:  # another file system, or no hard links: a copy
            say(f"copying it to {target} …")
            shutil.copyfile(path, target)
    entry = Entry(name, str(target), target.stat().st_size, digest, "file")
    store.add(entry)
    return entry


@dataclass(frozen=True, slots=True)
class _Wanted:
    """A file on the Hub and what pins it: a catalog row pins revision, sha256 and size."""

    repo: str
    file: str
    revision: str | None
    sha256: str
    size: int | None


class _TooLong(Exception):
    """A download that went (or was announced to go) past the size it may have."""

    def __init__(self, limit: int, what: str) -> None:
        super().__init__(f"more than the {limit:,} bytes {what}")


def _bounded(bar: Any, size: int | None) -> Any:
    """``bar`` (a progress bar class for ``hf_hub_download``) that also counts the bytes of
    the download and raises :class:`_TooLong` once they pass ``size`` (else the size the Hub
    announced). The Hub client updates its bar before it writes a chunk, so the chunk past the
    size is never written; and an announced size other than ``size`` stops it before any."""

    class Bounded(bar):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            announced = kwargs.get("total")
            if size is not None and announced and int(announced) != size:
                raise _TooLong(size, f"the catalog pins (the Hub announces {int(announced):,})")
            self._taken = int(kwargs.get("initial") or 0)
            self._limit: int | None = size if size is not None else _int_or_none(announced)
            self._what = "the catalog pins" if size is not None else "the Hub announced"
            super().__init__(*args, **kwargs)

        def update(self, n: float | None = 1) -> bool | None:
            self._taken += int(n or 0)
            if self._limit and self._taken > self._limit:
                raise _TooLong(self._limit, self._what)
            return super().update(n)

    return Bounded


def _int_or_none(value: Any) -> int | None:
    return int(value) if value else None


def _delete_partials(repo: str, cache_dir: Path | None) -> None:
    """The repository's unfinished downloads in the Hub cache (``blobs/*.incomplete``)."""
    from huggingface_hub import constants
    from huggingface_hub.file_download import repo_folder_name

    root = Path(cache_dir) if cache_dir is not None else Path(constants.HF_HUB_CACHE)
    blobs = root / repo_folder_name(repo_id=repo, repo_type="model") / "blobs"
    for partial in blobs.glob("*.incomplete"):
        partial.unlink(missing_ok=True)


def _from_hub(
    store: Store,
    wanted: _Wanted,
    name: str,
    cache_dir: Path | None,
    say: Say,
    progress: bool,
    tqdm_class: Any = None,
) -> Entry:
    endpoint = hub_endpoint()
    repo, file, revision, sha256 = wanted.repo, wanted.file, wanted.revision, wanted.sha256
    try:
        from huggingface_hub import hf_hub_download
        from huggingface_hub.utils import disable_progress_bars, enable_progress_bars
        from huggingface_hub.utils import tqdm as hub_bar
    except ImportError:
        from .engine import install_hint

        raise LocalModelError(f"downloads need huggingface_hub: `{install_hint()}`") from None
    row = catalog.row(name)
    size = f" ({row.size_text})" if row is not None else ""
    say(f"pulling {repo}/{file}{size} from {endpoint}")
    (enable_progress_bars if progress or tqdm_class else disable_progress_bars)()
    try:
        with hub_quiet():
            local = Path(
                hf_hub_download(
                    repo,
                    file,
                    revision=revision,
                    cache_dir=cache_dir,
                    endpoint=endpoint,
                    tqdm_class=_bounded(tqdm_class or hub_bar, wanted.size),
                )
            )
    except _TooLong as e:
        _delete_partials(repo, cache_dir)
        raise LocalModelError(
            f"the download of {repo}/{file} from {endpoint} was stopped: {e}; "
            "the partial file was deleted"
        ) from None
    except Exception as e:  # every failure of the Hub client: one line
        raise LocalModelError(_download_error(repo, file, endpoint, e)) from None
    say("checking its sha256 …")
    digest = sha256_of(local)
    if sha256 and digest != sha256:
        _delete(local)
        raise LocalModelError(
            f"sha256 mismatch for {file} from {repo}: got {digest}, the catalog pins "
            f"{sha256}; the file was deleted (a truncated or tampered download)"
        )
    entry = Entry(name, str(local), local.stat().st_size, digest, "hub", repo, file, revision or "")
    store.add(entry)
    return entry


@contextmanager
def hub_quiet() -> Iterator[None]:
    """The Hub client's own log lines left out while it downloads: offline it logs two lines per
    retry (``'…Connection refused' thrown while requesting HEAD …``, ``Retrying in 1s``), ten
    before its error, which the caller turns into one line of its own."""
    import logging

    hub_log = logging.getLogger("huggingface_hub")
    level = hub_log.level
    hub_log.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        hub_log.setLevel(level)


def _delete(local: Path) -> None:
    """The snapshot's link and the cache blob it points to."""
    blob = local.resolve()
    local.unlink(missing_ok=True)
    if blob != local:
        blob.unlink(missing_ok=True)


def _download_error(repo: str, file: str, endpoint: str, e: BaseException) -> str:
    kind = type(e).__name__
    what = f"{repo}/{file}"
    if kind == "EntryNotFoundError" or " 404 " in f" {e} ":
        return f"{what}: no such file on {endpoint} (HTTP 404)"
    if kind in ("RepositoryNotFoundError", "GatedRepoError"):
        return f"{what}: no such repository on {endpoint}, or it needs a login"
    if kind == "RevisionNotFoundError":
        return f"{what}: no such revision on {endpoint}"
    if kind in (
        "LocalEntryNotFoundError",
        "ConnectError",
        "ConnectionError",
        "OfflineModeIsEnabled",
    ):
        return f"cannot reach {endpoint} to pull {what}: offline? (run it again)"
    if "Timeout" in kind or "timed out" in str(e).lower():
        return f"the download of {what} from {endpoint} stalled: run it again"
    first = str(e).strip().splitlines()[0] if str(e).strip() else kind
    return f"the download of {what} from {endpoint} failed: {first[:200]} (run it again)"


def reporting_bar(report: Callable[[int, int | None], None]) -> Any:
    """A progress bar class for ``hf_hub_download`` that reports (bytes done, total) to
    ``report`` instead of drawing (the TUI shows it on its own screen)."""
    import io

    from tqdm.auto import tqdm

    class Reporting(tqdm):  # type: ignore[misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs["file"] = io.StringIO()
            kwargs.pop("disable", None)
            super().__init__(*args, **kwargs)

        def update(self, n: float | None = 1) -> bool | None:
            out = super().update(n)
            report(int(self.n), int(self.total) if self.total else None)
            return out

    return Reporting


def sha256_of(path: Path, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()
