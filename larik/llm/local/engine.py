"""The embedded engine: llama.cpp's server (the ``xllamacpp`` wheel) as a child process.

``fit(entry, store)`` works out how to run a pulled model here (:class:`Settings`): the
context window (the model's own, up to ``CTX_CAP``, halved until its KV cache and weights fit
in half the RAM), the threads (half the cores Larik may use: llama.cpp's threads spin-wait on
each other, so a busy core slows them all), the chat template (the catalog's, else ChatML with
fenced tool calls for a ChatML model, else the GGUF's own) and the log file
(``<state>/local/logs/NAME.log``).

``ensure(settings)`` starts it once per model per process — or returns the one already up —
and :class:`Engine` does the work:

* before anything is spawned: the CPU has what the wheel needs (:mod:`.cpu`, else a clear
  message rather than SIGILL), the wheel is installed (the ``local`` extra: :func:`install_hint`), the file
  is a GGUF (:mod:`.gguf`);
* the child (:mod:`.child`) runs in a session and process group of its own, on 127.0.0.1 at a
  free port; a port taken meanwhile (the log says "couldn't bind") is tried again on another;
  a model the engine cannot load is one line naming the file;
* it is up when ``/health`` answers 200 (``START_TIMEOUT`` at most);
* it stops with Larik on every exit path: ``atexit`` (a normal end, an exception, Ctrl+C's
  KeyboardInterrupt), SIGTERM and SIGHUP (the handlers stop the engines, then do what was
  there before), and — whatever else kills Larik, SIGKILL included — its stdin pipe closing,
  which ends the child. ``stop`` signals the whole group, then kills it if it lingers.

``running(store, name)``: a server ``larik local serve`` started for that model (its run file
in ``<state>/local/run/``), when it still answers: Larik then uses it instead of starting one.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import json
import os
import secrets
import select
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import jsontext
from ..errors import LocalModelError
from . import catalog, cpu
from .child import KEY_VARIABLE
from .gguf import kv_bytes_per_token, read_meta
from .store import Entry, Store

__all__ = ["Engine", "Settings", "ensure", "fit", "running", "stop_all"]

START_TIMEOUT = 300.0
STOP_TIMEOUT = 5.0
PORT_TRIES = 5
CTX_CAP = 32768
MIN_CTX = 2048


def install_hint() -> str:
    """The command that installs the engine into this Larik (``llm/install.py``)."""
    from ..install import extra_command

    return extra_command("local")


@dataclass(frozen=True, slots=True)
class Settings:
    model: Path
    alias: str  # the model id the server answers to (the entry's name)
    n_ctx: int
    threads: int
    template: Path | None  # None: the GGUF's own
    log: Path
    params_b: float | None = None  # the model's size, when the catalog or the file says


def fit(
    entry: Entry,
    store: Store,
    *,
    n_ctx: int | None = None,
    threads: int | None = None,
    template: str | None = None,
    ram_gb: float | None = None,
    cores: int | None = None,
) -> Settings:
    """How to run ``entry`` on this machine (explicit values win)."""
    path = Path(entry.path)
    meta = read_meta(path)
    row = catalog.row(entry.name) or catalog.by_sha256(entry.sha256)
    if ram_gb is None or cores is None:
        found_ram, found_cores = catalog.machine()
        ram_gb = found_ram if ram_gb is None else ram_gb
        cores = found_cores if cores is None else cores
    if n_ctx is None:
        arch = meta.get("general.architecture", "")
        trained = meta.get(f"{arch}.context_length")
        n_ctx = min(trained if isinstance(trained, int) and trained > 0 else CTX_CAP, CTX_CAP)
        per_token = kv_bytes_per_token(meta)
        if ram_gb and per_token:
            budget = ram_gb * 1024**3 / 2 - meta["file.size"]
            while n_ctx > MIN_CTX and n_ctx * per_token > budget:
                n_ctx //= 2
    if threads is None:
        threads = max(1, min(8, (cores or 2) // 2))
    if template is None:
        chatml = "<|im_start|>" in str(meta.get("tokenizer.chat_template", ""))
        template = row.template if row else ("chatml-fenced-tools" if chatml else "builtin")
    if template not in catalog.TEMPLATES:
        known = ", ".join(catalog.TEMPLATES)
        raise LocalModelError(f"unknown chat template {template!r} (known: {known})")
    return Settings(
        model=path,
        alias=entry.name,
        n_ctx=n_ctx,
        threads=threads,
        template=catalog.template_path(template),
        log=store.logs_dir / f"{entry.name}.log",
        params_b=row.params_b if row else _size_label(meta.get("general.size_label")),
    )


def _size_label(label: Any) -> float | None:
    """``"0.5B"`` -> 0.5, ``"135M"`` -> 0.135."""
    if not isinstance(label, str) or len(label) < 2:
        return None
    scale = {"B": 1.0, "M": 0.001}.get(label[-1].upper())
    try:
        return float(label[:-1]) * scale if scale else None
    except ValueError:
        return None


class Engine:
    """One engine process for one model."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.proc: subprocess.Popen[bytes] | None = None
        self.base_url = ""  # http://127.0.0.1:PORT (the OpenAI API is under /v1)
        self.port = 0
        self.api_key = secrets.token_urlsafe(24)  # this engine's own: only Larik may use it
        self._cancel: threading.Event | None = None  # set: stop starting (start's caller left)

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(
        self, port: int = 0, timeout: float = START_TIMEOUT, cancel: threading.Event | None = None
    ) -> str:
        """Start it (``port``: the one to try first; 0: any free one); its base URL once
        ``/health`` says ok. LocalModelError, one line, when it cannot start — or at once
        when ``cancel`` is set (the turn that waited for it ended: a quit waited 300 s)."""
        self._cancel = cancel
        problem = cpu.check()
        if problem:
            raise LocalModelError(problem)
        if importlib.util.find_spec("xllamacpp") is None:
            raise LocalModelError(
                f"the local engine is not installed: `{install_hint()}` (xllamacpp)"
            )
        read_meta(self.settings.model)  # a file that is no GGUF: one line, nothing spawned
        deadline = time.monotonic() + timeout
        for attempt in range(PORT_TRIES):
            chosen = port if port and attempt == 0 else free_port()
            outcome = self._launch(chosen, deadline)
            if outcome == "up":
                self._wait_healthy(deadline)
                return self.base_url
            if outcome != "port":
                raise LocalModelError(outcome)
        raise LocalModelError(f"no free port on 127.0.0.1 for the engine after {PORT_TRIES} tries")

    def _launch(self, port: int, deadline: float) -> str:
        """Whether it came up: "up", "port" (taken: try another), or the one-line error."""
        s = self.settings
        s.log.parent.mkdir(parents=True, exist_ok=True)
        argv = [sys.executable, "-m", "larik.llm.local.child", "--model", str(s.model)]
        argv += ["--alias", s.alias, "--port", str(port), "--ctx", str(s.n_ctx)]
        argv += ["--threads", str(s.threads), "--template", str(s.template or "")]
        with s.log.open("ab") as log:
            log.write(f"--- larik: starting the engine on port {port}: {s.model}\n".encode())
            log.flush()
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                start_new_session=True,  # its own process group: stopped with its group
                env={**_child_env(), KEY_VARIABLE: self.api_key},
            )
        line = self._status_line(deadline)
        if line.startswith("listening "):
            self.base_url = line.split(" ", 1)[1].strip().rstrip("/")
            self.port = int(self.base_url.rsplit(":", 1)[1])
            return "up"
        _ended(self.proc, STOP_TIMEOUT)  # its log is written by a thread: let it finish
        self.stop()
        tail = _tail(s.log)
        if line.startswith("error: port: ") or "couldn't bind" in tail:
            return "port"
        if line.startswith("error: cpu: "):
            return line.removeprefix("error: cpu: ")
        if line.startswith("error: missing: "):
            return f"the local engine is not installed: `{install_hint()}` (xllamacpp)"
        if "failed to load model" in tail:
            return f"the engine cannot load {s.model}: not a model file it can run (log: {s.log})"
        if not line:
            return f"the engine did not start for {s.model} in time (log: {s.log})"
        return f"the engine did not start for {s.model} ({line.strip()}; log: {s.log})"

    def _status_line(self, deadline: float) -> str:
        """The child's first line ("" when it exits or the time is up first)."""
        assert self.proc is not None and self.proc.stdout is not None
        out = self.proc.stdout
        buf = b""
        while time.monotonic() < deadline and b"\n" not in buf:
            self._check_cancel()
            ready, _, _ = select.select([out], [], [], 0.2)
            if ready:
                chunk = os.read(out.fileno(), 4096)
                if not chunk:
                    break
                buf += chunk
            elif self.proc.poll() is not None:
                break
        return buf.decode("utf-8", "replace").split("\n", 1)[0] if b"\n" in buf else ""

    def _wait_healthy(self, deadline: float) -> None:
        url = f"{self.base_url}/health"
        while time.monotonic() < deadline:
            self._check_cancel()
            if not self.alive():
                self.stop()
                raise LocalModelError(
                    f"the engine stopped while loading {self.settings.model} "
                    f"(log: {self.settings.log})"
                )
            if health(url):
                return
            time.sleep(0.1)
        self.stop()
        raise LocalModelError(f"the engine was not ready in time (log: {self.settings.log})")

    def _check_cancel(self) -> None:
        if self._cancel is not None and self._cancel.is_set():
            self.stop()
            raise LocalModelError(f"the engine's start was cancelled ({self.settings.model})")

    def stop(self, timeout: float = STOP_TIMEOUT) -> None:
        """End the engine's whole process group: SIGTERM, then SIGKILL if it lingers."""
        proc = self.proc
        if proc is None:
            return
        with contextlib.suppress(OSError):
            if proc.stdin is not None:
                proc.stdin.close()
        if proc.poll() is None:
            _signal_group(proc.pid, signal.SIGTERM)
            if not _ended(proc, timeout):
                _signal_group(proc.pid, signal.SIGKILL)
                _ended(proc, timeout)
        with contextlib.suppress(OSError):
            if proc.stdout is not None:
                proc.stdout.close()


