"""The README names the models the catalog suggests: every Claude model it writes (as
``anthropic/…``, a bare id or through OpenRouter) is the catalog's current one of its family
(``[defaults]``'s opus, sonnet, haiku), and every model it writes is one the catalog knows."""

from __future__ import annotations

import re
from pathlib import Path

from larik.llm import catalog

README = Path(__file__).resolve().parents[1] / "README.md"
CLAUDE = re.compile(r"claude-(opus|sonnet|haiku)-(\d+)[.-](\d+)")
SPEC = re.compile(
    r"(?<![\w/.-])((?:anthropic|openai|gemini|groq|openrouter|ollama|deepseek|xai|mistral)"
    r"/[\w.:/-]+[\w])"
)


def test_every_claude_model_the_readme_names_is_the_catalogs_current_one():
    current = {}
    for family in ("opus", "sonnet", "haiku"):
        m = CLAUDE.search(catalog.default_model(family))
        assert m is not None
        current[family] = (m.group(2), m.group(3))
    named = CLAUDE.findall(README.read_text(encoding="utf-8"))
    assert named
    stale = [f"claude-{f}-{a}-{b}" for f, a, b in named if (a, b) != current[f]]
    assert stale == []


def test_every_model_the_readme_names_is_in_the_catalog():
    specs = set(SPEC.findall(README.read_text(encoding="utf-8")))
    assert len(specs) > 5
    assert [s for s in sorted(specs) if not catalog.lookup(s).known] == []
