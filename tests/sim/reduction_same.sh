#!/usr/bin/env bash
# The explorer's partial-order reduction keeps the full search's verdicts
# (docs/verification.md, "Partial-order reduction").
#
#   reduction_same.sh COMMAND ARGS...
#
# runs `COMMAND ARGS` (reduced, the default) and `COMMAND ARGS --no-reduction`. Both must
# exit alike and end with the same verdict line (PASS or FAIL). Without --stop-at-first, both
# must also report the same terminal states (count, attributed stalls, digest of their state
# hashes) and the same number of violations: persistent sets reach every terminal state.
set -uo pipefail
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
stop=0
for a in "$@"; do [[ $a == --stop-at-first ]] && stop=1; done
"$@" >"$TMP/reduced" 2>&1
rc1=$?
"$@" --no-reduction >"$TMP/full" 2>&1
rc2=$?
status=0
summary() {
  if ((stop)); then
    grep -E '^(PASS|FAIL)$' "$1"
  else
    grep -E '^  (terminal states|violations) |^(PASS|FAIL)$|^INCOMPLETE' "$1"
  fi
}
summary "$TMP/reduced" >"$TMP/s1"
summary "$TMP/full" >"$TMP/s2"
grep -qE '^(PASS|FAIL)$' "$TMP/s1" || { echo "no verdict in the reduced run"; status=1; }
[[ $rc1 == "$rc2" ]] || { echo "exit status differs: reduced $rc1, full $rc2"; status=1; }
diff "$TMP/s1" "$TMP/s2" || { echo "the reduced and full searches disagree"; status=1; }
grep -E '^  (distinct states|transitions|time) ' "$TMP/reduced" | sed 's/^/reduced: /'
grep -E '^  (distinct states|transitions|time) ' "$TMP/full" | sed 's/^/full:    /'
cat "$TMP/s1"
exit $status
