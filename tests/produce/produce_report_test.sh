#!/usr/bin/env bash
# causal produce --sync --report jsonl writes each record's report line as soon as the record
# is delivered, before reading the next input line (causal-produce(1), --report): a script
# that feeds produce line by line and reads the offsets back must not wait for exit, nor for
# 64 KiB of output.
# Usage: produce_report_test.sh CAUSAL SRC BUILD (under the kafka_broker fixture)
set -uo pipefail
CAUSAL=${1:?causal binary}
SRC=${2:?source dir}
BUILD=${3:?build dir}
# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
fixture_broker

topic=produce-report-$$-$RANDOM
create_topic "$topic" 1 || bad "cannot create $topic"
mkfifo "$TMP/in"
"$CAUSAL" produce --sync --report jsonl "$topic" <"$TMP/in" >"$TMP/out" 2>"$TMP/err" &
producer=$!
pids+=("$producer")
exec 3>"$TMP/in"
# wait_lines N: the report file has N lines within 15 s.
wait_lines() {
  for _ in $(seq 150); do
    (($(wc -l <"$TMP/out") >= $1)) && return 0
    sleep 0.1
  done
  return 1
}
echo '{"value":"one"}' >&3
if wait_lines 1 && [[ $(jq -r '"\(.offset) \(.line)"' "$TMP/out") == "0 1" ]]; then
  ok
else
  bad "the first report line did not come while produce waited for input: '$(cat "$TMP/out")' $(cat "$TMP/err")"
fi
echo '{"value":"two"}' >&3
if wait_lines 2 && [[ $(sed -n 2p "$TMP/out" | jq -r '"\(.offset) \(.line)"') == "1 2" ]]; then
  ok
else
  bad "the second report line: '$(cat "$TMP/out")' $(cat "$TMP/err")"
fi
exec 3>&-
wait "$producer"
rc=$?
[[ $rc == 0 && $(wc -l <"$TMP/out") == 2 ]] && ok || bad "produce exit $rc, $(wc -l <"$TMP/out") report lines: $(cat "$TMP/err")"

# A configuration librdkafka refuses when it makes the producer is the user's -X: exit 2,
# one line that names the conflict.
echo '{"value":"three"}' | timeout 20 "$CAUSAL" produce -X acks=1 "$topic" >"$TMP/out" 2>"$TMP/err"
rc=$?
if [[ $rc == 2 && $(wc -l <"$TMP/err") == 1 ]] && grep -q "librdkafka refused the configuration: .acks." "$TMP/err"; then
  ok
else
  bad "produce -X acks=1: exit $rc: $(cat "$TMP/err")"
fi

summary
