#!/usr/bin/env bash
# causal-simulate(1): "a failing seed is reproduced by the one command the summary prints".
# The replay command printed for a failing seed, run as printed, must give the same trace as
# the seed run with the original options, for fault lists that remove faults from the mix
# (--faults all,-crash must rebuild a world without crashes); a one-fault list must differ
# from the default mix; and failures beyond the 5 listed are counted, not dropped silently.
# Usage: simulate_replay_test.sh CAUSAL_BINARY
set -uo pipefail
# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
CAUSAL=${1:?causal binary}
for faults in "all,-crash" "crash" "none,abort" "-replay,-growth"; do
  # --step-budget 300 makes seed 3 fail (it cannot drain in 300 steps) whatever the mix.
  "$CAUSAL" simulate --seed 3 --faults "$faults" --step-budget 300 >"$TMP/run" 2>"$TMP/err"
  rc=$?
  replay=$(sed -n 's/.*replay it with: //p' "$TMP/err")
  check "--faults $faults: seed 3 fails (exit $rc) and prints a replay command" test "$([[ $rc == 1 && $replay == causal\ simulate\ * ]]; echo $?)" = 0
  "$CAUSAL" simulate --seed 3 --trace --faults "$faults" --step-budget 300 >"$TMP/original" 2>/dev/null
  # shellcheck disable=SC2086  # the printed command, word by word, as a shell would run it
  "$CAUSAL" ${replay#causal } >"$TMP/replayed" 2>/dev/null
  check "--faults $faults: the printed replay ($replay) rebuilds the same world" cmp -s "$TMP/original" "$TMP/replayed"
done

# A one-fault mix is not the default mix: "crash" alone adds no late joiners and grows no
# scopes (aborts still happen: a crash aborts the open transaction), and it restarts nodes.
counter() { "$CAUSAL" simulate --seeds 1..200 --faults "$1" --format json 2>/dev/null | sed -n "s/^ *\"$2\": \([0-9]*\),*\$/\1/p"; }
check "--faults crash: no joiners ($(counter crash joiners)), no scope growth ($(counter crash scope_growths)), restarts ($(counter crash restarts)); all: joiners ($(counter all joiners))" \
  test "$([[ $(counter crash joiners) == 0 && $(counter crash scope_growths) == 0 && $(counter crash restarts) -gt 0 && $(counter all joiners) -gt 0 ]]; echo $?)" = 0

# More failures than are listed: the summary and the JSON count the rest.
"$CAUSAL" simulate --seeds 1..20 --step-budget 100 >"$TMP/sum" 2>/dev/null
listed=$(grep -c '^FAILED seed' "$TMP/sum")
failed=$(sed -n 's/.*violations [0-9]* in \([0-9]*\) worlds.*/\1/p' "$TMP/sum")
check "summary: $listed listed of $failed failed, the rest counted" \
  test "$([[ $listed == 5 && $failed -gt 5 ]] && grep -qF "... and $((failed - 5)) more failed world(s), not listed" "$TMP/sum"; echo $?)" = 0
"$CAUSAL" simulate --seeds 1..20 --step-budget 100 --format json >"$TMP/sum.json" 2>/dev/null
check "json: failures_not_listed = failed_worlds - 5" \
  grep -qE "\"failures_not_listed\": $((failed - 5))" "$TMP/sum.json"

summary
