"""/lsp in the TUI (issue 28): the language servers, as ``larik lsp`` lists them. The real
server's run, its card and its last diagnostics: tests/lsp/test_faces.py."""

from __future__ import annotations

from larik.lsp.session import LspSession, status_text

from .conftest import ready, screen_text, send, wait_for


async def test_slash_lsp_lists_what_larik_lsp_does_and_starts_nothing(harness, tmp_path):
    app = harness.app([])
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "/lsp")
        await wait_for(pilot, lambda: "language servers (docs/lsp.md)" in screen_text(app))
        shown = " ".join(screen_text(app).split())  # a long line wraps on the screen
        expected = status_text(LspSession(app.config, app.chat.session.cwd).status())
        assert " ".join(expected.split()) in shown
        assert "rust-analyzer" in expected and "clangd" in expected
        assert "running" not in expected  # nothing was started to answer
