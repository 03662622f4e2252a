# Shared start-up of the real-editor harnesses (tests/neovim/run.sh,
# tests/helix/run.sh, tests/emacs/run.sh): sourced, not run. The caller sets root (the
# repository) before sourcing it.
#
#   harness_start NAME TMPNAME KEPT  a temporary folder $tmp, removed on exit
#                                    when the run passed (KEEP=1 keeps it; KEPT
#                                    says what it holds); zeroed totals
#   harness_build                    $aide_bin (AIDE_LSP, else bin/aide-lsp
#                                    built) and $tmp/fakemodel
#   start_fake SCRIPT OUT            the model fake on a free loopback port,
#                                    written to OUT/port; $fake_pid
#   stop_fake                        stops it
#   tally FILE [STATUS]              adds the "N passed, M failed" line of a
#                                    driver's output to the totals (none, or a
#                                    failed STATUS with no failed check, counts
#                                    as one failure)
#   harness_summary WHAT             prints the result; fails unless all passed

harness_start() {
  harness_name="$1" harness_kept="$3"
  tmp="$(mktemp -d "${TMPDIR:-/tmp}/$2.XXXXXX")"
  fake_pid=""
  total_passed=0 total_failed=0
  failed=()
  trap harness_cleanup EXIT
}

harness_cleanup() {
  local status=$?
  stop_fake
  if [ "$status" -eq 0 ] && [ "${KEEP:-}" != 1 ]; then
    rm -rf "$tmp"
  else
    echo "$harness_name: kept $tmp ($harness_kept)" >&2
  fi
  exit "$status"
}

harness_build() {
  if [ -n "${AIDE_LSP:-}" ]; then
    aide_bin="$(realpath "$(command -v "$AIDE_LSP")")"
    echo "$harness_name: testing $aide_bin; building the model fake"
    (cd "$root" && go build -o "$tmp/fakemodel" ./tests/neovim/fakemodel)
  else
    aide_bin="$root/bin/aide-lsp"
    echo "$harness_name: building aide-lsp and the model fake"
    (cd "$root" && go build -o bin/aide-lsp ./cmd/aide-lsp && go build -o "$tmp/fakemodel" ./tests/neovim/fakemodel)
  fi
}

start_fake() {
  local script="$1" out="$2"
  "$tmp/fakemodel" -script "$script" -port-file "$out/port" -log "$out/model-requests.jsonl" \
    2>"$out/fakemodel.stderr" &
  fake_pid=$!
  # The fake writes its port as soon as it listens; it starts in
  # milliseconds, 10 s only guards against a hang.
  for _ in $(seq 1 200); do
    [ -s "$out/port" ] && return 0
    kill -0 "$fake_pid" 2>/dev/null || break
    sleep 0.05
  done
  cat "$out/fakemodel.stderr" >&2
  echo "$harness_name: the model fake did not start" >&2
  return 1
}

stop_fake() {
  if [ -n "$fake_pid" ]; then
    kill "$fake_pid" 2>/dev/null || true
    wait "$fake_pid" 2>/dev/null || true
  fi
  fake_pid=""
}

tally() {
  local counts status="${2:-0}"
  counts="$(sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed$/\1 \2/p' "$1" | tail -n 1)"
  if [ -n "$counts" ]; then
    total_passed=$((total_passed + ${counts% *}))
    total_failed=$((total_failed + ${counts#* }))
    [ "$status" -eq 0 ] || [ "${counts#* }" -gt 0 ] || total_failed=$((total_failed + 1))
  else
    total_failed=$((total_failed + 1))
  fi
}

harness_summary() {
  if [ "${#failed[@]}" -gt 0 ]; then
    echo "$harness_name: FAILED: ${failed[*]}"
  else
    echo "$harness_name: every $1 passed"
  fi
  echo "$total_passed passed, $total_failed failed"
  [ "${#failed[@]}" -eq 0 ] && [ "$total_failed" -eq 0 ]
}