def _ended(proc: subprocess.Popen[bytes], timeout: float) -> bool:
    """Whether ``proc`` ends within ``timeout``. It polls rather than waits: a signal handler
    may stop the engine while this thread is already waiting for it (Popen's lock is held)."""
    end = time.monotonic() + timeout
    while proc.poll() is None:
        if time.monotonic() > end:
            return False
        time.sleep(0.02)
    return True


def _signal_group(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)  # the child leads its own group (start_new_session)


def _child_env() -> dict[str, str]:
    """Larik's environment without its credentials (:func:`..childenv.child_env`: the engine needs
    no provider's key), with Larik itself importable (a checkout run with PYTHONPATH)."""
    from ..childenv import child_env

    env = child_env()
    here = str(Path(__file__).resolve().parents[3])
    path = env.get("PYTHONPATH", "")
    if here not in path.split(os.pathsep):
        env["PYTHONPATH"] = os.pathsep.join(p for p in (here, path) if p)
    return env


def _tail(log: Path, size: int = 8192) -> str:
    try:
        with log.open("rb") as f:
            f.seek(max(0, f.seek(0, 2) - size))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def health(url: str, timeout: float = 2.0) -> bool:
    """Whether ``url`` (a loopback ``/health``) answers 200."""
    try:
        with _NO_PROXY.open(url, timeout=timeout) as resp:
            return bool(resp.status == 200)
    except (OSError, ValueError):
        return False


