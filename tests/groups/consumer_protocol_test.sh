#!/usr/bin/env bash
# Groups of KIP-848's consumer protocol, beside classic ones, on the real broker, with Kafka's
# own VerifiableConsumer as the Java member:
#   1. a Java member of the consumer protocol: explain describes the group (state, protocol
#      consumer, the member and its assignment, the commits) and says it drains; tail --group
#      (read-only) starts at its commits without joining it; baseline --apply refuses naming
#      the member, and writes nothing;
#   2. a causal member of the consumer protocol (tail --commit --group-protocol consumer)
#      joins the Java member's group: the partitions are shared, each record of the topic is
#      read by one of them; when the Java member leaves, causal takes its partitions over
#      from its commits and reads what follows; at exit its commits reach the log end;
#   3. a classic causal member joins a group of the consumer protocol (Kafka lets a classic
#      member into a consumer group): explain lists both members, the group is a consumer
#      group, and the causal member's records are its partition's.
#
# Usage: consumer_protocol_test.sh CAUSAL_BINARY SOURCE_DIR BUILD_DIR
set -uo pipefail
CAUSAL=${1:?causal binary}
SRC=${2:?source dir}
BUILD=${3:?build dir}
# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
fixture_broker
run=$$-$RANDOM
export CAUSAL_BROKER_DIR=$BUILD/test-broker

# explain_json GROUP TOPIC: explain's JSON document (exit status in $xrc).
explain_json() {
  "$CAUSAL" explain --group "$1" --topic "$2" --format json 2>"$TMP/explain.err"
  xrc=$?
}
# committed GROUP TOPIC / ends TOPIC: "partition=offset" lines, sorted.
committed() { "$CAUSAL" explain --group "$1" --topic "$2" --format json 2>/dev/null | jq -r '.source.committed[] | "\(.partition)=\(.offset)"' | sort; }
ends() { "$CAUSAL" baseline "$1" --format json 2>/dev/null | jq -r '.channels[] | "\(.partition)=\(.high_watermark)"' | sort; }
caught_up() { [[ "$(committed "$1" "$2")" == "$(ends "$2")" ]]; }
members_are() { [[ $(explain_json "$1" "$2" | jq '.source.members') == "$3" ]]; }
# java_member PROTOCOL GROUP TOPIC OUT: a VerifiableConsumer in the background ($java).
java_member() {
  "$SRC/scripts/test-broker" verifiable-consumer --bootstrap-server "$B" --group-protocol "$1" --group-id "$2" \
    --topic "$3" --verbose --reset-policy earliest >"$4" 2>"$4.err" &
  java=$!
  pids+=("$java")
}
# java_values OUT: the values of the records the Java member fetched ("record_data" events).
java_values() { jq -r 'select(.name == "record_data") | .value' "$1" 2>/dev/null; }
produce() { "$CAUSAL" produce --sync "$1" >/dev/null 2>&1; }
values() { for i in $(seq "$2" "$3"); do printf '{"value":"%s%d","partition":%d}\n' "$1" "$i" $((i % 2)); done; }

# --- 1. A Java member of the consumer protocol: described, refused, unchanged. -------------
t=cp-java-$run
g=cpj-$run
create_topic "$t" 2 || bad "cannot create topic $t"
values j 1 10 | produce "$t"
java_member consumer "$g" "$t" "$TMP/j1.out"
wait_for 60 caught_up "$g" "$t" && ok || bad "1: the Java member's commits never reached the log end: $(committed "$g" "$t" | tr '\n' ' ')"
explain_json "$g" "$t" >"$TMP/x1.json"
[[ $xrc == 0 ]] && ok || bad "1: explain exited $xrc, want 0 (drains): $(cat "$TMP/explain.err")"
[[ $(jq -r '.source.group_protocol' "$TMP/x1.json") == consumer ]] && ok ||
  bad "1: group_protocol $(jq -r '.source.group_protocol' "$TMP/x1.json"), want consumer"
