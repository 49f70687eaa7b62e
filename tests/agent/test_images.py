"""An image sent to a model that cannot take images does not poison the session (issue 19
item 2): the refusal is not retried, the request goes again without the image, later turns
leave it out, the transcript keeps it; a model the catalog knows is text-only never gets one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from larik.agent import Agent
from larik.agent.images import not_sent_note, without_images
from larik.agent.transcript import load_transcript
from larik.config import Config
from larik.llm.errors import APIError, unsupported_input
from larik.llm.retry import RetryingProvider
from larik.llm.types import Block, Message
from tests.llm.providers.kits.openai_compat import Kit
from tests.loopback import Reply

from .conftest import E, Roles

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
# what llama.cpp's server says when it has no vision projector loaded
REFUSAL = Reply(
    status=500,
    body=json.dumps(
        {
            "error": {
                "code": 500,
                "message": "image input is not supported - hint: if this is "
                "unexpected, you may need to provide the mmproj",
                "type": "server_error",
            }
        }
    ),
    content_type="application/json",
)


def image_prompt() -> list[Block]:
    return [
        Block.text_block("what is in @logo.png?"),
        Block.text_block("Image logo.png:"),
        Block.image("image/png", PNG),
    ]


def has_image(body: dict) -> bool:
    return "image_url" in json.dumps(body)


@pytest.mark.parametrize(
    "message",
    [
        "image input is not supported - hint: you may need to provide the mmproj",
        "Model does not support images. Please use a model that does.",
        "Qwen/Qwen3-8B is not a multimodal model",
        "Invalid content type. image_url is only supported by certain models.",
        "No endpoints found that support image input",
    ],
)
def test_errors_that_name_images_are_recognised_and_never_retryable(message):
    err = APIError(500, message)
    assert err.unsupported == "image" and not err.retryable


@pytest.mark.parametrize(
    "message", ["internal server error", "this model does not support tools", "overloaded"]
)
def test_other_errors_are_not_taken_for_an_image_refusal(message):
    assert unsupported_input(message) == "" and APIError(500, message).retryable


async def test_a_refusal_naming_images_is_not_retried():
    class Refusing:
        name = "box"
        calls = 0

        async def stream(self, request):
            Refusing.calls += 1
            raise APIError(500, "image input is not supported")
            yield  # pragma: no cover

    slept: list[float] = []

    async def sleep(s: float) -> None:
        slept.append(s)

    with pytest.raises(APIError):
        async for _ in RetryingProvider(Refusing(), sleep=sleep).stream(None):  # type: ignore[arg-type]
            pass
    assert Refusing.calls == 1 and slept == []


def test_without_images_replaces_prompt_and_tool_result_images_and_keeps_the_rest():
    msgs = [
        Message(role="user", blocks=image_prompt()),
        Message(
            role="user",
            blocks=[
                Block.tool_result("t1", "read logo.png", images=[Block.image("image/png", PNG)])
            ],
        ),
        Message.user("plain"),
    ]
    out = without_images(msgs, "llamacpp/text")
    assert [b.type for b in out[0].blocks] == ["text", "text", "text"]
    assert out[0].blocks[2].text == not_sent_note("llamacpp/text")
    assert out[1].blocks[0].images == [] and "not sent" in out[1].blocks[0].content
    assert out[2] is msgs[2]
    assert msgs[0].blocks[2].type == "image"  # the originals are untouched


async def test_a_local_text_model_refusing_an_image_does_not_poison_the_session(
    tmp_path: Path, loopback
):
    project = tmp_path / "proj"
    project.mkdir()
    loopback.route("/props", Reply(status=404, body="{}", content_type="application/json"))
    loopback.route("/v1/models", Reply(status=404, body="{}", content_type="application/json"))
    kit = Kit()
    from larik.llm.types import Usage

    ok = kit.text_reply(["A ", "logo."], Usage(input=5, output=2))
    loopback.add(REFUSAL, ok, kit.text_reply(["Fine."], Usage(input=5, output=1)))
    config = Config(
        providers={"llamacpp": {"base_url": f"{loopback.url}/v1"}},
    )
    agent = await Agent.create(cwd=project, config=config, model="llamacpp/text-model")
    assert agent.accepts_images is None  # not in the catalog, and the server does not say
    events = [ev async for ev in agent.run_turn(image_prompt())]
    chats = [r.json() for r in loopback.requests if r.path.endswith("/chat/completions")]
    assert len(chats) == 2, "the refusal was retried"
    assert has_image(chats[0]) and not has_image(chats[1])
    assert not_sent_note("llamacpp/text-model") in json.dumps(chats[1])
    assert events[-1].type is E.TURN_END and events[-1].text == "A logo."
    assert any("does not take images" in ev.text for ev in events if ev.type is E.NOTICE)
    assert agent.accepts_images is False
    events = [ev async for ev in agent.run_turn("and now?")]
    chats = [r.json() for r in loopback.requests if r.path.endswith("/chat/completions")]
    assert len(chats) == 3 and not has_image(chats[2])
    assert events[-1].type is E.TURN_END and events[-1].text == "Fine."
    await agent.close()
    kept = load_transcript(agent.transcript_path).messages
    assert any(b.type == "image" for m in kept for b in m.blocks)  # the transcript keeps it


async def test_a_text_only_catalog_model_never_gets_the_image(project):
    from larik.llm.providers.scripted import ScriptedProvider

    provider = ScriptedProvider([{"text": "ok"}])
    roles = Roles(provider)
    config = Config(models={"scripted/m": {"vision": False}})
    agent = await Agent.create(cwd=project, config=config, resolver=roles)
    assert agent.accepts_images is False
    _ = [ev async for ev in agent.run_turn(image_prompt())]
    sent = provider.requests[0].messages[-1].blocks
    assert [b.type for b in sent] == ["text", "text", "text"]
    assert agent.messages[-2].blocks[2].type == "image"
