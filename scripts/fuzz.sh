#!/usr/bin/env bash
# Runs every Fuzz* target in the module for a fixed time each (default 30s).
# The seed corpora in testdata/fuzz are run by plain `go test` too.
#
# Targets run two at a time (AIDE_FUZZJOBS), each with one fuzzing worker
# (-parallel 1): the two cores of a CI machine stay busy as before, and the
# step takes about targets x time / 2. Each package's instrumented test
# binary is built once (go test -c -fuzz=.), not linked again per target:
# linking the big test binaries (bench, lsp, commands) costs 5-15 s each.
#
# Minimizing each new interesting input runs up to -fuzzminimizetime, 60s
# by default: on the slower targets (a session reload or a cassette replay
# per input) a 30 s run then spends nearly all its time minimizing inputs
# kept only in the local cache. AIDE_FUZZMINIMIZE (default 100x: 100 runs
# of the target) bounds it; a failing input is still written and reported.
#
# A run that ends with "context deadline exceeded" and no failing input is a
# known quirk of Go's fuzzer when an input is still executing as -fuzztime
# runs out (no crash was found); it is reported and counted as a pass. Any
# failing input (written under testdata/fuzz) fails the run, with its log.
set -euo pipefail
cd "$(dirname "$0")/.."
t=${1:-30s}
jobs=${AIDE_FUZZJOBS:-2}
minimize=${AIDE_FUZZMINIMIZE:-100x}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cache=$(go env GOCACHE)/fuzz
start=$SECONDS

# The targets, as "dir|package|target|binary", and one binary per package.
targets=()
packages=()
while read -r pkg dir; do
  names=$(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u || true)
  [ -n "$names" ] || continue
  bin="$work/bin/${pkg//\//_}.test"
  packages+=("$pkg|$bin")
  for target in $names; do
    targets+=("$dir|$pkg|$target|$bin")
  done
done < <(go list -f '{{.ImportPath}} {{.Dir}}' ./...)
mkdir -p "$work/bin"

# build i: the instrumented test binary of packages[i].
build() {
  local pkg bin
  IFS='|' read -r pkg bin <<<"${packages[$1]}"
  if go test -c -fuzz=. -o "$bin" "$pkg" >"$work/build-$1.log" 2>&1; then
    echo ok >"$work/build-$1.status"
  else
    echo fail >"$work/build-$1.status"
  fi
}

# fuzz i: runs targets[i] in its package folder (where go test runs it, so a
# failing input lands in that package's testdata/fuzz), with go test's cache.
fuzz() {
  local dir pkg target bin log="$work/fuzz-$1.log"
  IFS='|' read -r dir pkg target bin <<<"${targets[$1]}"
  echo "fuzz $pkg $target"
  if (cd "$dir" && "$bin" -test.paniconexit0 -test.timeout=10m -test.run='^$' \
    -test.fuzz="^${target}\$" -test.fuzztime="$t" -test.parallel=1 \
    -test.fuzzminimizetime="$minimize" -test.fuzzcachedir="$cache/$pkg") >"$log" 2>&1; then
    echo ok >"$work/fuzz-$1.status"
  elif grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written' "$log"; then
    echo "  ($target: fuzz time ran out mid-input; no failing input found)"
    echo ok >"$work/fuzz-$1.status"
  else
    echo "  ($target: FAILED)"
    echo fail >"$work/fuzz-$1.status"
  fi
}

# pool kind n: runs kind 0..n-1, $jobs at a time; after a failure it starts
# no more and waits for those running. Prints the failed logs, returns 1.
pool() {
  local kind=$1 n=$2 i failed pkg target
  for ((i = 0; i < n; i++)); do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    if grep -qsx fail "$work/$kind"-*.status; then break; fi
    "$kind" "$i" &
  done
  wait
  failed=0
  for ((i = 0; i < n; i++)); do
    if [ "$(cat "$work/$kind-$i.status" 2>/dev/null)" = fail ]; then
      if [ "$kind" = build ]; then
        echo "=== build ${packages[$i]%%|*}"
      else
        IFS='|' read -r _ pkg target _ <<<"${targets[$i]}"
        echo "=== fuzz $pkg $target"
      fi
      cat "$work/$kind-$i.log"
      failed=1
    fi
  done
  return "$failed"
}

echo "build ${#packages[@]} fuzz test binaries"
pool build "${#packages[@]}" || exit 1
echo "built in $((SECONDS - start)) s"
pool fuzz "${#targets[@]}" || exit 1
echo "fuzzed ${#targets[@]} targets for $t each, $jobs at a time, in $((SECONDS - start)) s"