[[ $(jq -r '.source.group_state' "$TMP/x1.json") == Stable && $(jq '.source.members' "$TMP/x1.json") == 1 ]] && ok ||
  bad "1: state $(jq -r '.source.group_state' "$TMP/x1.json"), $(jq '.source.members' "$TMP/x1.json") member(s); want Stable, 1"
[[ $(jq -c '[.source.group_members[0].assignment[] | .partition] | sort' "$TMP/x1.json") == "[0,1]" ]] && ok ||
  bad "1: the member's assignment: $(jq -c '.source.group_members' "$TMP/x1.json")"
member=$(jq -r '.source.group_members[0].member_id' "$TMP/x1.json")
"$CAUSAL" explain --group "$g" --topic "$t" >"$TMP/x1.txt" 2>&1
grep -qF "(Stable, consumer protocol, 1 member(s))" "$TMP/x1.txt" && ok || bad "1: explain's source line: $(grep source: "$TMP/x1.txt")"
grep -qE "^member: client .* \(member $member\), assigned $t/0, $t/1$" "$TMP/x1.txt" && ok ||
  bad "1: explain's member line: $(grep -E '^member:' "$TMP/x1.txt")"
# tail --group without --commit reads from the group's commits without joining it.
timeout 60 "$CAUSAL" tail "$t" --group "$g" -e --format jsonl >"$TMP/r1.out" 2>"$TMP/r1.err"
rc=$?
[[ $rc == 0 && ! -s $TMP/r1.out ]] && ok || bad "1: tail --group (read-only) exited $rc, printed $(wc -l <"$TMP/r1.out"): $(cat "$TMP/r1.err")"
[[ $(explain_json "$g" "$t" | jq '.source.members') == 1 ]] && ok || bad "1: tail --group joined the group"
before=$(committed "$g" "$t")
"$CAUSAL" baseline "$t/0@0" --group "$g" --apply >"$TMP/b1.out" 2>"$TMP/b1.err"
rc=$?
[[ $rc == 1 ]] && ok || bad "1: baseline --apply exited $rc, want 1: $(cat "$TMP/b1.err")"
grep -qF "it has 1 active member(s) (state Stable, consumer protocol)" "$TMP/b1.err" && grep -qF "$member" "$TMP/b1.err" && ok ||
  bad "1: the refusal does not name the member ($member): $(cat "$TMP/b1.err")"
[[ ! -s $TMP/b1.out && "$(committed "$g" "$t")" == "$before" ]] && ok || bad "1: the refused --apply changed something"
"$CAUSAL" baseline "$t" --group "$g" --format json >"$TMP/b1.json" 2>/dev/null
[[ $(jq -r '.group_protocol' "$TMP/b1.json") == consumer && $(jq '.members | length' "$TMP/b1.json") == 1 ]] && ok ||
  bad "1: baseline's JSON: group_protocol $(jq -r '.group_protocol' "$TMP/b1.json"), members $(jq -c '.members' "$TMP/b1.json")"

