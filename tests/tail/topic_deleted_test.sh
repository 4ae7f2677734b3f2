#!/usr/bin/env bash
# A topic deleted while tail reads it (causal-tail(1), EXIT STATUS 1): tail stops with exit 1
# and says which partition is gone, after writing every record it delivered, rather than
# reading nothing for ever; its exit after Ctrl-C does not hang in rd_kafka_destroy
# (librdkafka 2.0.2: a removed partition's fetch queue keeps the handle alive, fixed in
# 2.6.1). A group member stops likewise, and commits nothing more for the topic.
# Usage: topic_deleted_test.sh CAUSAL SRC BUILD (under the kafka_broker fixture)
set -uo pipefail
CAUSAL=${1:?causal binary}
SRC=${2:?source dir}
BUILD=${3:?build dir}
# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
fixture_broker
delete_topic() {
  CAUSAL_BROKER_DIR=$BUILD/test-broker "$SRC/scripts/test-broker" kafka-topics --bootstrap-server "$B" --delete \
    --topic "$1" >/dev/null 2>&1
}
# wait_lines FILE N: up to 15 s for FILE to hold N lines.
wait_lines() {
  for _ in $(seq 150); do (($(wc -l <"$1") >= $2)) && return 0; sleep 0.1; done
  return 1
}
# gone PID SECONDS: true once PID has exited, waiting up to SECONDS.
gone() {
  for _ in $(seq $(($2 * 10))); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
  return 1
}

# 1. A reader without a group: exit 1 once the partitions are gone.
topic=deleted-$$-$RANDOM
create_topic "$topic" 2 || bad "cannot create $topic"
printf '{"key":"a","value":"one"}\n{"key":"a","value":"two"}\n' | "$CAUSAL" produce "$topic" >/dev/null 2>"$TMP/p.err" ||
  bad "produce: $(cat "$TMP/p.err")"
"$CAUSAL" tail --format jsonl "$topic" >"$TMP/out" 2>"$TMP/err" &
reader=$!
pids+=("$reader")
wait_lines "$TMP/out" 2 || bad "tail did not print the two records: $(cat "$TMP/err")"
# The topic ID as Kafka's own tool prints it: the error names the same.
topic_id=$(CAUSAL_BROKER_DIR=$BUILD/test-broker "$SRC/scripts/test-broker" kafka-topics --bootstrap-server "$B" --describe \
  --topic "$topic" 2>/dev/null | sed -n 's/.*TopicId: *\([^[:space:]]*\).*/\1/p' | head -1)
[[ -n $topic_id ]] || bad "kafka-topics --describe gave no TopicId for $topic"
delete_topic "$topic" || bad "cannot delete $topic"
if gone "$reader" 20; then
  wait "$reader"
  rc=$?
  [[ $rc == 1 ]] && ok || bad "exit $rc after the topic was deleted, want 1: $(cat "$TMP/err")"
  grep -q "^causal: a partition read no longer exists on the brokers at $B (its topic deleted?): topic '$topic' (topic ID $topic_id) is no longer in the cluster (its partitions read: $topic/0, $topic/1)$" \
    "$TMP/err" && ok || bad "the error does not name the deleted topic and its partitions: $(cat "$TMP/err")"
  grep -q "^causal tail: 2 delivered (2 printed) of 2 received;" "$TMP/err" && ok ||
    bad "no counters line: $(cat "$TMP/err")"
else
  bad "tail still runs 20 s after its topic was deleted"
  kill -INT "$reader"
  gone "$reader" 10 || bad "and its exit after SIGINT hangs"
fi
jq -e -s 'length == 2 and (map(.value) | sort) == ["one", "two"]' "$TMP/out" >/dev/null && ok ||
  bad "stdout is not the two whole records: $(cat "$TMP/out")"

# 2. A group member stops too, with exit 1, as soon as librdkafka reports the partition
# gone, and commits nothing more for the topic: a topic re-created meanwhile would otherwise
# be read from the old position, its records below it dropped as replays (a producer writing
# to the re-created topic at once shows it). A member that kept running until the next
# metadata refresh (60 s) would print the counters line "0 delivered (1 printed) of 0
# received", the revocation having replaced the gate.
topic=deleted-$$-$RANDOM
group=deleted-$$-$RANDOM
create_topic "$topic" 2 || bad "cannot create $topic"
printf '{"key":"a","value":"one"}\n{"key":"a","value":"two"}\n' | "$CAUSAL" produce "$topic" >/dev/null 2>"$TMP/p.err" ||
  bad "produce: $(cat "$TMP/p.err")"
