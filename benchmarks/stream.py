"""Streaming cost per text delta: Larik's provider adapters against their SDKs and raw httpx2.

    .venv/bin/python benchmarks/stream.py                  # 20,000 deltas, 3 rounds, all adapters
    .venv/bin/python benchmarks/stream.py --rounds 5 --deltas 5000 --only anthropic,ollama
    .venv/bin/python benchmarks/stream.py --profile openai-compat   # cProfile of Larik's path

For each adapter, one reply of N text deltas is served from a loopback server in another process
(so its CPU is not counted) and read to the end by each variant, alternating variants within
every round (the order rotates from round to round):

* ``larik``: the adapter's ``stream()`` to its ``done`` event (the assembled Message).
* ``sdk``: the same SDK's own stream iteration, to its final message where it has one.
* ``raw``: httpx2 ``aiter_lines`` + ``json.loads`` of the same body, picking out the text.

CPU time is ``time.process_time()`` of this process per reply, divided by N. Time to first
event (TTFE) is wall time from the call to the first text delta (warm client, new connection).
Then, unless ``--no-cold``, the cold TTFE of Larik's path: a new process that imports the
adapter (and so its SDK), builds the client and reads the first delta of a short reply.
No key and no network other than 127.0.0.1. Bodies: benchmarks/_bodies.py.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import io
import json
import pstats
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _bodies import anthropic_body, chat_body, gemini_body, ollama_body, pieces, responses_body
from _common import BodyServer, TableRow, machine_lines, print_table, stat

KEY = "bench-key-not-a-secret"
PROMPT = "Write a long story."
WARM = 200  # deltas in the warm-up reply
TARGET = 1.25  # Larik's CPU per delta / the SDK's

# -- variants ---------------------------------------------------------------------------------

# A variant: async (base_url) -> (text deltas seen, perf_counter at the first one, final text)
Run = Callable[[str], Awaitable[tuple[int, float, str]]]


def _larik_request(model: str) -> Any:
    from larik.llm.types import Message, Request

    return Request(model=model, messages=[Message.user(PROMPT)], max_tokens=32000)


def larik_variant(make: Callable[[str], Any], model: str) -> Callable[[], Run]:
    """Larik's adapter: stream() to the done event; the provider (and its client) is kept."""

    def build() -> Run:
        from larik.llm.types import EventType

        providers: dict[str, Any] = {}
        request = _larik_request(model)
        text_delta = EventType.TEXT_DELTA
        done = EventType.DONE

        async def run(base: str) -> tuple[int, float, str]:
            provider = providers.get(base)
            if provider is None:
                provider = providers[base] = make(base)
            n, first, final = 0, 0.0, ""
            async for ev in provider.stream(request):
                if ev.type is text_delta:
                    if not n:
                        first = time.perf_counter()
                    n += 1
                elif ev.type is done:
                    final = ev.message.text()
            return n, first, final

        return run

    return build


def _per_base(factory: Callable[[str], Any]) -> Callable[[str], Any]:
    cache: dict[str, Any] = {}

    def get(base: str) -> Any:
        if base not in cache:
            cache[base] = factory(base)
        return cache[base]

    return get


# anthropic ------------------------------------------------------------------------------------


def anthropic_larik(base: str) -> Any:
    from larik.llm.endpoint import Endpoint
    from larik.llm.providers.anthropic import AnthropicProvider

    return AnthropicProvider(Endpoint("anthropic", "anthropic", base, KEY), thinking=False)


def anthropic_sdk() -> Run:
    import anthropic

    client = _per_base(lambda b: anthropic.AsyncAnthropic(api_key=KEY, base_url=b, max_retries=0))

    async def run(base: str) -> tuple[int, float, str]:
        n, first = 0, 0.0
        async with client(base).messages.stream(
            model="claude-sonnet-4-6",
            max_tokens=32000,
            messages=[{"role": "user", "content": PROMPT}],
        ) as stream:
            async for _text in stream.text_stream:
                if not n:
                    first = time.perf_counter()
                n += 1
            final = await stream.get_final_message()
        return n, first, final.content[0].text

    return run


# openai responses -----------------------------------------------------------------------------


