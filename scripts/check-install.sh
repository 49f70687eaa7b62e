#!/usr/bin/env bash
# Larik as a user installs it (run by .ci/run): the sdist and the wheel built from this checkout
# (the wheel from the sdist, so a file the sdist leaves out fails here too), the wheel installed
# with `uv tool install` into folders of its own — as README's one-line install does — and run
# from there with a clean environment (no PYTHONPATH, no checkout on the path, a fresh HOME):
# `larik --version`, `larik --help`, `larik bench --list` (its task files), `larik models` (the
# catalog) and a scripted print-mode run that edits a file. Every file the package carries in
# git must be in the wheel. A missing package data file or entry point fails CI.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
"$PY" -m pip install -q build uv
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$PY" -m build --outdir "$work/dist" . >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
wheel=$(ls "$work"/dist/larik-*.whl)
ls "$work"/dist/larik-*.tar.gz >/dev/null

# every file of the package in git (bench_tasks ships as larik/_bench_tasks) is in the wheel
"$PY" - "$wheel" <<'EOF'
import subprocess, sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
tracked = subprocess.run(["git", "ls-files", "larik", "bench_tasks"], capture_output=True,
                         text=True, check=True).stdout.split()
want = {p.replace("bench_tasks/", "larik/_bench_tasks/", 1) for p in tracked}
missing = sorted(want - names)
if missing:
    sys.exit("check-install: not in the wheel: " + ", ".join(missing[:20]))
EOF

export UV_TOOL_DIR="$work/tools" UV_TOOL_BIN_DIR="$work/bin"
"$(dirname "$PY")/uv" tool install -q --python "$("$PY" -c 'import sys; print(sys._base_executable)')" "$wheel"
mkdir -p "$work/home" "$work/project"
run() { (cd "$work/project" && env -i PATH="$work/bin:/usr/bin:/bin" HOME="$work/home" LANG=C.UTF-8 larik "$@"); }

version=$("$PY" -c 'import re; print(re.search(r"__version__ = \"(.+)\"", open("larik/__init__.py").read())[1])')
[ "$(run --version)" = "larik $version" ] || { echo "check-install: larik --version is not $version" >&2; exit 1; }
run --help | grep -q "^  bench " || { echo "check-install: larik --help lists no bench" >&2; exit 1; }
run bench --list | grep -q "add-option-keep-behaviour" || { echo "check-install: no bench tasks" >&2; exit 1; }
run models --json >/dev/null

printf 'def add(a, b):\n    return a - b\n' > "$work/project/calc.py"
cat > "$work/script.json" <<'EOF'
{"turns": [
  {"tool_calls": [{"name": "read_file", "input": {"path": "calc.py"}}]},
  {"tool_calls": [{"name": "edit_file",
                   "input": {"path": "calc.py", "old_string": "a - b", "new_string": "a + b"}}]},
  {"text": "Fixed."}
]}
EOF
out=$(run -p "fix add" -m "scripted/$work/script.json" --permission-mode edits --output-format json)
grep -q '"ok": true' <<<"$out" || { echo "check-install: print mode: $out" >&2; exit 1; }
grep -q "a + b" "$work/project/calc.py" || { echo "check-install: the edit was not made" >&2; exit 1; }
echo "check-install: the wheel installs with uv tool install and runs (larik $version)"
