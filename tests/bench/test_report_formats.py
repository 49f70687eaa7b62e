"""The bench report's numbers (Wilson interval, cost per pass with cache tokens, median time,
tool-call error rate), its formats (--format md|json|csv, the SVG chart), hostile names in each,
and merged shards reporting exactly what one run reports."""

import csv
import io
import json
import xml.etree.ElementTree as ET

import pytest
from typer.testing import CliRunner

from larik.bench.chart import chart_svg, nice_ticks
from larik.bench.formats import csv_cell, report_csv, report_json, report_md
from larik.bench.runner import CHECK_FAILED, RunResult, in_shard
from larik.bench.summary import FIGURES, ranked, run_cost, summarize, wilson
from larik.cli import app
from larik.config import Config, ModelOverride

M = 1_000_000
HOSTILE = "evil/<script>alert('x')</script> & =cmd|' /C calc'!A0 | *b* `c`\n# h"


@pytest.mark.parametrize(
    "passes, runs, low, high",
    [  # Newcombe (1998), "Two-sided confidence intervals for the single proportion", method 3
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
        (10, 10, 0.7225, 1.0),
    ],
)
def test_wilson_interval_known_values(passes, runs, low, high):
    lo, hi = wilson(passes, runs)
    assert (round(lo, 4), round(hi, 4)) == (low, high)


def test_wilson_with_no_runs_says_nothing_is_known():
    assert wilson(0, 0) == (0.0, 1.0)


def _run(task="t", repeat=1, passed=True, model="p/m", **kw):
    return RunResult(model, task, repeat, passed, "" if passed else CHECK_FAILED, **kw)


def test_cost_per_pass_prices_cache_tokens_at_their_own_prices():
    """A run recorded without a cost is priced from its four tiers by the catalog's one pricing
    function; a recorded cost stands; every run's cost counts, failed ones too."""
    prices = dict(input_price=2.0, output_price=10.0, cache_read_price=0.2, cache_write_price=2.5)
    config = Config(models={"acme/coder": ModelOverride(context_window=64_000, **prices)})
    tiers = dict(input_tokens=M, output_tokens=M, cache_read_tokens=M, cache_write_tokens=M)
    unpriced = _run("a", model="acme/coder", **tiers)
    assert run_cost(unpriced, config) == pytest.approx(2.0 + 10.0 + 0.2 + 2.5)
    runs = [unpriced, _run("b", model="acme/coder", passed=False, cost=1.3)]
    (s,) = summarize(runs, lambda r: run_cost(r, config))
    assert s.total_cost == pytest.approx(16.0) and s.cost_per_pass == pytest.approx(16.0)


def test_cost_is_unknown_when_a_run_that_used_tokens_has_no_price():
    runs = [_run("a", model="nobody/knows", input_tokens=10), _run("b", model="nobody/knows")]
    assert run_cost(runs[1]) == 0.0  # no tokens: it cost nothing
    (s,) = summarize(runs)
    assert s.total_cost is None and s.cost_per_pass is None


def test_median_time_and_tool_error_rate():
    runs = [
        _run("a", wall=1.0, tool_calls=4, tool_errors=1),
        _run("b", wall=10.0, tool_calls=6, tool_errors=0, passed=False),
        _run("c", wall=2.0, tool_calls=0),
        _run("d", wall=3.0, tool_calls=10, tool_errors=3, bad_calls=2),
    ]
    (s,) = summarize(runs)
    assert s.median_wall == 2.5
    assert s.tool_error_rate == pytest.approx(4 / 20) and s.well_formed == 0.75
    assert summarize([_run()])[0].tool_error_rate is None  # old records: no calls counted


def _suite_runs():
    """Two models, four tasks, two repeats, with a second try, costs and tool calls."""
    runs = []
    for model, cost, solved in (("good/m", 0.02, {"a", "b", "c"}), ("cheap/m", 0.001, {"a"})):
        for task in "abcd":
            for rep in (1, 2):
                passed = task in solved and not (task == "c" and rep == 2)
                runs.append(
                    _run(
                        task,
                        rep,
                        passed,
                        model,
                        cost=cost,
                        first_try=passed and task != "b",
                        tries=2,
                        wall=1.0 + rep + ord(task) % 3,
                        tool_calls=5,
                        tool_errors=int(task == "d"),
                        finished=f"2026-12-01T10:0{rep}:00+00:00",
                    )
                )
    return runs


