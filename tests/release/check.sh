#!/usr/bin/env bash
# The release build's cheap check (scripts/test.sh runs it; the full five-platform
# release stays out of the tests): builds the linux-x64 archive with the release
# flags (scripts/release.sh --no-vsix), then checks what a user gets from it:
#   - SHA256SUMS verifies the archive; the archive holds aide-lsp, LICENSE, README.md;
#   - the binary needs no glibc newer than 2.31 (the newest GLIBC_ symbol version
#     it references, objdump -T), or none at all (static);
#   - `aide-lsp --version` names the version, the commit and the Go version;
#   - `doctor` and the LSP initialize's serverInfo report the same.
# Prints one line per check and "N passed, N failed"; exits non-zero on a failure.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
version=0.0.0-check
name="aide-lsp-$version-linux-x64"
out="$root/dist/$version"
passed=0 failed=0
check() { # check NAME COMMAND...: one line, counted
  local name="$1"; shift
  local got
  if got=$("$@" 2>&1); then passed=$((passed + 1)); echo "ok - $name${got:+ ($got)}"
  else failed=$((failed + 1)); echo "FAIL - $name: $got"; fi
}
# The commit the binary must name, as release.sh stamps it (a tree with uncommitted
# changes is marked -dirty).
commit=$(git rev-parse HEAD | cut -c1-12)
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then commit="$commit-dirty"; fi
mkdir -p "$root/dist"
t0=$(date +%s)
if ! bash scripts/release.sh --no-vsix "$version" linux-x64 >"$root/dist/release-check.log" 2>&1; then
  tail -n 30 "$root/dist/release-check.log"
  echo "0 passed, 1 failed"
  exit 1
fi
echo "tests/release: scripts/release.sh --no-vsix $version linux-x64 in $(( $(date +%s) - t0 )) s"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
tar -xzf "$out/$name.tar.gz" -C "$tmp"
bin="$tmp/$name/aide-lsp"
gov=$(go env GOVERSION)

check "SHA256SUMS verifies the archive" bash -c "cd '$out' && sha256sum -c --quiet SHA256SUMS"
check "the archive holds aide-lsp, LICENSE and README.md" bash -c "cd '$tmp/$name' && ls aide-lsp LICENSE README.md >/dev/null && cmp LICENSE '$root/LICENSE'"
glibc() {
  if ! objdump -p "$bin" | grep -q NEEDED; then echo "static"; return 0; fi
  local newest
  newest=$(objdump -T "$bin" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n 1)
  [ -n "$newest" ] || { echo "no GLIBC_ symbol versions found in objdump -T"; return 1; }
  echo "newest glibc symbol version $newest"
  [ "$(printf '%s\n2.31\n' "$newest" | sort -V | tail -n 1)" = 2.31 ]
}
check "glibc 2.31 or older (Debian 11, Ubuntu 20.04) or static" glibc
want="aide-lsp $version (commit $commit, $gov) linux/amd64"
check "--version names the release" bash -c "v=\$('$bin' --version); echo \"\$v\"; [ \"\$v\" = '$want' ]"
check "doctor names the release" bash -c "'$bin' doctor --dir '$tmp' | head -n 1 | grep -F 'aide-lsp $version (commit $commit, $gov) doctor on'"
server_info() {
  python3 - "$bin" <<'PY'
import json, subprocess, sys
p = subprocess.Popen([sys.argv[1], "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def send(msg):
    body = json.dumps(msg).encode()
    p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body); p.stdin.flush()
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "rootUri": None, "capabilities": {}}})
while True:
    length = 0
    while (line := p.stdout.readline().strip()):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    msg = json.loads(p.stdout.read(length))
    if msg.get("id") == 1:
        break
send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}); send({"jsonrpc": "2.0", "method": "exit"})
p.wait(timeout=30)
print(json.dumps(msg["result"]["serverInfo"]))
PY
}
check "the LSP serverInfo names the release" bash -c "$(declare -f server_info); bin='$bin'; s=\$(server_info); echo \"\$s\"; [[ \"\$s\" == *'\"version\": \"$version (commit $commit, $gov)\"'* ]]"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
