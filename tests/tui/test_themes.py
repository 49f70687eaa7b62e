"""Themes (issue 26 item 1): /theme with a live preview, Larik's two and Textual's, a theme of
your own in [tui.themes], auto, NO_COLOR, diffs and code in the theme's colours."""

from __future__ import annotations

import tomllib

import pytest
from rich.color import Color as RichColor

from larik.config import Config, ConfigError, load_config, user_config_path
from larik.tui import looks, render
from larik.tui.screens.theme_picker import ThemeScreen
from larik.tui.widgets.tool_card import ToolCard

from .conftest import ready, screen_text, send, turn_done, wait_for

DIFF = "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
EDIT = {"name": "edit_file", "input": {"path": "app.py", "diff": DIFF}, "id": "call_1"}


def colour_of(widget, text: str) -> str:
    """The colour (#rrggbb) the first segment holding ``text`` is drawn in."""
    for strip in widget._lines_view():
        for seg in strip:
            if text in seg.text and seg.style is not None and seg.style.color is not None:
                return seg.style.color.get_truecolor().hex
    raise AssertionError(f"{text!r} not drawn in colour")


def near(a: str, b: str) -> bool:
    """Two colours within rounding of each other (Textual's colour maths rounds a unit)."""
    ta, tb = RichColor.parse(a).get_truecolor(), RichColor.parse(b).get_truecolor()
    return all(abs(x - y) <= 2 for x, y in zip(ta, tb, strict=True))


def saved_tui() -> dict:
    return tomllib.loads(user_config_path().read_text()).get("tui", {})


async def test_slash_theme_shows_each_theme_as_you_move_and_esc_goes_back(harness):
    app = harness.app([{"text": "hello"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "/theme")
        await wait_for(pilot, lambda: isinstance(app.screen, ThemeScreen))
        assert app.theme == "larik-dark"
        assert "larik-light" in screen_text(app) and "catppuccin-latte" in screen_text(app)
        await pilot.press("down")
        await wait_for(pilot, lambda: app.theme == "larik-light")  # shown before it is kept
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.theme == "larik-dark")
        assert "theme: larik-dark (unchanged)" in screen_text(app)
        assert not user_config_path().exists()


async def test_slash_theme_enter_keeps_the_theme_and_saves_it_for_the_next_start(harness):
    app = harness.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "/theme")
        await wait_for(pilot, lambda: isinstance(app.screen, ThemeScreen))
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: "theme: larik-light" in screen_text(app))
        assert app.theme == "larik-light" and saved_tui() == {"theme": "larik-light"}
        assert load_config(harness.cwd).tui.theme == "larik-light"


async def test_slash_theme_name_takes_textuals_theme_and_its_colours_reach_larik_parts(harness):
    app = harness.app([{"tool_calls": [EDIT]}, {"text": "done"}], config=Config())
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "set x")
        await wait_for(pilot, lambda: app.screen is not app.chat)
        await pilot.press("y")
        await turn_done(pilot)
        card = app.query_one(ToolCard)
        card.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert near(colour_of(card, "+x = 2"), "#6BCB77")  # larik-dark's
        await send(pilot, "/theme nord")
        await wait_for(pilot, lambda: "theme: nord" in screen_text(app))
        nord = app.get_theme("nord")
        await wait_for(pilot, lambda: near(colour_of(card, "+x = 2"), nord.success))
        assert near(colour_of(card, "-x = 1"), nord.error)  # the theme's, drawn again
        assert app.theme_variables["larik-status-background"] == app.theme_variables["panel"]
        await send(pilot, "/theme nrod")
        await wait_for(
            pilot, lambda: "unknown theme 'nrod' (did you mean 'nord'?)" in screen_text(app)
        )
        assert app.theme == "nord"


