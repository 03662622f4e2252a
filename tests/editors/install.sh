#!/usr/bin/env bash
# Installs the real editors the end-to-end tests run, without touching the
# machine's apt sources, into a cache folder outside the repository:
#
#   tests/editors/install.sh            install (idempotent) and print the versions
#   tests/editors/install.sh --dir      print the folder of the editor commands
#
# Editors (each becomes a command in $AIDE_EDITORS_CACHE/bin):
#   nvim-0.7   Debian bookworm's neovim (apt-get install, the machine's own suite)
#   nvim-0.10  trixie's neovim (0.10.4)
#   nvim-0.12  sid's neovim (0.12.x, or whatever sid serves at or above 0.12)
#   hx-25.01   trixie's hx (Helix 25.01.x)
#   hx-25.07   sid's hx (Helix 25.07.x or newer)
#   emacs-30   bookworm-backports' emacs-nox (Emacs 30.1, with its Eglot)
#
# How (docs/architecture.md, Testing): a private apt configuration per suite
# (its own sources file, lists and cache under the cache folder; the system's
# sources and preferences are ignored), `apt-get update` + `apt-get download`
# of the editor and the libraries it needs from that suite (its own libc6:
# bookworm's glibc is too old), `dpkg-deb -x` into a root folder, then
# `patchelf` points each binary's interpreter and rpath at that root. A loader
# wrapper would not do: Neovim 0.12's TUI re-executes its own binary. The
# commands in bin/ are small wrappers that set VIMRUNTIME / HELIX_RUNTIME
# (Emacs: its Lisp, data and dump file, as the package's paths are built in).
# A -backports suite is fetched with its base suite beside it, backports
# preferred (APT::Default-Release), as `apt-get -t` would.
#
# Mirror: $AIDE_DEBIAN_MIRROR, default http://deb.debian.org/debian (the one
# the machine already uses).
#
# Cache: $AIDE_EDITORS_CACHE, default /var/cache/aide-editors as root, else
# ~/.cache/aide-editors. An editor already installed (its stamp file present
# and its binary answering --version) is not fetched again. Delete the folder
# to force a fresh install. Needs root for apt-get install (patchelf, neovim
# 0.7, tmux) unless those are already there (only ever run as root so far).
#
# Exit status 0 only when every editor is installed and runs; otherwise the
# reason is printed and the status is 1 (the tests never skip a missing editor).
set -euo pipefail

if [ "$(id -u)" = 0 ]; then
  cache="${AIDE_EDITORS_CACHE:-/var/cache/aide-editors}"
else
  cache="${AIDE_EDITORS_CACHE:-$HOME/.cache/aide-editors}"
fi
if [ "${1:-}" = --dir ]; then
  echo "$cache/bin"
  exit 0
fi
mirror="${AIDE_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
mkdir -p "$cache/bin"
say() { echo "tests/editors: $*" >&2; }
die() { say "FAILED: $*"; exit 1; }

# The machine's own packages: patchelf (to relocate the binaries) and
# bookworm's Neovim 0.7.2. DPkg::Lock::Timeout: other jobs may hold the lock.
need_apt=()
command -v patchelf >/dev/null || need_apt+=(patchelf)
command -v tmux >/dev/null || need_apt+=(tmux) # tests/helix drives Helix in tmux
[ -x /usr/bin/nvim ] || need_apt+=(neovim)
if [ "${#need_apt[@]}" -gt 0 ]; then
  [ "$(id -u)" = 0 ] || die "need ${need_apt[*]}: run as root, or apt-get install -y ${need_apt[*]}"
  say "apt-get install ${need_apt[*]} (the machine's own suite)"
  apt_log="$cache/apt-install.log"
  if ! { apt-get -o DPkg::Lock::Timeout=300 update -qq &&
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq "${need_apt[@]}"; } >"$apt_log" 2>&1; then
    tail -n 20 "$apt_log" >&2
    die "apt-get install ${need_apt[*]} failed (log above, in $apt_log)"
  fi
fi
ln -sf /usr/bin/nvim "$cache/bin/nvim-0.7"

