#!/usr/bin/env bash
# The README's test command: installs what the tests need on a fresh Debian
# machine (apt and npm packages), builds, and runs every test: go vet, the Go
# tests (with -race on the concurrent packages), short fuzz runs of every
# parser, and the end-to-end tests in real editors (headless Neovim, VS Code
# through code-server). Set AIDE_SKIP_EDITORS=1 to run the Go tests alone.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
step() { printf '\n=== %s (%s)\n' "$*" "$(date -u +%H:%M:%S)"; }

step "build"
go build -o bin/aide-lsp ./cmd/aide-lsp
go vet ./...
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './vscode-client/*'))
if [ -n "$unformatted" ]; then echo "gofmt would change: $unformatted"; exit 1; fi

step "npm packages for the TypeScript bench tasks (typescript, pinned in their lock file)"
npm ci --prefix tests/bench/tasks --no-audit --no-fund >/dev/null

step "go test"
go test -count=1 ./...
step "go test -race (concurrent packages)"
go test -count=1 -race ./lsp/... ./commands/... ./workspace/... ./model/... ./treesitter/... ./tests/e2e/... ./tests/abuse/...

step "fuzz (each parser, ${AIDE_FUZZTIME:=30s})"
bash scripts/fuzz.sh "$AIDE_FUZZTIME"

if [ "${AIDE_SKIP_EDITORS:-}" != 1 ]; then
  step "neovim end-to-end"
  bash tests/neovim/run.sh
  step "vs code end-to-end"
  bash tests/vscode/run.sh
fi
step "all tests passed"
