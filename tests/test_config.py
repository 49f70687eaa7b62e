"""Config: paths, layering, validation messages, saving. One test per rule."""

from __future__ import annotations

import os
import stat
import tomllib
from pathlib import Path

import pytest

from larik.config import (
    Config,
    ConfigError,
    load_config,
    project_config_path,
    save_user_config,
    sessions_dir,
    state_dir,
    user_config_path,
    validate_base_url,
)


def write_user(text: str) -> Path:
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def make_project(root: Path, text: str, *, git: bool = True) -> Path:
    if git:
        (root / ".git").mkdir(parents=True, exist_ok=True)
    cfg = root / ".larik" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(text, encoding="utf-8")
    return cfg


# ------------------------------------------------------------------------------------ paths


def test_larik_home_holds_the_user_config(monkeypatch, tmp_path):
    monkeypatch.setenv("LARIK_HOME", str(tmp_path / "lh"))
    assert user_config_path() == tmp_path / "lh" / "config.toml"


def test_without_larik_home_the_user_config_is_under_xdg_config_home(monkeypatch, tmp_path):
    monkeypatch.delenv("LARIK_HOME")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert user_config_path() == tmp_path / "xdg" / "larik" / "config.toml"


def test_without_either_the_user_config_is_in_dot_config(monkeypatch, tmp_path):
    monkeypatch.delenv("LARIK_HOME")
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert user_config_path() == tmp_path / ".config" / "larik" / "config.toml"


def test_sessions_live_under_larik_home_else_xdg_state_home(monkeypatch, tmp_path):
    monkeypatch.setenv("LARIK_HOME", str(tmp_path / "lh"))
    assert sessions_dir() == tmp_path / "lh" / "sessions"
    monkeypatch.delenv("LARIK_HOME")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert state_dir() == tmp_path / "state" / "larik"
    assert sessions_dir() == tmp_path / "state" / "larik" / "sessions"


def test_paths_are_not_created_by_asking_for_them(monkeypatch, tmp_path):
    monkeypatch.setenv("LARIK_HOME", str(tmp_path / "absent"))
    user_config_path(), state_dir(), sessions_dir()
    load_config(tmp_path)
    assert not (tmp_path / "absent").exists()


# --------------------------------------------------------------------------------- layering


def test_no_files_gives_the_defaults(tmp_path):
    config = load_config(tmp_path)
    assert config.model == ""
    assert config.compact_threshold == 0.8
    assert config.max_turns == 100
    assert (config.first_chunk_timeout, config.idle_timeout) == (300, 180)
    assert config.permissions.mode == "ask"


def test_project_file_is_layered_on_the_user_file(tmp_path):
    write_user(
        'model = "anthropic/claude-opus-5"\n[roles]\nworker = "groq/a"\nexplore = "groq/b"\n'
    )
    make_project(tmp_path, 'model = "openai/gpt-5.5"\n[roles]\nworker = "ollama/qwen3-coder"\n')
    config = load_config(tmp_path)
    assert config.model == "openai/gpt-5.5"
    assert config.roles == {"worker": "ollama/qwen3-coder", "explore": "groq/b"}
    assert len(config.sources) == 2


def test_project_file_is_found_upward_but_not_past_the_git_root(tmp_path):
    repo = tmp_path / "outer" / "repo"
    sub = repo / "src" / "pkg"
    sub.mkdir(parents=True)
    make_project(repo, 'model = "x/y"\n')
    assert project_config_path(sub) == repo / ".larik" / "config.toml"
    # a config above the git root is not the project's
    make_project(tmp_path / "outer", 'model = "a/b"\n', git=False)
    (repo / ".larik" / "config.toml").unlink()
    assert project_config_path(sub) is None


def test_project_file_may_not_configure_providers(tmp_path):
    cfg = make_project(tmp_path, '[providers.anthropic]\nbase_url = "https://evil.example"\n')
    with pytest.raises(ConfigError) as e:
        load_config(tmp_path)
    assert str(cfg) in str(e.value) and "providers" in str(e.value)


def test_unknown_top_level_tables_are_kept(tmp_path):
    write_user('[someday]\ncolour = "dark"\n')
    assert load_config(tmp_path).model_extra == {"someday": {"colour": "dark"}}


def test_every_config_field_has_a_one_line_description():
    from larik.config import ModelOverride, PermissionsConfig, ProviderConfig

    for model in (Config, ProviderConfig, ModelOverride, PermissionsConfig):
        for name, f in model.model_fields.items():
            assert f.description and "\n" not in f.description, f"{model.__name__}.{name}"


