"""benchmarks/small_model.py writes a throwaway config that Larik reads as the run asked: the
model's settings (``--set``, ``--workflow``) in its ``[models]`` table, ``--lsp`` as ``[lsp]``."""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

from larik.config import load_config

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "small_model.py"


def _script():
    spec = importlib.util.spec_from_file_location("small_model", SCRIPT)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _config(tmp_path, monkeypatch, **kw):
    args = argparse.Namespace(
        base_url="http://127.0.0.1:9/v1", model="m-1.5b", workflow="default", set=[], lsp="default"
    )
    vars(args).update(kw)
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(_script().throwaway_config(args), encoding="utf-8")
    monkeypatch.setenv("LARIK_HOME", str(home))
    return load_config(tmp_path)


def test_the_settings_asked_for_reach_the_models_table_and_lsp(tmp_path, monkeypatch):
    config = _config(
        tmp_path,
        monkeypatch,
        workflow="edit",
        set=["line_numbers=false", " temperature = 0.7"],
        lsp="off",
    )
    o = config.models["llamacpp/m-1.5b"]
    assert (o.workflow, o.line_numbers, o.temperature) == ("edit", False, 0.7)
    assert config.lsp.enabled is False
    assert config.providers["llamacpp"].base_url == "http://127.0.0.1:9/v1"


def test_by_default_the_model_has_no_table_and_lsp_is_left_to_trust(tmp_path, monkeypatch):
    config = _config(tmp_path, monkeypatch)
    assert "llamacpp/m-1.5b" not in config.models
    assert config.lsp.enabled is None


def test_lsp_on_enables_the_servers_in_any_project(tmp_path, monkeypatch):
    assert _config(tmp_path, monkeypatch, lsp="on").lsp.enabled is True


def test_a_table_of_tries_shows_pass_at_n_and_the_first_tries_pass_at_1(capsys):
    row = {"model_calls": 2, "wall": 60.0, "reason": "check failed", "passed": False}
    runs = [
        {**row, "passed": True, "reason": "", "first_try": False, "tries": 2},
        {**row, "passed": True, "reason": "", "first_try": True, "tries": 1},
        {**row, "first_try": False, "tries": 3},
    ]
    _script().print_table([{"runs": runs}], [Path("tries3.json")])
    line = capsys.readouterr().out.splitlines()[-1]
    assert line.startswith("| tries3 | 3 | 2 (") and "; 1st try 1 |" in line, line
