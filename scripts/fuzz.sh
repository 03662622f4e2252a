#!/usr/bin/env bash
# Runs every Fuzz* target in the module for a fixed time each (default 10s).
# The seed corpora in testdata/fuzz are run by plain `go test` too.
set -euo pipefail
cd "$(dirname "$0")/.."
t=${1:-10s}
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
    echo "fuzz $pkg $target"
    go test -run='^$' -fuzz="^${target}\$" -fuzztime="$t" "$pkg" >/tmp/fuzz.$$.log 2>&1 || { cat /tmp/fuzz.$$.log; exit 1; }
  done
done