# ------------------------------------------------------------------------------ bad files


def _one_line_error(tmp_path: Path) -> str:
    with pytest.raises(ConfigError) as e:
        load_config(tmp_path)
    msg = str(e.value)
    assert "\n" not in msg
    return msg


def test_toml_syntax_error_names_the_file_and_line(tmp_path):
    path = write_user('model = "a/b"\n[roles]\nworker = \n')
    msg = _one_line_error(tmp_path)
    assert msg.startswith(f"{path}:3: invalid TOML")


def test_wrong_type_names_the_file_and_key(tmp_path):
    path = write_user('max_turns = "lots"\n')
    msg = _one_line_error(tmp_path)
    assert msg.startswith(f"{path}: max_turns:") and "whole number" in msg


def test_out_of_range_value_names_the_key(tmp_path):
    write_user("compact_threshold = 1.5\n")
    assert "compact_threshold" in _one_line_error(tmp_path)


def test_unknown_provider_key_names_the_key(tmp_path):
    write_user('[providers.groq]\nbase-url = "https://x.example"\n')
    assert "providers.groq.base-url" in _one_line_error(tmp_path)


def test_http_base_url_for_a_remote_host_is_rejected_at_load(tmp_path):
    path = write_user(
        '[providers.box]\ntype = "openai-compatible"\nbase_url = "http://10.0.0.5/v1"\n'
    )
    msg = _one_line_error(tmp_path)
    assert msg.startswith(f"{path}: providers.box.base_url:") and "https" in msg


def test_base_url_with_userinfo_is_rejected_without_echoing_it(tmp_path):
    write_user(
        '[providers.box]\ntype = "openai-compatible"\n'
        'base_url = "https://alice:hunter2@llm.example/v1"\n'
    )
    msg = _one_line_error(tmp_path)
    assert "user name or password" in msg and "hunter2" not in msg


def test_api_key_value_is_never_echoed_in_an_error(tmp_path):
    write_user("[providers.groq]\napi_key = 12345678901234\n")
    msg = _one_line_error(tmp_path)
    assert "providers.groq.api_key" in msg and "12345678901234" not in msg


def test_a_role_naming_a_role_is_rejected_at_load(tmp_path):
    path = write_user('[roles]\nworker = "smart"\n')
    msg = _one_line_error(tmp_path)
    assert msg.startswith(f"{path}: roles:") and "names the role 'smart'" in msg


@pytest.mark.parametrize(
    "url",
    [
        "https://api.example.com/v1",
        "http://127.0.0.1:8080/v1",
        "http://localhost:1234",
        "http://[::1]:11434",
    ],
)
def test_these_base_urls_are_allowed(url):
    assert validate_base_url(url) == url


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://api.example.com", "https"),
        ("http://127.0.0.2:80", "https"),  # only the literal loopback hosts
        ("http://localhost.example.com", "https"),  # names are not resolved
        ("https://u:p@api.example.com", "user name"),
        ("ftp://api.example.com", "https://"),
        ("https://", "no host"),
    ],
)
def test_these_base_urls_are_refused(url, why):
    with pytest.raises(ValueError, match=why):
        validate_base_url(url)


# ---------------------------------------------------------------------------------- saving


def test_save_keeps_keys_it_does_not_own_and_writes_valid_toml(tmp_path):
    path = write_user(
        '# a comment\nmodel = "anthropic/claude-opus-5"\n[tui]\ntheme = "dark"\n'
        '[roles]\nexplore = "groq/x"\n'
    )
    save_user_config({"roles": {"worker": "ollama/qwen3-coder"}})
    data = tomllib.loads(path.read_text())
    assert data == {
        "model": "anthropic/claude-opus-5",
        "tui": {"theme": "dark"},
        "roles": {"explore": "groq/x", "worker": "ollama/qwen3-coder"},
    }
    assert load_config(tmp_path).roles["worker"] == "ollama/qwen3-coder"


