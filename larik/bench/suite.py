"""Public suites: an Exercism-style practice folder (the format of Aider's polyglot benchmark)
run as bench tasks.

Each exercise folder becomes a task (docs/bench.md, "Public suites")::

    NAME/.docs/instructions.md (+ introduction.md before, instructions.append.md after)
                                the prompt
    NAME/.meta/config.json      which files are the solution (stub), test and example
    NAME/<solution files>       the project the agent works on      -> repo/
    NAME/<test files>           laid in after the agent stops       -> check/
    NAME/.meta/<example files>  the reference, for --validate       -> solution/

The task folders are built once into the cache (``bench/suites/<name>-<hash>`` in the state
directory; the hash covers every file, so an edited suite is rebuilt) and then are ordinary
tasks. Aider's protocol: two tries, the second showing the test failures, with Aider's wording,
so pass_rate_1 and pass_rate_2 mean what its leaderboard means.

A suite is input from someone else: config.json paths must stay inside the exercise, symlinks
are refused, and any problem is one line naming the file.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from pathlib import Path, PurePosixPath

from ..llm.errors import ConfigError
from .tasks import CheckResult, Task, TaskSpec

__all__ = [
    "fetch_suite",
    "is_suite_url",
    "load_suite",
    "retry_prompt",
    "suite_folder",
]

# Aider's benchmark, word for word: ``instructions_addendum`` and ``test_failures`` from
# Aider-AI/aider benchmark/prompts.py, used as benchmark/benchmark.py's ``run_test_real`` uses
# them (checked against aider's main branch, 2026-12; docs/bench.md "Aider's protocol"):
# the prompt is .docs/introduction.md + instructions.md + instructions.append.md, joined as they
# are, then the addendum; the retry is the test output (timings cut, the folder's path shown as
# its name) then ``test_failures``, or "Tests timed out!" when the tests ran out of time.
ADDENDUM = """
####

Use the above instructions to modify the supplied files: {file_list}
Don't change the names of existing functions or classes, as they may be referenced from other code like unit tests, etc.
Only use standard libraries, don't suggest installing any packages.
"""

TEST_FAILURES = """
####

