#!/usr/bin/env bash
# Smoke test of the real `larik` TUI: runs it in tmux on two scripted models, types a prompt,
# switches model with /model, types another prompt, quits with Ctrl+C twice, and checks the
# screen at each step with capture-pane. Needs tmux (CI: apt-get install -y tmux).
#
#   bash scripts/tui-smoke.sh            # uses .venv/bin/larik
#   LARIK=larik bash scripts/tui-smoke.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
larik=${LARIK:-$root/.venv/bin/larik}

if ! command -v tmux >/dev/null 2>&1; then
  echo "tui-smoke: tmux is not installed (apt-get install -y tmux)" >&2
  exit 1
fi

work=$(mktemp -d)
session="larik-smoke-$$"
cleanup() {
  tmux kill-session -t "$session" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/project" "$work/home"

cat >"$work/a.json" <<'JSON'
{"turns": [{"thinking": "The user says hello.", "text": "Hello from model A. **Markdown** works:\n\n```python\nprint('a')\n```\n"}]}
JSON
cat >"$work/b.json" <<'JSON'
{"turns": [{"text": "Hello from model B, same conversation."}]}
JSON

screen() { tmux capture-pane -p -t "$session"; }

wait_for() { # TEXT [SECONDS]
  local text=$1 limit=$((${2:-20} * 10)) i
  for ((i = 0; i < limit; i++)); do
    if screen | grep -qF -- "$text"; then return 0; fi
    sleep 0.1
  done
  echo "tui-smoke: timed out waiting for: $text" >&2
  echo "----- screen -----" >&2
  screen >&2
  exit 1
}

type_line() { # TEXT: type it and press Enter
  tmux send-keys -t "$session" -l -- "$1"
  sleep 0.2
  tmux send-keys -t "$session" Enter
}

tmux new-session -d -s "$session" -x 120 -y 40 -c "$work/project" \
  "env LARIK_HOME='$work/home' TERM=xterm-256color '$larik' --model 'scripted/$work/a.json'; echo LARIK-EXITED:\$?; sleep 60"

wait_for "Ask, or / for commands"        # the first frame
wait_for "a.json"                        # the status bar names the model: the agent is ready
type_line "say hello"
wait_for "Hello from model A"
wait_for "print('a')"
type_line "/model scripted/$work/b.json"
wait_for "model: scripted/$work/b.json"
type_line "and again"
wait_for "Hello from model B, same conversation."
tmux send-keys -t "$session" C-c
sleep 0.3
tmux send-keys -t "$session" C-c
wait_for "LARIK-EXITED:0"
wait_for "larik --resume"
echo "tui-smoke: ok"