def test_a_save_keeps_the_users_comments_order_and_layout():
    """/theme, /vim, /model default, /routing, /trust and larik mcp add write the user's own
    file: tomli_w rewrote it from its values, and every comment in it was gone."""
    text = (
        "# my larik settings\n"
        'model = "anthropic/claude-opus-5"  # the one I pay for\n'
        '\n[tui]\n# dark at night\ntheme = "dark"\nvim = false\n'
        '\n[roles]\nexplore = "groq/x"  # cheap\nworker = "groq/y"\n'
    )
    path = write_user(text)
    save_user_config({"tui": {"theme": "light"}})
    assert path.read_text() == text.replace('theme = "dark"', 'theme = "light"')
    save_user_config({"roles": {"worker": None, "plan": "openai/gpt-5"}})
    after = path.read_text()
    assert after.startswith("# my larik settings\n") and "# dark at night" in after
    assert 'explore = "groq/x"  # cheap' in after and "worker" not in after
    assert tomllib.loads(after)["roles"] == {"explore": "groq/x", "plan": "openai/gpt-5"}


def test_a_save_to_a_file_of_comments_only_keeps_them():
    """A file with no value yet (only comments, a template) read as an empty table, and the
    save started from nothing: the comments were dropped."""
    path = write_user('# my settings go here\n# model = "a/b"\n')
    save_user_config({"tui": {"theme": "light"}})
    text = path.read_text()
    assert text.startswith('# my settings go here\n# model = "a/b"\n'), text
    assert tomllib.loads(text) == {"tui": {"theme": "light"}}


def test_save_with_none_removes_a_key():
    path = write_user('[roles]\nworker = "groq/x"\nexplore = "groq/y"\n')
    save_user_config({"roles": {"worker": None}})
    assert tomllib.loads(path.read_text())["roles"] == {"explore": "groq/y"}


def test_save_refuses_an_invalid_result_and_leaves_the_file_alone():
    path = write_user('model = "a/b"\n')
    with pytest.raises(ConfigError):
        save_user_config({"max_turns": -1})
    assert path.read_text() == 'model = "a/b"\n'


def test_a_file_holding_a_key_is_written_mode_0600():
    path = save_user_config({"providers": {"groq": {"api_key": "gsk-secret"}}})
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_a_file_without_a_key_is_not_forced_to_0600():
    path = write_user('model = "a/b"\n')
    path.chmod(0o644)
    save_user_config({"effort": "high"})
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o644


# --------------------------------------------------------------------------------- snapshot


def test_routing_snapshot_is_a_read_only_copy():
    config = Config(model="a/b", roles={"worker": "c/d"}, fallbacks={"worker": ["e/f"]})
    snap = config.routing()
    config.set_routing(roles={"worker": "x/y"})
    assert snap.roles["worker"] == "c/d" and snap.fallbacks["worker"] == ("e/f",)
    with pytest.raises(TypeError):
        snap.roles["worker"] = "z/z"  # type: ignore[index]


def test_set_routing_rejects_a_role_naming_a_role():
    config = Config()
    with pytest.raises(ConfigError, match="names the role"):
        config.set_routing(roles={"worker": "explore"})
    assert config.roles == {}


# ------------------------------------------------------------------------------------- docs

DOC = Path(__file__).resolve().parents[1] / "docs" / "configuration.md"


def test_the_configuration_doc_names_every_key():
    from larik.config import (
        BudgetConfig,
        JobsConfig,
        ModelOverride,
        PermissionsConfig,
        ProviderConfig,
        SandboxConfig,
        StuckConfig,
        TuiConfig,
        TuiThemeConfig,
        WebFetchConfig,
    )

    text = DOC.read_text()
    for model in (
        Config,
        ProviderConfig,
        ModelOverride,
        PermissionsConfig,
        StuckConfig,
        SandboxConfig,
        JobsConfig,
        WebFetchConfig,
        BudgetConfig,
        TuiConfig,
        TuiThemeConfig,
    ):
        for name in model.model_fields:
            documented = f"`{name}`" in text or f"`[{name}" in text  # a key or a [table]
            assert documented, f"{model.__name__}.{name} is not documented"


def test_the_configuration_doc_example_is_a_valid_config():
    text = DOC.read_text()
    example = text.split("```toml\n", 1)[1].split("```", 1)[0]
    Config.model_validate(tomllib.loads(example))


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('modle = "anthropic/claude-sonnet-4-5"\n', "modle: unknown key (did you mean 'model'?)"),
        ("max_turn = 5\n", "max_turn: unknown key (did you mean 'max_turns'?)"),
        ('[permission]\nmode = "yolo"\n', "permission: unknown key (did you mean 'permissions'?)"),
        ("zzz = 1\n", "zzz: unknown key"),
    ],
)
def test_an_unknown_top_level_key_or_a_misspelt_table_names_the_key(tmp_path, text, needle):
    path = write_user(text)
    assert _one_line_error(tmp_path) == f"{path}: {needle}"
