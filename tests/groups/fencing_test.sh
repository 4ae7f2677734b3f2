#!/usr/bin/env bash
# Members of KIP-848's consumer protocol whose member epoch the coordinator fences, on the real
# broker (its consumer-protocol session timeout is 6 s: scripts/test-broker). A member is
# fenced when it stops heartbeating for longer than the session timeout; here it is stopped
# with SIGSTOP while another member is started, so that its partitions move, then resumed.
# docs/library.md ("Group members", "Relay") says what each must then do:
#   1. a relay (examples/relay, consumer protocol): on resuming it finds its assignment lost,
#      aborts its transaction and rewinds, rejoins, and goes on; nothing it wrote while fenced
#      is committed. The output (read_committed) holds every input record exactly once.
#   2. a causal member (tail --group G --commit --group-protocol consumer): on resuming it
#      says that its assignment was lost and commits nothing for it; it rejoins and goes on.
#      Every record is printed by one of the two members (at least once), and the group's
#      commits reach the log end.
#
# Usage: fencing_test.sh CAUSAL_BINARY RELAY_BINARY SOURCE_DIR BUILD_DIR
set -uo pipefail
CAUSAL=${1:?causal binary}
RELAY=${2:?relay binary}
SRC=${3:?source dir}
BUILD=${4:?build dir}
# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
fixture_broker
run=$$-$RANDOM

# committed GROUP TOPIC / ends TOPIC: "partition=offset" lines, sorted.
committed() { "$CAUSAL" explain --group "$1" --topic "$2" --format json 2>/dev/null | jq -r '.source.committed[] | "\(.partition)=\(.offset)"' | sort; }
ends() { "$CAUSAL" baseline "$1" --format json 2>/dev/null | jq -r '.channels[] | "\(.partition)=\(.high_watermark)"' | sort; }
members() { "$CAUSAL" explain --group "$1" --topic "$2" --format json 2>/dev/null | jq '.source.members'; }
caught_up() { [[ -n "$(ends "$2")" && "$(committed "$1" "$2")" == "$(ends "$2")" ]]; }
members_are() { [[ $(members "$1" "$2") == "$3" ]]; }
produce() { "$CAUSAL" produce --sync "$1" >/dev/null 2>&1; }
values() { for i in $(seq "$2" "$3"); do printf '{"value":"%s%d","partition":%d}\n' "$1" "$i" $((i % 2)); done; }
say() { echo "$(date +%T.%3N) $*"; }
# The member's session: a stopped member is fenced once it has missed this many seconds of
# heartbeats (group.consumer.session.timeout.ms of the test broker, 6 s), plus a margin.
readonly FENCED_AFTER=9

# --- 1. A relay of the consumer protocol, fenced and resumed --------------------------------
in=fence-in-$run
out=fence-out-$run
g=fence-relays-$run
create_topic "$in" 2 || bad "cannot create topic $in"
create_topic "$out" 2 || bad "cannot create topic $out"
start_relay() {  # start_relay N: a consumer-protocol relay, its stderr in relay-N.err
  "$RELAY" --group-protocol consumer "$B" "$g" "fence-tx-$1-$run" "$out" "$in" 2>"$TMP/relay-$1.err" &
  relay[$1]=$!
  pids+=("$!")
}
declare -A relay
values a 1 20 | produce "$in"
start_relay 1
wait_for 60 caught_up "$g" "$in" && ok || bad "1: relay 1 did not commit the first 20 records: $(committed "$g" "$in" | tr '\n' ' ')"
say "relay 1 stopped (SIGSTOP)"
kill -STOP "${relay[1]}"
values b 1 20 | produce "$in"
start_relay 2
# Relay 2 gets both partitions once relay 1's epoch is fenced, and relays the second 20.
wait_for 90 caught_up "$g" "$in" && ok || bad "1: relay 2 did not take over: commits $(committed "$g" "$in" | tr '\n' ' ')"
sleep "$FENCED_AFTER"
say "relay 1 resumed (SIGCONT)"
kill -CONT "${relay[1]}"
values c 1 20 | produce "$in"
wait_for 60 members_are "$g" "$in" 2 && ok || bad "1: relay 1 did not rejoin: $(members "$g" "$in") member(s)"
wait_for 60 caught_up "$g" "$in" && ok || bad "1: the group did not drain after the resume: $(committed "$g" "$in" | tr '\n' ' ')"
kill -0 "${relay[1]}" 2>/dev/null && ok || bad "1: relay 1 ended after it was fenced: $(tail -2 "$TMP/relay-1.err")"
# The relay writes that line only once its abort has completed (a round trip to the
# transaction coordinator, after its rebalance callback has given the lost partitions back):
# the group has been seen to count relay 1 again and to drain (relay 2 still holding both
# partitions) before the line was written.
said_lost_and_aborted() { grep -q "assignment lost" "$TMP/relay-1.err" && grep -q "transaction aborted" "$TMP/relay-1.err"; }
wait_for 60 said_lost_and_aborted && ok ||
  bad "1: relay 1 does not say it lost its assignment and aborted: $(tail -3 "$TMP/relay-1.err")"
