#!/usr/bin/env bash
# Installs what the VS Code end-to-end test needs: Debian's chromium and ripgrep, the
# toolchain for code-server's native modules, and code-server 4.96.4 + playwright-core
# from npm into a cache folder outside the repository (so CI's fresh clone reuses it).
#
# Idempotent: a marker file records a finished install; a second run only checks it.
# code-server's own postinstall fails offline, so it is installed with --ignore-scripts
# and its steps are redone here by hand (recipe from issue 9, found by trying it).
#
# Prints the cache folder on its last line.
set -euo pipefail

CODE_SERVER_VERSION=4.96.4
PLAYWRIGHT_VERSION=1.65.1
PROXY_AGENT_VERSION=0.27.0
CACHE="${AIDE_VSCODE_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/aide-lsp/vscode-e2e}"
MARKER="$CACHE/.installed-code-server-$CODE_SERVER_VERSION-playwright-$PLAYWRIGHT_VERSION"

log() { echo "install.sh: $*" >&2; }

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

if [ -f "$MARKER" ]; then
  echo "$CACHE"
  exit 0
fi

start=$(date +%s)
mkdir -p "$CACHE"
cd "$CACHE"
[ -f package.json ] || echo '{"name":"aide-vscode-e2e-cache","private":true}' >package.json
log "npm install code-server@$CODE_SERVER_VERSION playwright-core@$PLAYWRIGHT_VERSION (no scripts)"
npm install --no-audit --no-fund --ignore-scripts "code-server@$CODE_SERVER_VERSION" "playwright-core@$PLAYWRIGHT_VERSION" >&2
npm rebuild argon2 >&2

CS="$CACHE/node_modules/code-server"
VS="$CS/lib/vscode"
cd "$VS"
# The shrinkwrap pins vscode-proxy-agent to a git URL, which cannot be fetched here; the
# registry tarball of @vscode/proxy-agent@0.27.0 is the same package (same sha512).
tarball=$(npm view "@vscode/proxy-agent@$PROXY_AGENT_VERSION" dist.tarball)
integrity=$(npm view "@vscode/proxy-agent@$PROXY_AGENT_VERSION" dist.integrity)
node - "$tarball" "$integrity" <<'JS'
const fs = require('fs');
const [tarball, integrity] = process.argv.slice(2);
const file = 'npm-shrinkwrap.json';
const sw = JSON.parse(fs.readFileSync(file, 'utf8'));
let n = 0;
for (const [key, entry] of Object.entries(sw.packages || {})) {
  if (key.endsWith('node_modules/@vscode/proxy-agent') && entry.resolved && !entry.resolved.startsWith('https://registry')) {
    entry.resolved = tarball; entry.integrity = integrity; n++;
  }
}
const walk = deps => { for (const [name, d] of Object.entries(deps || {})) {
  if (name === '@vscode/proxy-agent' && d.version && !d.version.match(/^\d/)) { d.version = tarball.match(/-(\d[^/]*)\.tgz$/)[1]; d.resolved = tarball; d.integrity = integrity; n++; }
  walk(d.dependencies);
} };
walk(sw.dependencies);
fs.writeFileSync(file, JSON.stringify(sw, null, 2));
console.error(`install.sh: repointed ${n} shrinkwrap entr${n === 1 ? 'y' : 'ies'} of @vscode/proxy-agent at ${tarball}`);
JS
log "npm install --omit=dev in lib/vscode"
npm install --no-audit --no-fund --omit=dev --ignore-scripts >&2
mkdir -p node_modules/@vscode/ripgrep/bin
cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
log "rebuild native modules"
npm rebuild @parcel/watcher @vscode/deviceid @vscode/spdlog kerberos native-watchdog node-pty >&2

# code-server's postinstall.sh links, redone.
ln -sfn node_modules node_modules.asar
if [ -d bin/remote-cli ]; then ln -sf code-linux.sh bin/remote-cli/code-server; fi
if [ -d bin/helpers ]; then ln -sf browser-linux.sh bin/helpers/browser.sh; fi
log "npm install --omit=dev in lib/vscode/extensions"
(cd extensions && npm install --no-audit --no-fund --omit=dev >&2)

XDG_CONFIG_HOME="$CACHE/xdg-config" XDG_DATA_HOME="$CACHE/xdg-data" node "$CS/out/node/entry.js" --version >&2
touch "$MARKER"
log "installed in $(( $(date +%s) - start )) s"
echo "$CACHE"