# --- 2. A causal member of the consumer protocol beside the Java member. --------------------
"$CAUSAL" tail --group "$g" --commit --group-protocol consumer --format jsonl "$t" >"$TMP/c2.out" 2>"$TMP/c2.err" &
c=$!
pids+=("$c")
wait_for 60 members_are "$g" "$t" 2 && ok || bad "2: the causal member never joined: $(cat "$TMP/c2.err")"
# Both hold one partition each, once the coordinator's reassignment is done.
shared() { [[ $(explain_json "$g" "$t" | jq -c '[.source.group_members[].assignment | length] | sort') == "[1,1]" ]]; }
wait_for 60 shared && ok || bad "2: the partitions were not shared: $(explain_json "$g" "$t" | jq -c '.source.group_members')"
values s 11 20 | produce "$t"
all_read() { (($(jq -r .value "$TMP/c2.out" | grep -c '^s') + $(java_values "$TMP/j1.out" | grep -c '^s') >= 10)); }
wait_for 60 all_read || true
got=$({ jq -r .value "$TMP/c2.out"; java_values "$TMP/j1.out"; } | grep '^s' | sort -V | tr '\n' ' ')
[[ $got == "$(seq 11 20 | sed 's/^/s/' | tr '\n' ' ')" ]] && ok || bad "2: read between the members: $got"
[[ -s $TMP/c2.out ]] && ok || bad "2: the causal member read nothing of its partition"
grep -qF "generation 1 assigned" "$TMP/c2.err" && ok || bad "2: no generation said: $(cat "$TMP/c2.err")"
# The Java member leaves (SIGTERM: it closes and leaves the group); causal takes both.
kill -TERM "$java"
wait "$java" 2>/dev/null
wait_for 60 members_are "$g" "$t" 1 && ok || bad "2: the Java member did not leave"
values a 21 26 | produce "$t"
after_read() { (($(jq -r .value "$TMP/c2.out" | grep -c '^a') >= 6)); }
wait_for 60 after_read && ok || bad "2: after the Java member left, causal read $(jq -r .value "$TMP/c2.out" | grep -c '^a') of 6"
kill -INT "$c"
wait "$c"
rc=$?
[[ $rc == 0 ]] && ok || bad "2: the causal member exited $rc: $(tail -3 "$TMP/c2.err")"
[[ "$(committed "$g" "$t")" == "$(ends "$t")" ]] && ok ||
  bad "2: committed at exit $(committed "$g" "$t" | tr '\n' ' '), want $(ends "$t" | tr '\n' ' ')"
dups=$(jq -r .value "$TMP/c2.out" | sort | uniq -d | tr '\n' ' ')
[[ -z $dups ]] && ok || bad "2: the causal member printed these twice: $dups"

# --- 3. A classic causal member in a group of the consumer protocol. -----------------------
t=cp-mixed-$run
g=cpm-$run
create_topic "$t" 2 || bad "cannot create topic $t"
values m 1 10 | produce "$t"
java_member consumer "$g" "$t" "$TMP/j3.out"
wait_for 60 caught_up "$g" "$t" && ok || bad "3: the Java member's commits never reached the log end: $(tail -3 "$TMP/j3.out.err")"
"$CAUSAL" tail --group "$g" --commit --format jsonl -X session.timeout.ms=6000 "$t" >"$TMP/c3.out" 2>"$TMP/c3.err" &
c=$!
pids+=("$c")
wait_for 60 members_are "$g" "$t" 2 && ok || bad "3: the classic causal member never joined: $(cat "$TMP/c3.err")"
wait_for 60 shared && ok || bad "3: the partitions were not shared: $(explain_json "$g" "$t" | jq -c '.source.group_members')"
explain_json "$g" "$t" >"$TMP/x3.json"
[[ $(jq -r '.source.group_protocol' "$TMP/x3.json") == consumer ]] && ok ||
  bad "3: group_protocol $(jq -r '.source.group_protocol' "$TMP/x3.json"), want consumer"
mine=$(jq -r '.source.group_members[] | select(.client_id == "causal") | .assignment[0].partition' "$TMP/x3.json")
values n 11 20 | produce "$t"
mine_read() { (($(wc -l <"$TMP/c3.out") >= 5)); }
wait_for 60 mine_read && ok || bad "3: the classic causal member read $(wc -l <"$TMP/c3.out") of its 5 records"
[[ $(jq -r .partition "$TMP/c3.out" | sort -u | tr '\n' ' ') == "$mine " ]] && ok ||
  bad "3: the causal member read partitions $(jq -r .partition "$TMP/c3.out" | sort -u | tr '\n' ' '), its assignment is $mine"
[[ $(jq -r .value "$TMP/c3.out" | grep -c '^n') == 5 ]] && ok || bad "3: the causal member read $(jq -r .value "$TMP/c3.out" | tr '\n' ' ')"
kill -INT "$c"
wait "$c"
rc=$?
[[ $rc == 0 ]] && ok || bad "3: the classic causal member exited $rc: $(tail -3 "$TMP/c3.err")"
kill -TERM "$java"
wait "$java" 2>/dev/null

summary