# suite_apt SUITE ARGS...: apt-get with the private configuration of SUITE.
suite_apt() {
  local suite="$1" tool="$2" dir="$cache/apt/$1"
  shift 2
  local release=()
  case "$suite" in *-backports) release=(-o APT::Default-Release="$suite") ;; esac
  "$tool" -o Dir::Etc::SourceList="$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null "${release[@]}" \
    -o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null \
    -o Dir::State::Lists="$dir/lists" -o Dir::Cache="$dir/cache" -o Dir::State::status=/dev/null \
    -o APT::Sandbox::User="$(id -un)" -o Acquire::Languages=none -o APT::Architecture=amd64 \
    -o APT::Architectures=amd64 -o Debug::NoLocking=true "$@"
}

updated=" "
# suite_update SUITE: fetch SUITE's package lists (once per run).
suite_update() {
  local suite="$1" dir="$cache/apt/$1"
  case "$updated" in *" $suite "*) return 0 ;; esac
  mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
  echo "deb [signed-by=$keyring] $mirror $suite main" >"$dir/sources.list"
  case "$suite" in *-backports) echo "deb [signed-by=$keyring] $mirror ${suite%-backports} main" >>"$dir/sources.list" ;; esac
  say "apt-get update ($suite, private lists in $dir)"
  if ! suite_apt "$suite" apt-get update -qq >"$dir/update.log" 2>&1 ||
    grep -q '^[WE]:' "$dir/update.log"; then
    cat "$dir/update.log" >&2
    die "apt-get update of $mirror $suite failed (log above)"
  fi
  updated="$updated$suite "
}

# candidate SUITE PACKAGE: the version SUITE serves.
candidate() {
  suite_apt "$1" apt-cache policy "$2" 2>/dev/null | sed -n 's/^ *Candidate: //p'
}

# installed NAME: NAME is installed (its stamp file present) and runs.
installed() {
  [ -s "$cache/$1/installed" ] && [ -x "$cache/bin/$1" ] && "$cache/bin/$1" --version >/dev/null 2>&1
}

# install_editor NAME SUITE PACKAGE MIN_VERSION BINARY LIBS...: fetch PACKAGE
# and LIBS from SUITE into $cache/NAME/root and relocate BINARY.
install_editor() {
  local name="$1" suite="$2" pkg="$3" min="$4" binary="$5"
  shift 5
  local dest="$cache/$name" root="$cache/$name/root" stamp="$cache/$name/installed"
  installed "$name" && return 0
  suite_update "$suite"
  local version
  version="$(candidate "$suite" "$pkg")"
  [ -n "$version" ] && [ "$version" != "(none)" ] || die "$suite serves no package $pkg"
  dpkg --compare-versions "$version" ge "$min" ||
    die "$suite serves $pkg $version, older than the $min the tests are for"
  rm -rf "$dest"
  mkdir -p "$dest/debs" "$root"
  say "$name: apt-get download $pkg $version and ${#} libraries from $suite"
  if ! (cd "$dest/debs" && suite_apt "$suite" apt-get download -qq "$pkg" "$@") >"$dest/download.log" 2>&1; then
    cat "$dest/download.log" >&2
    die "$name: apt-get download from $suite failed (log above)"
  fi
  local deb
  for deb in "$dest"/debs/*.deb; do
    dpkg-deb -x "$deb" "$root"
  done
  rm -rf "$dest/debs"
  local loader libs
  loader="$(ls "$root"/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 "$root"/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 \
    "$root"/lib64/ld-linux-x86-64.so.2 2>/dev/null | head -n 1)" || true
  [ -n "$loader" ] || die "$name: the extracted libc6 has no ld-linux-x86-64.so.2"
  libs="$root/usr/lib/x86_64-linux-gnu:$root/lib/x86_64-linux-gnu"
  # DT_RPATH (--force-rpath), not RUNPATH: it also applies to the
  # libraries' own dependencies (libluv → libuv), so nothing comes from the
  # host's older libraries.
  patchelf --set-interpreter "$loader" --force-rpath --set-rpath "$libs" "$root$binary" ||
    die "$name: patchelf of $root$binary failed"
  write_wrapper "$name" "$root" "$binary"
  local got
  if ! got="$("$cache/bin/$name" --version 2>&1 | head -n 1)"; then
    die "$name: the installed editor does not run: $got"
  fi
  echo "$pkg $version" >"$stamp"
}

# closure SUITE PACKAGE: PACKAGE and the packages of the libraries it needs,
# as apt resolves them for a machine with nothing installed (the private
# status file is empty): the Emacs packages, zlib and every lib* but headers.
closure() {
  suite_apt "$1" apt-get install -s -qq --no-install-recommends "$2" 2>/dev/null |
    sed -n 's/^Inst \([^ ]*\) .*/\1/p' | grep -E '^(emacs-(nox|common|bin-common)|lib.*|zlib1g)$' | grep -vE -- '-dev$|perl'
}

