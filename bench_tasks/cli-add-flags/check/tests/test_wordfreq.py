import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(tmp_path, text, *args):
    f = tmp_path / "in.txt"
    f.write_text(text)
    return subprocess.run([sys.executable, str(ROOT / "wordfreq.py"), str(f), *args],
                          capture_output=True, text=True)


def test_counts_most_frequent_first(tmp_path):
    out = run(tmp_path, "b a b The the")
    assert out.stdout.splitlines() == ["2 b", "1 The", "1 a", "1 the"]


def test_top(tmp_path):
    out = run(tmp_path, "b a b c c c", "--top", "2")
    assert out.stdout.splitlines() == ["3 c", "2 b"]


def test_ignore_case(tmp_path):
    out = run(tmp_path, "b a b The the", "--ignore-case")
    assert out.stdout.splitlines() == ["2 b", "2 the", "1 a"]


def test_both(tmp_path):
    out = run(tmp_path, "X x y", "--ignore-case", "--top", "1")
    assert out.stdout.splitlines() == ["2 x"]


def test_bad_top_is_a_usage_error(tmp_path):
    for bad in ("0", "-1", "two"):
        out = run(tmp_path, "a", "--top", bad)
        assert out.returncode == 2 and "usage" in out.stderr.lower()
