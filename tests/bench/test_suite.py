"""Public suites (Aider's polyglot format): loading, --validate on the bundled Python part, the
two-try protocol through the real agent, Aider's figures, and hostile suite folders."""

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from larik.bench.report import summarize, summary_json
from larik.bench.runner import CHECK_FAILED, RunResult, run_bench
from larik.bench.suite import fetch_suite, load_suite, retry_prompt, suite_folder
from larik.bench.tasks import CheckResult
from larik.cli import app
from larik.llm.errors import ConfigError

from .test_bench_agent import runner

SUITE = Path(__file__).resolve().parents[2] / "suites" / "aider-polyglot-python"


def test_the_bundled_suite_has_34_exercises_with_aiders_prompt(tmp_path):
    tasks = load_suite(SUITE, tmp_path)
    assert len(tasks) == 34
    t = {t.name: t for t in tasks}["affine-cipher"]
    assert t.spec.tries == 2 and t.spec.files == ["affine_cipher.py"]
    assert "affine cipher" in t.spec.prompt and "Exception messages" in t.spec.prompt  # both docs
    assert "modify the supplied files: affine_cipher.py" in t.spec.prompt
    assert t.check_files() == ["affine_cipher_test.py"]
    assert sorted(p.name for p in t.repo.iterdir()) == ["affine_cipher.py"]  # no tests, no .meta
    assert (t.solution / "affine_cipher.py").read_text() == (
        SUITE / "affine-cipher" / ".meta" / "example.py"
    ).read_text()


def test_the_prompt_is_aiders_introduction_instructions_append_then_addendum(tmp_path):
    """benchmark.py's run_test_real: the three docs joined as they are, then the addendum."""
    task = {t.name: t for t in load_suite(SUITE, tmp_path)}["pig-latin"]
    docs = SUITE / "pig-latin" / ".docs"
    joined = "".join(
        (docs / d).read_text()
        for d in ("introduction.md", "instructions.md", "instructions.append.md")
        if (docs / d).exists()
    )
    assert (docs / "introduction.md").exists()
    assert task.spec.prompt == joined + (
        "\n####\n\nUse the above instructions to modify the supplied files: pig_latin.py\n"
        "Don't change the names of existing functions or classes, as they may be referenced "
        "from other code like unit tests, etc.\n"
        "Only use standard libraries, don't suggest installing any packages.\n"
    )


def test_the_retry_is_aiders_cleaned_test_output_then_its_words(tmp_path):
    task = load_suite(_exercise(tmp_path), tmp_path / "cache")[0]
    work = tmp_path / "larik-bench-affine-cipher-x1"
    out = f"FAILED {work}/affine_cipher_test.py::test_a\n1 failed, 2 passed in 0.12s"
    words = (
        "\n####\n\nSee the testing errors above.\nThe tests are correct, don't try and "
        "change them.\nFix the code in affine_cipher.py to resolve the errors.\n"
    )
    got = retry_prompt(task, CheckResult(False, out, 0.1), work)
    assert got == "FAILED affine-cipher/affine_cipher_test.py::test_a\n1 failed, 2 passed " + words
    timed_out = CheckResult(False, "check timed out after 120s", 120.0, True)
    assert retry_prompt(task, timed_out, work) == "Tests timed out!" + words


#: Exercises ``--validate`` runs through the CLI: paasio has a second check file (its
#: ``test_utils.py``) and the slowest tests, go-counting's stub fails at import (a collection
#: error, not a failed test), affine-cipher is a plain one.
VALIDATED = ["paasio", "go-counting", "affine-cipher"]


def test_cli_validate_on_the_suite_runs_the_real_checks(tmp_path):
    """``bench --suite --validate`` through the CLI, its checks real (sandboxed, one pytest per
    repo and per solution): the chosen exercises valid, and an exercise whose stub is its
    reference already (the untouched repo passes) reported. Every one of the 34 exercises is
    validated below, in two pytest runs rather than 68 (here 16-37 s of a suite's run)."""
    wanted = [w for name in VALIDATED for w in ("--task", name)]
    result = CliRunner().invoke(app, ["bench", "--suite", str(SUITE), "--validate", *wanted])
    assert result.exit_code == 0, result.output
    assert "3 of 3 tasks valid" in result.output
    root = _exercise(tmp_path)
    shutil.copy(root / "affine-cipher/.meta/example.py", root / "affine-cipher/affine_cipher.py")
    result = CliRunner().invoke(app, ["bench", "--suite", str(root), "--validate"])
    assert result.exit_code == 1, result.output
    assert "affine-cipher: the untouched repo already passes its check" in result.output
    assert "0 of 1 task valid" in result.output