def responses_larik(base: str) -> Any:
    from larik.llm.endpoint import Endpoint
    from larik.llm.providers.openai_responses import OpenAIResponsesProvider

    return OpenAIResponsesProvider(Endpoint("openai", "openai", base + "/v1", KEY))


def responses_sdk() -> Run:
    import openai

    client = _per_base(lambda b: openai.AsyncOpenAI(api_key=KEY, base_url=b + "/v1", max_retries=0))

    async def run(base: str) -> tuple[int, float, str]:
        n, first = 0, 0.0
        async with client(base).responses.stream(model="gpt-5", input=PROMPT) as stream:
            async for ev in stream:
                if ev.type == "response.output_text.delta":
                    if not n:
                        first = time.perf_counter()
                    n += 1
            final = await stream.get_final_response()
        return n, first, final.output_text

    return run


# openai-compatible (chat completions) ---------------------------------------------------------


def compat_larik(base: str) -> Any:
    from larik.llm.endpoint import Endpoint
    from larik.llm.providers.openai_compat import OpenAICompatProvider

    return OpenAICompatProvider(Endpoint("bench-compat", "openai-compatible", base + "/v1", KEY))


def _chat_client() -> Callable[[str], Any]:
    import openai

    return _per_base(lambda b: openai.AsyncOpenAI(api_key=KEY, base_url=b + "/v1", max_retries=0))


def chat_sdk() -> Run:
    """``chat.completions.create(stream=True)``: the SDK's chunk stream."""
    client = _chat_client()

    async def run(base: str) -> tuple[int, float, str]:
        n, first, parts = 0, 0.0, []
        stream = await client(base).chat.completions.create(
            model="gpt-4o",
            messages=[{"role": "user", "content": PROMPT}],
            stream=True,
            stream_options={"include_usage": True},
        )
        async with stream:
            async for chunk in stream:
                if chunk.choices:
                    content = chunk.choices[0].delta.content
                    if content:
                        if not n:
                            first = time.perf_counter()
                        n += 1
                        parts.append(content)
        return n, first, "".join(parts)

    return run


def chat_sdk_helper() -> Run:
    """``chat.completions.stream(...)``: the SDK helper, which also accumulates the message."""
    client = _chat_client()

    async def run(base: str) -> tuple[int, float, str]:
        n, first = 0, 0.0
        async with client(base).chat.completions.stream(
            model="gpt-4o",
            messages=[{"role": "user", "content": PROMPT}],
            stream_options={"include_usage": True},
        ) as stream:
            async for ev in stream:
                if ev.type == "content.delta" and ev.delta:
                    if not n:
                        first = time.perf_counter()
                    n += 1
            final = await stream.get_final_completion()
        return n, first, final.choices[0].message.content or ""

    return run


# gemini ---------------------------------------------------------------------------------------


def gemini_larik(base: str) -> Any:
    from larik.llm.endpoint import Endpoint
    from larik.llm.providers.gemini import GeminiProvider

    return GeminiProvider(Endpoint("gemini", "gemini", base, KEY))


def gemini_sdk() -> Run:
    from google import genai
    from google.genai import types

    client = _per_base(
        lambda b: genai.Client(
            api_key=KEY,
            http_options=types.HttpOptions(
                base_url=b, retry_options=types.HttpRetryOptions(attempts=1)
            ),
        )
    )

    async def run(base: str) -> tuple[int, float, str]:
        n, first, parts = 0, 0.0, []
        chunks = await client(base).aio.models.generate_content_stream(
            model="gemini-2.5-flash", contents=PROMPT
        )
        async for chunk in chunks:
            text = chunk.text
            if text:
                if not n:
                    first = time.perf_counter()
                n += 1
                parts.append(text)
        return n, first, "".join(parts)

    return run


# ollama ---------------------------------------------------------------------------------------


def ollama_larik(base: str) -> Any:
    from larik.llm.endpoint import Endpoint
    from larik.llm.providers.ollama import OllamaProvider

    return OllamaProvider(
        Endpoint("ollama", "ollama", base), num_ctx=8192
    )  # num_ctx given: no /api/show probe


# raw httpx2 line splitting --------------------------------------------------------------------


def _pick_anthropic(obj: dict[str, Any]) -> str | None:
    if obj.get("type") == "content_block_delta":
        return obj["delta"].get("text")
    return None