"$CAUSAL" tail --group "$group" --commit --format jsonl "$topic" >"$TMP/mout" 2>"$TMP/merr" &
member=$!
pids+=("$member")
wait_lines "$TMP/mout" 2 || bad "the member did not print the two records: $(cat "$TMP/merr")"
delete_topic "$topic" || bad "cannot delete $topic"
if gone "$member" 20; then
  wait "$member"
  rc=$?
  [[ $rc == 1 ]] && grep -q "^causal: a partition read no longer exists on the brokers at $B (its topic deleted?): topic '$topic' .*; nothing more is committed for its topic" "$TMP/merr" && ok ||
    bad "member exit $rc after its topic was deleted, want 1 naming it: $(cat "$TMP/merr")"
  grep -q "^causal tail: 2 delivered (2 printed) of 2 received;" "$TMP/merr" && ok ||
    bad "the counters line is not the run's: $(cat "$TMP/merr")"
else
  bad "the member still runs 20 s after its topic was deleted: $(cat "$TMP/merr")"
  kill -INT "$member"
  gone "$member" 10 || bad "and its exit after SIGINT hangs"
fi

# 3. A group member whose topic is deleted and re-created while it runs (before the group
# notices): librdkafka finds the old position out of range and reads the new log from its
# start, whose records the replay guard would take for records already delivered: dropped
# silently, then the records above the old position delivered and committed, exit 0. The
# member must stop with exit 1 naming the partition, commit nothing more for it, and the
# group's next run deliver the new log whole.
topic=recreated-$$-$RANDOM
group=recreated-$$-$RANDOM
create_topic "$topic" 1 || bad "cannot create $topic"
printf '{"value":"one"}\n{"value":"two"}\n{"value":"three"}\n' | "$CAUSAL" produce "$topic" >/dev/null 2>"$TMP/p.err" ||
  bad "produce: $(cat "$TMP/p.err")"
"$CAUSAL" tail --group "$group" --commit --format jsonl "$topic" >"$TMP/rout" 2>"$TMP/rerr" &
member=$!
pids+=("$member")
wait_lines "$TMP/rout" 3 || bad "the member did not print the three records: $(cat "$TMP/rerr")"
delete_topic "$topic" || bad "cannot delete $topic"
create_topic "$topic" 1 || bad "cannot re-create $topic"
printf '{"value":"n1"}\n{"value":"n2"}\n' | "$CAUSAL" produce "$topic" >/dev/null 2>"$TMP/p.err" ||
  bad "produce to the re-created topic: $(cat "$TMP/p.err")"
if gone "$member" 30; then
  wait "$member"
  rc=$?
  [[ $rc == 1 ]] && ok || bad "member exit $rc after its topic was re-created, want 1: $(cat "$TMP/rerr")"
  # Whichever is seen first: the topic's new ID, the topic gone, or the old position out of
  # range in the new log.
  grep -qE "^causal: (topic '$topic' was deleted and re-created: its topic ID is [A-Za-z0-9_-]+, not [A-Za-z0-9_-]+|$topic/0: its log restarted below the position this consumer had reached|a partition read no longer exists on the brokers at $B \(its topic deleted\?\): topic '$topic')" \
    "$TMP/rerr" && ok || bad "the error does not name the restarted partition: $(cat "$TMP/rerr")"
else
  bad "the member still runs 30 s after its topic was re-created: $(cat "$TMP/rerr")"
  kill -INT "$member"
  gone "$member" 10
fi
jq -e -s 'map(.value) == ["one", "two", "three"]' "$TMP/rout" >/dev/null && ok ||
  bad "the member printed more than the old log's three records: $(cat "$TMP/rout")"
timeout 60 "$CAUSAL" tail --group "$group" --commit -e --format jsonl "$topic" >"$TMP/again" 2>"$TMP/aerr"
rc=$?
[[ $rc == 0 ]] && jq -e -s 'map(.value) == ["n1", "n2"]' "$TMP/again" >/dev/null && ok ||
  bad "the group's next run (exit $rc) did not deliver the new log whole: $(cat "$TMP/again" "$TMP/aerr")"

summary