async def test_a_theme_of_your_own_colours_diffs_cards_the_status_line_and_code(harness):
    config = Config.model_validate(
        {
            "tui": {
                "theme": "mine",
                "themes": {
                    "mine": {
                        "base": "larik-light",
                        "diff_added": "#112233",
                        "status_background": "#445566",
                        "tool_border": "#778899",
                        "code": "solarized-light",
                    }
                },
            }
        }
    )
    app = harness.app([{"tool_calls": [EDIT]}, {"text": "```python\nx = 2\n```"}], config=config)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        assert app.theme == "mine" and not app.current_theme.dark  # larik-light's
        assert app.chat.status.styles.background.hex == "#445566"
        assert render.PALETTE[0].code == "solarized-light"
        await send(pilot, "set x")
        await wait_for(pilot, lambda: app.screen is not app.chat)
        await pilot.press("y")
        await turn_done(pilot)
        card = app.query_one(ToolCard)
        card.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert near(colour_of(card, "+x = 2"), "#112233")
        assert near(colour_of(card, "-x = 1"), "#CF222E")  # the base's
        assert card.styles.border_left[1].hex.startswith("#778899")


def test_a_bad_colour_in_a_theme_is_one_line_naming_the_key(tmp_path):
    user_config_path().parent.mkdir(parents=True, exist_ok=True)
    user_config_path().write_text('[tui.themes.mine]\nprimary = "rgb(1,2"\n')
    with pytest.raises(ConfigError, match=r"tui\.themes\.mine\.primary: .*not a colour"):
        load_config(tmp_path)


async def test_an_unknown_theme_in_the_config_is_a_warning_and_the_default_stays(harness):
    config = Config.model_validate({"tui": {"theme": "gruvbx"}})
    app = harness.app([], config=config)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: "did you mean 'gruvbox'" in screen_text(app))
        assert "config: tui.theme: unknown theme 'gruvbx'" in screen_text(app)
        assert app.theme == "larik-dark"


@pytest.mark.parametrize(
    ("colorfgbg", "theme"),
    [
        ("0;15", "larik-light"),
        ("15;0", "larik-dark"),
        ("15;default;0", "larik-dark"),
        ("", "larik-dark"),
    ],
)
async def test_auto_follows_the_terminals_background(harness, monkeypatch, colorfgbg, theme):
    monkeypatch.setenv("COLORFGBG", colorfgbg)
    app = harness.app([], config=Config.model_validate({"tui": {"theme": "auto"}}))
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: app.theme == theme)
        assert app.prefs.theme_name == "auto"


async def test_no_color_draws_every_theme_in_shades_of_grey(harness, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = harness.app([{"tool_calls": [EDIT]}, {"text": "done"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "set x")
        await wait_for(pilot, lambda: app.screen is not app.chat)
        await pilot.press("y")
        await turn_done(pilot)
        await send(pilot, "/theme larik-light")
        await wait_for(pilot, lambda: "NO_COLOR is set" in screen_text(app))
        update = app.screen._compositor.render_update(full=True)
        seen = 0
        for strip in (s for line in update.strips for s in line):
            for f in app._filters:
                strip = strip.apply_filter(f, app.styles.background)
            for seg in strip:
                for c in (seg.style.color, seg.style.bgcolor) if seg.style else ():
                    if c is not None and not c.is_default:
                        r, g, b = c.get_truecolor()
                        assert r == g == b, (seg.text, c)
                        seen += 1
        assert seen


def test_a_projects_config_may_not_set_the_tui(tmp_path):
    project = tmp_path / "repo"
    (project / ".larik").mkdir(parents=True)
    (project / ".larik" / "config.toml").write_text('[tui]\ntheme = "hidden"\n')
    with pytest.raises(ConfigError, match="tui: only allowed in the user config"):
        load_config(project)


def test_colorfgbg_reads_as_the_terminal_sets_it():
    assert looks.background_is_dark({"COLORFGBG": "0;15"}) is False
    assert looks.background_is_dark({"COLORFGBG": "15;0"}) is True
    assert looks.background_is_dark({"COLORFGBG": "12;8"}) is True
    assert looks.background_is_dark({}) is None