def test_every_reference_of_the_suite_passes_and_every_stub_fails(tmp_path):
    """What ``--validate`` checks, for all 34 exercises at once: every stub (the untouched
    repo, its check files laid in) fails at least one test, every reference solution passes
    all of them and has some. One plain pytest for the stubs and one for the solutions, each
    exercise in its own folder (their module names differ), not sandboxed: the sandboxed
    checks themselves are the test above."""
    import os
    import subprocess
    import sys

    from larik.bench.tasks import prepare_workdir

    tasks = load_suite(SUITE, tmp_path / "cache")
    assert len(tasks) == 34
    outcomes = {}
    for kind in ("stub", "solved"):
        for t in tasks:
            work = prepare_workdir(t, tmp_path / kind / t.name, with_solution=kind == "solved")
            shutil.copytree(t.check, work, dirs_exist_ok=True)
        argv = [sys.executable, "-m", "pytest", "-q", "-rA", "--tb=no", "-p", "no:cacheprovider"]
        argv += ["--continue-on-collection-errors", "-c", os.devnull, "--rootdir", "."]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PYTHON"))}
        env |= {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1"}
        done = subprocess.run(
            argv, cwd=tmp_path / kind, env=env, capture_output=True, text=True, timeout=300
        )
        outcomes[kind] = {t.name: set() for t in tasks}
        for line in done.stdout.splitlines():  # "PASSED go-counting/go_counting_test.py::..."
            word, _, where = line.partition(" ")
            if word in ("PASSED", "FAILED", "ERROR") and "/" in where:
                outcomes[kind][where.split("/", 1)[0]].add(word)
        if kind == "solved":
            assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    assert [n for n, seen in outcomes["stub"].items() if not seen & {"FAILED", "ERROR"}] == []
    assert [n for n, seen in outcomes["solved"].items() if seen != {"PASSED"}] == []


def _exercise(tmp_path: Path, name="affine-cipher") -> Path:
    root = tmp_path / "suite"
    shutil.copytree(SUITE / name, root / name)
    return root


def test_a_changed_suite_is_rebuilt_not_served_from_the_cache(tmp_path):
    root = _exercise(tmp_path)
    first = load_suite(root, tmp_path / "cache")[0]
    (root / "affine-cipher" / "affine_cipher_test.py").write_text("def test_x():\n    pass\n")
    second = load_suite(root, tmp_path / "cache")[0]
    assert first.path != second.path
    assert "test_x" in (second.check / "affine_cipher_test.py").read_text()


@pytest.mark.parametrize(
    "entry",
    ["../../../../etc/passwd", "/etc/passwd", "missing.py", 7, ""],
)
def test_a_config_path_outside_the_exercise_or_missing_is_one_line(tmp_path, entry):
    root = _exercise(tmp_path)
    cfg = root / "affine-cipher" / ".meta" / "config.json"
    data = json.loads(cfg.read_text())
    data["files"]["test"] = [entry]
    cfg.write_text(json.dumps(data))
    with pytest.raises(ConfigError) as e:
        load_suite(root, tmp_path / "cache")
    assert "config.json" in str(e.value) and "\n" not in str(e.value)


def test_a_symlinked_test_file_is_refused(tmp_path):
    root = _exercise(tmp_path)
    secret = tmp_path / "secret.txt"
    secret.write_text("key")
    test = root / "affine-cipher" / "affine_cipher_test.py"
    test.unlink()
    test.symlink_to(secret)
    with pytest.raises(ConfigError, match="symlink"):
        load_suite(root, tmp_path / "cache")


def test_broken_config_json_and_no_exercises_are_one_line(tmp_path):
    root = _exercise(tmp_path)
    (root / "affine-cipher" / ".meta" / "config.json").write_text("{nope")
    with pytest.raises(ConfigError, match="not readable JSON"):
        load_suite(root, tmp_path / "cache")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match="no exercises"):
        load_suite(tmp_path / "empty", tmp_path / "cache")
    result = CliRunner().invoke(app, ["bench", "--suite", str(tmp_path / "nope"), "--list"])
    assert result.exit_code == 2 and "no such suite folder" in result.output


