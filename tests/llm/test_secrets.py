"""Secrets by value: every key Larik knows is masked wherever text leaves the process.

Hostile servers on loopback echo the keys they were sent — in an error body and in a reply —
in formats no pattern would catch (a Groq-style ``gsk_…`` key, a 12-character random string);
none of it reaches print mode's JSON, its stderr, or the transcript.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from larik import cli
from larik.config import sessions_dir, user_config_path
from larik.llm import secrets
from larik.llm.endpoint import remember_known
from larik.llm.errors import APIError
from larik.llm.types import Usage
from tests.llm.providers.kits import openai_compat as compat
from tests.loopback import LoopbackServer, Reply

GROQ_KEY = "gsk_live_Zq8vT1mR4pW2xY7nK3"
BOX_KEY = "Zq8vT1mR4pW2"  # 12 random characters: no pattern knows this shape


def larik(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = sys.argv, sys.stdin, sys.stdout, sys.stderr
    sys.argv, sys.stdin, sys.stdout, sys.stderr = ["larik", *argv], io.StringIO(""), out, err
    try:
        cli.main()
        code = 0
    except SystemExit as e:
        code = int(e.code or 0)
    finally:
        sys.argv, sys.stdin, sys.stdout, sys.stderr = old
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def servers():
    groq, box = LoopbackServer().start(), LoopbackServer().start()
    yield groq, box
    groq.stop()
    box.stop()


def test_keys_echoed_by_providers_reach_no_output_and_no_transcript(
    servers, tmp_path: Path, monkeypatch
):
    groq, box = servers
    # groq refuses, repeating its key; the fallback answers, repeating its own key in the text
    echo = {"error": {"message": f"key {GROQ_KEY} is not allowed here", "type": "forbidden"}}
    groq.route(
        "/v1/chat/completions", Reply(403, json.dumps(echo), content_type="application/json")
    )
    reply = compat.KIT.text_reply(
        [f"your key is {BOX_KEY}", " and ", GROQ_KEY], Usage(input=1, output=1)
    )
    box.route("/v1/chat/completions", reply)
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f'[providers.groq]\nbase_url = "{groq.url}/v1"\n'
        f'[providers.box]\ntype = "openai-compatible"\nbase_url = "{box.url}/v1"\n'
        f'api_key = "{BOX_KEY}"\n'
        '[fallbacks]\n"groq/m" = ["box/m"]\n'
    )
    monkeypatch.setenv("GROQ_API_KEY", GROQ_KEY)
    project = tmp_path / "p"
    project.mkdir()
    monkeypatch.chdir(project)

    from larik.llm.fallback import cooldowns

    code, out, err = larik("-p", "hi", "-m", "groq/m", "--output-format", "stream-json")
    cooldowns.clear()
    code2, text_out, text_err = larik("-p", "hi", "-m", "groq/m")

    assert (code, code2) == (0, 0), err + text_err
    lines = [json.loads(line) for line in out.splitlines()]
    transcripts = list(sessions_dir().rglob("*.jsonl"))
    assert len(transcripts) == 2, "both sessions were written"
    written = "".join(p.read_text() for p in transcripts)
    for key in (GROQ_KEY, BOX_KEY):
        for where in (out, err, text_out, text_err, written):
            assert key not in where
    notices = [e["text"] for e in lines if e["type"] == "notice"]
    assert any("switched to box/m" in n and "***" in n for n in notices)
    assert "switched to box/m" in text_err and "***" in text_err  # the notice, on stderr
    assert lines[-1]["text"] == "your key is *** and ***"
    assert text_out.strip() == "your key is *** and ***"
    assert groq.requests[-1].headers["authorization"] == f"Bearer {GROQ_KEY}"  # still sent


def test_every_key_larik_could_read_is_masked_once_resolve_has_run(monkeypatch):
    from larik.config import Config

    monkeypatch.setenv("MISTRAL_API_KEY", "mistral-key-0123")
    monkeypatch.setenv("WORK_KEY", "work-key-4567")
    config = Config(
        providers={
            "box": {
                "type": "openai-compatible",
                "base_url": "https://box.example/v1",
                "api_key_env": "WORK_KEY",
                "headers": {"X-Secret": "header-secret-89"},
            }
        }
    )
    remember_known(config)
    text = "mistral-key-0123 work-key-4567 header-secret-89 short"
    assert secrets.mask(text) == "*** *** *** short"


def test_a_key_with_json_escapes_is_masked_in_json_text_too():
    secrets.remember('ab"cd\\ef-1234')
    line = json.dumps({"text": 'ab"cd\\ef-1234'})
    assert "1234" not in secrets.mask(line)


def test_short_values_are_not_masked():
    secrets.remember("k", "", None, "1234567")
    assert secrets.mask("k 1234567") == "k 1234567"


def test_a_provider_error_is_masked_when_it_is_made():
    secrets.remember(GROQ_KEY)
    err = APIError(401, f"Invalid API Key: {GROQ_KEY}", provider="groq")
    assert GROQ_KEY not in str(err) and "***" in str(err)


def test_a_key_the_model_streams_in_pieces_is_masked_in_print_modes_stream_json(
    tmp_path: Path, monkeypatch
):
    """A provider streams a key in tokens: no delta holds it whole (larik/llm/masked.py)."""
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f'[providers.box]\ntype = "openai-compatible"\nbase_url = "http://127.0.0.1:9/v1"\n'
        f'api_key = "{BOX_KEY}"\n'
    )
    text = f"the key is {BOX_KEY}, and again: {BOX_KEY}."
    script = tmp_path / "m.json"
    script.write_text(json.dumps({"turns": [{"text": text}]}))
    from larik.llm.providers.scripted import PIECE

    assert PIECE < len(BOX_KEY)  # the key is streamed in more than one delta
    project = tmp_path / "p"
    project.mkdir()
    monkeypatch.chdir(project)
    code, out, err = larik("-p", "hi", "-m", f"scripted/{script}", "--output-format", "stream-json")
    assert code == 0, err
    events = [json.loads(line) for line in out.splitlines()]
    deltas = "".join(e["text"] for e in events if e["type"] == "text_delta")  # as a face joins them
    assert deltas == "the key is ***, and again: ***."
