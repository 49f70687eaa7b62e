"""``larik acp`` in a folder far wider than a project (issue 42 item 3): an editor opened on
``~`` or ``/`` gets no session there — print mode's refusal, saying how to work there all the
same (``larik acp --trust-project``) — and the trust question offers the safe answer first.
A real subprocess, raw JSON-RPC (tests/acp/raw.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .client import script
from .raw import Raw

WRITE_BASHRC = "write_file"


def _bashrc_model(tmp_path: Path, home: Path) -> str:
    call = {"name": "write_file", "input": {"path": str(home / ".bashrc"), "content": "pwned\n"}}
    return script(tmp_path / "m.json", {"tool_calls": [call]}, {"text": "done"})


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "users" / "me"
    home.mkdir(parents=True)
    (home / ".bashrc").write_text("# mine\n")
    return home


def _where(where: str, home: Path) -> Path:
    return {"/": Path("/"), "home": home, "parent": home.parent}[where]


@pytest.mark.parametrize("where", ["/", "home", "parent"])
def test_a_session_in_a_folder_wider_than_a_project_is_refused_saying_how_to_allow_it(
    project, tmp_path, where
):
    home = _home(tmp_path)
    cwd = _where(where, home)
    model = _bashrc_model(tmp_path, home)
    with Raw(
        project, "-m", model, "--permission-mode", "edits", extra_env={"HOME": str(home)}
    ) as raw:
        raw.send(
            Raw.request(1, "initialize", {"protocolVersion": 1}),
            Raw.request(2, "session/new", {"cwd": str(cwd), "mcpServers": []}),
        )
        answer = raw.answer(2)
        sid = answer.get("result", {}).get("sessionId", "none")
        prompt = [{"type": "text", "text": "tidy my shell"}]
        raw.send(Raw.request(3, "session/prompt", {"sessionId": sid, "prompt": prompt}))
        raw.answer(3)
        assert raw.close() == 0
        raw.assert_clean([1, 2, 3])
    assert (home / ".bashrc").read_text() == "# mine\n"
    error = answer["error"]
    assert error["code"] == -32602
    assert error["message"].startswith(f"larik: {cwd.resolve()} is ")
    assert "larik acp --trust-project" in error["message"]
    assert "\n" not in error["message"]


@pytest.mark.parametrize("method", ["session/load", "session/resume", "session/fork"])
def test_loading_resuming_or_forking_there_is_refused_too(project, tmp_path, method):
    home = _home(tmp_path)
    params = {"cwd": str(home), "sessionId": "20260101-000000-abcdef", "mcpServers": []}
    with Raw(project, extra_env={"HOME": str(home)}) as raw:
        raw.send(
            Raw.request(1, "initialize", {"protocolVersion": 1}),
            Raw.request(2, method, params),
        )
        error = raw.answer(2)["error"]
        assert raw.close() == 0
    assert "larik acp --trust-project" in error["message"]


def test_with_trust_project_the_home_folder_is_worked_in_as_asked(project, tmp_path):
    home = _home(tmp_path)
    model = script(tmp_path / "m.json", {"text": "hello"})
    with Raw(project, "-m", model, "--trust-project", extra_env={"HOME": str(home)}) as raw:
        raw.send(
            Raw.request(1, "initialize", {"protocolVersion": 1}),
            Raw.request(2, "session/new", {"cwd": str(home), "mcpServers": []}),
        )
        assert "sessionId" in raw.answer(2)["result"]
        assert raw.close() == 0


def test_the_trust_question_offers_the_safe_answer_first_and_enter_does_not_trust(
    project, tmp_path
):
    (project / ".larik").mkdir()
    (project / ".larik" / "config.toml").write_text(
        '[permissions]\nmode = "yolo"\nallow = ["bash: *"]\n'
    )
    call = {"name": "bash", "input": {"command": "echo ran > ran.txt"}}
    model = script(tmp_path / "m.json", {"tool_calls": [call]}, {"text": "done"})
    with Raw(project, "-m", model) as raw:
        firsts: list[Any] = []

        def enter(message: dict[str, Any]) -> dict[str, Any]:
            """Enter on the trust question (its highlighted first option); no to a call."""
            options = message["params"]["options"]
            firsts.append(options[0])
            if len(firsts) > 1:
                no = next(o for o in options if o["kind"] == "reject_once")
                return {"outcome": "selected", "optionId": no["optionId"]}
            return {"outcome": "selected", "optionId": options[0]["optionId"]}

        raw.pick = enter
        raw.send(
            Raw.request(1, "initialize", {"protocolVersion": 1}),
            Raw.request(2, "session/new", {"cwd": str(project), "mcpServers": []}),
        )
        sid = raw.answer(2)["result"]["sessionId"]
        prompt = [{"type": "text", "text": "go"}]
        raw.send(Raw.request(3, "session/prompt", {"sessionId": sid, "prompt": prompt}))
        raw.answer(3)
        assert raw.close() == 0
    assert firsts[0]["kind"].startswith("reject") and firsts[0]["name"] == "Not now"
    assert len(firsts) == 2  # not trusted: neither yolo nor `bash: *`, so bash was asked about
    assert not (project / "ran.txt").exists()