def _solve_turn(task, test_too: str | None = None) -> dict:
    name = task.spec.files[0]
    calls = [
        {"name": "read_file", "input": {"path": name}},
        {
            "name": "write_file",
            "input": {"path": name, "content": (task.solution / name).read_text()},
        },
    ]
    if test_too is not None:
        calls.append({"name": "write_file", "input": {"path": test_too, "content": "pass\n"}})
    return {"text": "Fixing.", "tool_calls": calls}


def _user_texts(runs: Path) -> list[str]:
    texts = []
    for f in runs.glob("*.jsonl"):
        for line in f.read_text().splitlines():
            rec = json.loads(line)
            msg = rec.get("message") or rec
            if msg.get("role") == "user":
                texts.append(json.dumps(msg))
    return texts


async def test_second_try_sees_the_test_failures_and_counts_for_pass_rate_2_only(tmp_path):
    task = load_suite(_exercise(tmp_path), tmp_path / "cache")[0]
    script = [{"text": "All done."}, _solve_turn(task), {"text": "Fixed."}]
    res = await run_bench(["m"], [task], runner(tmp_path, {"m": script}))
    r = res[0]
    assert r.passed and r.first_try is False and r.tries == 2 and r.turns == 3
    retry = [t for t in _user_texts(tmp_path / "runs") if "See the testing errors above" in t]
    assert retry and "failed" in retry[0] and "affine_cipher.py" in retry[0]
    s = summary_json(summarize(res)[0])
    assert s["pass_rate_1"] == 0.0 and s["pass_rate_2"] == 100.0


async def test_solved_on_the_first_try_gets_no_second_message(tmp_path):
    task = load_suite(_exercise(tmp_path), tmp_path / "cache")[0]
    script = [_solve_turn(task), {"text": "Done."}]
    res = await run_bench(["m"], [task], runner(tmp_path, {"m": script}))
    assert res[0].passed and res[0].first_try is True and res[0].tries == 1
    assert not [t for t in _user_texts(tmp_path / "runs") if "testing errors" in t]


async def test_rewriting_the_laid_in_tests_on_the_retry_still_fails(tmp_path):
    """The tests are in the folder during the second try; a model that 'fixes' them gains
    nothing: the final check lays them in again."""
    task = load_suite(_exercise(tmp_path), tmp_path / "cache")[0]
    script = [
        {"text": "All done."},
        {
            "text": "Editing the tests.",
            "tool_calls": [
                {"name": "read_file", "input": {"path": "affine_cipher_test.py"}},
                {
                    "name": "write_file",
                    "input": {
                        "path": "affine_cipher_test.py",
                        "content": "def test_ok():\n    pass\n",
                    },
                },
            ],
        },
        {"text": "Fixed."},
    ]
    res = await run_bench(["m"], [task], runner(tmp_path, {"m": script}))
    assert not res[0].passed and res[0].reason == CHECK_FAILED and res[0].tries == 2


def test_aider_figures_and_well_formed_share():
    def r(task, passed, first, bad=0):
        return RunResult("p/m", task, 1, passed, "", first_try=first, bad_calls=bad, tries=2)

    runs = [
        r("a", True, True),
        r("b", True, False, bad=2),
        r("c", False, False),
        r("d", True, None),
    ]
    s = summary_json(summarize(runs)[0])
    # an old record (first_try None) counts its final result for both rates
    assert s["pass_rate_1"] == 50.0 and s["pass_rate_2"] == 75.0
    assert s["percent_cases_well_formed"] == 75.0 and s["malformed_cases"] == 1