See the testing errors above.
The tests are correct, don't try and change them.
Fix the code in {file_list} to resolve the errors.
"""

DOCS = ("introduction.md", "instructions.md", "instructions.append.md")  # in Aider's order
TIMED_OUT = "Tests timed out!"
TIME_LIMIT = 300.0
MAX_TURNS = 30
_MAX_FILE = 1_000_000  # bytes: an exercise file bigger than this is not an exercise
_TIMING = re.compile(r"\bin \d+\.\d+s\b")  # Aider's cleanup_test_output: no timings


def retry_prompt(task: Task, check: CheckResult, workdir: Path | None = None) -> str:
    """The second try's message, as Aider's harness builds it: the test output (all of it, up to
    the check's ``OUTPUT_TAIL`` last characters), then Aider's words."""
    if check.timed_out:
        errors = TIMED_OUT
    else:
        errors = _TIMING.sub("", check.output)
        if workdir is not None:
            errors = errors.replace(str(workdir), task.name)
    errors = "\n".join(errors.splitlines())
    return errors + TEST_FAILURES.format(file_list=" ".join(task.spec.files))


CLONE_TIMEOUT = 300.0  # seconds for a clone or an update


def is_suite_url(text: str) -> bool:
    return "://" in text or text.startswith("git@")


def _cache_root() -> Path:
    from ..config import state_dir

    return state_dir() / "bench" / "suites"


def suite_folder(text: str, cache: Path | None = None) -> Path:
    """``--suite``'s argument as a folder: a path, or ``URL[#FOLDER]`` cloned (FOLDER inside the
    repository, e.g. ``#python`` for polyglot-benchmark's Python track)."""
    if not is_suite_url(text):
        return Path(text).expanduser()
    url, _, sub = text.partition("#")
    pure = PurePosixPath(sub)
    if sub and (pure.is_absolute() or ".." in pure.parts or "\\" in sub):
        raise ConfigError(f"--suite {text}: #{sub} must be a folder inside the repository")
    repo = fetch_suite(url, cache)
    folder = repo / pure if sub else repo
    if folder.is_symlink() or not folder.resolve().is_relative_to(repo.resolve()):
        raise ConfigError(f"--suite {text}: #{sub} leaves the repository")
    return folder


def fetch_suite(url: str, cache: Path | None = None) -> Path:
    """A suite's git repository, cloned into the cache, or brought up to date there.
    https only (http for a loopback host), no user:password@, no ssh or file URLs: a suite URL
    is someone else's input, and git would follow file:// and ext:: too."""
    import subprocess

    from ..llm.net import validate_base_url

    if url.startswith("git@"):
        raise ConfigError(f"--suite {url}: ssh URLs are not taken; use https://")
    try:
        validate_base_url(url)
    except ValueError as e:
        raise ConfigError(f"--suite {url}: {e}") from None
    folder = (cache or _cache_root()) / "git" / hashlib.sha256(url.encode()).hexdigest()[:16]
    from .. import host_programs

    try:
        git = [host_programs.find("git", folder.parent)]
    except host_programs.NotOwn as e:
        raise ConfigError(f"--suite: a URL needs git: {e}") from None
    git += ["-c", "protocol.allow=never", "-c", "protocol.https.allow=always"]
    git += ["-c", "protocol.http.allow=always", "-c", "core.hooksPath=/dev/null"]
    env = {k: v for k, v in host_programs.host_env().items() if not k.startswith("GIT_")}
    env |= {"GIT_TERMINAL_PROMPT": "0", "GIT_CONFIG_NOSYSTEM": "1"}

    def run(args: list[str], cwd: Path | None = None) -> None:
        try:
            out = subprocess.run(
                git + args,
                cwd=cwd,
                env=env,
                capture_output=True,
                text=True,
                timeout=CLONE_TIMEOUT,
                stdin=subprocess.DEVNULL,
            )
        except FileNotFoundError:
            raise ConfigError("--suite: a URL needs git, which is not installed") from None
        except subprocess.TimeoutExpired:
            raise ConfigError(f"--suite {url}: git took over {CLONE_TIMEOUT:g}s") from None
        if out.returncode != 0:
            last = (out.stderr.strip().splitlines() or ["failed"])[-1]
            raise ConfigError(f"--suite {url}: git: {last[:200]}")

    if (folder / ".git").is_dir():
        run(["fetch", "--no-tags", "origin", "HEAD"], folder)
        run(["reset", "--hard", "-q", "FETCH_HEAD"], folder)
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".clone-", dir=folder.parent))
    try:
        run(["clone", "--no-tags", "-q", "--", url, str(tmp / "repo")])
        os.rename(tmp / "repo", folder)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return folder


def load_suite(root: Path, cache: Path | None = None) -> list[Task]:
    """The exercises under ``root`` as tasks (sorted by name)."""
    root = Path(root).expanduser()
    if not root.is_dir():
        raise ConfigError(f"{root}: no such suite folder")
    practice = root / "exercises" / "practice"  # a whole Exercism track given
    if practice.is_dir():
        root = practice
    folders = sorted(
        p for p in root.iterdir() if p.is_dir() and (p / ".meta" / "config.json").is_file()
    )
    if not folders:
        raise ConfigError(f"{root}: no exercises (folders with .meta/config.json)")
    exercises = [_read_exercise(f) for f in folders]
    digest = hashlib.sha256()
    for ex in exercises:
        for rel, data in sorted(ex["all"].items()):
            digest.update(f"{ex['name']}/{rel}\0{len(data)}\0".encode() + data)
    if cache is None:
        cache = _cache_root()
    built = cache / f"{_slug(root.name)}-{digest.hexdigest()[:16]}"
    if not (built / ".complete").is_file():
        _build(exercises, built)
    return [Task(_spec(ex), built / ex["name"]) for ex in exercises]


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in name)[:60] or "suite"


