"""Config errors in Larik's words, with "did you mean" (issue 25 item 24): what a typo in a
config file says, for the user's file, a table of tables and a list of tables."""

from __future__ import annotations

import pytest

from larik.config import load_config, user_config_path
from larik.llm.errors import ConfigError


def write_user(text: str) -> None:
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.mark.parametrize(
    ("toml", "said"),
    [
        ('max_turns = "many"\n', "max_turns: should be a whole number (got 'many')"),
        ("max_turns = 0\n", "max_turns: should be more than 0 (got 0)"),
        (
            '[providers.box]\ntype = "openai-compatible"\nbase-url = "https://x.example"\n',
            "providers.box.base-url: unknown key (did you mean 'base_url'?)",
        ),
        ("[sandbox]\nnetwrk = false\n", "sandbox.netwrk: unknown key (did you mean 'network'?)"),
        (
            '[mcp.servers.s]\ncommand = "x"\ntimeot = 3\n',
            "mcp.servers.s.timeot: unknown key (did you mean 'timeout'?)",
        ),
        (
            '[[hooks.Stop]]\ncommand = "x"\ntimout = 3\n',
            "hooks.Stop.0.timout: unknown key (did you mean 'timeout'?)",
        ),
        ("[sandbox]\nfrobnicate = 1\n", "sandbox.frobnicate: unknown key"),
        (
            '[permissions]\nmode = "asks"\n',
            "permissions.mode: should be 'ask', 'edits', 'yolo' or 'plan' "
            "(got 'asks'; did you mean 'ask'?)",
        ),
        (
            '[permissions]\nmode = "yeet"\n',
            "permissions.mode: should be 'ask', 'edits', 'yolo' or 'plan' (got 'yeet')",
        ),
        (
            '[[hooks.Stop]]\ncommand = "x"\ntimeout = 5000\n',
            "hooks.Stop.0.timeout: should be at most 600 (got 5000)",
        ),
    ],
)
def test_a_config_error_says_it_in_larik_words(toml, said, tmp_path):
    write_user(toml)
    with pytest.raises(ConfigError) as e:
        load_config(tmp_path)
    text = str(e.value)
    assert text == f"{user_config_path()}: {said}"
    for pydantic in ("Input should", "Extra inputs", "Field required", "less than or equal"):
        assert pydantic not in text


def test_a_missing_required_key_says_so(tmp_path):
    write_user('[[hooks.Stop]]\nmatcher = "x"\nhooks = [{ timeout = 5 }]\n')
    with pytest.raises(ConfigError) as e:
        load_config(tmp_path)
    assert str(e.value).endswith("hooks.Stop.0.hooks.0.command: missing (it is required)")
