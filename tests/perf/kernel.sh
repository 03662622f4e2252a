#!/usr/bin/env bash
# tests/perf/kernel.sh — the Linux kernel figures (docs/performance.md, "The
# Linux kernel"), side by side with universal-ctags on the same files, in one
# run. Not in CI: it installs packages and takes many minutes on 2 cores.
#
#   nice -n 10 tests/perf/kernel.sh          # table to stdout, details to stderr
#   AIDE_KERNEL_DIR=/somewhere tests/perf/kernel.sh
#
# It installs linux-source and universal-ctags from apt when missing
# (apt-get update once first; needs root), extracts the tree once into
# $AIDE_KERNEL_DIR (default /var/cache/aide-kernel, outside the
# repository), drops the Debian packaging rules from its .gitignore (they
# ignore the whole top level), and makes it a git repository. Every figure
# comes with the load average at the time: the machine may be shared, and
# the ratios to ctags in the same run are what count.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
start=$(date +%s)
base=${AIDE_KERNEL_DIR:-/var/cache/aide-kernel}

need=()
ls /usr/src/linux-source-*.tar.xz >/dev/null 2>&1 || need+=(linux-source)
ctags --version 2>/dev/null | grep -q 'Universal Ctags' || need+=(universal-ctags)
if [ ${#need[@]} -gt 0 ]; then
  echo "kernel: apt-get install ${need[*]}" >&2
  apt-get update >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${need[@]}" >&2
fi
tarball=$(ls /usr/src/linux-source-*.tar.xz | sort -V | tail -1)
name=$(basename "$tarball" .tar.xz)
kdir="$base/$name"
if [ ! -d "$kdir/.git" ]; then
  mkdir -p "$base"
  if [ ! -f "$kdir/Makefile" ]; then
    echo "kernel: extracting $tarball into $base" >&2
    rm -rf "$kdir"
    tar -C "$base" -xJf "$tarball"
  fi
  # Debian's packaging repository ends the tree's .gitignore with "/*"
  # (ignore the top level but debian/): not the kernel's own rules.
  sed -i '/^# Debian packaging/,$d' "$kdir/.gitignore"
  echo "kernel: git init (a few minutes)" >&2
  git -C "$kdir" init -q
  git -C "$kdir" add -A
  git -C "$kdir" -c user.name=kernel.sh -c user.email=kernel.sh@localhost commit -qm "$name" --no-verify
fi

bin="$repo/bin/aide-lsp"
go build -o "$bin" ./cmd/aide-lsp
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
load() { cut -d' ' -f1 /proc/loadavg; }

# timed NAME CMD...: runs CMD with GNU time; "$tmp/NAME.time" holds
# "seconds peakKiB", "$tmp/NAME.load" the load average before it.
timed() {
  local n=$1; shift
  load > "$tmp/$n.load"
  echo "kernel: $n: $*" >&2
  /usr/bin/time -f '%e %M' -o "$tmp/$n.time" "$@"
}
secs() { cut -d' ' -f1 "$tmp/$1.time"; }
mib() { awk '{printf "%.0f", $2/1024}' "$tmp/$1.time"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

# The files aide indexes, by extension, at most 1 MiB (treesitter's
# maxFileSize); ctags reads the same list.
{ git -C "$kdir" ls-files -z | grep -zE '\.(go|py|pyi|pyw|js|mjs|cjs|jsx|ts|mts|cts|tsx|rs|java|c|h|cc|cpp|cxx|c\+\+|hh|hpp|hxx|h\+\+|rb|rake|gemspec|sh|bash)$' |
  (cd "$kdir" && xargs -0 stat -L -c '%s %n' 2>/dev/null) || true; } |
  awk '$1 <= 1048576 { sub(/^[0-9]+ /, ""); print }' > "$tmp/files"
nfiles=$(wc -l < "$tmp/files")
(cd "$kdir" && timed ctags ctags --fields=+nS -f "$tmp/tags" -L "$tmp/files") || true

# The index cache is the user's (XDG_CACHE_HOME), here beside the tree as
# tests/perf's cacheHome has it.
export XDG_CACHE_HOME="$kdir.aide-cache"
rm -rf "$XDG_CACHE_HOME"
timed cold "$bin" map --dir "$kdir" --stats > "$tmp/cold.map" 2> "$tmp/cold.err" || true
cat "$tmp/cold.err" >&2
timed warm "$bin" map --dir "$kdir" --stats > "$tmp/warm.map" 2> "$tmp/warm.err" || true
cat "$tmp/warm.err" >&2
timed focus "$bin" map --dir "$kdir" --stats --focus "drivers/net/ethernet/intel/e1000/e1000_main.c" \
  "make e1000_clean_tx_irq count dropped packets" > "$tmp/focus.map" 2> "$tmp/focus.err" || true
cat "$tmp/focus.map" "$tmp/focus.err" >&2
# Duplicates: a signature listed twice under one file.
dups=$(awk '/^[^ ].*:$/ { f = $0; next } { if (seen[f SUBSEP $0]++) n++ } END { print n + 0 }' "$tmp/focus.map")
header=$(grep -c '^drivers/net/ethernet/intel/e1000/e1000.h:$' "$tmp/focus.map" || true)

# The first architect request through `run --plan-only`, answered by a
# one-exchange cassette (no model is called).
cat > "$tmp/plan.json" <<'EOF'
{"version": 1, "exchanges": [{"request": {"model": "recorded/kernel", "role": "architect", "messages": 1},
  "response": {"text": "## Plan\n1. In e1000_main.c, nothing.\n## End Plan\n", "stopReason": "stop"}}]}
EOF
runplan() {
  timed "$1" "$bin" run --dir "$kdir" --plan-only --replay "$tmp/plan.json" \
    --file drivers/net/ethernet/intel/e1000/e1000_main.c "make e1000_clean_tx_irq count dropped packets" \
    > "$tmp/$1.out" 2> "$tmp/$1.err" || true
  tail -5 "$tmp/$1.err" >&2
}
rm -rf "$XDG_CACHE_HOME"
runplan runcold
runplan runwarm

# The server: cold start, then a restart on the cache (tests/perf).
serverload=$(load)
echo "kernel: go test ./tests/perf -bench KernelServer" >&2
AIDE_PERF_KERNEL="$kdir" go test ./tests/perf -run '^$' -bench KernelServer -benchtime 1x -timeout 60m 2>&1 | tee "$tmp/server" >&2 || true
metric() { awk -v u="$1" '$1 ~ /^BenchmarkKernelServer/ { for (i = 2; i < NF; i++) if ($(i+1) == u) print $i }' "$tmp/server"; }

ct=$(secs ctags)
row() { printf '| %s | %s | %s | %s |\n' "$1" "$2" "$3" "$4"; }
echo "Measured $(date -u '+%Y-%m-%d %H:%M') UTC on $(nproc) cores, commit $(git rev-parse --short HEAD), $name ($nfiles files indexed by extension; ctags reads the same list)."
echo "Command: \`nice -n 10 tests/perf/kernel.sh\` (took $(( $(date +%s) - start )) s)."
echo
echo "| figure | aide | ratio to ctags ($ct s, $(mib ctags) MiB) | load avg |"
echo "|---|---|---|---|"
row "cold \`map --stats\`" "$(secs cold) s, $(mib cold) MiB peak" "$(ratio "$(secs cold)" "$ct")×" "$(cat "$tmp/cold.load")"
row "warm \`map --stats\`" "$(secs warm) s, $(mib warm) MiB peak" "$(ratio "$(secs warm)" "$ct")×" "$(cat "$tmp/warm.load")"
row "focused map on e1000 (warm)" "$(secs focus) s; $dups duplicate lines; e1000.h listed: $([ "${header:-0}" -gt 0 ] && echo yes || echo no)" "$(ratio "$(secs focus)" "$ct")×" "$(cat "$tmp/focus.load")"
row "first architect request, cold (\`run --plan-only\`)" "$(secs runcold) s, $(mib runcold) MiB peak" "$(ratio "$(secs runcold)" "$ct")×" "$(cat "$tmp/runcold.load")"
row "first architect request, warm (\`run --plan-only\`)" "$(secs runwarm) s, $(mib runwarm) MiB peak" "$(ratio "$(secs runwarm)" "$ct")×" "$(cat "$tmp/runwarm.load")"
fr() { awk -v ms="$1" 'BEGIN { if (ms != "") printf "%.1f", ms / 1000; else print "n/a" }'; }
row "server: first architect request, cold / warm" "$(fr "$(metric cold-first-request-ms)") s / $(fr "$(metric warm-first-request-ms)") s" "$(ratio "$(fr "$(metric cold-first-request-ms)")" "$ct")× / $(ratio "$(fr "$(metric warm-first-request-ms)")" "$ct")×" "$serverload"
row "server RSS after indexing / after a restart with the cache" "$(metric cold-rss-MiB) / $(metric warm-rss-MiB) MiB (heap and private: $(metric cold-rss-anon-MiB) / $(metric warm-rss-anon-MiB) MiB)" "" "$serverload"
row "codeAction p99 while indexing (cold start)" "$(metric cold-codeAction-p99-ms) ms over $(metric cold-codeActions) requests" "" "$serverload"
echo
echo "\`map --stats\` (cold): $(tail -1 "$tmp/cold.err")"
echo "\`map --stats\` (warm): $(tail -1 "$tmp/warm.err")"
