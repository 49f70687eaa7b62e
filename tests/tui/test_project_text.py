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
