"""``larik bench --ray``: every run (model, task, repeat) as a task on a Ray cluster.

The driver (this process) plans the runs as a local bench does (``run_bench``) and hands each
one to :meth:`RayBench.execute`, which sends it to the cluster and awaits its result. On the
worker, :func:`_run_remote` calls the same ``run_one`` a local run calls, with the same agent
runner, so a run's result is one code path wherever it ran. What travels with a run:

* **the task as data** — its ``task.toml`` fields and the bytes of ``repo/``, ``check/`` and
  ``solution/`` (put in the object store once per task), written to a temporary folder on the
  worker: no shared file system is assumed;
* **a model's file**, as data, for a kind whose model is a file on this machine
  (``Kind.model_file``: ``scripted/PATH``'s script);
* **the config**, with every ``api_key`` moved out of it into a variable;
* **keys as runtime environment variables** (``runtime_env={"env_vars": …}``): the key of each
  provider the runs can reach (the model's and its fallbacks'), and a kind's base-URL variable
  when it is set here. Every value is masked (larik/llm/secrets.py) in what comes back.

What comes back: the run's result record and its transcripts, both masked again here before
they are written to the history and the runs folder. A run that Ray itself fails (a worker
that died, a runtime environment that could not be set up) is that run's ``harness error``.

Per-provider limits hold on the whole cluster: a named actor per provider (``larik`` namespace,
``limit-PROVIDER``) counts the runs in flight, so two benches on one cluster share a
provider's share. The actor belongs to the bench that created it and goes with it.

``import ray`` happens here only, when ``--ray`` is given; without Ray it is one line saying
how to install it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import socket
import stat
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..llm.errors import ConfigError
from ..llm.secrets import mask
from ..terminal_text import terminal
from .runner import HARNESS_ERROR, PER_PROVIDER, RunResult, plan_provider, provider_of, run_one
from .tasks import Task, TaskSpec

if TYPE_CHECKING:
    from ..config import Config

__all__ = ["NAMESPACE", "RayBench", "import_ray", "pack_task", "ray_missing", "unpack_task"]

NAMESPACE = "larik"
CPUS_PER_RUN = 1  # a run's pytest check is CPU work; the model's time is not
_PARTS = ("repo", "check", "solution")
_SKIP = ("__pycache__", ".pytest_cache")


def ray_missing() -> str:
    """Why ``--ray`` cannot run here, and the command that installs Ray into this Larik."""
    from ..llm.install import extra_command

    return f"--ray needs Ray, which is not installed: `{extra_command('ray')}`"


def import_ray() -> Any:
    """The ``ray`` module, or a one-line ConfigError saying how to install it."""
    try:
        import ray
    except ImportError:
        raise ConfigError(ray_missing()) from None
    return ray


# --------------------------------------------------------------------------- a task as data


@dataclass(frozen=True)
class PackedTask:
    spec: dict[str, Any]
    files: dict[str, bytes]  # "repo/x.py" -> contents


def pack_task(task: Task) -> PackedTask:
    files = {}
    for part in _PARTS:
        root = task.path / part
        for p in sorted(root.rglob("*")):
            if p.is_file() and not set(p.relative_to(root).parts) & set(_SKIP):
                files[p.relative_to(task.path).as_posix()] = p.read_bytes()
    return PackedTask(task.spec.model_dump(), files)


def unpack_task(packed: PackedTask, dest: Path) -> Task:
    """Write a packed task under ``dest``; a path that would leave it is refused."""
    root = dest.resolve()
    for part in _PARTS:
        (root / part).mkdir(parents=True, exist_ok=True)
    for rel, data in packed.files.items():
        target = (root / rel).resolve()
        inside = target.is_relative_to(root) and target != root
        if not inside or target.relative_to(root).parts[0] not in _PARTS:
            raise ConfigError(f"{rel}: a task file outside the task folder")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return Task(TaskSpec.model_validate(packed.spec), root)


# ----------------------------------------------------------------------- keys and the config


def worker_env(specs: list[str], config: Config) -> tuple[dict[str, str], Config]:
    """The variables the runs need on a worker, and the config to send (keys taken out).

    For each provider the specs reach (and their fallbacks): its key, under the variable it was
    read from (a config ``api_key`` goes under ``LARIK_RAY_KEY_<NAME>``, which the sent config
    names as ``api_key_env``); the kind's base-URL variable when it is set here."""
    from ..llm import registry
    from ..llm.endpoint import kind_of, resolve_endpoint
    from ..routing import resolve

    sent = config.model_copy(deep=True)
    names: set[str] = set()
    for spec in specs:
        r = resolve(spec, config)
        names.add(r.provider_name)
        names.update(provider_of(f) for f in r.fallbacks)
    env: dict[str, str] = {}
    for name in sorted(names):
        endpoint = resolve_endpoint(name, config)
        if endpoint.api_key and endpoint.key_env:
            env[endpoint.key_env] = endpoint.api_key
        elif endpoint.api_key:  # from the config file: travels as a variable, not in the config
            var = "LARIK_RAY_KEY_" + "".join(c if c.isalnum() else "_" for c in name.upper())
            env[var] = endpoint.api_key
            pc = sent.providers[name]
            pc.api_key, pc.api_key_env = "", var
        kind = registry.kind(kind_of(name, config))
        if kind is not None and kind.base_url_env and os.environ.get(kind.base_url_env):
            env[kind.base_url_env] = os.environ[kind.base_url_env]
    return env, sent


