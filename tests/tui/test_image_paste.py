"""Pasting an image into the prompt: Ctrl+V with an image on the clipboard, or a pasted (dropped)
image path, is a chip that goes with the prompt; the @path rules hold (issue 26 item 7)."""

from __future__ import annotations

import base64
import os
from pathlib import Path

from textual import events

from larik.session.attachments import MAX_IMAGE
from larik.tui import images
from tests.patience import WAIT

from .conftest import ready, screen_text, turn_done, wait_for
from .test_input import PNG


def flat(app) -> str:
    return " ".join(screen_text(app).split())


def paste(app, text: str) -> None:
    """What the terminal sends for a paste (or a drop): to the app, which gives it to the
    focused widget."""
    app.chat.prompt.focus()
    app.post_message(events.Paste(text))


def fake_tool(bindir: Path, name: str, body: str) -> None:
    bindir.mkdir(exist_ok=True)
    script = bindir / name
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(0o755)


def bin_beside(project: Path) -> Path:
    """A folder for fake programs beside the project, not in it: Larik runs no program it
    finds inside the project (larik/host_programs.py)."""
    return project.parent / f"{project.name}-bin"


def only_on_path(monkeypatch, bindir: Path, *, wayland: bool = True) -> None:
    bindir.mkdir(exist_ok=True)
    monkeypatch.setenv("PATH", str(bindir))
    monkeypatch.delenv("DISPLAY", raising=False)
    if wayland:
        monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    else:
        monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
        monkeypatch.setenv("DISPLAY", ":0")


def image_blocks(harness):
    return [b for b in harness.provider.requests[0].messages[-1].blocks if b.type == "image"]


