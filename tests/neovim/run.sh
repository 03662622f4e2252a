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

. "$root/tests/editors/harness.sh"
harness_start tests/neovim aide-nvim "per scenario: ws/, server.log, model-requests.jsonl, nvim.out, cache/nvim/lsp.log"
harness_build

# run_scenario DIR: one workspace, one model fake, one headless Neovim.
run_scenario() {
  local dir="$1" name out port file status
  name="$(basename "$dir")"
  out="$tmp/$name"
  # .git: the root marker of the Neovim 0.7 block (the others take .aide).
  mkdir -p "$out/ws/.aide" "$out/ws/.git" "$out/config/aide-lsp"
  start_fake "$dir/replies.json" "$out" || return 1
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
  stop_fake
  echo "tests/neovim: scenario $name: nvim exited $status after $(($(date +%s) - start)) s"
  tally "$out/nvim.out" "$status"
  if [ "$status" -ne 0 ]; then
    for f in "$out/server.log" "$out/cache/nvim/lsp.log" "$out/state/nvim/lsp.log"; do
      [ -s "$f" ] && { echo "--- tail of $f"; tail -n 40 "$f"; }
    done
    [ -s "$out/model-requests.jsonl" ] &&
      echo "--- model requests: $(wc -l <"$out/model-requests.jsonl") (in $out/model-requests.jsonl)"
    return 1
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

# lazy_health: the plugin as lazy.nvim installs it (the spec of docs/editors.md,
# its config called with the repository folder as plugin.dir), then
# :checkhealth aide against the model fake (tests/neovim/lazy_health.lua).
lazy_health() {
  local out="$tmp/lazy-health" status
  mkdir -p "$out/ws" "$out/config/aide-lsp" "$out/bin"
  cp "$here/testdata/rename/calc.go" "$out/ws/calc.go"
  ln -s "$aide_bin" "$out/bin/aide-lsp"
  start_fake "$here/testdata/rename/replies.json" "$out" || return 1
  printf '{"providers": {"fake": {"kind": "openai", "baseURL": "http://127.0.0.1:%s/v1"}}, "architectModel": "fake/m"}\n' \
    "$(cat "$out/port")" >"$out/config/aide-lsp/config.json"
  python3 "$here/docs_snippet.py" lazy "$root/docs/editors.md" "$out/spec.lua" || return 1
  echo "tests/neovim: the plugin as lazy.nvim installs it, :checkhealth aide"
  set +e
  (AIDE_REPO="$root" AIDE_SPEC="$out/spec.lua" AIDE_WS="$out/ws" PATH="$out/bin:$PATH" \
    XDG_CACHE_HOME="$out/cache" XDG_STATE_HOME="$out/state" XDG_DATA_HOME="$out/data" \
    XDG_CONFIG_HOME="$out/config" OPENAI_API_KEY="" ANTHROPIC_API_KEY="" \
    timeout 90 "$nvim_bin" --headless --clean -u "$here/lazy_health.lua" 2>&1 | tee "$out/nvim.out")
  status=${PIPESTATUS[0]}
  set -e
  stop_fake
  tally "$out/nvim.out" "$status"
  [ "$status" -eq 0 ]
}

for dir in "${scenarios[@]}"; do
  run_scenario "$dir" || failed+=("$(basename "$dir")")
done
if [ "$#" -eq 0 ]; then
  docs_snippet || failed+=("docs-snippet")
  helper_reject || failed+=("helper-reject")
  # lazy.nvim needs Neovim 0.8; vim.health.start is 0.10's.
  case "$nvim_version" in 0.7 | 0.8 | 0.9) ;; *) lazy_health || failed+=("lazy-health") ;; esac
fi
harness_summary scenario
