#!/usr/bin/env bash
# causal tail --max-held-bytes on the real broker: on a skewed backlog
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
# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
fixture_broker
t=hold-budget-$$-$RANDOM
create_topic "$t" 4 || { echo "FAIL cannot create topic $t"; exit 1; }
N=40000
awk -v n=$N 'BEGIN { for (i = 0; i < n; i++) printf "%0100d\n", i }' | "$CAUSAL" produce --input text "$t/0" >/dev/null 2>&1 ||
  bad "cannot produce to $t/0"
# A random partition for each record (sticky.partitioning.linger.ms=0), as the bound below
# assumes: with produce's default stickiness, runs of records per partition, partition 3
# (which heads of 1 and 2 also wait on) can bring its whole backlog past the budget.
awk -v n=$N 'BEGIN { for (i = n; i < 2 * n; i++) printf "%0100d\n", i }' |
  "$CAUSAL" produce --input text -X sticky.partitioning.linger.ms=0 "$t" >/dev/null 2>&1 ||
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

# A budget far below what one blocked head holds: m/0's head waits on o/0@10, never written,
# with 20 records of 1 KB behind it; o/1 and o/2 hold deliverable records. -e may stop with
# o/1 or o/2 paused and unread (nothing fetched can release the head); then tail must name
# each at exit (causal-tail(1), -e), and a partition it names must indeed be missing.
m=hb-m-$$-$RANDOM o=hb-o-$$-$RANDOM
create_topic "$m" 1 && create_topic "$o" 3 || bad "cannot create $m or $o"
{
  printf '{"value":"head","claims":[{"topic":"%s","partition":0,"offset":10}]}\n' "$o"
  for i in $(seq 20); do printf '{"value":"%01000d"}\n' "$i"; done
} | "$CAUSAL" produce "$m" >/dev/null 2>&1 || bad "cannot produce to $m"
printf '{"value":"a","partition":1}\n{"value":"b","partition":1}\n{"value":"c","partition":2}\n' |
  "$CAUSAL" produce --no-stamp "$o" >/dev/null 2>&1 || bad "cannot produce to $o"
timeout 60 "$CAUSAL" tail -e --format jsonl --max-held-bytes 8k "$m" "$o" >"$TMP/small" 2>"$TMP/small.err"
rc=$?
[[ $rc == 4 ]] || bad "tail --max-held-bytes 8k: exit $rc, want 4 (m/0's head is held): $(head -c 1000 "$TMP/small.err")"
for p in 1 2; do
  got=$(jq -r "select(.topic == \"$o\" and .partition == $p) | .value" "$TMP/small" | wc -l)
  want=$((p == 1 ? 2 : 1))
  named=0
  grep -q "not read: .*$o/$p (at " "$TMP/small.err" && named=1
  if [[ $got != "$want" && $named == 0 ]]; then bad "$o/$p: $got of $want records printed and not named as unread"; fi
  if [[ $got == "$want" && $named == 1 ]]; then bad "$o/$p named as unread, yet all $want records were printed"; fi
  echo "budget 8k: $o/$p printed $got of $want, named unread: $named"
done
# "at N" is where the next fetch starts: past the records received, and m/0's head (offset 0)
# was received (it is held), so m/0 is never "at 0", however many records were received.
grep -qE "not read: .*$m/0 \(at 0," "$TMP/small.err" && bad "8k: $m/0 named unread at 0 with its head held: $(grep "not read" "$TMP/small.err")"
grep -q "pausing the fetch of" "$TMP/small.err" || bad "8k: the first pause was not said: $(head -c 1000 "$TMP/small.err")"
grep -q "0.0 MiB" "$TMP/small.err" && bad "a size below a MiB printed as 0.0 MiB: $(grep -m1 "MiB" "$TMP/small.err")"
timeout 60 "$CAUSAL" tail -e --format jsonl --max-held-bytes 64k "$m" "$o" >"$TMP/large" 2>"$TMP/large.err"
rc=$?
[[ $rc == 4 && $(jq -r "select(.topic == \"$o\") | .value" "$TMP/large" | wc -l) == 3 ]] ||
  bad "tail --max-held-bytes 64k: exit $rc, $(wc -l <"$TMP/large") records printed; want 4 and all three of $o"
grep -q "not read:" "$TMP/large.err" && bad "64k: named partitions as unread: $(grep "not read" "$TMP/large.err")"
[[ $fails == 0 ]] && echo "PASS" || exit 1
