#!/usr/bin/env bash
# A second SIGINT ends `causal tail --group G --commit` at once (exit 130) while its exit
# waits on a group coordinator that does not answer (causal-tail(1), EXIT STATUS 130): the
# exit's last commit and leaving the group would otherwise wait out the outage. Every record
# stays whole on stdout, and the next member reads again what was not committed.
#
# The outage is the test broker paused (SIGSTOP: connections stay open, nothing answers),
# resumed at once after, whatever happens. CTest runs the broker tests one at a time.
# Usage: second_signal_test.sh CAUSAL SRC BUILD (under the kafka_broker fixture)
set -uo pipefail
CAUSAL=${1:?causal binary}
SRC=${2:?source dir}
BUILD=${3:?build dir}
# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
fixture_broker
broker=$(cat "$BUILD/test-broker/pid")
resume() { kill -CONT "$broker" 2>/dev/null; }
on_exit() { resume; }  # the broker is shared: never leave it paused

topic=second-signal-$$-$RANDOM
group=second-signal-$$-$RANDOM
create_topic "$topic" 1 || bad "cannot create $topic"
printf '{"value":"one"}\n{"value":"two"}\n' | "$CAUSAL" produce "$topic" >/dev/null 2>"$TMP/produce.err" ||
  bad "produce: $(cat "$TMP/produce.err")"
"$CAUSAL" tail --group "$group" --commit --format jsonl "$topic" >"$TMP/out" 2>"$TMP/err" &
member=$!
pids+=("$member")
for _ in $(seq 150); do (($(wc -l <"$TMP/out") >= 2)) && break; sleep 0.1; done
(($(wc -l <"$TMP/out") == 2)) || bad "tail did not print the two records: $(cat "$TMP/err")"

kill -STOP "$broker"
kill -INT "$member"
sleep 2  # the exit's commit now waits on the paused coordinator
if kill -0 "$member" 2>/dev/null; then
  started=$(date +%s%N)
  kill -INT "$member"
  for _ in $(seq 50); do kill -0 "$member" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$member" 2>/dev/null; then
    bad "a second SIGINT did not end tail within 5 s"
  else
    wait "$member"
    rc=$?
    took=$((($(date +%s%N) - started) / 1000000))
    [[ $rc == 130 ]] && ok || bad "exit $rc after the second SIGINT, want 130"
    grep -q "interrupted again: exiting without the last commit" "$TMP/err" && ok ||
      bad "stderr does not say what the second SIGINT skipped: $(grep -v librdkafka "$TMP/err")"
    # The counters line is said before the last commit's wait, so the second signal keeps it.
    grep -q "^causal tail: 2 delivered (2 printed) of 2 received;" "$TMP/err" && ok ||
      bad "no counters line before the second SIGINT's exit: $(grep -v librdkafka "$TMP/err")"
    echo "second SIGINT to exit: $took ms"
  fi
else
  # The first signal's exit finished before the outage mattered: nothing to test.
  bad "tail exited within 2 s of the first SIGINT with the broker paused: the test proves nothing"
fi
resume
# Whole lines only, each a JSON record.
jq -e -s 'length == 2 and all(.[]; .value == "one" or .value == "two")' "$TMP/out" >/dev/null && ok ||
  bad "stdout is not the two whole records: $(cat "$TMP/out")"

summary
