#!/usr/bin/env bash
# Headless Neovim end-to-end test of aide-lsp.
#
#   tests/neovim/run.sh [scenario-dir]     (default: tests/neovim/testdata/rename)
#
# Builds bin/aide-lsp and the model fake, makes a temporary workspace from the
# scenario, starts the fake (a scripted OpenAI chat-completions server on a
# free loopback port), and runs Neovim headless with tests/neovim/init.lua,
# which drives Neovim's own LSP client through the whole code-action flow.
# Prints one line per check and ends with "N passed, N failed"; exits 0 only
# when every check passed. Needs nvim (0.7.2 or newer) and go on PATH.
#
# Environment: AIDE_LSP (test this aide-lsp binary instead of building
# bin/aide-lsp), NVIM (default nvim), AIDE_TIMEOUT_MS (hang guard of the Lua
# driver, default 90000), KEEP=1 keeps the temporary directory. Run as root
# with apt-get and no nvim (a fresh CI machine), it installs Debian's neovim
# first unless AIDE_NO_INSTALL=1.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
scenario_dir="$(cd "${1:-$here/testdata/rename}" && pwd)"
nvim_bin="${NVIM:-nvim}"
timeout_ms="${AIDE_TIMEOUT_MS:-90000}"

if ! command -v "$nvim_bin" >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null &&
  [ "${AIDE_NO_INSTALL:-}" != 1 ]; then
  # A fresh Debian CI machine: install Debian's Neovim (0.7.2 on bookworm).
  echo "tests/neovim: installing Debian's neovim"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq neovim) >/dev/null
fi
if ! command -v "$nvim_bin" >/dev/null; then
  echo "tests/neovim: $nvim_bin not found; install Neovim ≥ 0.7 (Debian: apt-get install -y neovim)" >&2
  exit 2
fi

tmp="$(mktemp -d "${TMPDIR:-/tmp}/aide-nvim.XXXXXX")"
fake_pid=""
cleanup() {
  status=$?
  if [ -n "$fake_pid" ]; then kill "$fake_pid" 2>/dev/null || true; wait "$fake_pid" 2>/dev/null || true; fi
  if [ "$status" -eq 0 ] && [ "${KEEP:-}" != 1 ]; then
    rm -rf "$tmp"
  else
    echo "tests/neovim: kept $tmp (workspace ws/, server.log, model-requests.jsonl, nvim cache/)" >&2
  fi
  exit "$status"
}
trap cleanup EXIT

if [ -n "${AIDE_LSP:-}" ]; then
  aide_bin="$(command -v "$AIDE_LSP")"
  echo "tests/neovim: testing $aide_bin; building the model fake"
  (cd "$root" && go build -o "$tmp/fakemodel" ./tests/neovim/fakemodel)
else
  aide_bin="$root/bin/aide-lsp"
  echo "tests/neovim: building aide-lsp and the model fake"
  (cd "$root" && go build -o bin/aide-lsp ./cmd/aide-lsp && go build -o "$tmp/fakemodel" ./tests/neovim/fakemodel)
fi

"$tmp/fakemodel" -script "$scenario_dir/replies.json" -port-file "$tmp/port" \
  -log "$tmp/model-requests.jsonl" 2>"$tmp/fakemodel.stderr" &
fake_pid=$!
# The fake writes its port as soon as it listens; it starts in milliseconds,
# 10 s only guards against a hang.
for _ in $(seq 1 200); do
  [ -s "$tmp/port" ] && break
  kill -0 "$fake_pid" 2>/dev/null || { cat "$tmp/fakemodel.stderr" >&2; exit 1; }
  sleep 0.05
done
[ -s "$tmp/port" ] || { echo "tests/neovim: the model fake did not start" >&2; exit 1; }
port="$(cat "$tmp/port")"

ws="$tmp/ws"
mkdir -p "$ws/.aide"
file="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["file"])' "$scenario_dir/scenario.json" 2>/dev/null ||
  sed -n 's/.*"file": *"\([^"]*\)".*/\1/p' "$scenario_dir/scenario.json")"
mkdir -p "$(dirname "$ws/$file")"
cp "$scenario_dir/$file" "$ws/$file"
cat >"$ws/.aide/config.json" <<EOF
{"providers":{"fake":{"kind":"openai","baseURL":"http://127.0.0.1:$port/v1"}},
 "architectModel":"fake/m","editorModel":"fake/m","reviewPlan":false,"delivery":"codeActions"}
EOF

echo "tests/neovim: $("$nvim_bin" --version | head -1), scenario $(basename "$scenario_dir"), model fake on port $port"
start=$(date +%s)
set +e
# The outer timeout is a second hang guard, longer than the driver's own.
AIDE_BIN="$aide_bin" AIDE_WS="$ws" AIDE_SCENARIO="$scenario_dir/scenario.json" \
  AIDE_LOG="$tmp/server.log" AIDE_MODEL_LOG="$tmp/model-requests.jsonl" AIDE_REPO="$root" AIDE_TIMEOUT_MS="$timeout_ms" \
  XDG_CACHE_HOME="$tmp/cache" XDG_STATE_HOME="$tmp/state" XDG_DATA_HOME="$tmp/data" \
  OPENAI_API_KEY="" ANTHROPIC_API_KEY="" \
  timeout $((timeout_ms / 1000 + 30)) "$nvim_bin" --headless --clean -u "$here/init.lua"
status=$?
set -e
echo "tests/neovim: nvim exited $status after $(($(date +%s) - start)) s"
if [ "$status" -ne 0 ]; then
  for f in "$tmp/server.log" "$tmp/cache/nvim/lsp.log" "$tmp/state/nvim/lsp.log"; do
    [ -s "$f" ] && { echo "--- tail of $f"; tail -n 40 "$f"; }
  done
  [ -s "$tmp/model-requests.jsonl" ] && echo "--- model requests: $(wc -l <"$tmp/model-requests.jsonl") (in $tmp/model-requests.jsonl)"
  exit 1
fi