def test_cli_suite_run_then_report_json_has_aiders_figures(tmp_path):
    root = _exercise(tmp_path)
    task = load_suite(root, tmp_path / "cache")[0]
    script = tmp_path / "retry.json"
    script.write_text(
        json.dumps({"turns": [{"text": "Done."}, _solve_turn(task), {"text": "Ok."}]})
    )
    argv = [
        "bench",
        "--suite",
        str(root),
        "-m",
        f"scripted/{script}",
        "--json",
        str(tmp_path / "x.json"),
    ]
    r = CliRunner().invoke(app, argv)
    assert r.exit_code == 0, r.output
    assert "1st" in r.output and "well-" in r.output  # headers may wrap
    report = tmp_path / "report.json"
    r = CliRunner().invoke(app, ["bench", "--report", "--json", str(report)])
    assert r.exit_code == 0, r.output
    (model,) = json.loads(report.read_text())["models"]
    assert (model["pass_rate_1"], model["pass_rate_2"]) == (0.0, 100.0)
    assert model["percent_cases_well_formed"] == 100.0


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://example.com/suite.git", "plain http"),
        ("file:///etc", "https://"),
        ("ext::sh -c touch% /tmp/pwned", "https://"),
        ("git@github.com:a/b.git", "ssh"),
        ("https://user:pw@example.com/s.git", "user name or password"),
    ],
)
def test_a_suite_url_must_be_https_or_loopback(tmp_path, url, why):
    with pytest.raises(ConfigError, match=why):
        fetch_suite(url, tmp_path)
    assert not (tmp_path / "git").exists()  # refused before git ran


@pytest.fixture
def git_server(tmp_path):
    """A bare repo holding one exercise, served over loopback http (git's dumb protocol)."""
    import functools
    import http.server
    import subprocess
    import threading

    work = tmp_path / "work"
    shutil.copytree(SUITE / "affine-cipher", work / "affine-cipher")
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
    env["GIT_COMMITTER_EMAIL"] = "t@t"

    def git(*args, cwd=work):
        subprocess.run(
            ["git", *args],
            cwd=cwd,
            check=True,
            capture_output=True,
            env=env | {"PATH": __import__("os").environ["PATH"], "HOME": str(tmp_path)},
        )

    git("init", "-q")
    git("add", "-A")
    git("commit", "-qm", "suite")
    served = tmp_path / "served"
    git("clone", "-q", "--bare", str(work), str(served / "suite.git"), cwd=tmp_path)
    git("update-server-info", cwd=served / "suite.git")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(served))
    handler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/suite.git", git, work, served
    server.shutdown()
    server.server_close()


def test_a_suite_url_on_loopback_is_cloned_into_the_cache_and_updated(tmp_path, git_server):
    url, git, work, served = git_server
    folder = fetch_suite(url, tmp_path / "cache")
    assert folder.is_relative_to(tmp_path / "cache")
    assert [t.name for t in load_suite(folder, tmp_path / "cache")] == ["affine-cipher"]
    shutil.copytree(SUITE / "wordy", work / "wordy")  # the suite grows upstream
    git("add", "-A")
    git("commit", "-qm", "more")
    git("push", "-q", str(served / "suite.git"), "HEAD")
    git("update-server-info", cwd=served / "suite.git")
    again = fetch_suite(url, tmp_path / "cache")
    assert again == folder
    assert [t.name for t in load_suite(again, tmp_path / "cache")] == ["affine-cipher", "wordy"]


def test_cli_suite_url_that_git_cannot_fetch_is_one_line(tmp_path, git_server):
    url = git_server[0].replace("suite.git", "nothing.git")
    r = CliRunner().invoke(app, ["bench", "--suite", url, "--list"])
    assert r.exit_code == 2 and "git:" in r.output and "Traceback" not in r.output


def test_a_url_folder_must_stay_inside_the_clone(tmp_path, git_server):
    url = git_server[0]
    assert suite_folder(url + "#affine-cipher", tmp_path / "c").name == "affine-cipher"
    for bad in ("#../..", "#/etc"):
        with pytest.raises(ConfigError, match="inside the repository"):
            suite_folder(url + bad, tmp_path / "c")
    r = CliRunner().invoke(app, ["bench", "--suite", url, "--list"])
    assert r.exit_code == 0 and "affine-cipher" in r.output
