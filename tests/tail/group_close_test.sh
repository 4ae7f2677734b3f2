#!/usr/bin/env bash
# Members of a cooperative-sticky group leaving (SIGINT) in the two states where librdkafka
# 2.0.2 goes wrong, on the real broker (the workarounds are in ~ConsumerHost):
# 1. a member that owns no partition left without LeaveGroup, so the group waited
#    session.timeout.ms (45 s) for it: the next member got its partitions only then;
# 2. a member stopped after its JoinGroup was answered but before its first assignment
#    aborted in the sticky assignor (exit 134, librdkafka issue #4312).
#
# Usage: group_close_test.sh CAUSAL_BINARY SOURCE_DIR BUILD_DIR
set -uo pipefail
CAUSAL=${1:?causal binary}
SRC=${2:?source dir}
BUILD=${3:?build dir}
# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
fixture_broker
run=$$-$RANDOM
X=(-X partition.assignment.strategy=cooperative-sticky)
declare -A member
start() {
  local name=$1 group=$2 topic=$3
  shift 3
  "$CAUSAL" tail --group "$group" --commit --format jsonl "${X[@]}" "$@" "$topic" >"$TMP/$name.out" 2>"$TMP/$name.err" &
  member[$name]=$!
  pids+=("$!")
}
leave() { # NAME [SIGNAL]: the member's exit status
  kill -"${2:-INT}" "${member[$1]}"
  wait "${member[$1]}"
}
assigned_within() { # NAME SECONDS: whether NAME printed a generation line in time
  for _ in $(seq $(($2 * 5))); do grep -qs "assigned" "$TMP/$1.err" && return 0; sleep 0.2; done
  return 1
}

# --- 1. An idle member leaves at once. ---------------------------------------------------
t=close-idle-$run
g=close-idle-$run
create_topic "$t" 1 || bad "cannot create topic $t"
echo '{"value":"x","partition":0}' | "$CAUSAL" produce "$t" >/dev/null 2>&1
start a "$g" "$t"
assigned_within a 30 || bad "a got no partition: $(cat "$TMP/a.err")"
start b "$g" "$t"  # gets nothing: the topic has one partition
sleep 6            # b's join and its (empty) assignment
leave b
rc=$?
[[ $rc == 0 ]] && ok || bad "the idle member exited $rc: $(cat "$TMP/b.err")"
leave a
rc=$?
[[ $rc == 0 ]] && ok || bad "a exited $rc: $(tail -2 "$TMP/a.err")"
start c "$g" "$t"
# Without a LeaveGroup from b, the group waits out b's 45-s session before c is assigned.
assigned_within c 20 && ok || bad "c got no partition within 20 s of a leaving: the idle member did not leave the group"
leave c
rc=$?
[[ $rc == 0 ]] && ok || bad "c exited $rc: $(tail -2 "$TMP/c.err")"

# --- 2. A member stopped before its first assignment exits 0. -----------------------------
t=close-early-$run
g=close-early-$run
create_topic "$t" 4 || bad "cannot create topic $t"
# Records arrive throughout, one every 30 ms: the load under which the sticky assignor aborted.
(for i in $(seq 300); do
  printf '{"value":"v%d","partition":%d}\n' "$i" $((i % 4))
  sleep 0.03
done) | "$CAUSAL" produce "$t" >/dev/null 2>&1 &
pids+=("$!")
start d "$g" "$t" -X session.timeout.ms=6000
sleep 1
start e "$g" "$t" -X session.timeout.ms=6000
sleep 4
leave d KILL  # the group waits for d's session to expire
sleep 1
# f is stopped once its JoinGroup is answered and before its first assignment: its join
# state (librdkafka's cgrp debug lines, which -X debug prints) has reached wait-sync. A fixed
# delay instead stops it still starting on a loaded machine (exit 130, a different path).
start f "$g" "$t" -X session.timeout.ms=6000 -X debug=cgrp
for _ in $(seq 300); do grep -qs -- "-> wait-sync" "$TMP/f.err" && break; sleep 0.1; done
grep -qs -- "-> wait-sync" "$TMP/f.err" || bad "f's JoinGroup was not answered within 30 s"
grep -qs -- "-> wait-assign-call\|-> steady" "$TMP/f.err" && echo "note: f had its assignment before the signal"
leave f
rc=$?
[[ $rc == 0 ]] && ok || bad "a member stopped before its first assignment exited $rc: $(grep -v 'CGRP\|cgrp\|^%7' "$TMP/f.err" | tail -2)"
leave e
rc=$?
[[ $rc == 0 ]] && ok || bad "e exited $rc: $(tail -2 "$TMP/e.err")"

summary
