"""The TUI's pure parts: Markdown cut points, commands, attachments, model lists, status line."""

from __future__ import annotations

import pytest

from larik.config import Config
from larik.session.attachments import build_prompt, mentions
from larik.session.port import SessionStatus
from larik.tui import resume_hint, slash
from larik.tui.attachments import complete_path
from larik.tui.local_servers import LocalModel
from larik.tui.mdsplit import finished_prefix
from larik.tui.models import (
    ModelEntry,
    format_price,
    format_window,
    fuzzy_filter,
    has_key,
    picker_entries,
)
from larik.tui.widgets.status_bar import status_text
from larik.tui.widgets.tool_card import ToolCard, key_argument
from tests.patience import WAIT


# -- where a growing Markdown text can be frozen -----------------------------------------------
@pytest.mark.parametrize(
    ("text", "frozen"),
    [
        ("one paragraph still growing", ""),
        ("para one\n\npara t", "para one\n\n"),
        ("para one\n\n", ""),  # the next block has not begun
        ("a\n\nb\n\nc", "a\n\nb\n\n"),
        ("```py\nx = 1\n\ny = 2\n", ""),  # blank line inside an open fence
        ("```py\nx = 1\n```\nafter", "```py\nx = 1\n```\n"),
        ("~~~\ncode\n~~~\n", "~~~\ncode\n~~~\n"),
        ("- item\n\n  continued", ""),  # indented: may belong to the item
        ("````\n```\nstill code\n````\nx", "````\n```\nstill code\n````\n"),
        ("text ```not a fence``` here\n\nnext", "text ```not a fence``` here\n\n"),
    ],
)
def test_only_finished_blocks_are_frozen(text, frozen):
    assert text[: finished_prefix(text)] == frozen


def test_freezing_in_pieces_gives_the_same_blocks_as_freezing_at_once():
    text = "# T\n\npara\n\n```\na\n\nb\n```\n\n- x\n- y\n\nend"
    done, tail = [], ""
    for ch in text:
        tail += ch
        cut = finished_prefix(tail)
        done.append(tail[:cut])
        tail = tail[cut:]
    assert "".join(done) + tail == text
    assert "```\na\n\nb\n```\n" in "".join(done)


# -- slash commands ------------------------------------------------------------------------
def test_a_command_line_parses_to_name_and_argument():
    assert slash.parse("/model  openai/gpt-5 ") == ("model", "openai/gpt-5")
    assert slash.parse("/HELP") == ("help", "")


@pytest.mark.parametrize("text", ["hello", "/usr/bin/env is broken", "// comment", "/ x", "/"])
def test_prompts_that_only_look_like_commands_are_not_commands(text):
    assert slash.parse(text) is None


def test_completion_matches_names_and_aliases_by_prefix():
    assert [c.name for c in slash.complete("r")] == ["routing", "resume", "rewind"]
    assert [c.name for c in slash.complete("q")] == ["exit"]
    assert slash.find("quit").name == "exit" and slash.find("nope") is None


def test_help_lists_every_command():
    text = slash.help_markdown()
    assert all(f"/{c.name}" in text for c in slash.COMMANDS)


def test_the_resume_hint_names_the_command():
    assert (
        resume_hint("20260101-abc")
        == "Session 20260101-abc saved. Resume it with: larik --resume 20260101-abc"
    )


# -- @path ---------------------------------------------------------------------------------
def test_mentions_are_at_word_starts_only():
    assert mentions("see @a.py and me@mail.com, @dir/b.txt.") == ["a.py", "dir/b.txt"]


def test_files_outside_the_project_or_missing_are_not_attached(tmp_path):
    (tmp_path / "p").mkdir()
    (tmp_path / "secret.txt").write_text("no")
    out = build_prompt("@../secret.txt @missing.py @someone", tmp_path / "p")
    assert out.files == [] and out.prompt() == "@../secret.txt @missing.py @someone"
    assert out.problems == [
        "@../secret.txt: outside the project, not attached",
        "@missing.py: no such file",
    ]


