"""Hostile clients of ``larik acp`` (issue 42 item 7): every request gets exactly one answer
and every line of stdout is JSON, whatever the client sends — storms of ``session/cancel``,
prompts, loads and closes interleaved at random, ids no double holds. A real subprocess, raw
lines in, every line out parsed by a strict parser (tests/acp/raw.py)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from .client import script
from .raw import Raw, key

SLOW = {"text": "word " * 2000, "delay": 0.05}  # streams for minutes unless cancelled
QUICK = {"text": "quick"}


def _start(raw: Raw, project: Path) -> str:
    raw.send(
        Raw.request(1, "initialize", {"protocolVersion": 1}),
        Raw.request(2, "session/new", {"cwd": str(project), "mcpServers": []}),
    )
    return raw.answer(2)["result"]["sessionId"]


def _prompt(id_: Any, sid: str, text: str) -> dict[str, Any]:
    return Raw.request(id_, "session/prompt", {"sessionId": sid, "prompt": [_text(text)]})


def _text(text: str) -> dict[str, str]:
    return {"type": "text", "text": text}


def _cancel(sid: str) -> dict[str, Any]:
    return Raw.note("session/cancel", {"sessionId": sid})


@pytest.mark.parametrize("storm", [30, 200])
def test_a_storm_of_cancels_mid_turn_never_loses_the_prompts_answer(project, tmp_path, storm):
    rounds = 3
    model = script(tmp_path / "m.json", *[SLOW] * rounds, QUICK)
    with Raw(project, "-m", model) as raw:
        sid = _start(raw, project)
        for n in range(rounds):
            raw.send(_prompt(100 + n, sid, f"round {n}"))
            seen = len(raw.text(sid))
            raw.until(lambda s=seen: len(raw.text(sid)) > s, "the turn to stream")
            raw.send(*[_cancel(sid)] * storm)
            assert raw.answer(100 + n)["result"]["stopReason"] == "cancelled"
        raw.send(_prompt(200, sid, "after the storms"))
        assert raw.answer(200)["result"]["stopReason"] == "end_turn"
        assert raw.close() == 0
        raw.assert_clean([1, 2, 100, 101, 102, 200])


def test_a_prompt_and_its_cancels_in_one_burst_get_one_answer(project, tmp_path):
    model = script(tmp_path / "m.json", *[SLOW] * 5)
    with Raw(project, "-m", model) as raw:
        sid = _start(raw, project)
        ids = []
        for n in range(5):
            raw.send(_prompt(10 + n, sid, f"burst {n}"), *[_cancel(sid)] * 50)
            ids.append(10 + n)
            assert raw.answer(10 + n)["result"]["stopReason"] == "cancelled"
        assert raw.close() == 0
        raw.assert_clean([1, 2, *ids])


#: ids a client may send that JSON-RPC allows (each echoed exactly)
GOOD_IDS = ['"a"', '""', "0", "-1", "1.5", "-0.0", "1e3", str(10**30), '"\\u2028x"', '"\\udcff"']
#: ids and numbers that are no JSON a reply could echo: answered "id": null, never echoed
BAD_IDS = ["1e400", "-1e400", "NaN", "Infinity", "-Infinity", "true", '{"a": 1}', "[1]"]


def _initialize_with_id(raw_id: str) -> bytes:
    return (
        f'{{"jsonrpc":"2.0","id":{raw_id},"method":"initialize","params":{{"protocolVersion":1}}}}\n'
    ).encode()


def test_every_id_is_echoed_as_sent_or_answered_with_null_never_as_invalid_json(project):
    with Raw(project) as raw:
        raw.write(b"".join(_initialize_with_id(i) for i in GOOD_IDS + BAD_IDS))
        raw.write(
            b'{"jsonrpc":"2.0","id":"x","method":"initialize","params":{"protocolVersion":1e999}}\n'
        )
        raw.send(Raw.request("end", "initialize", {"protocolVersion": 1}))
        raw.answer("end")
        sent = [json.loads(i) for i in GOOD_IDS]
        raw.assert_clean(sent + ["end"])
        for i in sent:
            assert "result" in raw.answers[key(i)][0], i
        nulls = raw.answers[key(None)]
        assert len(nulls) == len(BAD_IDS) + 1  # the 1e999 inside the params too
        assert all(m["error"]["code"] in (-32700, -32600) for m in nulls)
        assert key("x") not in raw.answers
        assert raw.close() == 0
        assert "Traceback" not in raw.stderr()


#: what a hostile client does at random, over two sessions
OPS = ("prompt", "cancel", "cancels", "load", "resume", "close", "mode", "list", "new", "fork")


def _op(rng: random.Random, op: str, id_: Any, sid: str, project: Path) -> list[dict[str, Any]]:
    at = {"sessionId": sid, "cwd": str(project), "mcpServers": []}
    if op == "prompt":
        return [_prompt(id_, sid, "go")]
    if op == "cancel":
        return [_cancel(sid)]
    if op == "cancels":
        return [_cancel(sid)] * rng.randint(30, 120)
    if op == "mode":
        return [Raw.request(id_, "session/set_mode", {"sessionId": sid, "modeId": "plan"})]
    if op == "list":
        return [Raw.request(id_, "session/list", {"cwd": str(project)})]
    if op == "new":
        return [Raw.request(id_, "session/new", {"cwd": str(project), "mcpServers": []})]
    method = {"load": "session/load", "resume": "session/resume"}.get(op, f"session/{op}")
    if op == "close":
        return [Raw.request(id_, method, {"sessionId": sid})]
    return [Raw.request(id_, method, at)]


@pytest.mark.parametrize("seed", range(4))
def test_random_interleavings_of_prompt_cancel_load_and_close_answer_each_request_once(
    project, tmp_path, seed
):
    rng = random.Random(seed)
    turns = [rng.choice([SLOW, QUICK, {"text": "mid " * 40, "delay": 0.01}]) for _ in range(60)]
    model = script(tmp_path / "m.json", *turns)
    with Raw(project, "-m", model) as raw:
        first = _start(raw, project)
        raw.send(_prompt(3, first, "make a transcript"), _cancel(first))
        raw.answer(3)
        sids, sent = [first], [1, 2, 3]
        for n in range(60):
            id_ = rng.choice([f"r{n}", 1000 + n, 10**20 + n, -n - 1, n + 0.5])
            op = rng.choice(OPS)
            burst = _op(rng, op, id_, rng.choice(sids), project)
            raw.send(*burst)
            if any("id" in m for m in burst):
                sent.append(id_)
            if op in ("new", "fork") and rng.random() < 0.5:
                result = raw.answer(id_).get("result") or {}
                sids.append(result.get("sessionId") or first)
        for id_ in sent:  # every one answered, at last (slow turns cancelled on the way)
            raw.until(
                lambda i=id_: raw.answers.get(key(i)) or raw.send(*[_cancel(s) for s in sids]),
                f"the answer to {id_!r}",
            )
        assert raw.close() == 0
        raw.assert_clean(sent)
        assert "Traceback" not in raw.stderr()


def test_a_models_arguments_with_nan_reach_the_editor_as_json(project, tmp_path):
    call = {"name": "read_file", "input": '{"path": "a.txt", "n": NaN, "m": 1e400}'}
    (project / "a.txt").write_text("hello\n")
    model = script(tmp_path / "m.json", {"tool_calls": [call]}, {"text": "done"})
    with Raw(project, "-m", model) as raw:
        sid = _start(raw, project)
        raw.send(_prompt(3, sid, "read it"))
        assert raw.answer(3)["result"]["stopReason"] == "end_turn"
        assert raw.close() == 0
        raw.assert_clean([1, 2, 3])


class _Pipe:
    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> None:
        self.data += data

    async def drain(self) -> None:
        pass

    def close(self) -> None:
        pass


async def test_an_answer_with_no_json_text_becomes_an_error_answer_and_is_sent_once():
    import asyncio

    from larik.acp.wire import Frames, NotSent

    pipe = _Pipe()
    frames = Frames(asyncio.StreamReader(), pipe)
    await frames.parse(b'{"jsonrpc":"2.0","id":7,"method":"session/list","params":{}}')
    await frames.send({"jsonrpc": "2.0", "id": 7, "result": {"cost": float("nan")}})
    await frames.send({"jsonrpc": "2.0", "id": 7, "result": {}})  # a second answer: not sent
    with pytest.raises(NotSent, match="session/update"):
        await frames.send({"jsonrpc": "2.0", "method": "session/update", "params": [object()]})
    [line] = pipe.data.splitlines()
    answer = json.loads(line)
    assert answer["id"] == 7 and answer["error"]["code"] == -32603
    assert "no JSON text" in answer["error"]["data"]["details"]
