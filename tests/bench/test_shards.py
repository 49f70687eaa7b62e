"""--shard K/N and --merge: a deterministic share of the runs per CI machine, joined back into
the report one unsharded run gives."""

import json

import pytest
from typer.testing import CliRunner

from larik.bench.runner import in_shard, parse_shard
from larik.cli import app
from larik.llm.errors import ConfigError

from .test_bench_agent import TASKS, _solution_turns

RUNS = [(m, t, r) for m in ("a/x", "b/y", "c/z") for t in "pqrstuvw" for r in (1, 2, 3)]


def test_every_run_is_in_exactly_one_shard():
    for n in (1, 2, 3, 7):
        owners = [[k for k in range(1, n + 1) if in_shard(*run, (k, n))] for run in RUNS]
        assert all(len(o) == 1 for o in owners)
    sizes = [sum(in_shard(*run, (k, 3)) for run in RUNS) for k in (1, 2, 3)]
    assert min(sizes) > 0  # 72 runs: no shard left empty


def test_a_shard_is_a_property_of_the_run_not_of_its_place_in_the_list():
    """The same on every machine: fixed values (a changed hash would split CI matrices
    differently from one version to the next), whatever else is benched."""
    assert [k for k in (1, 2, 3, 4) if in_shard("anthropic/claude", "wordy", 1, (k, 4))] == [3]
    golden = [next(k for k in (1, 2, 3) if in_shard(*run, (k, 3))) for run in RUNS[:12]]
    assert golden == [3, 3, 1, 2, 3, 1, 2, 2, 1, 1, 1, 3]


@pytest.mark.parametrize("text", ["0/2", "3/2", "a/b", "1", "1/0", "-1/2", ""])
def test_a_bad_shard_is_one_line(text):
    with pytest.raises(ConfigError) as e:
        parse_shard(text)
    assert "--shard" in str(e.value)


def test_cli_bad_shard_exits_2_with_one_line():
    r = CliRunner().invoke(app, ["bench", "-m", "scripted/x.json", "--shard", "3/2"])
    assert r.exit_code == 2 and "K must be between 1 and N" in r.output


def _comparable(runs):
    drop = {"wall", "agent_seconds", "check_seconds", "finished", "bench_id", "detail"}
    rows = [{k: v for k, v in r.items() if k not in drop} for r in runs]
    return sorted(rows, key=lambda r: (r["model"], r["task"], r["repeat"]))


def test_two_shards_merged_report_the_same_as_one_run(tmp_path):
    task = TASKS["rename-across-files"]
    # the model's name holds tmp_path, and a run's shard is a hash of its name: choose a
    # script name whose six runs fall into both shards (a random path put all six in one, 1 in 32)
    names = [t for t in TASKS if "seed" in TASKS[t].spec.tags]
    for i in range(100):
        script = tmp_path / f"solve{i}.json"
        ones = [in_shard(f"scripted/{script}", t, r, (1, 2)) for t in names for r in (1, 2)]
        if 0 < sum(ones) < len(ones):
            break
    assert len(ones) == 6
    script.write_text(json.dumps({"turns": _solution_turns(task)}))
    argv = ["bench", "-m", f"scripted/{script}", "--task", "seed", "--repeat", "2"]
    whole, one, two = tmp_path / "whole.json", tmp_path / "1.json", tmp_path / "2.json"
    for extra, out in (([], whole), (["--shard", "1/2"], one), (["--shard", "2/2"], two)):
        r = CliRunner().invoke(app, [*argv, *extra, "--json", str(out)])
        assert r.exit_code == 0, r.output
    whole_runs = json.loads(whole.read_text())
    assert len(whole_runs) == 6 and 0 < len(json.loads(one.read_text())) < 6
    merged, alone = tmp_path / "merged.json", tmp_path / "alone.json"
    r = CliRunner().invoke(
        app, ["bench", "--merge", str(one), "--merge", str(two), "--json", str(merged)]
    )
    assert r.exit_code == 0, r.output
    r2 = CliRunner().invoke(app, ["bench", "--merge", str(whole), "--json", str(alone)])
    m, a = json.loads(merged.read_text()), json.loads(alone.read_text())
    assert _comparable(m["runs"]) == _comparable(whole_runs)
    for data in (m, a):
        for row in data["models"]:
            row.pop("median_wall")
    assert m["models"] == a["models"] and m["models"][0]["pass_rate_2"] == 33.3
    assert r2.exit_code == 0 and "rename-across-files" not in r.output  # it passed
    assert r.output.count("check failed") == r2.output.count("check failed") == 4


def test_merging_overlapping_or_bad_files_is_one_line(tmp_path):
    run = {"model": "a/x", "task": "t", "repeat": 1, "passed": True, "reason": ""}
    good = tmp_path / "good.json"
    good.write_text(json.dumps([run]))
    r = CliRunner().invoke(app, ["bench", "--merge", str(good), "--merge", str(good)])
    assert r.exit_code == 2 and "shards must not overlap" in r.output
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "a list"}')
    r = CliRunner().invoke(app, ["bench", "--merge", str(bad)])
    assert r.exit_code == 2 and "not bench results" in r.output and "Traceback" not in r.output
    r = CliRunner().invoke(app, ["bench", "--merge", str(tmp_path / "missing.json")])
    assert r.exit_code == 2 and "cannot read" in r.output
