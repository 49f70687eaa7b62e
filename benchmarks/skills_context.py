"""What skills cost in every request before the model uses one (issue 16, item 2).

    .venv/bin/python benchmarks/skills_context.py            # under a second
    .venv/bin/python benchmarks/skills_context.py --skills 50 --description-chars 300

Builds a real agent (``Agent.create`` on the scripted provider) in a throwaway project with 0, 1
and N skills in ``.claude/skills/`` (each SKILL.md with a long body), sends one prompt, and
reports the tokens of the request's system prompt and tool schemas: what the skills add, in
all and per skill, and what loading one skill's body costs once it is used. Tokens are Larik's
estimate, characters / 4 (``larik.agent.compaction.CHARS_PER_TOKEN``) — the same measure the
agent compacts by; no tokenizer runs offline here.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from larik.agent import Agent  # noqa: E402
from larik.agent.compaction import CHARS_PER_TOKEN  # noqa: E402
from larik.config import Config  # noqa: E402
from larik.llm.providers.scripted import ScriptedProvider  # noqa: E402
from larik.llm.types import Request  # noqa: E402
from larik.routing import Resolved  # noqa: E402

BODY_LINES = 200


def make_skills(project: Path, n: int, description_chars: int) -> None:
    base = project / ".claude" / "skills"
    for i in range(n):
        d = base / f"skill-{i:02d}"
        d.mkdir(parents=True)
        desc = (f"Skill {i}: what it does and when to use it. " * 20)[:description_chars]
        body = "\n".join(f"Step {k}: do the thing carefully." for k in range(BODY_LINES))
        (d / "SKILL.md").write_text(f"---\nname: skill-{i:02d}\ndescription: {desc}\n---\n{body}\n")


def tokens(request: Request) -> int:
    chars = sum(len(s) for s in request.system)
    chars += len(json.dumps([t.model_dump() for t in request.tools], ensure_ascii=False))
    return chars // CHARS_PER_TOKEN


async def first_request(n: int, description_chars: int, load: bool = False) -> tuple[int, int]:
    """Tokens of the first request's system + tools, and of the skill tool's result."""
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["LARIK_HOME"] = str(Path(tmp) / "home")
        os.environ["CLAUDE_CONFIG_DIR"] = str(Path(tmp) / "claude")
        project = Path(tmp) / "project"
        project.mkdir()
        make_skills(project, n, description_chars)
        turns: list[dict] = [{"text": "ok"}]
        if load:
            turns.insert(0, {"tool_calls": [{"name": "skill", "input": {"name": "skill-00"}}]})
        provider = ScriptedProvider(turns)

        def resolve(spec: str) -> Resolved:
            return Resolved(provider, "m", "scripted", None, "scripted/m")

        agent = await Agent.create(
            cwd=project,
            config=Config(),
            resolver=resolve,
            permission_mode="yolo",
            checkpoints=False,
        )
        result = 0
        try:
            async for ev in agent.run_turn("hello"):
                if ev.type.value == "tool_end":
                    result = len(ev.text) // CHARS_PER_TOKEN
        finally:
            await agent.close()
        return tokens(provider.requests[0]), result


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--skills", type=int, default=20)
    ap.add_argument("--description-chars", type=int, default=200)
    args = ap.parse_args()
    base, _ = await first_request(0, args.description_chars)
    one, _ = await first_request(1, args.description_chars)
    many, _ = await first_request(args.skills, args.description_chars)
    _, body = await first_request(1, args.description_chars, load=True)
    per = (many - one) / max(args.skills - 1, 1)
    print(
        f"system prompt + tool schemas, descriptions of {args.description_chars} characters, "
        f"SKILL.md bodies of {BODY_LINES} lines (tokens = characters / {CHARS_PER_TOKEN}):\n"
    )
    print(f"| skills | tokens | added by skills |\n|---:|---:|---:|\n| 0 | {base} | 0 |")
    print(f"| 1 | {one} | {one - base} (the skill tool's schema, the heading and one line) |")
    print(f"| {args.skills} | {many} | {many - base} |")
    print(f"\neach skill after the first: {per:.0f} tokens (its name and description)")
    print(f"loading one skill (its body and file list, once used): {body} tokens")


if __name__ == "__main__":
    asyncio.run(main())
