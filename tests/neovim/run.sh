#!/usr/bin/env bash
# Headless Neovim end-to-end test of aide-lsp.
#
#   tests/neovim/run.sh [scenario-dir ...]   (default: every tests/neovim/testdata/*)
#
# Builds bin/aide-lsp and the model fake; then for each scenario makes a
# temporary workspace, starts the fake (a scripted OpenAI chat-completions
# server on a free loopback port), and runs Neovim headless with
# tests/neovim/init.lua, which drives Neovim's own LSP client through the
# whole code-action flow. Prints one line per check and, per scenario, a line
# "N passed, N failed"; exits 0 only when every check of every scenario
# passed. Needs nvim (0.7.2 or newer), go and python3 on PATH.
#
# Neovim is set up as docs/editors.md tells users, run as written: the
# block for this Neovim version (0.7: start_client; 0.8-0.10: vim.lsp.start;
# 0.11+: vim.lsp.config) and, on 0.9+, the "plan beside the code" lines
# (docs_snippet.py extracts them). tests/editors/install.sh installs 0.10 and
# 0.12 next to Debian's 0.7; scripts/test.sh runs this script with each.
#
# A scenario directory holds scenario.json (see init.lua), replies.json (the
# model fake's script), the file to edit and the expected result.
#
# Environment: AIDE_LSP (test this aide-lsp binary instead of building
# bin/aide-lsp), NVIM (default nvim; e.g. $(tests/editors/install.sh --dir)/nvim-0.12), AIDE_TIMEOUT_MS (hang guard of the Lua
# driver, default 90000), KEEP=1 keeps the temporary directory. Run as root
# with apt-get and no nvim (a fresh CI machine), it installs Debian's neovim
# first unless AIDE_NO_INSTALL=1.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
if [ "$#" -gt 0 ]; then
  scenarios=()
  for d in "$@"; do scenarios+=("$(cd "$d" && pwd)"); done