# -- one engine per model per process, stopped on every way out ---------------------------

_lock = threading.Lock()
_engines: dict[Path, Engine] = {}
_previous: dict[int, Any] = {}
_hooked = {"atexit": False, "signals": False}


def ensure(settings: Settings, port: int = 0, cancel: threading.Event | None = None) -> Engine:
    """The engine for ``settings.model``, started if it is not up yet (thread-safe; a start
    ends early, with LocalModelError, once ``cancel`` is set)."""
    install_exit_hooks()
    with _lock:
        engine = _engines.get(settings.model)
        if engine is not None and engine.alive():
            return engine
        if engine is not None:  # it died: its pipes are let go before another starts
            engine.stop()
        engine = Engine(settings)
        _engines[settings.model] = engine  # stopped on the way out even while it loads
        try:
            engine.start(port, cancel=cancel)
        except BaseException:
            _engines.pop(settings.model, None)
            raise
        return engine


def stop_all() -> None:
    for engine in list(_engines.values()):
        engine.stop()
    _engines.clear()


def install_exit_hooks() -> None:
    """``atexit``, and SIGTERM/SIGHUP handlers (from the main thread only, where Python lets
    a handler be set; what was there before still runs after, and an ignored signal stays
    ignored). Once per process."""
    if not _hooked["atexit"]:
        _hooked["atexit"] = True
        atexit.register(stop_all)
    if _hooked["signals"] or threading.current_thread() is not threading.main_thread():
        return  # the signals wait for a call from the main thread
    _hooked["signals"] = True
    for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if sig is None:
            continue
        previous = signal.getsignal(sig)
        if previous is signal.SIG_IGN:
            continue
        _previous[sig] = previous
        signal.signal(sig, _on_signal)


def _on_signal(signum: int, frame: Any) -> None:
    stop_all()
    previous = _previous.get(signum)
    if callable(previous):
        previous(signum, frame)
        return
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


# -- a server `larik local serve` runs -----------------------------------------------------


def run_file(store: Store, name: str) -> Path:
    return store.run_dir / f"{name}.json"


def running(store: Store, entry: Entry) -> tuple[str, str]:
    """(base URL, API key) of a live ``larik local serve`` of ``entry`` (("", "") when there is
    none)."""
    try:
        data = json.loads(run_file(store, entry.name).read_text())
        url, pid, model = str(data["url"]), int(data["pid"]), str(data["model"])
        key = str(data.get("key", ""))
    except (OSError, ValueError, KeyError, TypeError):
        return "", ""
    if model != entry.path or not url.startswith("http://127.0.0.1:"):
        return "", ""
    try:
        os.kill(pid, 0)
    except OSError:
        return "", ""
    return (url, key) if health(f"{url}/health") else ("", "")


def write_run_file(store: Store, entry: Entry, engine: Engine) -> Path:
    """Where a ``larik local serve`` is, with its key: a 0600 file in the state folder."""
    path = run_file(store, entry.name)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"url": engine.base_url, "pid": engine.pid, "model": entry.path, "key": engine.api_key}
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(jsontext.dumps(data) + "\n")
    return path