for n in 1 2; do
  kill -INT "${relay[$n]}"
  wait "${relay[$n]}" || bad "1: relay $n exited $? on SIGINT: $(tail -2 "$TMP/relay-$n.err")"
done
want=$( (values a 1 20; values b 1 20; values c 1 20) | jq -r .value | tr '[:lower:]' '[:upper:]' | sort)
got=$(kcat -b "$B" -C -e -J -X isolation.level=read_committed -t "$out" 2>/dev/null | jq -r .payload | sort)
[[ $got == "$want" ]] && ok ||
  bad "1: exactly once: $(diff <(echo "$want") <(echo "$got") | grep -c '^[<>]') differences: $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | head -6 | tr '\n' ' ')"
say "1: $(grep -h 'transactions committed' "$TMP"/relay-*.err | tr '\n' ';')"

# --- 2. A causal member of the consumer protocol, fenced and resumed -------------------------
t=fence-tail-$run
g=fence-members-$run
create_topic "$t" 2 || bad "cannot create topic $t"
declare -A member
start_member() {  # start_member N: tail --group --commit, consumer protocol; output in member-N.out
  "$CAUSAL" tail "$t" --group "$g" --commit --group-protocol consumer --format jsonl \
    >"$TMP/member-$1.out" 2>"$TMP/member-$1.err" &
  member[$1]=$!
  pids+=("$!")
}
values m 1 20 | produce "$t"
start_member 1
wait_for 60 caught_up "$g" "$t" && ok || bad "2: member 1 did not commit the first 20 records: $(committed "$g" "$t" | tr '\n' ' ')"
say "member 1 stopped (SIGSTOP)"
kill -STOP "${member[1]}"
values n 1 20 | produce "$t"
start_member 2
wait_for 90 caught_up "$g" "$t" && ok || bad "2: member 2 did not take over: commits $(committed "$g" "$t" | tr '\n' ' ')"
sleep "$FENCED_AFTER"
say "member 1 resumed (SIGCONT)"
kill -CONT "${member[1]}"
values o 1 20 | produce "$t"
wait_for 60 members_are "$g" "$t" 2 && ok || bad "2: member 1 did not rejoin: $(members "$g" "$t") member(s)"
wait_for 60 caught_up "$g" "$t" && ok || bad "2: the group did not drain after the resume: $(committed "$g" "$t" | tr '\n' ' ')"
for n in 1 2; do
  kill -INT "${member[$n]}"
  wait "${member[$n]}" || bad "2: member $n exited $? on SIGINT: $(tail -2 "$TMP/member-$n.err")"
done
grep -q "assignment lost" "$TMP/member-1.err" && ok || bad "2: member 1 does not say its assignment was lost: $(tail -3 "$TMP/member-1.err")"
want=$( (values m 1 20; values n 1 20; values o 1 20) | jq -r .value | sort)
got=$(cat "$TMP"/member-*.out | jq -r 'select(.event == null) | .value' | sort -u)
[[ $got == "$want" ]] && ok || bad "2: records not printed by either member: $(comm -23 <(echo "$want") <(echo "$got") | head -6 | tr '\n' ' ')"
say "2: printed $(cat "$TMP"/member-*.out | jq -r 'select(.event == null) | .value' | wc -l) records for $(grep -c . <<<"$want")"

summary