def test_binary_files_are_not_attached(tmp_path):
    (tmp_path / "x.bin").write_bytes(b"\0\1\2")
    assert build_prompt("@x.bin", tmp_path).problems == ["@x.bin: a binary file, not attached"]


def test_path_completion_lists_directories_with_a_slash_and_hides_dotfiles(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("")
    (tmp_path / ".env").write_text("")
    (tmp_path / "setup.py").write_text("")
    assert complete_path("s", tmp_path) == ["setup.py", "src/"]
    assert complete_path("src/", tmp_path) == ["src/main.py"]
    assert complete_path(".e", tmp_path) == [".env"]


# -- models --------------------------------------------------------------------------------
def test_catalog_models_are_listed_only_when_their_provider_has_a_key(monkeypatch):
    assert not [e for e in picker_entries(Config()) if e.spec.startswith("anthropic/")]
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    entries = picker_entries(Config())
    assert any(e.spec.startswith("anthropic/") and e.input_price for e in entries)
    assert has_key("anthropic", Config()) and not has_key("openai", Config())


def test_local_models_are_listed_free():
    entries = picker_entries(Config(), [LocalModel("ollama", "qwen3", "Ollama")])
    assert (
        ModelEntry("ollama/qwen3", entries[-1].window, 0.0, 0.0, "local", "Ollama") == entries[-1]
    )
    assert format_price(0.0, 0.0) == "free"


def test_fuzzy_filter_prefers_substrings_then_subsequences():
    entries = [
        ModelEntry(s) for s in ("openai/gpt-5", "anthropic/claude-sonnet-4-5", "ollama/qwen3")
    ]
    assert [e.spec for e in fuzzy_filter("sonnet", entries)] == ["anthropic/claude-sonnet-4-5"]
    assert [e.spec for e in fuzzy_filter("oq3", entries)] == ["ollama/qwen3"]
    assert len(fuzzy_filter("", entries)) == 3


def test_windows_and_prices_are_short():
    assert (format_window(200_000), format_window(1_000_000), format_window(None)) == (
        "200k",
        "1M",
        "?",
    )
    assert (format_price(3, 15), format_price(None, 1)) == ("$3/$15", "—")


# -- status line and cards -----------------------------------------------------------------
def _status() -> SessionStatus:
    from larik.agent.usage import Accounting
    from larik.llm.types import Usage

    usage = Accounting()
    usage.add("gpt-5", "main", Usage(input=12_000, output=345), 0.1234, "openai")
    return SessionStatus(
        ready=True,
        spec="openai/gpt-5",
        model="gpt-5",
        provider="openai",
        role="worker",
        effort="high",
        mode="edits",
        context_tokens=50_000,
        context_window=200_000,
        usage=usage,
    )


def test_the_status_line_shows_model_role_effort_context_tokens_cost_and_mode():
    assert status_text(_status()).plain == (
        "openai/gpt-5 (worker) · effort high · ctx 25% · 12.3k tok · $0.1234 · edits"
    )


def test_the_card_summary_is_the_calls_key_argument():
    assert key_argument({"path": "a.py", "content": "x"}) == "a.py"
    assert key_argument({"command": "pytest   -q\n-x"}) == "pytest -q -x"
    assert key_argument({"n": 3, "other": "value"}) == "value"
    assert len(key_argument({"command": "x" * 500})) == 70


REMOTE_BOX = {
    "mybox": {"type": "openai-compatible", "base_url": "https://llm.example.com/v1", "api_key": "k"}
}


def test_a_configured_remote_provider_without_listed_models_is_offered_to_type_a_model():
    entries = picker_entries(Config(providers=REMOTE_BOX))
    assert ModelEntry("mybox/", source="config", note="type the model id") in entries


def test_a_local_provider_is_offered_only_with_the_models_its_server_lists():
    config = Config(providers={"llamacpp": {"base_url": "http://127.0.0.1:8081/v1"}, **REMOTE_BOX})
    assert not [e for e in picker_entries(config) if e.spec.startswith("llamacpp/")]
    found = [LocalModel("llamacpp", "smol.gguf", "llama.cpp"), LocalModel("llamacpp", "", "x")]
    specs = [e.spec for e in picker_entries(config, found)]
    assert [s for s in specs if s.startswith("llamacpp/")] == ["llamacpp/smol.gguf"]


def test_the_sdk_to_warm_up_follows_the_providers_adapter():
    from larik.tui.warmup import sdk_modules

    assert sdk_modules("anthropic")[0] == "httpx2" and "anthropic" in sdk_modules("anthropic")
    assert "openai" in sdk_modules("groq")  # an openai-compatible preset
    assert sdk_modules("scripted") == ()
    custom = Config(providers={"box": {"type": "gemini", "base_url": "http://127.0.0.1:1/"}})
    assert "google.genai" in sdk_modules("box", custom)


def test_a_long_command_output_card_shows_its_end_and_other_results_their_start():
    output = "\n".join(f"line {i}" for i in range(1, 501))
    bash = ToolCard("bash", {"command": "make"})
    bash.finish(output, data={"exit_code": 2}, is_error=True)
    shown = bash._result_text().plain.splitlines()
    assert shown[0] == "… 300 earlier lines (Enter shows them all)"
    assert shown[-1] == "line 500" and len(shown) == 201
    read = ToolCard("read_file", {"path": "big.txt"})
    read.finish(output)
    shown = read._result_text().plain.splitlines()
    assert shown[0] == "line 1" and shown[-1] == "… 300 more lines (Enter shows them all)"


def _body_plain(card: ToolCard) -> str:
    from rich.console import Console

    console = Console(width=100, record=True, color_system=None)
    console.print(card._body_renderable())
    return console.export_text()


def test_a_card_body_does_not_repeat_the_argument_its_header_shows():
    """Tryout C1: bash's card showed its command in the header and again as {"command": …}."""
    bash = ToolCard("bash", {"command": "python3 -m pytest -q"}, summary="python3 -m pytest -q")
    bash.finish("3 passed", data={"exit_code": 0})
    body = _body_plain(bash)
    assert '"command"' not in body and "3 passed" in body
    read = ToolCard("read_file", {"path": "src/app.py", "offset": 40}, summary="src/app.py")
    read.finish("40  x = 1")
    body = _body_plain(read)
    assert '"path"' not in body and '"offset": 40' in body  # what the header does not say
    long = "echo " + "word " * 40  # the header shortens it: the body has it whole
    card = ToolCard("bash", {"command": long}, summary=long[:69] + "…")
    card.finish("ok", data={"exit_code": 0})
    assert '"command"' in _body_plain(card)


def test_a_clipboard_program_that_stays_in_the_background_is_not_waited_for(tmp_path, monkeypatch):
    """xclip forks a child that serves the selection and keeps its parent's stdout: reading
    the program's output waited for that child until the timeout, and the copy that had
    worked was reported as failed."""
    import os
    import signal

    from larik.tui import clipboard

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    xclip = bin_dir / "xclip"
    xclip.write_text(
        f"#!/bin/sh\ncat > {tmp_path}/copied\nsleep {10 * WAIT:g} &\necho $! > {tmp_path}/server\n"
        "exit 0\n"
    )
    xclip.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    try:
        # done before its timeout, and the background child outlives both: not waited for
        assert clipboard.copy_with_program("the reply", timeout=WAIT) == "xclip"
        assert (tmp_path / "copied").read_text() == "the reply"
    finally:
        if (tmp_path / "server").exists():
            os.kill(int((tmp_path / "server").read_text()), signal.SIGKILL)


def test_a_notice_wraps_a_bullet_line_under_its_text():
    """/trust's report and other notices with bullets: the rest of a long item under its text."""
    from rich.console import Console

    from larik.tui.widgets.notice import Notice

    long = "  • .mcp.json starts MCP servers: " + " ".join(["word"] * 20)
    console = Console(width=40, record=True, color_system=None)
    console.print(Notice.body_of(f"the project asks for:\n{long}\nend"))
    lines = console.export_text().splitlines()
    at = next(i for i, line in enumerate(lines) if "• .mcp.json" in line)
    assert lines[at + 1].startswith("    ") and lines[at + 1].strip().startswith("word")
    assert lines[-1] == "end" and lines[0].endswith("the project asks for:")