else
  scenarios=("$here"/testdata/*/)
  scenarios=("${scenarios[@]%/}")
fi
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

# The minor version picks the docs block ("0.7", "0.10", "0.12").
nvim_version="$("$nvim_bin" --version | sed -n '1s/^NVIM v\([0-9]*\.[0-9]*\).*/\1/p')"
[ -n "$nvim_version" ] || { echo "tests/neovim: cannot read the version of $nvim_bin" >&2; exit 2; }

tmp="$(mktemp -d "${TMPDIR:-/tmp}/aide-nvim.XXXXXX")"
fake_pid=""
cleanup() {
  status=$?
  if [ -n "$fake_pid" ]; then kill "$fake_pid" 2>/dev/null || true; wait "$fake_pid" 2>/dev/null || true; fi
  if [ "$status" -eq 0 ] && [ "${KEEP:-}" != 1 ]; then
    rm -rf "$tmp"
  else
    echo "tests/neovim: kept $tmp (per scenario: ws/, server.log, model-requests.jsonl, nvim.out, cache/nvim/lsp.log)" >&2
  fi
  exit "$status"
}
trap cleanup EXIT

if [ -n "${AIDE_LSP:-}" ]; then
  aide_bin="$(realpath "$(command -v "$AIDE_LSP")")"
  echo "tests/neovim: testing $aide_bin; building the model fake"
  (cd "$root" && go build -o "$tmp/fakemodel" ./tests/neovim/fakemodel)
else
  aide_bin="$root/bin/aide-lsp"
  echo "tests/neovim: building aide-lsp and the model fake"
  (cd "$root" && go build -o bin/aide-lsp ./cmd/aide-lsp && go build -o "$tmp/fakemodel" ./tests/neovim/fakemodel)
fi

# run_scenario DIR: one workspace, one model fake, one headless Neovim.
run_scenario() {
  local dir="$1" name out port file status
  name="$(basename "$dir")"
  out="$tmp/$name"
  # .git: the root marker of the Neovim 0.7 block (the others take .aide).
  mkdir -p "$out/ws/.aide" "$out/ws/.git" "$out/config/aide-lsp"
  "$tmp/fakemodel" -script "$dir/replies.json" -port-file "$out/port" \
    -log "$out/model-requests.jsonl" 2>"$out/fakemodel.stderr" &
  fake_pid=$!
  # The fake writes its port as soon as it listens; it starts in
  # milliseconds, 10 s only guards against a hang.
  for _ in $(seq 1 200); do
    [ -s "$out/port" ] && break
    kill -0 "$fake_pid" 2>/dev/null || { cat "$out/fakemodel.stderr" >&2; return 1; }
    sleep 0.05
  done
  [ -s "$out/port" ] || { echo "tests/neovim: the model fake did not start" >&2; return 1; }
  port="$(cat "$out/port")"

  # The user-level config ($XDG_CONFIG_HOME/aide-lsp/config.json) points the
  # models at the fake, with the scenario's "config" keys on top: a provider
  # in a workspace's .aide/config.json is not trusted. Everything else is
  # the defaults a user has (reviewPlan, the delivery Neovim gets).
  file="$(python3 - "$dir/scenario.json" "$out/config/aide-lsp/config.json" "$port" <<'PY'
import json, sys
scenario = json.load(open(sys.argv[1]))
config = {"providers": {"fake": {"kind": "openai", "baseURL": "http://127.0.0.1:%s/v1" % sys.argv[3]}},
          "architectModel": "fake/m", "editorModel": "fake/m"}
config.update(scenario.get("config", {}))
json.dump(config, open(sys.argv[2], "w"))
print(scenario["file"])
PY
)"
  # The set-up of docs/editors.md for this version, as written (only the
  # command is the binary under test, with a log).
  python3 "$here/docs_snippet.py" setup "$root/docs/editors.md" "$nvim_version" \
    "[\"$aide_bin\", \"serve\", \"--log\", \"$out/server.log\", \"--log-level\", \"debug\"]" "$out/setup.lua" || return 1
  mkdir -p "$(dirname "$out/ws/$file")"
  cp "$dir/$file" "$out/ws/$file"

  echo "tests/neovim: scenario $name ($("$nvim_bin" --version | head -1), model fake on port $port)"
  local start
  start=$(date +%s)
  set +e
  # The outer timeout is a second hang guard, longer than the driver's own.
  AIDE_BIN="$aide_bin" AIDE_WS="$out/ws" AIDE_SCENARIO="$dir/scenario.json" AIDE_SETUP="$out/setup.lua" \
    AIDE_LOG="$out/server.log" AIDE_MODEL_LOG="$out/model-requests.jsonl" AIDE_REPO="$root" \
    AIDE_TIMEOUT_MS="$timeout_ms" \
    XDG_CACHE_HOME="$out/cache" XDG_STATE_HOME="$out/state" XDG_DATA_HOME="$out/data" \
    XDG_CONFIG_HOME="$out/config" OPENAI_API_KEY="" ANTHROPIC_API_KEY="" \
    timeout $((timeout_ms / 1000 + 30)) "$nvim_bin" --headless --clean -u "$here/init.lua" 2>&1 | tee "$out/nvim.out"
  status=${PIPESTATUS[0]}
  set -e
  kill "$fake_pid" 2>/dev/null || true
  wait "$fake_pid" 2>/dev/null || true
  fake_pid=""
  echo "tests/neovim: scenario $name: nvim exited $status after $(($(date +%s) - start)) s"
  # Add the driver's "N passed, N failed" to the totals (a driver that died
  # before printing it counts as one failure).
  local counts
  counts="$(sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed$/\1 \2/p' "$out/nvim.out" | tail -n 1)"
  if [ -n "$counts" ]; then
    total_passed=$((total_passed + ${counts% *}))
    total_failed=$((total_failed + ${counts#* }))
    [ "$status" -eq 0 ] || [ "${counts#* }" -gt 0 ] || total_failed=$((total_failed + 1))
  else
    total_failed=$((total_failed + 1))
  fi
  if [ "$status" -ne 0 ]; then
    for f in "$out/server.log" "$out/cache/nvim/lsp.log" "$out/state/nvim/lsp.log"; do
      [ -s "$f" ] && { echo "--- tail of $f"; tail -n 40 "$f"; }
    done
    [ -s "$out/model-requests.jsonl" ] &&
      echo "--- model requests: $(wc -l <"$out/model-requests.jsonl") (in $out/model-requests.jsonl)"
    return 1
  fi
}

# tally FILE: adds the "N passed, M failed" line of a Neovim run to the
# totals (a run that printed none counts as one failure).
tally() {
  local counts
  counts="$(sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed$/\1 \2/p' "$1" | tail -n 1)"
  if [ -n "$counts" ]; then
    total_passed=$((total_passed + ${counts% *}))
    total_failed=$((total_failed + ${counts#* }))
  else
    total_failed=$((total_failed + 1))
  fi
}

# docs_snippet: this version's set-up of docs/editors.md, run as written.
docs_snippet() {
  local out="$tmp/docs-snippet" status
  mkdir -p "$out/project/.git" "$out/project/pkg"
  cp "$here/testdata/rename/calc.go" "$out/project/pkg/calc.go"
  printf '# notes\n' >"$out/project/pkg/notes.md"
  python3 "$here/docs_snippet.py" check "$root/docs/editors.md" "$nvim_version" "$aide_bin" "$out/project" "$out/init.lua" || return 1
  echo "tests/neovim: docs/editors.md's Neovim $nvim_version set-up"
  set +e
  (cd "$out/project" && XDG_CACHE_HOME="$out/cache" XDG_STATE_HOME="$out/state" XDG_DATA_HOME="$out/data" \
    XDG_CONFIG_HOME="$out/config" \
    timeout 60 "$nvim_bin" --headless --clean -u "$out/init.lua" 2>&1 | tee "$out/nvim.out")
  status=${PIPESTATUS[0]}
  set -e
  tally "$out/nvim.out"
  [ "$status" -eq 0 ]
}

# helper_reject: the helper's reject prompt (tests/neovim/helper_reject.lua).
helper_reject() {
  local out="$tmp/helper-reject" status
  mkdir -p "$out"
  echo "tests/neovim: the helper's reject prompt"
  set +e
  (AIDE_REPO="$root" XDG_CACHE_HOME="$out/cache" XDG_STATE_HOME="$out/state" XDG_DATA_HOME="$out/data" \
    XDG_CONFIG_HOME="$out/config" timeout 60 "$nvim_bin" --headless --clean -u "$here/helper_reject.lua" 2>&1 | tee "$out/nvim.out")
  status=${PIPESTATUS[0]}
  set -e
  tally "$out/nvim.out"
  [ "$status" -eq 0 ]
}

failed=()
total_passed=0
total_failed=0
for dir in "${scenarios[@]}"; do
  run_scenario "$dir" || failed+=("$(basename "$dir")")
done
if [ "$#" -eq 0 ]; then
  docs_snippet || failed+=("docs-snippet")
  helper_reject || failed+=("helper-reject")
fi
if [ "${#failed[@]}" -gt 0 ]; then
  echo "tests/neovim: FAILED: ${failed[*]}"
else
  echo "tests/neovim: every scenario passed"
fi
echo "$total_passed passed, $total_failed failed"
[ "${#failed[@]}" -eq 0 ] && [ "$total_failed" -eq 0 ]
