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
#   .emacs.d/elpa/aide      editors/emacs/aide.el installed with
#                           package-vc-install from a local git clone
#   init.el                 (require 'aide) as docs/editors.md says (only
#                           aide-lsp-command is the binary under test, with
#                           a log); Eglot's settings are its defaults
#   .config/aide-lsp/config.json   the models pointed at the fake
# and, in the workspace, a repository's .aide/config.json and .dir-locals.el
# (eglot-workspace-configuration) asking for no review, which are ignored;
# then drive.py runs the whole flow in a real `emacs -nw -Q -l init.el`.
# Before the scenarios, aide.el must byte-compile with no warning.
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

# The package as users get it: a git repository holding editors/emacs (the
# working tree's aide.el, committed), cloned by package-vc-install over file://.
repo="$tmp/repo"
mkdir -p "$repo/editors/emacs"
cp "$root/editors/emacs/aide.el" "$repo/editors/emacs/"
git -C "$repo" init -q && git -C "$repo" add . &&
  git -C "$repo" -c user.name=aide-test -c user.email=test@aide-lsp.invalid commit -qm "aide.el under test"

# package_vc_install EMACS HOME: package-vc-install of the package into HOME's elpa;
# it must end installed, aide loaded from there.
package_vc_install() {
  local em="$1" home="$2" log="$2/package-vc.log"
  if HOME="$home" "$em" -Q --batch --eval "(progn (require 'package) (setq package-archives nil package-check-signature nil)
      (package-initialize)
      (package-vc-install '(aide :url \"file://$repo\" :lisp-dir \"editors/emacs\"))
      (require 'aide)
      (princ (format \"aide %s from %s\\n\" (package-installed-p 'aide) (locate-library \"aide\"))))" >"$log" 2>&1 &&
    grep -q "^aide t from $home/.emacs.d/elpa/aide/editors/emacs/aide.elc" "$log"; then
    echo "ok - package-vc-install installed aide ($(grep -o 'Version [^,]*' "$log" | head -n 1)) into $home/.emacs.d/elpa"
    total_passed=$((total_passed + 1))
    return 0
  fi
  echo "FAIL - package-vc-install of aide from file://$repo"; tail -n 20 "$log"
  return 1
}

# byte_compile EMACS: aide.el byte-compiles with no warning (a warning is an error).
byte_compile() {
  local em="$1" d
  d="$(mktemp -d "$tmp/bytecomp.XXXXXX")"
  cp "$root/editors/emacs/aide.el" "$d/"
  if "$em" -Q --batch --eval '(setq byte-compile-error-on-warn t)' -f batch-byte-compile "$d/aide.el" >"$d/out" 2>&1; then
    echo "ok - aide.el byte-compiles without warnings ($(basename "$em"))"
    total_passed=$((total_passed + 1))
  else
    echo "FAIL - aide.el byte-compile warnings ($(basename "$em")):"; cat "$d/out"
    total_failed=$((total_failed + 1)); failed+=("$(basename "$em") byte-compile")
  fi
}

for em in "${editors[@]}"; do
byte_compile "$em"
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
  # editors/emacs/aide.el installed as docs/editors.md says, with package-vc-install
  # from a clone ($repo, a file:// URL) into this HOME's elpa; init.el then
  # requires it, as written there; only the command changes (and a log is added).
  package_vc_install "$em" "$out/home" || { failed+=("$name: package-vc-install"); total_failed=$((total_failed + 1)); stop_fake; continue; }
  python3 - "$out/home/init.el" "$aide_bin" "$out/server.log" <<'PY'
import json, sys
dst, binary, log = sys.argv[1:4]
q = json.dumps  # an Emacs Lisp string literal for these paths
with open(dst, "w", encoding="utf-8") as f:
    f.write("(package-initialize) ; emacs -Q skips it\n")
    f.write("(setq aide-lsp-command (list %s \"serve\" \"--log\" %s \"--log-level\" \"debug\"))\n" % (q(binary), q(log)))
    f.write("(require 'aide)\n")
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
