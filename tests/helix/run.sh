#!/usr/bin/env bash
# Real-Helix end-to-end test of aide-lsp, driven in tmux (tests/helix/drive.py).
#
#   tests/helix/run.sh [HX ...]   (default: hx-25.01 and hx-25.07 of tests/editors/install.sh)
#
# For each Helix: a temporary workspace with the scenario's file (the rename
# scenario of tests/neovim/testdata), the model fake (tests/neovim/fakemodel)
# on a free loopback port, and a temporary XDG_CONFIG_HOME holding
#   helix/languages.toml   editors/helix/languages.toml as written (only the
#                          command is the binary under test, with a log)
#   helix/config.toml      editors/helix/config.toml as written (space A)
#   aide-lsp/config.json   the models pointed at the fake (user-level config)
# and, in the workspace, a repository's .aide/config.json asking for no
# review ({"reviewPlan": false, "delivery": "applyEdit"}), which is ignored:
# then drive.py runs the whole flow in a real Helix. Prints one line per
# check, the last screen and the logs on a failure, and "N passed, N failed";
# exits 0 only when every check of every Helix passed.
#
# Environment: AIDE_LSP (test this binary instead of building bin/aide-lsp),
# KEEP=1 keeps the temporary directory, AIDE_HX_TIMEOUT (per-step hang guard,
# seconds, default 30). Needs tmux, go and python3.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# The scenarios of tests/neovim this flow runs (file, task, replies, steps).
scenarios=(rename review-edge)
if [ "$#" -gt 0 ]; then
  editors=("$@")
else
  dir="$(bash "$root/tests/editors/install.sh" --dir)"
  editors=("$dir/hx-25.01" "$dir/hx-25.07")
fi
command -v tmux >/dev/null || { echo "tests/helix: tmux not found (apt-get install -y tmux)" >&2; exit 2; }
for hx in "${editors[@]}"; do
  "$hx" --version >/dev/null 2>&1 || { echo "tests/helix: $hx does not run: install it with tests/editors/install.sh" >&2; exit 2; }
done

. "$root/tests/editors/harness.sh"
harness_start tests/helix aide-helix "per Helix: ws/, screen.txt, server.log, helix.log, model-requests.jsonl"
harness_build

for hx in "${editors[@]}"; do
for sc in "${scenarios[@]}"; do
  scenario="$root/tests/neovim/testdata/$sc"
  name="$(basename "$hx") $sc"
  out="$tmp/$(basename "$hx")-$sc"
  mkdir -p "$out/ws/.git" "$out/ws/.aide" "$out/config/helix" "$out/config/aide-lsp" "$out/cache" "$out/data" "$out/state"
  cp "$scenario/calc.go" "$out/ws/calc.go" # both scenarios edit calc.go
  # The repository asks for no review (contract §3: a workspace file may
  # only make review stricter); drive.py checks it is ignored.
  printf '{"reviewPlan": false, "delivery": "applyEdit"}\n' >"$out/ws/.aide/config.json"
  start_fake "$scenario/replies.json" "$out" || exit 1
  printf '{"providers": {"fake": {"kind": "openai", "baseURL": "http://127.0.0.1:%s/v1"}}, "architectModel": "fake/m", "editorModel": "fake/m"}\n' \
    "$(cat "$out/port")" >"$out/config/aide-lsp/config.json"
  # editors/helix as written; only the command changes (and a log is added).
  python3 - "$root/editors/helix/languages.toml" "$out/config/helix/languages.toml" "$aide_bin" "$out/server.log" <<'PY'
import json, sys
src, dst, binary, log = sys.argv[1:5]
text = open(src, encoding="utf-8").read()
for old, new in (('command = "aide-lsp"', 'command = %s' % json.dumps(binary)),
                 ('args = ["serve"]', 'args = ["serve", "--log", %s, "--log-level", "debug"]' % json.dumps(log))):
    if old not in text:
        sys.exit("tests/helix: %s no longer has %s" % (src, old))
    text = text.replace(old, new, 1)
open(dst, "w", encoding="utf-8").write(text)
PY
  cp "$root/editors/helix/config.toml" "$out/config/helix/config.toml"

  echo "tests/helix: $sc in $("$hx" --version | head -n 1) ($hx), model fake on port $(cat "$out/port")"
  start=$(date +%s)
  set +e
  XDG_CONFIG_HOME="$out/config" XDG_CACHE_HOME="$out/cache" XDG_DATA_HOME="$out/data" XDG_STATE_HOME="$out/state" \
    OPENAI_API_KEY="" ANTHROPIC_API_KEY="" \
    python3 -B "$here/drive.py" "$hx" "$out" "$scenario" 2>&1 | tee "$out/drive.out"
  status=${PIPESTATUS[0]}
  set -e
  stop_fake
  echo "tests/helix: $name: exited $status after $(($(date +%s) - start)) s"
  tally "$out/drive.out" "$status"
  if [ "$status" -ne 0 ]; then
    failed+=("$name")
    for f in "$out/server.log" "$out/helix.log"; do
      [ -s "$f" ] && { echo "--- tail of $f"; tail -n 30 "$f"; }
    done
  fi
done
done
harness_summary Helix