# write_wrapper NAME ROOT BINARY: the command the tests run.
write_wrapper() {
  local name="$1" root="$2" binary="$3" w="$cache/bin/$1"
  case "$name" in
    nvim-*)
      printf '#!/bin/sh\n# %s: %s from Debian, relocated by tests/editors/install.sh\nVIMRUNTIME=%s/usr/share/nvim/runtime\nexport VIMRUNTIME\nexec %s "$@"\n' \
        "$name" "$binary" "$root" "$root$binary" >"$w" ;;
    hx-*)
      local rt
      rt="$(dirname "$(find "$root" -type d -name queries -path '*runtime/queries' | head -n 1)")"
      [ -d "$rt" ] || die "$name: no Helix runtime (runtime/queries) in the package"
      printf '#!/bin/sh\n# %s: %s from Debian, relocated by tests/editors/install.sh\nHELIX_RUNTIME=%s\nexport HELIX_RUNTIME\nexec %s "$@"\n' \
        "$name" "$binary" "$rt" "$root$binary" >"$w" ;;
    emacs-*)
      local v dump
      v="$(ls "$root/usr/share/emacs" | grep -E '^[0-9]+\.[0-9]+$' | head -n 1)"
      dump="$(ls "$root/usr/libexec/emacs/$v"/*/*.pdmp 2>/dev/null | head -n 1)"
      [ -n "$v" ] && [ -f "$dump" ] || die "$name: no Lisp directory or dump file in the package"
      printf '#!/bin/sh\n# %s: %s from Debian, relocated by tests/editors/install.sh\nEMACSLOADPATH=%s\nEMACSDATA=%s\nEMACSDOC=%s\nEMACSPATH=%s\nexport EMACSLOADPATH EMACSDATA EMACSDOC EMACSPATH\nexec %s --dump-file=%s "$@"\n' \
        "$name" "$binary" "$root/usr/share/emacs/$v/lisp" "$root/usr/share/emacs/$v/etc" "$root/usr/share/emacs/$v/etc" \
        "$(dirname "$dump")" "$root$binary" "$dump" >"$w" ;;
  esac
  chmod +x "$w"
}

base="libc6 libgcc-s1"
# shellcheck disable=SC2086 # word splitting of the library lists is wanted
{
  install_editor nvim-0.10 trixie neovim 0.10.4 /usr/bin/nvim $base neovim-runtime libluajit-5.1-2 \
    libluajit-5.1-common libuv1t64 libunibilium4 lua-lpeg lua-luv libtree-sitter0.22 libmsgpack-c2 libvterm0
  install_editor nvim-0.12 sid neovim 0.12 /usr/bin/nvim $base neovim-runtime libluajit-5.1-2 \
    libluajit-5.1-common libuv1t64 libunibilium4 lua-lpeg lua-luv libtree-sitter0.26 libutf8proc3
  install_editor hx-25.01 trixie hx 25.01 /usr/bin/hx $base
  install_editor hx-25.07 sid hx 25.07 /usr/bin/hx $base
  # Emacs: its library list is long and follows the suite, so apt resolves it.
  if ! installed emacs-30; then
    suite_update bookworm-backports
    install_editor emacs-30 bookworm-backports emacs-nox 1:30.1 /usr/bin/emacs-nox \
      $(closure bookworm-backports emacs-nox | grep -vx emacs-nox)
  fi
}

# The exact versions tested, from the binaries themselves.
for e in nvim-0.7 nvim-0.10 nvim-0.12 hx-25.01 hx-25.07 emacs-30; do
  v="$("$cache/bin/$e" --version 2>&1 | head -n 1)" || die "$e does not run: $v"
  pkg="$(cat "$cache/$e/installed" 2>/dev/null || dpkg-query -W -f '${Package} ${Version}' neovim 2>/dev/null || true)"
  say "$e: $v (Debian $pkg)"
done
