"""A signed-in plan's usage windows on the Session, so every face shows the same figures
(issue 27): the real agent on the chatgpt kind, its backend faked on loopback."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator

import pytest

from larik.config import Config
from larik.llm.signin import quota as quotas
from larik.session import Session, SessionEvent, SessionEventType, SessionOptions
from tests.llm.providers.kits.chatgpt import sign_in
from tests.llm.providers.kits.openai_responses import Stream

WINDOWS = {
    "x-codex-primary-used-percent": "37.4",
    "x-codex-primary-window-minutes": "300",
    "x-codex-primary-reset-after-seconds": "3600",
    "x-codex-secondary-used-percent": "12",
    "x-codex-secondary-window-minutes": "10080",
    "x-codex-secondary-reset-after-seconds": "86400",
    "x-codex-plan-type": "plus",
}


@pytest.fixture(autouse=True)
def _fresh_quota() -> Iterator[None]:
    quotas.forget()
    yield
    quotas.forget()


def _backend(loopback, monkeypatch, *replies: Stream) -> None:
    sign_in("chatgpt", token="plan-access-token")
    monkeypatch.setenv("LARIK_CHATGPT_BASE_URL", f"{loopback.url}/backend-api/codex")
    for reply in replies:
        loopback.add(reply)
        loopback._queue[-1].headers.update(WINDOWS)


def _reply(text: str) -> Stream:
    return Stream().created().message([text]).completed()


async def test_the_session_holds_the_plans_windows_and_says_when_they_change(
    project, loopback, monkeypatch
):
    _backend(loopback, monkeypatch, _reply("one"), _reply("two"))
    session = Session(project, Config(), SessionOptions(model="chatgpt/gpt-5.5"))
    await session.start()
    assert session.status.plan == "" and session.settings.plan_usage == {}
    stream = session.events(agent_events=False)
    await session.send("hi").run()
    assert session.status.plan == "plus 5h 37% · wk 12%"
    assert set(session.settings.plan_usage) == {"chatgpt"}
    assert session.settings.plan_usage["chatgpt"].window("wk").used_percent == 12
    changed = [e.text for e in stream.drain() if e.type is SessionEventType.CHANGED]
    assert changed.count("plan") == 1
    await session.send("again").run()  # new figures, a new CHANGED
    assert [e.text for e in stream.drain() if isinstance(e, SessionEvent)].count("plan") == 1
    await session.close()


async def test_a_keyed_session_shows_no_plan_even_when_another_plan_was_seen(project, tmp_path):
    from .faces import script

    quotas.record("chatgpt", quotas.from_headers(WINDOWS))  # type: ignore[arg-type]
    session = Session(project, Config(), SessionOptions(model=script(tmp_path / "m.json")))
    await session.start()
    await session.send("hi").run()
    assert session.status.plan == "" and session.settings.plan_usage == {}
    await session.close()


def test_print_modes_json_result_carries_the_plans_windows(project, loopback, monkeypatch):
    from larik.printmode import PrintOptions, run_print

    _backend(loopback, monkeypatch, _reply("done"))
    monkeypatch.chdir(project)
    out, err = io.StringIO(), io.StringIO()
    code = run_print(
        PrintOptions(prompt="hi", cwd=project, model="chatgpt/gpt-5.5", output_format="json"),
        stdout=out,
        stderr=err,
    )
    assert code == 0, err.getvalue()
    result = json.loads(out.getvalue().strip().splitlines()[-1])
    plan = result["plan_usage"]["chatgpt"]
    assert plan["plan"] == "plus"
    assert [(w["window"], round(w["used_percent"])) for w in plan["windows"]] == [
        ("5h", 37),
        ("wk", 12),
    ]
    assert "plan-access-token" not in out.getvalue() + err.getvalue()