def _pick_responses(obj: dict[str, Any]) -> str | None:
    if obj.get("type") == "response.output_text.delta":
        return obj["delta"]
    return None


def _pick_chat(obj: dict[str, Any]) -> str | None:
    choices = obj.get("choices")
    return choices[0]["delta"].get("content") if choices else None


def _pick_gemini(obj: dict[str, Any]) -> str | None:
    cands = obj.get("candidates")
    if cands:
        parts = cands[0].get("content", {}).get("parts") or ()
        return "".join(p.get("text", "") for p in parts) or None
    return None


def _pick_ollama(obj: dict[str, Any]) -> str | None:
    msg = obj.get("message")
    return msg.get("content") if msg else None


def raw_variant(
    path: str, payload: dict[str, Any], pick: Callable, sse: bool = True
) -> Callable[[], Run]:
    def build() -> Run:
        import httpx2

        client = httpx2.AsyncClient(timeout=60.0)
        loads = json.loads

        async def run(base: str) -> tuple[int, float, str]:
            n, first, parts = 0, 0.0, []
            async with client.stream("POST", base + path, json=payload) as response:
                response.raise_for_status()
                async for line in response.aiter_lines():
                    if sse:
                        if not line.startswith("data: ") or line == "data: [DONE]":
                            continue
                        line = line[6:]
                    elif not line:
                        continue
                    text = pick(loads(line))
                    if text:
                        if not n:
                            first = time.perf_counter()
                        n += 1
                        parts.append(text)
            return n, first, "".join(parts)

        return run

    return build


# -- adapters -----------------------------------------------------------------------------------


@dataclass
class Adapter:
    name: str
    body: Callable[[list[str]], list[bytes]]
    content_type: str
    variants: dict[str, Callable[[], Run]]
    reference: str = "sdk"
    notes: str = ""
    runs: dict[str, Run] = field(default_factory=dict)


def adapters() -> list[Adapter]:
    msg = [{"role": "user", "content": PROMPT}]
    sse = "text/event-stream; charset=utf-8"
    return [
        Adapter(
            "anthropic",
            anthropic_body,
            sse,
            {
                "larik": larik_variant(anthropic_larik, "claude-sonnet-4-6"),
                "sdk": anthropic_sdk,
                "raw": raw_variant(
                    "/v1/messages", {"model": "m", "messages": msg, "stream": True}, _pick_anthropic
                ),
            },
            notes="sdk: AsyncAnthropic.messages.stream(), text_stream, get_final_message()",
        ),
        Adapter(
            "openai-responses",
            responses_body,
            sse,
            {
                "larik": larik_variant(responses_larik, "gpt-5"),
                "sdk": responses_sdk,
                "raw": raw_variant(
                    "/v1/responses",
                    {"model": "m", "input": PROMPT, "stream": True},
                    _pick_responses,
                ),
            },
            notes="sdk: AsyncOpenAI.responses.stream() events, get_final_response()",
        ),
        Adapter(
            "openai-compat",
            chat_body,
            sse,
            {
                "larik": larik_variant(compat_larik, "gpt-4o"),
                "sdk": chat_sdk,
                "sdk-helper": chat_sdk_helper,
                "raw": raw_variant(
                    "/v1/chat/completions",
                    {"model": "m", "messages": msg, "stream": True},
                    _pick_chat,
                ),
            },
            notes=(
                "sdk: chat.completions.create(stream=True) chunks; "
                "sdk-helper: chat.completions.stream() (accumulates, like the adapter)"
            ),
        ),
        Adapter(
            "gemini",
            gemini_body,
            sse,
            {
                "larik": larik_variant(gemini_larik, "gemini-2.5-flash"),
                "sdk": gemini_sdk,
                "raw": raw_variant(
                    "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
                    {"contents": [{"role": "user", "parts": [{"text": PROMPT}]}]},
                    _pick_gemini,
                ),
            },
            notes="sdk: google-genai client.aio.models.generate_content_stream(), chunk.text",
        ),
        Adapter(
            "ollama",
            ollama_body,
            "application/x-ndjson",
            {
                "larik": larik_variant(ollama_larik, "llama3"),
                "raw": raw_variant(
                    "/api/chat",
                    {"model": "llama3", "messages": msg, "stream": True},
                    _pick_ollama,
                    sse=False,
                ),
            },
            reference="raw",
            notes="no SDK: raw httpx2 NDJSON line splitting is the reference",
        ),
    ]