def test_json_report_walks_the_figures_table():
    data = json.loads(report_json(summarize(_suite_runs())))
    assert data["interval"] == "wilson" and data["confidence"] == 0.95
    good, cheap = data["models"]
    assert list(good) == [f.key for f in FIGURES]
    assert good["model"] == "good/m" and (good["passes"], good["runs"]) == (5, 8)
    assert good["pass_rate_2"] == 62.5 and good["pass_rate_1"] == 37.5
    lo, hi = wilson(5, 8)
    assert (good["pass_rate_2_low"], good["pass_rate_2_high"]) == (
        round(100 * lo, 1),
        round(100 * hi, 1),
    )
    assert good["cost_per_pass"] == pytest.approx(0.16 / 5)
    assert good["tool_error_rate"] == 5.0 and cheap["pass_rate_2"] == 25.0


def test_csv_report_has_one_row_per_model_under_the_figures_keys():
    rows = list(csv.DictReader(io.StringIO(report_csv(summarize(_suite_runs())))))
    assert [r["model"] for r in rows] == ["good/m", "cheap/m"]
    assert rows[0]["pass_rate_1_low"] and float(rows[0]["median_wall"]) > 0
    assert list(rows[0]) == [f.key for f in FIGURES]


def test_markdown_report_shows_both_rates_with_intervals_and_the_chart():
    md = report_md(summarize(_suite_runs()), "report.svg")
    lines = md.splitlines()
    header = next(line for line in lines if line.startswith("| model"))
    assert "| 1st try | 95% CI |" in header and "| tool errors |" in header
    good = next(line for line in lines if line.startswith("| good/m"))
    lo, hi = wilson(5, 8)
    assert "62.5% (5)" in good and f"{100 * lo:.0f}–{100 * hi:.0f}%" in good
    assert "![pass rate vs cost per pass](report.svg)" in md
    assert "## Failures" in md and "| cheap/m | b | 1 | check failed |" in md


def test_the_chart_places_priced_models_and_names_the_others():
    runs = _suite_runs() + [_run("a", model="free/unpriced", input_tokens=5)]
    svg = chart_svg(summarize(runs))
    root = ET.fromstring(svg)  # well-formed XML
    texts = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "good/m" in texts and "cheap/m" in texts
    assert any("not placed" in t and "free/unpriced" in t for t in texts)
    assert len(list(root.iter("{http://www.w3.org/2000/svg}circle"))) == 2
    assert nice_ticks(0.034) == [0.0, 0.01, 0.02, 0.03, 0.04]


def test_hostile_model_names_cannot_inject_into_any_format():
    runs = [_run("a", model=HOSTILE, cost=0.5), _run("b<i>", model=HOSTILE, passed=False)]
    runs[1].detail = "|x| <img src=x onerror=alert(1)>\n| forged | row |"
    summaries = summarize(runs)
    svg = chart_svg(summaries)
    root = ET.fromstring(svg)
    assert not [e for e in root.iter() if e.tag.endswith(("script", "img"))]
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    assert any("<script>" in (t.text or "") for t in root.iter())  # shown as text, whole
    md = report_md(summaries, "r.svg")
    assert "<script>" not in md and "<img" not in md and "&lt;script&gt;" in md
    rows = [line for line in md.splitlines() if line.startswith("| evil")]
    assert len(rows) == 2  # the model's row and its failure's: the newlines made no new line
    for line, cells in zip(rows, (9, 5), strict=True):  # no name or detail breaks a cell
        assert line.replace("\\|", "").count("|") == cells + 1
    assert "\\*b\\*" in md and "\\`c\\`" in md  # no emphasis, no code span
    rows = list(csv.reader(io.StringIO(report_csv(summaries))))
    assert len(rows) == 2 and rows[1][0] == HOSTILE.replace("\n", " ")
    data = json.loads(report_json(summaries))
    assert data["models"][0]["model"] == HOSTILE  # JSON keeps the name exactly


@pytest.mark.parametrize("cell", ["=cmd|' /C calc'!A0", "+1+1", "-2+3", "@SUM(A1)", "\tx"])
def test_csv_cells_that_a_spreadsheet_would_run_are_defused(cell):
    assert csv_cell(cell).startswith("'")
    runs = [_run(model=cell, cost=0.1)]
    (row,) = list(csv.DictReader(io.StringIO(report_csv(summarize(runs)))))
    assert row["model"].startswith("'") and row["model"] != cell
    assert csv_cell(3.5) == 3.5 and csv_cell(None) == ""  # numbers stay numbers


def _write(path, runs):
    path.write_text(json.dumps([r.to_json() for r in runs]))
    return path


