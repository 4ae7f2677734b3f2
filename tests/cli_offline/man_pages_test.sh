#!/usr/bin/env bash
# The man pages: every subcommand of `causal --help` has causal-SUB(1), every page
# (sections 1 and 5) renders with no groff warning (groff -man -ww -z), and every page's
# footer names the version CMake's project(VERSION) gives, which `causal --version` prints,
# and one date for all.
# Usage: man_pages_test.sh CAUSAL_BINARY SOURCE_DIR VERSION
set -uo pipefail
# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
CAUSAL=${1:?causal binary}
SRC=${2:?source dir}
VERSION=${3:?project version}

check "causal --version prints $VERSION" grep -qx "causal $VERSION" <("$CAUSAL" --version)
for sub in $("$CAUSAL" --help | awk '/^Subcommands:/ { on = 1; next } on && !NF { on = 0 } on { print $1 }'); do
  check "man/causal-$sub.1 exists" test -f "$SRC/man/causal-$sub.1"
done
dates=()
for page in "$SRC"/man/*.1 "$SRC"/man/*.5; do
  warnings=$(groff -man -ww -z "$page" 2>&1)
  check "$(basename "$page") renders without warnings${warnings:+: $warnings}" test -z "$warnings"
  th=$(head -1 "$page")
  check "$(basename "$page"): footer names causal $VERSION ($th)" grep -q "\"causal $VERSION\"" <<<"$th"
  dates+=("$(awk '{ print $4 }' <<<"$th")")
done
check "one date on every page (${dates[*]})" test "$(printf '%s\n' "${dates[@]}" | sort -u | wc -l)" = 1
summary
