"""A file attached to a prompt is one fact (larik/session/attachments.py): the TUI's ``@path``
and an editor's mention of the same file (an ACP resource link) give the model the same
blocks, and refuse the same files with the same line."""

from __future__ import annotations

import base64
from pathlib import Path

import acp
import pytest

from larik.acp.content import convert
from larik.session.attachments import MAX_TEXT, build_prompt

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAcCBlCwAAAABJRU5ErkJggg=="
)


@pytest.mark.parametrize(
    "name, content",
    [
        ("notes.py", b"x = 1\n"),
        ("pic.png", PNG),
        ("blob.bin", b"\0\1\2" * 10),
        ("big.txt", b"a" * (MAX_TEXT + 1)),
    ],
    ids=["text", "image", "binary", "too-big"],
)
def test_the_tui_and_an_editor_attach_a_file_the_same_way(tmp_path: Path, name, content):
    (tmp_path / name).write_bytes(content)
    typed = build_prompt(f"look at @{name}", tmp_path)
    mentioned = convert(
        [acp.text_block("look at"), acp.resource_link_block(name, (tmp_path / name).as_uri())],
        tmp_path,
    )
    assert [b.model_dump() for b in typed.blocks[1:]] == [
        b.model_dump() for b in mentioned.blocks[1:]
    ]
    assert typed.problems == mentioned.problems
    if name == "notes.py":
        assert mentioned.blocks[1].text == '<file path="notes.py">\nx = 1\n\n</file>'
    if name in ("blob.bin", "big.txt"):
        assert len(mentioned.blocks) == 1 and len(mentioned.problems) == 1


def test_a_typed_path_under_a_deny_rule_is_not_attached(tmp_path: Path):
    """As an editor's mention: a ``read_file`` deny rule keeps the file from the model."""
    (tmp_path / ".env").write_text("KEY=secret\n")
    (tmp_path / "ok.txt").write_text("fine\n")

    def denied(tool: str, path: Path) -> bool:
        return tool == "read_file" and path.name == ".env"

    got = build_prompt("look at @.env and @ok.txt", tmp_path, denied=denied)
    assert got.files == ["ok.txt"]
    assert got.problems == ["@.env: a permissions.deny rule covers it, not attached"]
    assert "secret" not in " ".join(b.text for b in got.blocks)
