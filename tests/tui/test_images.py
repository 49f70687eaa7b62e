"""An image is not attached for a model known not to take images (issue 19 item 2)."""

from __future__ import annotations

from .conftest import ready, screen_text, send, turn_done, wait_for
from .test_input import PNG


async def test_an_image_is_not_attached_for_a_model_that_does_not_take_images(harness):
    (harness.cwd / "logo.png").write_bytes(PNG)
    app = harness.app([{"text": "I cannot see images."}])
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        harness.agent.accepts_images = False  # the catalog's word, or a refusal earlier on
        await send(pilot, "what is in @logo.png?")
        await turn_done(pilot)
        blocks = harness.provider.requests[0].messages[-1].blocks
        assert all(b.type != "image" for b in blocks)
        await wait_for(pilot, lambda: "does not take images" in screen_text(app))
        assert "@logo.png: scripted/model-a does not take images, not attached" in " ".join(
            screen_text(app).split()
        )


async def test_an_image_is_attached_when_the_model_may_take_it(harness):
    (harness.cwd / "logo.png").write_bytes(PNG)
    app = harness.app([{"text": "A logo."}])
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "what is in @logo.png?")
        await turn_done(pilot)
        blocks = harness.provider.requests[0].messages[-1].blocks
        assert blocks[-1].type == "image"
