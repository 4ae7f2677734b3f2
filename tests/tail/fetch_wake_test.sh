#!/usr/bin/env bash
# A small prefetch queue at full speed, on the real broker: with a prefetch queue far smaller
# than one fetch response, librdkafka's fetcher stops after every response and waits
# fetch.queue.backoff.ms before the next (1 s by default, librdkafka issue #2879). The host sets
# it to 10 ms, so a read of 30,000 records in about 70 small fetches ends in about a second on
# this machine instead of about 48 s. The 20 s bound is that liveness property, with a wide
# margin; the read must also be whole: every record once, in offset order.
#
# Usage: fetch_wake_test.sh CAUSAL_BINARY SOURCE_DIR BUILD_DIR
set -uo pipefail
CAUSAL=${1:?causal binary}
SRC=${2:?source dir}
BUILD=${3:?build dir}
# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
fixture_broker
t=fetch-wake-$$-$RANDOM
create_topic "$t" 1 || { echo "FAIL cannot create topic $t"; exit 1; }
N=30000
# Small producer batches, so that the broker can answer with small fetch responses.
awk -v n=$N 'BEGIN { for (i = 0; i < n; i++) printf "%0100d\n", i }' |
  "$CAUSAL" produce --no-stamp --input text -X batch.size=16384 "$t" >/dev/null 2>"$TMP/perr" ||
  { echo "FAIL cannot produce to $t: $(cat "$TMP/perr")"; exit 1; }

small=(-X queued.max.messages.kbytes=1 -X fetch.max.bytes=65536 -X message.max.bytes=65536
  -X max.partition.fetch.bytes=65536)
start=$(date +%s.%N)
timeout 20 "$CAUSAL" tail -e --format jsonl "${small[@]}" "$t" >"$TMP/out" 2>"$TMP/err"
rc=$?
secs=$(echo "$(date +%s.%N) - $start" | bc)
[[ $rc == 124 ]] && bad "the read of $N records with a 1 KiB prefetch queue did not end within 20 s: the fetcher was not woken"
[[ $rc == 0 || $rc == 124 ]] || bad "tail: exit $rc: $(head -c 2000 "$TMP/err")"
jq -r .offset "$TMP/out" >"$TMP/offsets"
seq 0 $((N - 1)) | cmp -s - "$TMP/offsets" || bad "the offsets read are not 0..$((N - 1)) once each in order ($(wc -l <"$TMP/offsets") lines)"
jq -r .value "$TMP/out" | awk -v n=$N '$0 + 0 != NR - 1 { print "value " $0 " at line " NR; bad = 1; exit } END { exit bad }' ||
  bad "values out of step with offsets"
echo "read $N records with a 1 KiB prefetch queue in $secs s"
[[ $fails == 0 ]] && echo "PASS" || exit 1
