#!/usr/bin/env bash
# `cpack -G DEB` in BUILD_DIR makes a Debian package whose run-time dependencies are right;
# installed with dpkg -i, `causal --version`, `man causal` and bash completion work from the
# installed files; dpkg -r removes every file again.
#
# It installs a package on this machine, so it runs as root (or with sudo) from scripts/test,
# not from CTest, and refuses to run when a package named causal is already installed.
#
# Usage: deb_test.sh BUILD_DIR
set -uo pipefail
# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
BUILD=$(cd "${1:?build dir}" && pwd)
SUDO=()
((EUID == 0)) || SUDO=(sudo)

if dpkg-query -W -f='${Status}' causal 2>/dev/null | grep -q "install ok installed"; then
  echo "FAIL a package named causal is already installed here; remove it first (dpkg -r causal)"
  exit 1
fi
# From here on, at exit: the package this test installs is removed, whatever happened.
on_exit() { dpkg-query -W causal >/dev/null 2>&1 && "${SUDO[@]}" dpkg -r causal >/dev/null 2>&1; }

VERSION=$(sed -n 's/^CMAKE_PROJECT_VERSION:[A-Z]*=//p' "$BUILD/CMakeCache.txt")
if ! (cd "$BUILD" && cpack -G DEB -B "$TMP/pkg") >"$TMP/cpack.log" 2>&1; then
  echo "FAIL cpack -G DEB:"
  tail -10 "$TMP/cpack.log"
  exit 1
fi
deb=$(find "$TMP/pkg" -maxdepth 1 -name "causal_${VERSION}_*.deb" | head -1)
[[ -n $deb ]] || { echo "FAIL no causal_${VERSION}_*.deb in $(ls "$TMP/pkg")"; exit 1; }

# Dependencies: what the binary links, found by dpkg-shlibdeps.
depends=$(dpkg-deb -f "$deb" Depends)
for pkg in librdkafka1 libfmt9 libstdc++6 libc6; do
  tr ',' '\n' <<<"$depends" | sed 's/^ *//; s/ .*//' | grep -qxF "$pkg" && ok || bad "Depends lacks $pkg: $depends"
done
[[ $depends == *"librdkafka1 (>= 2.12)"* ]] && ok || bad "Depends does not ask for librdkafka1 2.12 or newer: $depends"
[[ $(dpkg-deb -f "$deb" Version) == "$VERSION" ]] && ok || bad "package version $(dpkg-deb -f "$deb" Version), want $VERSION"

if ! "${SUDO[@]}" dpkg -i "$deb" >"$TMP/dpkg.log" 2>&1; then
  echo "FAIL dpkg -i $(basename "$deb"):"
  tail -10 "$TMP/dpkg.log"
  exit 1
fi
[[ $(command -v causal) == /usr/bin/causal ]] && ok || bad "causal is not /usr/bin/causal: $(command -v causal)"
[[ $(/usr/bin/causal --version | head -1) == "causal $VERSION" ]] && ok || bad "causal --version: $(/usr/bin/causal --version)"
if MANPAGER=cat MANWIDTH=80 man causal 2>"$TMP/man.err" | grep -q "causal delivery"; then ok; else bad "man causal: $(cat "$TMP/man.err")"; fi
if MANPAGER=cat man causal-tail 2>/dev/null | grep -q "causal $VERSION"; then ok; else bad "man causal-tail: no footer with causal $VERSION"; fi
if MANPAGER=cat man 5 causal-config 2>/dev/null | grep -q "causal $VERSION"; then ok; else bad "man 5 causal-config: no footer with causal $VERSION"; fi
# bash-completion loads /usr/share/bash-completion/completions/causal on first use.
got=$(bash -c '
  source /usr/share/bash-completion/bash_completion || exit 1
  __load_completion causal || _completion_loader causal
  spec=$(complete -p causal) || exit 1
  fn=$(sed -n "s/.*-F \([^ ]*\).*/\1/p" <<<"$spec")
  COMP_WORDS=(causal ta); COMP_CWORD=1; COMP_LINE="causal ta"; COMP_POINT=${#COMP_LINE}
  "$fn" causal ta causal
  printf "%s\n" "${COMPREPLY[@]}"' 2>&1)
grep -qx tail <<<"$got" && ok || bad "bash completion of 'causal ta' from the installed file gave: $got"
[[ -f /usr/include/causal/gate.hpp && -f /usr/share/zsh/site-functions/_causal ]] && ok || bad "headers or zsh completion not installed under /usr"

"${SUDO[@]}" dpkg -r causal >/dev/null 2>&1 || bad "dpkg -r causal failed"
[[ ! -e /usr/bin/causal && ! -e /usr/include/causal ]] && ok || bad "files left after dpkg -r"

summary
