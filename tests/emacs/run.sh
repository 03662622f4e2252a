#!/usr/bin/env bash
# Real-Emacs end-to-end test of aide-lsp through Eglot, driven in tmux
# (tests/emacs/drive.py).
#
#   tests/emacs/run.sh [EMACS ...]   (default: emacs-30 of tests/editors/install.sh)
#
# For each Emacs: a temporary workspace with the scenario's file (each
# scenario of tests/emacs/testdata, in the format of tests/neovim/testdata),
# the model fake (tests/neovim/fakemodel) on a free loopback port, a HOME of
# its own holding
#   init.el                 editors/emacs/aide.el loaded as written (only
#                           aide-lsp-command is the binary under test, with
#                           a log); Eglot's settings are its defaults
#   .config/aide-lsp/config.json   the models pointed at the fake
# and, in the workspace, a repository's .aide/config.json and .dir-locals.el
# (eglot-workspace-configuration) asking for no review, which are ignored;
# then drive.py runs the whole flow in a real `emacs -nw -Q -l init.el`.
# Prints one line per check, the last screen and the logs on a failure, and
# "N passed, N failed"; exits 0 only when every check of every Emacs passed.
#
# Environment: AIDE_LSP (test this binary instead of building bin/aide-lsp),
# KEEP=1 keeps the temporary directory, AIDE_EMACS_TIMEOUT (per-step hang
# guard, seconds, default 30). Needs tmux, go and python3.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
if [ "$#" -gt 0 ]; then
  editors=("$@")
else
  editors=("$(bash "$root/tests/editors/install.sh" --dir)/emacs-30")
fi
command -v tmux >/dev/null || { echo "tests/emacs: tmux not found (apt-get install -y tmux)" >&2; exit 2; }
for em in "${editors[@]}"; do
  "$em" --version >/dev/null 2>&1 || { echo "tests/emacs: $em does not run: install it with tests/editors/install.sh" >&2; exit 2; }
done

. "$root/tests/editors/harness.sh"
harness_start tests/emacs aide-emacs "per Emacs and scenario: ws/, screen.txt, server.log, model-requests.jsonl, home/"
harness_build

for em in "${editors[@]}"; do
for scenario in "$here"/testdata/*/; do
  scenario="${scenario%/}"
  sc="$(basename "$scenario")"
  name="$(basename "$em") $sc"
  out="$tmp/$(basename "$em")-$sc"
  mkdir -p "$out/ws/.git" "$out/ws/.aide" "$out/home/.config/aide-lsp"
  file="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["file"])' "$scenario/scenario.json")"
  cp "$scenario/$file" "$out/ws/$file"
  # The repository asks for no review, in its .aide/config.json and in the
  # editor settings Eglot sends from its .dir-locals.el (contract §3: both
  # may only make review stricter); drive.py checks they are ignored.
  printf '{"reviewPlan": false, "delivery": "applyEdit"}\n' >"$out/ws/.aide/config.json"
  printf '%s\n' '((nil . ((eglot-workspace-configuration . (:aide (:reviewPlan :json-false :delivery "applyEdit"))))))' >"$out/ws/.dir-locals.el"
  start_fake "$scenario/replies.json" "$out" || exit 1
  printf '{"providers": {"fake": {"kind": "openai", "baseURL": "http://127.0.0.1:%s/v1"}}, "architectModel": "fake/m", "editorModel": "fake/m"}\n' \
    "$(cat "$out/port")" >"$out/home/.config/aide-lsp/config.json"
  # editors/emacs/aide.el as written; only the command changes (and a log is added).
  python3 - "$root/editors/emacs/aide.el" "$out/home/init.el" "$aide_bin" "$out/server.log" <<'PY'
import json, sys
src, dst, binary, log = sys.argv[1:5]
q = json.dumps  # an Emacs Lisp string literal for these paths
with open(dst, "w", encoding="utf-8") as f:
    f.write("(setq aide-lsp-command (list %s \"serve\" \"--log\" %s \"--log-level\" \"debug\"))\n" % (q(binary), q(log)))
    f.write("(load %s nil nil t)\n" % q(src))
PY

  echo "tests/emacs: $sc in $("$em" --version | head -n 1) ($em), model fake on port $(cat "$out/port")"
  start=$(date +%s)
  set +e
  HOME="$out/home" XDG_CONFIG_HOME="$out/home/.config" XDG_STATE_HOME="$out/home/.local/state" \
    XDG_CACHE_HOME="$out/home/.cache" OPENAI_API_KEY="" ANTHROPIC_API_KEY="" \
    python3 -B "$here/drive.py" "$em" "$out" "$scenario" 2>&1 | tee "$out/drive.out"
  status=${PIPESTATUS[0]}
  set -e
  stop_fake
  echo "tests/emacs: $name: exited $status after $(($(date +%s) - start)) s"
  tally "$out/drive.out" "$status"
  if [ "$status" -ne 0 ]; then
    failed+=("$name")
    [ -s "$out/server.log" ] && { echo "--- tail of $out/server.log"; tail -n 30 "$out/server.log"; }
  fi
done
done
harness_summary Emacs
