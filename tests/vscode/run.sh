#!/usr/bin/env bash
# The VS Code client's whole test, one entry point (for .ci/run):
#   1. installs every pinned code-server (4.96.4 on Node 20, 4.139.1 on Node 24 from npm),
#      playwright-core and Debian's chromium if needed (install.sh; cached)
#   2. runs the extension's unit tests (node's test runner, no VS Code needed) on the
#      system's Node 20 and on the test's Node 24
#   3. builds the linux-x64 release the way users get it (scripts/release.sh VERSION
#      linux-x64): the aide-lsp binary with the release flags and the platform-specific
#      .vsix that carries it
#   4. runs the end-to-end test in each code-server + headless Chromium (e2e.mjs), the same
#      checks on each: the vsix installed with --install-extension, no aide-lsp on PATH, no
#      aide.serverPath
# Each stage is one check; e2e.mjs adds its own. Ends with the plain line
# "N passed, N failed" and exits non-zero when anything failed.
#
#   tests/vscode/run.sh [--stand-in]    (--stand-in: e2e against standin-server.mjs instead of aide-lsp)
#   AIDE_VSCODE_VERSIONS="4.139.1" tests/vscode/run.sh    (only these pinned versions)
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
client="$root/vscode-client"
passed=0
failed=0
start=$(date +%s)

stage() { # stage NAME CMD... : runs CMD, output to a log, counts it
  local name="$1"; shift
  local log="$root/tests/output/vscode-$name.log"
  local t0=$(date +%s)
  if "$@" >"$log" 2>&1; then
    passed=$((passed + 1)); echo "ok   $name ($(( $(date +%s) - t0 )) s)"
    return 0
  fi
  failed=$((failed + 1)); echo "FAIL $name ($(( $(date +%s) - t0 )) s), last lines of $log:"
  tail -n 30 "$log" | sed 's/^/    /'
  return 1
}
finish() {
  echo "tests/vscode: total $(( $(date +%s) - start )) s"
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit $?
}
mkdir -p "$root/tests/output"

read -r -a versions <<<"${AIDE_VSCODE_VERSIONS:-$(bash "$here/install.sh" --versions)}"
cache=""
install_cache() { cache="$(bash "$here/install.sh" "${versions[@]}" | tail -n 1)"; echo "cache: $cache"; }
stage install install_cache || finish
cache="$(tail -n 1 "$root/tests/output/vscode-install.log" | sed 's/^cache: //')"

# npm ci wipes node_modules; skip it when they were installed from this very lockfile.
npm_ci() {
  cd "$client" || return 1
  local want; want="$(sha256sum package-lock.json | cut -d' ' -f1)"
  if [ "$(cat node_modules/.aide-lock-sha256 2>/dev/null)" = "$want" ]; then echo "node_modules up to date"; return 0; fi
  npm ci --no-audit --no-fund && echo "$want" >node_modules/.aide-lock-sha256
}
stage npm-ci npm_ci || finish
stage unit-tests bash -c "cd '$client' && npm test" || true
grep -E '^(# |ℹ )(pass|fail) ' "$root/tests/output/vscode-unit-tests.log" | sed 's/^/    unit /'
# The same tests on Node 24 (the Node install.sh linked for code-server 4.139.1), when installed.
node24="$cache/code-server-4.139.1/bin"
if [ -x "$node24/node" ]; then
  stage unit-tests-node24 bash -c "cd '$client' && PATH='$node24':\"\$PATH\" npm test" || true
  grep -E '^(# |ℹ )(pass|fail) ' "$root/tests/output/vscode-unit-tests-node24.log" | sed 's/^/    unit (node 24) /'
fi
# The version the test's release is stamped with; e2e.mjs prints what the bundled server says.
release_version=0.0.0-e2e
vsix="$root/dist/$release_version/aide-lsp-$release_version-linux-x64.vsix"
stage release-linux-x64 bash -c "cd '$root' && scripts/release.sh $release_version linux-x64" || finish

# The e2e prints its own checks and its own "N passed, N failed"; fold those into ours.
# One run per pinned code-server, the same checks on each; a failure on one does not skip the other.
for v in "${versions[@]}"; do
  echo "e2e on code-server $v:"
  e2e_log="$root/tests/output/vscode-e2e-$v.log"
  node "$here/e2e.mjs" --cache "$cache" --code-server "$v" --vsix "$vsix" "$@" 2>&1 | tee "$e2e_log" | grep -v '^[0-9]* passed, [0-9]* failed$' | sed 's/^/  /'
  counts="$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$e2e_log" | tail -n 1)"
  if [ -n "$counts" ]; then
    passed=$((passed + ${counts%% passed*}))
    f="${counts#*passed, }"; failed=$((failed + ${f%% failed}))
  else
    failed=$((failed + 1)); echo "FAIL e2e on code-server $v: ended without its summary line (see $e2e_log)"
  fi
done
finish