# -- measuring ----------------------------------------------------------------------------------


@dataclass
class Sample:
    cpu_per_delta: list[float] = field(default_factory=list)  # seconds
    ttfe: list[float] = field(default_factory=list)  # seconds
    wall: list[float] = field(default_factory=list)  # seconds


async def measure(
    run: Run, base: str, n: int, expect: str, label: str = ""
) -> tuple[float, float, float]:
    gc.collect()
    cpu0 = time.process_time()
    t0 = time.perf_counter()
    got, first, final = await run(base)
    wall = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    if got != n or final != expect:
        raise SystemExit(
            f"{label}: saw {got} text deltas (expected {n}) or a different final text "
            f"({len(final)} vs {len(expect)} characters)"
        )
    return cpu / n, first - t0, wall


async def bench(
    chosen: list[Adapter], n: int, rounds: int, cold: bool
) -> tuple[dict[tuple[str, str], Sample], dict[str, list[float]]]:
    texts, warm = pieces(n), pieces(WARM)
    full, warm_full = "".join(texts), "".join(warm)
    bodies: dict[str, tuple[str, list[bytes]]] = {}
    for a in chosen:
        bodies[a.name] = (a.content_type, a.body(texts))
        bodies[a.name + "-warm"] = (a.content_type, a.body(warm))
    results: dict[tuple[str, str], Sample] = {}
    with BodyServer(bodies) as server:
        for a in chosen:  # build clients and warm up (imports, first connection)
            for vname, build in a.variants.items():
                a.runs[vname] = build()
                await measure(
                    a.runs[vname],
                    server.base(a.name + "-warm"),
                    WARM,
                    warm_full,
                    f"{a.name}/{vname}",
                )
                results[(a.name, vname)] = Sample()
        jobs = [(a, v) for a in chosen for v in a.variants]
        for r in range(rounds):
            shift = r % len(jobs)
            for a, vname in jobs[shift:] + jobs[:shift]:
                cpu, ttfe, wall = await measure(
                    a.runs[vname], server.base(a.name), n, full, f"{a.name}/{vname}"
                )
                s = results[(a.name, vname)]
                s.cpu_per_delta.append(cpu)
                s.ttfe.append(ttfe)
                s.wall.append(wall)
            print(f"  round {r + 1}/{rounds} done", file=sys.stderr)
        colds: dict[str, list[float]] = {a.name: [] for a in chosen} if cold else {}
        for _ in range(rounds if cold else 0):
            for a in chosen:
                colds[a.name].append(cold_ttfe(a.name, server.base(a.name + "-warm")))
    return results, colds