def _model_files(specs: list[str], config: Config) -> dict[str, tuple[str, bytes]]:
    """The file of each spec whose kind's model is a file here (``Kind.model_file``:
    ``scripted/PATH``), as ``(suffix, bytes)``, to send with its runs."""
    from .agent_run import model_kind

    out = {}
    for spec in specs:
        kind = model_kind(spec, config)
        if kind is not None and kind.model_file:
            path = Path(spec.partition("/")[2]).expanduser()
            try:
                out[spec] = (path.suffix, path.read_bytes())
            except OSError as e:
                raise ConfigError(f"{path}: cannot read the model file of {spec}: {e}") from None
    return out


# ------------------------------------------------------------------------------ the worker


def _run_remote(
    packed: PackedTask,
    spec: str,
    repeat: int,
    bench_id: str,
    config: Config,
    model_file: tuple[str, bytes] | None,
) -> dict[str, Any]:
    """One run on a Ray worker: the task and model file written to a temporary folder, then
    ``run_one`` as a local bench calls it. Returns the result record and the transcripts."""
    from ..llm.endpoint import remember_known
    from .agent_run import fresh_adapters, make_agent_runner
    from .confine import unsandboxed

    remember_known(config)  # this worker's keys are masked in what it writes
    with tempfile.TemporaryDirectory(prefix="larik-ray-") as tmp:
        folder = Path(tmp)
        task = unpack_task(packed, folder / "task")
        paths = {}
        if model_file is not None:
            suffix, data = model_file
            paths[spec] = folder / f"model{suffix}"
            paths[spec].write_bytes(data)
        runs = folder / "runs"
        run_agent = make_agent_runner(config, runs, fresh_adapters(config, paths))
        result = asyncio.run(run_one(task, spec, repeat, run_agent, bench_id=bench_id))
        transcripts = {p.name: p.read_bytes() for p in runs.glob("*") if p.is_file()}
    return {"result": result.to_json(), "transcripts": transcripts, "unsandboxed": unsandboxed()}


# ------------------------------------------------------------------------------ the driver


def _from_json(data: dict[str, Any]) -> RunResult:
    """A worker's record as a RunResult, every text field masked."""
    known = {f.name for f in fields(RunResult)}
    row: dict[str, Any] = {
        k: mask(v) if isinstance(v, str) else v for k, v in data.items() if k in known
    }
    return RunResult(**row)


