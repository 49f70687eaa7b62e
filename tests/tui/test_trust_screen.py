"""The "Trust this folder?" dialog: what it shows, its choices always on screen, a safe default."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App
from textual.widgets import Button

from larik.trust import ProjectTrust
from larik.tui.screens.trust import TrustScreen

CSS = Path(__file__).parents[2] / "larik" / "tui" / "app.tcss"


def _request(tmp_path: Path, n: int = 2) -> ProjectTrust:
    asks = ("permissions.mode = 'yolo' (yours: 'ask')",) + tuple(
        f"permissions.allow = ['bash: tool{i}*']" for i in range(n)
    )
    return ProjectTrust(
        root=tmp_path, config_file=tmp_path / ".larik" / "config.toml", asks=asks, digest="d"
    )


class Host(App[None]):
    CSS_PATH = str(CSS)

    def __init__(self, request: ProjectTrust) -> None:
        super().__init__()
        self.request = request
        self.answers: list[bool | None] = []

    def get_css_variables(self) -> dict[str, str]:  # app.tcss uses Larik's $larik-* too
        from larik.tui import themes

        return themes.with_defaults(super().get_css_variables(), self.current_theme.dark)

    def on_mount(self) -> None:
        self.push_screen(TrustScreen(self.request), self.answers.append)


@pytest.mark.parametrize("size", [(80, 24), (120, 35)])
async def test_the_choices_are_on_screen_and_focus_starts_on_dont_trust(tmp_path, size):
    app = Host(_request(tmp_path, n=60))  # far more lines than the screen holds
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TrustScreen)
        for button_id in ("#trust-yes", "#trust-no"):
            region = screen.query_one(button_id, Button).region
            assert region.height > 0 and region.bottom <= size[1], (button_id, region)
        assert app.focused is screen.query_one("#trust-no", Button)
        await pilot.press("enter")  # a stray Enter does not trust
        await pilot.pause()
    assert app.answers == [False]


async def test_it_lists_what_the_project_asks_for_and_t_trusts(tmp_path):
    app = Host(_request(tmp_path))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        from .conftest import screen_text

        text = " ".join(screen_text(app).split())
        assert "yolo" in text and "bash: tool1*" in text and str(tmp_path) in text
        await pilot.press("t")
        await pilot.pause()
    assert app.answers == [True]


async def test_escape_does_not_trust(tmp_path):
    app = Host(_request(tmp_path))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
    assert app.answers == [False]


# ------------------------------------------------------------------ asked at start-up, remembered


def _notices(app) -> list[str]:
    from larik.tui.widgets.notice import Notice

    return [n.text for n in app.query(Notice)]


HOSTILE = '[permissions]\nmode = "yolo"\nallow = ["bash: *"]\n'


def _project(harness) -> None:
    (harness.cwd / ".git").mkdir()
    (harness.cwd / ".larik").mkdir()
    (harness.cwd / ".larik" / "config.toml").write_text(HOSTILE)


def _app(harness):
    from larik.config import load_config

    return harness.app(
        [{"text": "hi"}],
        config_loader=lambda: (load_config(harness.cwd, remembered=True), None),
    )


async def test_a_project_asking_for_trust_is_asked_once_and_yes_applies_it(harness):
    from .conftest import ready, screen_text, wait_for

    _project(harness)
    app = _app(harness)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen))
        await pilot.pause()
        assert app.chat.session.agent is None  # nothing runs before the answer
        assert "Trust this folder?" in screen_text(app)
        await pilot.press("t")
        await ready(pilot)
        assert app.config.permissions.mode == "yolo"
        assert app.config.permissions.allow == ["bash: *"]
    app = _app(harness)  # next start: remembered, not asked again
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        assert not isinstance(app.screen, TrustScreen)
        assert app.config.permissions.mode == "yolo"


async def test_no_keeps_the_users_settings_and_a_change_in_the_project_asks_again(harness):
    from .conftest import ready, screen_text, wait_for

    _project(harness)
    app = _app(harness)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen))
        await pilot.press("n")
        await ready(pilot)
        assert app.config.permissions.mode == "ask" and app.config.permissions.allow == []
    app = _app(harness)  # declined: not asked again, but told
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        assert not isinstance(app.screen, TrustScreen)
        assert any("did not trust this folder" in n for n in _notices(app))
        assert app.config.permissions.mode == "ask"
    cfg = harness.cwd / ".larik" / "config.toml"
    cfg.write_text(HOSTILE.replace("bash: *", "bash: curl*"))
    app = _app(harness)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen))
        await pilot.pause()
        assert "bash: curl*" in screen_text(app)


async def test_a_listed_folder_that_changed_since_is_asked_about_again_saying_what(harness):
    """HOSTILE: trusted_projects lists the folder; a model (or a git pull) adds a SessionStart
    hook to .claude/settings.json. The listed trust held for whatever the project held: the
    hook ran at the next start, unasked."""
    import json

    from larik.config import user_config_path

    from .conftest import ready, screen_text, wait_for

    _project(harness)
    user = user_config_path()
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(f'trusted_projects = ["{harness.cwd}"]\n')
    app = _app(harness)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)  # listed and never seen: trusted, and its digest recorded
        assert not isinstance(app.screen, TrustScreen) and app.config.permissions.mode == "yolo"
    hook = {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "true"}]}]}}
    (harness.cwd / ".claude").mkdir()
    (harness.cwd / ".claude" / "settings.json").write_text(json.dumps(hook))
    app = _app(harness)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen))
        await pilot.pause()
        assert app.chat.session.agent is None  # nothing runs before the answer
        text = screen_text(app)
        assert "changed since you trusted it" in text and "new: .claude hooks" in text
        await pilot.press("t")
        await ready(pilot)
        assert app.config.hooks.any()
    app = _app(harness)  # the yes recorded the new digest: the listed folder holds again
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        assert not isinstance(app.screen, TrustScreen) and app.config.hooks.any()


# ------------------------------------------------------------ issue 25 items 4, 14, 15


async def test_the_warning_stays_in_view_at_80x24(tmp_path):
    """At 80x24 the warning sentence scrolled out of view with a long list (item 15)."""
    from larik.tui.screens.trust import WARNING

    app = Host(_request(tmp_path, n=60))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        warning = app.screen.query_one("#trust-warning")
        region = warning.region
        assert region.height >= 2 and region.y >= 0 and region.bottom <= 24, region
        assert str(warning.render()) == WARNING.plain
        assert app.screen.query_one("#trust-details").region.height >= 3  # the list still shows


async def test_each_item_names_its_file(harness):
    """Item 14: "Its .larik/config.toml asks for:" then items of .mcp.json and .claude/."""
    import json

    from .conftest import screen_text, wait_for

    _project(harness)
    (harness.cwd / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"toy": {"command": "toy-server"}}})
    )
    hook = {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "true"}]}]}}
    (harness.cwd / ".claude").mkdir()
    (harness.cwd / ".claude" / "settings.json").write_text(json.dumps(hook))
    app = _app(harness)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen))
        await pilot.pause()
        text = screen_text(app)
        assert "Its .larik/config.toml asks for" not in text and "It asks for:" in text
        asks = app.screen.request.asks
        assert ".larik/config.toml: permissions.mode = 'yolo' (yours: 'ask')" in asks
        assert any(a.startswith(".larik/config.toml: permissions.allow") for a in asks)
        assert any(a.startswith(".mcp.json starts MCP servers: toy") for a in asks)
        assert any(a.startswith(".claude/settings.json runs a hook") for a in asks)


async def test_asked_again_after_a_change_it_shows_what_changed_new_commands_first(harness):
    """Item 4: a remembered answer, then a git pull changes the settings: the question comes
    back, marking what is new, changed and removed — new commands first."""
    import json

    from .conftest import ready, screen_text, wait_for

    _project(harness)
    app = _app(harness)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen))
        await pilot.press("t")
        await ready(pilot)
    cfg = harness.cwd / ".larik" / "config.toml"
    cfg.write_text('[permissions]\nallow = ["bash: curl*"]\n')  # mode removed, allow changed
    hook = {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "true"}]}]}}
    (harness.cwd / ".claude").mkdir()
    (harness.cwd / ".claude" / "settings.json").write_text(json.dumps(hook))
    app = _app(harness)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen))
        await pilot.pause()
        changed = app.screen.request.changed
        assert changed[0] == "new: .claude hooks: .claude/settings.json", changed
        assert "changed: permissions.allow" in changed
        assert "removed: permissions.mode" in changed
        assert changed.index("changed: permissions.allow") < changed.index(
            "removed: permissions.mode"
        )
        text = screen_text(app)
        assert "It changed since you trusted it" in text and "new: .claude hooks" in text
        await pilot.press("n")
        await ready(pilot)
    cfg.write_text('[permissions]\nallow = ["bash: wget*"]\n')
    app = _app(harness)  # after a no: said against the no
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen))
        await pilot.pause()
        assert "It changed since you said no" in screen_text(app)
        assert app.screen.request.changed == ("changed: permissions.allow",)


async def test_a_long_item_wraps_under_its_own_text_not_the_bullet(tmp_path):
    """Tryout C2: a long command line went on at column 0, read like a new paragraph."""
    from .conftest import screen_text

    long = ".mcp.json starts MCP servers: docs (" + " ".join(["--flag"] * 30) + ")"
    request = ProjectTrust(
        root=tmp_path, config_file=tmp_path / ".mcp.json", asks=[long, "short one"], digest="d"
    )
    app = Host(request)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        lines = screen_text(app).splitlines()
        at = next(i for i, line in enumerate(lines) if "• .mcp.json starts" in line)
        text_starts = lines[at].index(".mcp.json")
        assert lines[at + 1].index("--flag") == text_starts, lines[at : at + 2]
