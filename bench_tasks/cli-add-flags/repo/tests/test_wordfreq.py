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
