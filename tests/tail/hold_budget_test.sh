#!/usr/bin/env bash
# causal tail --max-held-bytes (issue 14, item 1) on the real broker: on a skewed backlog
# (every record of partitions 1-3 claims the last of 40,000 records of partition 0) tail
# keeps what it holds within the budget, by pausing partitions 1-3, says so on stderr, and
# still delivers every record once, in causal order. Without a budget the same read holds
# more than the budgeted bound allows, so the bound below is not vacuous.
#
# Usage: hold_budget_test.sh CAUSAL_BINARY SOURCE_DIR BUILD_DIR
set -uo pipefail
CAUSAL=${1:?causal binary}
SRC=${2:?source dir}
BUILD=${3:?build dir}
source "$SRC/tests/tail/broker_lib.sh"
t=hold-budget-$$-$RANDOM
create_topic "$t" 4 || { echo "FAIL cannot create topic $t"; exit 1; }
N=40000
awk -v n=$N 'BEGIN { for (i = 0; i < n; i++) printf "%0100d\n", i }' | "$CAUSAL" produce --input text "$t/0" >/dev/null 2>&1 ||
  bad "cannot produce to $t/0"
awk -v n=$N 'BEGIN { for (i = n; i < 2 * n; i++) printf "%0100d\n", i }' | "$CAUSAL" produce --input text "$t" >/dev/null 2>&1 ||
  bad "cannot produce to $t"

# The bound docs/library.md states: the budget, plus one poll batch (4096 records, charged
# payload + 1 KiB each), plus what partitions blocked heads wait on bring past the budget
# (here partitions 1-3 claim each other's records too): allowed one more batch. Measured
# 5.5 to 8.0 MB; without a budget the same read holds over 30 MB.
BUDGET=$((2 * 1024 * 1024))
BOUND=$((BUDGET + 2 * 4096 * (100 + 1024)))
timeout 60 "$CAUSAL" tail -e --format jsonl --max-held-bytes 2m "$t" >"$TMP/out" 2>"$TMP/err"
rc=$?
[[ $rc == 0 ]] || bad "tail --max-held-bytes 2m: exit $rc: $(head -c 2000 "$TMP/err")"
n=$(wc -l <"$TMP/out")
[[ $n == $((2 * N)) ]] || bad "delivered $n records, expected $((2 * N))"
# Once each, in offset order per partition, and nothing of partitions 1-3 before 0@(N-1).
jq -r '"\(.partition) \(.offset)"' "$TMP/out" >"$TMP/po"
awk -v last=$((N - 1)) '
  { if ($1 in seen && $2 <= seen[$1]) { print "out of order or repeated: " $0; bad = 1 } seen[$1] = $2 }
  $1 == 0 && $2 == last { cause = NR }
  $1 != 0 && !first { first = NR }
  END { if (!cause || first < cause) { print "a record of partitions 1-3 (line " first ") before 0@" last " (line " cause ")"; bad = 1 }
        exit bad }' "$TMP/po" || bad "order: see above"
grep -q "pausing the fetch of $t/" "$TMP/err" || bad "no pause notice on stderr: $(head -c 2000 "$TMP/err")"
peak=$(sed -n 's/.*hold budget 2097152 bytes: peak \([0-9]*\) bytes held.*/\1/p' "$TMP/err")
[[ -n $peak ]] || bad "no hold budget line on stderr: $(head -c 2000 "$TMP/err")"
[[ -n $peak && $peak -le $BOUND ]] || bad "held $peak bytes at the peak, over the bound $BOUND of a 2 MiB budget"

# Without a budget, the same read holds more than that bound.
timeout 60 "$CAUSAL" tail -e --format jsonl --max-held-bytes 0 "$t" >"$TMP/out0" 2>"$TMP/err0"
rc=$?
[[ $rc == 0 && $(wc -l <"$TMP/out0") == $((2 * N)) ]] || bad "tail --max-held-bytes 0: exit $rc, $(wc -l <"$TMP/out0") records"
peak0=$(sed -n 's/.*no hold budget: peak \([0-9]*\) bytes held.*/\1/p' "$TMP/err0")
[[ -n $peak0 && $peak0 -gt $BOUND ]] || bad "without a budget the peak was '${peak0}' bytes, not above $BOUND: the backlog is not skewed enough to test the budget"
grep -q "pausing" "$TMP/err0" && bad "paused without a budget"
echo "budget 2 MiB: peak $peak bytes held (bound $BOUND); no budget: peak $peak0 bytes"
[[ $fails == 0 ]] && echo "PASS" || exit 1