def cold_ttfe(name: str, base: str) -> float:
    """Time to first event in a new process: adapter and SDK imports, client, request."""
    out = subprocess.run(
        [sys.executable, __file__, "--cold-child", name, base],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(out.stdout.split("COLD ", 1)[1].split()[0])


def cold_child(adapter: Adapter, base: str) -> None:
    t0 = time.perf_counter()
    run = adapter.variants["larik"]()
    got, first, _ = asyncio.run(run(base))
    if got != WARM:
        raise SystemExit(f"{adapter.name}: saw {got} text deltas, expected {WARM}")
    print(f"COLD {first - t0:.6f}")


def report(
    chosen: list[Adapter],
    results: dict[tuple[str, str], Sample],
    colds: dict[str, list[float]],
    n: int,
    rounds: int,
) -> None:
    rows: list[TableRow] = []
    verdicts: list[str] = []
    for a in chosen:
        ref = stat(results[(a.name, a.reference)].cpu_per_delta).median
        raw = stat(results[(a.name, "raw")].cpu_per_delta).median
        for i, vname in enumerate(a.variants):
            s = results[(a.name, vname)]
            cpu, ttfe, wall = stat(s.cpu_per_delta), stat(s.ttfe), stat(s.wall)
            ratio = cpu.median / ref
            rows.append(
                TableRow(
                    [
                        a.name if i == 0 else "",
                        vname + (" (ref)" if vname == a.reference else ""),
                        f"{cpu.median * 1e6:.1f}",
                        f"{cpu.low * 1e6:.1f}–{cpu.high * 1e6:.1f}",
                        f"{ratio:.2f}×",
                        f"{cpu.median / raw:.2f}×",
                        f"{ttfe.median * 1e3:.1f}",
                        f"{wall.median:.2f}",
                    ],
                    rule_before=bool(rows) and i == 0,
                )
            )
            if vname == "larik":
                ok = "meets" if ratio <= TARGET else "MISSES"
                verdicts.append(
                    f"{a.name}: larik is {ratio:.2f}× its reference ({a.reference}) "
                    f"-> {ok} the ≤ {TARGET}× target"
                )
    print()
    print(
        f"stream: {n:,} text deltas per reply, {rounds} rounds (CPU = process_time of the client)"
    )
    for line in machine_lines(
        ("larik", "anthropic", "openai", "google-genai", "httpx2", "pydantic")
    ):
        print(line)
    print()
    print_table(
        ["adapter", "variant", "µs/delta", "min–max", "× ref", "× raw", "TTFE ms", "wall s"], rows
    )
    print()
    for a in chosen:
        print(f"{a.name}: {a.notes}")
    print()
    for v in verdicts:
        print(v)
    if colds:
        print()
        print("Cold time to first event (new process; Larik's adapter and its SDK imported, the")
        print("client built, the request sent, the first text delta read):")
        print()
        print_table(
            ["adapter", "cold TTFE ms", "min–max ms"],
            [
                TableRow(
                    [
                        name,
                        f"{stat(v).median * 1e3:.0f}",
                        f"{stat(v).low * 1e3:.0f}–{stat(v).high * 1e3:.0f}",
                    ]
                )
                for name, v in colds.items()
            ],
        )


async def profile(a: Adapter, n: int, top: int) -> None:
    texts = pieces(n)
    full = "".join(texts)
    with BodyServer({a.name: (a.content_type, a.body(texts))}) as server:
        run = a.variants["larik"]()
        await measure(run, server.base(a.name), n, full)  # warm
        prof = cProfile.Profile()
        prof.enable()
        await measure(run, server.base(a.name), n, full)
        prof.disable()
    buf = io.StringIO()
    stats = pstats.Stats(prof, stream=buf)
    stats.sort_stats("tottime").print_stats(top)
    print(f"cProfile of larik/{a.name}, {n:,} deltas, sorted by own time (tottime):")
    print(buf.getvalue())
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(top)
    print("... and by cumulative time:")
    print(buf.getvalue())


def main() -> None:
    all_adapters = adapters()
    names = [a.name for a in all_adapters]
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=3, help="measured rounds (default 3)")
    p.add_argument(
        "--deltas", type=int, default=20_000, help="text deltas per reply (default 20000)"
    )
    p.add_argument("--only", default="", help=f"comma-separated adapters: {','.join(names)}")
    p.add_argument("--profile", default="", metavar="ADAPTER", help="cProfile Larik's path instead")
    p.add_argument("--top", type=int, default=30, help="rows of profile output (default 30)")
    p.add_argument("--no-cold", action="store_true", help="skip the cold time-to-first-event runs")
    p.add_argument("--cold-child", nargs=2, metavar=("ADAPTER", "URL"), help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.cold_child:
        name, base = args.cold_child
        cold_child(next(a for a in all_adapters if a.name == name), base)
        return
    wanted = [w for w in args.only.split(",") if w] or names
    unknown = set(wanted) - set(names) | ({args.profile} - set(names) - {""})
    if unknown:
        p.error(f"unknown adapter(s): {', '.join(sorted(unknown))}; choose from {', '.join(names)}")
    if args.rounds < 1 or args.deltas < 1:
        p.error("--rounds and --deltas must be at least 1")
    if args.profile:
        adapter = next(a for a in all_adapters if a.name == args.profile)
        asyncio.run(profile(adapter, args.deltas, args.top))
        return
    chosen = [a for a in all_adapters if a.name in wanted]
    results, colds = asyncio.run(bench(chosen, args.deltas, args.rounds, not args.no_cold))
    report(chosen, results, colds, args.deltas, args.rounds)


if __name__ == "__main__":
    main()