class RayBench:
    """A connection to a cluster for one bench: ``execute`` and ``limit`` for ``run_bench``."""

    def __init__(
        self,
        ray: Any,
        config: Config,
        specs: list[str],
        *,
        bench_id: str,
        transcripts: Path,
        per_provider: int = PER_PROVIDER,
    ) -> None:
        self._ray = ray
        self._env, self._config = worker_env(specs, config)
        self._model_files = _model_files(specs, config)
        self._bench_id = bench_id
        self._transcripts = transcripts
        self._per_provider = per_provider
        self._packed: dict[str, Any] = {}
        self._actors: dict[str, Any] = {}
        self._said: set[str] = set()
        self._remote = ray.remote(num_cpus=CPUS_PER_RUN, max_retries=0)(_run_remote)
        self._config_ref = ray.put(self._config)

    @property
    def cpus(self) -> int:
        """Runs the cluster can hold at once now (its CPUs, one a run)."""
        return max(1, int(self._ray.cluster_resources().get("CPU", 1) // CPUS_PER_RUN))

    async def execute(self, task: Task, spec: str, repeat: int) -> RunResult:
        ray = self._ray
        if task.name not in self._packed:
            self._packed[task.name] = ray.put(pack_task(task))
        ref = self._remote.options(runtime_env={"env_vars": self._env}).remote(
            self._packed[task.name],
            spec,
            repeat,
            self._bench_id,
            self._config_ref,
            self._model_files.get(spec),
        )
        try:
            out = await ref
        except asyncio.CancelledError:
            ray.cancel(ref, force=True)
            raise
        except ray.exceptions.RayError as e:
            return self._failed(task, spec, repeat, e)
        self._save_transcripts(out["transcripts"])
        self._say_unsandboxed(out.get("unsandboxed", ""))
        return _from_json(out["result"])

    def _say_unsandboxed(self, line: object) -> None:
        """A worker's "checks run unsandboxed" line, once per bench for each reason."""
        if isinstance(line, str) and line and line not in self._said:
            self._said.add(line)
            out = terminal(sys.stderr)
            print(f"larik bench: on a Ray worker: {mask(line)[:300]}", file=out)

    def _failed(self, task: Task, spec: str, repeat: int, exc: Exception) -> RunResult:
        lines = [x for x in str(exc).strip().splitlines() if x.strip()]
        why = lines[-1].strip()[:300] if lines else ""
        return RunResult(
            model=spec,
            task=task.name,
            repeat=repeat,
            passed=False,
            reason=HARNESS_ERROR,
            detail=mask(f"Ray: {type(exc).__name__}: {why}"),
            bench_id=self._bench_id,
        )

    def _save_transcripts(self, files: dict[str, bytes]) -> None:
        self._transcripts.mkdir(parents=True, exist_ok=True)
        for name, data in files.items():
            if "/" in name or name.startswith("."):
                continue
            text = mask(data.decode("utf-8", "replace"))
            (self._transcripts / name).write_text(text, encoding="utf-8")

    @contextlib.asynccontextmanager
    async def limit(self, provider: str) -> AsyncIterator[None]:
        """A provider's share, counted by its named actor on the cluster. The actor goes with
        the bench that made it; if that bench ends first, the next call makes it again."""
        actor: Any = None
        for attempt in range(3):
            actor = self._actors.get(provider)
            if actor is None:
                named = _limit_actor(self._ray).options(
                    name=f"limit-{provider}", namespace=NAMESPACE, get_if_exists=True
                )
                at_once = 1 if plan_provider(provider) else self._per_provider
                actor = self._actors[provider] = named.remote(at_once)
            try:
                await actor.acquire.remote()
                break
            except self._ray.exceptions.RayActorError:
                self._actors.pop(provider, None)
                if attempt == 2:
                    raise
        try:
            yield
        finally:
            actor.release.remote()


_ACTOR: Any = None


def _limit_actor(ray: Any) -> Any:
    """The actor class counting one provider's runs in flight (made once per process)."""
    global _ACTOR
    if _ACTOR is None:

        class ProviderLimit:
            def __init__(self, size: int) -> None:
                self._size = size
                self._sem: asyncio.Semaphore | None = None

            async def acquire(self) -> None:
                if self._sem is None:
                    self._sem = asyncio.Semaphore(self._size)
                await self._sem.acquire()

            async def release(self) -> None:
                if self._sem is not None:
                    self._sem.release()

        _ACTOR = ray.remote(num_cpus=0)(ProviderLimit)
    return _ACTOR


PROBE_SECONDS = 5.0


def _probe(address: str) -> None:
    """A one-line error when nothing answers at ``HOST:PORT`` (or ``ray://HOST:PORT``); other
    forms (``auto``) are left to Ray."""
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not (sep and host and port.isdigit()):
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=PROBE_SECONDS).close()
    except OSError as e:
        why = e.strerror or type(e).__name__
        raise ConfigError(f"--ray: cannot reach a Ray cluster at {address}: {why}") from None


@contextlib.contextmanager
def connect(address: str | None, *, num_cpus: int | None = None) -> Iterator[Any]:
    """Ray, connected: to ``address`` (or ``RAY_ADDRESS``), else to a local cluster started for
    the bench with this machine's CPUs (node address 127.0.0.1; Ray's token authentication
    keeps others out, docs/security.md; its files private to this user, :func:`_private`).
    A connection made here is closed after; one already open (a test's cluster) is used as
    it is."""
    ray = import_ray()
    address = address or os.environ.get("RAY_ADDRESS") or None
    if address:
        _probe(address)  # Ray itself retries an address nothing listens on for minutes
    if ray.is_initialized():
        yield ray
        return
    quiet: dict[str, Any] = {
        "namespace": NAMESPACE,
        "logging_level": logging.ERROR,
        "log_to_driver": False,
    }
    with contextlib.ExitStack() as stack:
        try:
            if address:
                ray.init(address=address, **quiet)
            else:
                folder = stack.enter_context(_private())
                old = os.umask(0o077)  # what Ray writes as it starts: its token among them
                try:
                    ray.init(
                        num_cpus=num_cpus or os.cpu_count() or 1,
                        include_dashboard=False,
                        _node_ip_address="127.0.0.1",
                        _temp_dir=folder,
                        **quiet,
                    )
                finally:
                    os.umask(old)
                _private_token()
        except (ConnectionError, RuntimeError, ValueError) as e:
            where = address or "a local cluster"
            first = (str(e).strip().splitlines() or [type(e).__name__])[0]
            raise ConfigError(f"--ray: cannot connect to {where}: {mask(first)}") from None
        try:
            yield ray
        finally:
            ray.shutdown()


#: Where Ray's own token is when nothing says otherwise (Ray 2.5x-2.6x: ``~/.ray/auth_token``).
RAY_TOKEN = Path("~/.ray/auth_token")


@contextlib.contextmanager
def _private() -> Iterator[str]:
    """A folder for a local cluster's files (sockets, logs, spilled objects) inside one that only
    this user can enter, instead of Ray's shared ``/tmp/ray``. Ray makes its folder 0777
    whatever it is given, so the 0700 is the parent's. Removed after."""
    # Ray's own choice of parent, so its socket paths stay short: RAY_TMPDIR, TMPDIR, /tmp
    parent = os.environ.get("RAY_TMPDIR") or ("/tmp" if sys.platform == "darwin" else None)
    folder = tempfile.mkdtemp(prefix="larik-ray-", dir=parent)  # 0700
    try:
        yield os.path.join(folder, "ray")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _private_token() -> None:
    """Ray's token file (``RAY_TOKEN``), if others may read it (Ray writes it 0644): 0600. Not
    one named by ``RAY_AUTH_TOKEN_PATH``: a file the user placed is the user's business."""
    if os.environ.get("RAY_AUTH_TOKEN_PATH"):
        return
    token = RAY_TOKEN.expanduser()
    try:
        st = token.lstat()
        if stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid() and st.st_mode & 0o077:
            token.chmod(0o600)
    except OSError:
        pass