@pytest.mark.parametrize("fmt", ["table", "md", "json", "csv"])
def test_merged_shards_report_exactly_what_one_run_reports(tmp_path, fmt):
    runs = _suite_runs()
    whole = _write(tmp_path / "whole.json", runs)
    shards = [
        _write(
            tmp_path / f"s{k}.json",
            [r for r in runs if in_shard(r.model, r.task, r.repeat, (k, 3))],
        )
        for k in (1, 2, 3)
    ]
    assert all(0 < len(json.loads(s.read_text())) < len(runs) for s in shards)
    outputs = []
    for files, name in (([whole], "one"), (shards[::-1], "merged")):
        argv = ["bench", *[x for f in files for x in ("--merge", str(f))], "--format", fmt]
        if fmt != "table":
            argv += ["--out", str(tmp_path / f"{name}.{fmt}")]
        r = CliRunner().invoke(app, argv, env={"COLUMNS": "200"})
        assert r.exit_code == 0, r.output
        if fmt == "table":
            outputs.append(r.output)
        else:
            outputs.append((tmp_path / f"{name}.{fmt}").read_text())
            if fmt == "md":
                outputs[-1] = outputs[-1].replace(f"{name}.svg", "X.svg")
                outputs.append((tmp_path / f"{name}.svg").read_text())
    half = len(outputs) // 2
    assert outputs[:half] == outputs[half:]
    assert "good/m" in outputs[0]


def test_report_md_out_writes_the_chart_beside_it(tmp_path):
    runs = _write(tmp_path / "r.json", _suite_runs())
    out = tmp_path / "sub" / "report.md"
    r = CliRunner().invoke(
        app, ["bench", "--merge", str(runs), "--format", "md", "--out", str(out)]
    )
    assert r.exit_code == 0, r.output
    assert "](report.svg)" in out.read_text()
    ET.fromstring((tmp_path / "sub" / "report.svg").read_text())
    r = CliRunner().invoke(app, ["bench", "--merge", str(runs), "--format", "csv"])
    assert r.exit_code == 0 and r.output.startswith("model,runs,tasks,")  # stdout as it is


@pytest.mark.parametrize(
    "argv, says",
    [
        (["--report", "--format", "xml"], "--format xml: expected table, md, json, csv"),
        (["--format", "md"], "give --report or --merge FILE"),
        (["--report", "--out", "x.md"], "--out FILE needs --format md, json or csv"),
        (["--report", "--format", "md", "--out", "x.svg"], "the chart would overwrite"),
    ],
)
def test_bad_report_options_are_one_line(tmp_path, argv, says):
    (tmp_path / "r.json").write_text(json.dumps([_run().to_json()]))
    argv = [a if a != "--report" else "--merge" for a in argv]
    if "--merge" in argv:
        argv.insert(argv.index("--merge") + 1, str(tmp_path / "r.json"))
    argv = [str(tmp_path / a) if a.startswith("x.") else a for a in argv]
    r = CliRunner().invoke(app, ["bench", *argv])
    assert r.exit_code == 2 and says in r.output and "Traceback" not in r.output
    assert len(r.output.strip().splitlines()) == 1


def test_ranked_is_stable_best_first():
    (good, cheap) = ranked(summarize(_suite_runs()))
    assert good.model == "good/m" and cheap.model == "cheap/m"


def test_the_markdown_report_counts_runs_and_models_in_words():
    """It said "1 runs of 1 model(s)"."""
    assert "\n1 run of 1 model. " in report_md(summarize([_run("a")]), "r.svg")
    assert "\n16 runs of 2 models. " in report_md(summarize(_suite_runs()), "r.svg")


@pytest.mark.parametrize("columns", [140, 80])
def test_the_report_table_cuts_no_header_and_fits_the_terminal(columns):
    """issue 25 item 23: at 140 columns "well-formed" was "well-…" and every figure wrapped
    (the narrow widths applied at any width); now the whole table when it fits, else the
    narrow widths, and a header breaks only at its spaces."""
    import os
    import subprocess
    import sys

    from larik.bench.report import append_results
    from larik.config import bench_results_path

    append_results(bench_results_path(), _suite_runs())
    env = {**os.environ, "COLUMNS": str(columns), "LINES": "50"}
    out = subprocess.run(
        [sys.executable, "-m", "larik._entry", "bench", "--report"],
        capture_output=True, text=True, env=env, timeout=120,
    ).stdout  # fmt: skip
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= columns, out
    assert "…" not in out, out
    words = " ".join(out.split())
    for word in ("well-", "formed", "1st", "errors", "wall", "last run", "2026-12-01", "31–86%"):
        assert word in words, (word, out)
    if columns == 140:  # room for all of it: each header and each row on one line
        assert any("pass rate, 95% CI" in line and "well-formed" in line for line in lines), out
        assert any("good/m" in line and "31–86%" in line for line in lines), out
