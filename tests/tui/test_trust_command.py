"""``/trust`` (issue 25 item 3): what the folder asks for and why, who trusts it, and the way
back from a "Don't trust" — yes, no, forget — through the same functions as ``larik trust``
(larik/session/trust.py), so the TUI and the command line cannot disagree."""

from __future__ import annotations

from larik import trust
from larik.config import state_dir, user_config_path
from larik.session import trust as session_trust
from larik.tui.screens.trust import TrustScreen

from .conftest import ready, send, wait_for

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


def _notices(app) -> list[str]:
    from larik.tui.widgets.notice import Notice

    return [n.text for n in app.query(Notice)]


async def _said(pilot, app, before: int) -> str:
    await wait_for(pilot, lambda: len(_notices(app)) > before)
    return _notices(app)[-1]


async def test_slash_trust_shows_what_is_gated_and_takes_back_a_dont_trust(harness):
    _project(harness)
    app = _app(harness)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen))
        await pilot.press("n")  # "Don't trust": remembered
        await ready(pilot)
        n = len(_notices(app))
        await send(pilot, "/trust")
        shown = await _said(pilot, app, n)
        # what /trust shows is what larik trust shows, with /trust's own spelling
        st = session_trust.load(harness.cwd)
        assert shown == "\n".join(session_trust.report(st, "/trust"))
        assert "permissions.allow = ['bash: *']" in shown and "loosen safety" in shown
        assert "you said no" in shown and "/trust yes" in shown
        n = len(_notices(app))
        await send(pilot, "/trust yes")
        said = await _said(pilot, app, n)
        assert said.startswith(f"Trusted {harness.cwd.resolve()} as it is now, in the TUI")
        assert "next start" in said
        assert app.config.permissions.mode != "yolo"  # this session goes on as it started
    assert trust.recorded(state_dir(), harness.cwd.resolve())["trusted"] is True
    app = _app(harness)  # the next start: trusted, not asked
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert not isinstance(app.screen, TrustScreen)
        assert app.config.permissions.mode == "yolo"
        n = len(_notices(app))
        await send(pilot, "/trust forget")
        assert "Forgot the answer" in await _said(pilot, app, n)
    app = _app(harness)  # forgotten: asked again
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen))


async def test_slash_trust_no_untrusts_and_yes_in_config_lists_the_folder(harness):
    _project(harness)
    app = _app(harness)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen))
        await pilot.press("t")
        await ready(pilot)
        n = len(_notices(app))
        await send(pilot, "/trust yes --in-config")
        assert "print mode and bench" in await _said(pilot, app, n)
        assert str(harness.cwd.resolve()) in user_config_path().read_text()
        n = len(_notices(app))
        await send(pilot, "/trust no")
        said = await _said(pilot, app, n)
        assert said.startswith("Not trusted") and "removed from trusted_projects" in said
        assert str(harness.cwd.resolve()) not in user_config_path().read_text()
        n = len(_notices(app))
        await send(pilot, "/trust maybe")
        assert "use /trust, /trust yes" in await _said(pilot, app, n)
    assert trust.recorded(state_dir(), harness.cwd.resolve())["trusted"] is False


async def test_slash_trust_in_a_folder_that_asks_for_nothing(harness):
    app = _app(harness)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        n = len(_notices(app))
        await send(pilot, "/trust")
        assert "ask for nothing that needs trust" in await _said(pilot, app, n)