async def test_a_dropped_image_path_is_a_chip_and_the_image_goes_with_the_prompt(harness):
    (harness.cwd / "shots").mkdir()
    (harness.cwd / "shots" / "my shot.png").write_bytes(PNG)
    app = harness.app([{"text": "A dot."}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        prompt = app.chat.prompt
        prompt.focus()
        prompt.insert("what is")
        # a terminal pastes a dropped file as its path: quoted, or as a file:// URI
        paste(app, f"'{harness.cwd / 'shots' / 'my shot.png'}'")
        await wait_for(pilot, lambda: "[Image #1: my shot.png]" in prompt.text)
        assert prompt.text == "what is [Image #1: my shot.png] "
        await pilot.press("enter")
        await turn_done(pilot)
        (image,) = image_blocks(harness)
        assert base64.b64decode(image.data) == PNG
        texts = [b.text for b in harness.provider.requests[0].messages[-1].blocks]
        assert "Image shots/my shot.png:" in texts


async def test_a_file_uri_of_an_image_is_a_chip_and_a_text_path_stays_text(harness):
    (harness.cwd / "a.png").write_bytes(PNG)
    (harness.cwd / "notes.txt").write_text("hi")
    app = harness.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        prompt = app.chat.prompt
        prompt.focus()
        paste(app, (harness.cwd / "notes.txt").as_uri())
        await pilot.pause()
        assert prompt.text == (harness.cwd / "notes.txt").as_uri()  # not an image: text
        prompt.clear()
        paste(app, "see a.png")  # words and a path: text
        await pilot.pause()
        assert prompt.text == "see a.png"
        prompt.clear()
        paste(app, (harness.cwd / "a.png").as_uri() + "\n")
        await wait_for(pilot, lambda: "[Image #1: a.png]" in prompt.text)


async def test_backspace_at_a_chip_removes_it_and_the_image_is_not_sent(harness):
    (harness.cwd / "a.png").write_bytes(PNG)
    app = harness.app([{"text": "No image."}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        prompt = app.chat.prompt
        prompt.focus()
        prompt.insert("look ")
        paste(app, str(harness.cwd / "a.png"))
        await wait_for(pilot, lambda: "[Image #1: a.png]" in prompt.text)
        await pilot.press("backspace")  # after the chip's space: the whole chip goes
        assert prompt.text == "look "
        await pilot.press("x", "enter")
        await turn_done(pilot)
        assert image_blocks(harness) == []


async def test_a_pasted_image_path_outside_the_project_or_under_a_deny_rule_is_refused(
    harness, tmp_path
):
    outside = tmp_path / "elsewhere.png"
    outside.write_bytes(PNG)
    (harness.cwd / "secret.png").write_bytes(PNG)
    (harness.cwd / "link.png").symlink_to(outside)
    app = harness.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        harness.agent.path_denied = lambda tool, path: (
            tool == "read_file" and (path.name == "secret.png")
        )
        prompt = app.chat.prompt
        prompt.focus()
        for pasted in (str(outside), "link.png", str(harness.cwd / "secret.png")):
            paste(app, pasted)
        await wait_for(pilot, lambda: "deny rule" in flat(app))
        assert f"@{outside}: outside the project, not attached" in flat(app)
        assert flat(app).count("outside the project") == 2  # the link leads outside too
        assert "@secret.png: a permissions.deny rule covers it, not attached" in flat(app)
        assert prompt.text == "" and not prompt.images.chips


async def test_a_huge_pasted_image_is_refused_by_the_size_limit(harness):
    with open(harness.cwd / "huge.png", "wb") as fh:
        fh.write(PNG)
        fh.truncate(MAX_IMAGE + 1)
    app = harness.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        paste(app, "huge.png")
        await wait_for(pilot, lambda: "larger than 5 MB" in flat(app))
        assert "@huge.png: image larger than 5 MB, not attached" in flat(app)
        assert app.chat.prompt.text == ""


async def test_a_model_that_takes_no_images_gets_the_existing_refusal(harness):
    (harness.cwd / "a.png").write_bytes(PNG)
    app = harness.app([{"text": "I cannot see."}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        prompt = app.chat.prompt
        paste(app, "a.png")
        await wait_for(pilot, lambda: "[Image #1: a.png]" in prompt.text)
        harness.agent.accepts_images = False  # learnt after the paste: refused at the send
        await pilot.press("enter")
        await turn_done(pilot)
        assert image_blocks(harness) == []
        assert "@a.png: scripted/model-a does not take images, not attached" in flat(app)
        paste(app, "a.png")  # and at the paste, from then on
        await wait_for(pilot, lambda: flat(app).count("does not take images") == 2)
        assert prompt.text == ""


async def test_ctrl_v_takes_the_clipboard_image_from_wl_paste(harness, tmp_path, monkeypatch):
    (tmp_path / "clip.png").write_bytes(PNG)
    bindir = bin_beside(tmp_path)
    fake_tool(
        bindir,
        "wl-paste",
        f'[ "$*" = "--no-newline --type image/png" ] || exit 1\n'
        f"exec /bin/cat '{tmp_path / 'clip.png'}'\n",
    )
    only_on_path(monkeypatch, bindir)
    app = harness.app([{"text": "A dot."}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        prompt = app.chat.prompt
        prompt.focus()
        await pilot.press("ctrl+v")
        await wait_for(pilot, lambda: "[Image #1: clipboard-1.png]" in prompt.text)
        await pilot.press("w", "h", "a", "t", "?", "enter")
        await turn_done(pilot)
        (image,) = image_blocks(harness)
        assert image.media_type == "image/png" and base64.b64decode(image.data) == PNG
        message = harness.provider.requests[0].messages[-1]
        assert message.blocks[0].text == "[Image #1: clipboard-1.png] what?"


async def test_ctrl_v_with_xclip_in_an_x_session(harness, tmp_path, monkeypatch):
    (tmp_path / "clip.png").write_bytes(PNG)
    bindir = bin_beside(tmp_path)
    fake_tool(bindir, "xclip", f"exec /bin/cat '{tmp_path / 'clip.png'}'\n")
    fake_tool(bindir, "wl-paste", "exit 1\n")  # no Wayland session: not tried
    only_on_path(monkeypatch, bindir, wayland=False)
    app = harness.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.chat.prompt.focus()
        await pilot.press("ctrl+v")
        await wait_for(pilot, lambda: "[Image #1: clipboard-1.png]" in app.chat.prompt.text)


async def test_a_clipboard_program_that_hangs_is_killed_at_its_timeout(
    harness, tmp_path, monkeypatch
):
    bindir = bin_beside(tmp_path)
    pids = tmp_path / "pids"
    # the program and a child of its own, both holding the output open
    fake_tool(bindir, "wl-paste", f"/bin/sleep {10 * WAIT:g} &\necho $$ $! > '{pids}'\nwait\n")
    only_on_path(monkeypatch, bindir)
    app = harness.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.chat.prompt.focus()
        timeout = 0.5
        while True:  # a timeout that ran out before the program wrote its pids: a longer one
            monkeypatch.setattr(images, "TIMEOUT", timeout)
            said = f"Ctrl+V: wl-paste gave no answer in {timeout:g} s, stopped"
            await pilot.press("ctrl+v")
            await wait_for(pilot, lambda said=said: said in flat(app))
            if pids.exists():
                break
            timeout *= 2
            assert timeout <= WAIT, "wl-paste never started"
        for pid in map(int, pids.read_text().split()):
            await wait_for(pilot, lambda pid=pid: not _alive(pid))
        assert app.chat.prompt.text == ""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie has ended
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ")[-1].split()[0] != "Z"
    except OSError:
        return False


async def test_ctrl_v_without_a_clipboard_program_or_image_says_so_in_one_line(
    harness, tmp_path, monkeypatch
):
    bindir = bin_beside(tmp_path)
    only_on_path(monkeypatch, bindir)
    app = harness.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.chat.prompt.focus()
        await pilot.press("ctrl+v")
        await wait_for(pilot, lambda: "no clipboard program" in flat(app))
        fake_tool(bindir, "wl-paste", "printf 'just text'\n")  # text: not an image
        await pilot.press("ctrl+v")
        await wait_for(pilot, lambda: "no image on the clipboard" in flat(app))
        assert "Ctrl+V: no image on the clipboard (wl-paste)" in flat(app)
        assert app.chat.prompt.text == ""