def _inside(folder: Path, rel: object, where: Path) -> str:
    """A config.json path, checked: relative, no '..', a regular file inside the exercise."""
    if not isinstance(rel, str) or not rel or "\\" in rel or "\0" in rel:
        raise ConfigError(f"{where}: bad file entry {rel!r}")
    pure = PurePosixPath(rel)
    if pure.is_absolute() or ".." in pure.parts:
        raise ConfigError(f"{where}: {rel!r} points outside the exercise")
    path = folder / pure
    for part in [path, *path.parents]:
        if part == folder:
            break
        if part.is_symlink():
            raise ConfigError(f"{where}: {rel!r} is a symlink (not followed)")
    if not path.is_file():
        raise ConfigError(f"{where}: {rel!r} is missing")
    if path.stat().st_size > _MAX_FILE:
        raise ConfigError(f"{where}: {rel!r} is over {_MAX_FILE:,} bytes")
    return str(pure)


def _read_exercise(folder: Path) -> dict:
    where = folder / ".meta" / "config.json"
    try:
        config = json.loads(where.read_text(encoding="utf-8"))
        files = config["files"]
        lists = {k: list(files[k]) for k in ("solution", "test", "example")}
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise ConfigError(f"{where}: not readable JSON ({e})") from None
    except (KeyError, TypeError):
        raise ConfigError(
            f"{where}: files.solution, files.test and files.example are needed"
        ) from None
    checked = {k: [_inside(folder, rel, where) for rel in v] for k, v in lists.items()}
    if not all(checked.values()):
        raise ConfigError(f"{where}: files.solution, files.test and files.example are needed")
    if len(checked["example"]) != len(checked["solution"]):
        raise ConfigError(f"{where}: one example file per solution file is needed")
    if not (folder / ".docs" / "instructions.md").exists():
        raise ConfigError(f"{folder}: no .docs/instructions.md")
    prompt = ""
    for doc in DOCS:  # joined as they are, as Aider's harness joins them
        if (folder / ".docs" / doc).exists() or (folder / ".docs" / doc).is_symlink():
            prompt += (folder / _inside(folder, f".docs/{doc}", where)).read_text(
                encoding="utf-8", errors="replace"
            )
    blurb = config.get("blurb") if isinstance(config.get("blurb"), str) else ""
    read = {rel: (folder / rel).read_bytes() for v in checked.values() for rel in v}
    return {
        "name": folder.name,
        "prompt": prompt + ADDENDUM.format(file_list=" ".join(checked["solution"])),
        "blurb": " ".join(blurb.split())[:200],
        **checked,
        "all": read | {".docs": prompt.encode()},
    }


def _spec(ex: dict) -> TaskSpec:
    return TaskSpec(
        name=ex["name"],
        summary=ex["blurb"] or ex["name"],
        prompt=ex["prompt"],
        time_limit=TIME_LIMIT,
        max_turns=MAX_TURNS,
        tags=["suite"],
        tries=2,
        files=ex["solution"],
    )


def _build(exercises: list[dict], dest: Path) -> None:
    """Lay the exercises out as task folders, atomically (a half-built cache is never used)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=dest.parent))
    try:
        for ex in exercises:
            base = tmp / ex["name"]
            for part, key in (("repo", "solution"), ("check", "test")):
                for rel in ex[key]:
                    _write(base / part / rel, ex["all"][rel])
            for rel, target in zip(ex["example"], ex["solution"], strict=True):
                _write(base / "solution" / target, ex["all"][rel])
        (tmp / ".complete").write_text("")
        try:
            os.rename(tmp, dest)
        except OSError:  # built meanwhile by another bench
            if not (dest / ".complete").is_file():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
