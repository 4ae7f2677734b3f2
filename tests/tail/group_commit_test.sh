#!/usr/bin/env bash
# `causal tail --group G --commit` on the real broker: a group member that commits
# frontier + 1 with the resolution state, never past what it did not deliver, and that
# hands partitions over at rebalances (eager and cooperative assignors) without losing or
# repeating a record.
#
# Usage: group_commit_test.sh CAUSAL_BINARY SOURCE_DIR BUILD_DIR
set -uo pipefail
CAUSAL=${1:?causal binary}
SRC=${2:?source dir}
BUILD=${3:?build dir}
# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
fixture_broker
run=$$-$RANDOM
topic() { create_topic "$1" "$2" || bad "cannot create topic $1"; }
# committed GROUP TOPIC: "partition=offset,resolution_state" lines of explain's JSON, sorted.
committed() { "$CAUSAL" explain --group "$1" --topic "$2" --format json 2>/dev/null | jq -r '.source.committed[] | "\(.partition)=\(.offset),\(.resolution_state)"' | sort; }
# ends TOPIC PARTITIONS: "partition=high watermark,true" for every partition, sorted.
ends() { "$CAUSAL" baseline "$1" --format json 2>/dev/null | jq -r '.channels[] | "\(.partition)=\(.high_watermark),true"' | sort; }

# --- 1. Delivers, commits frontier + 1 with the resolution state, resumes there. ----------
t=group-commit-$run
topic "$t" 3
printf '{"value":"r%d","partition":%d}\n' 1 0 2 1 3 2 4 0 5 1 6 2 | "$CAUSAL" produce --sync "$t" >/dev/null 2>&1
timeout 60 "$CAUSAL" tail --group "g-$run" --commit -e --format jsonl "$t" >"$TMP/1.out" 2>"$TMP/1.err"
rc=$?
[[ $rc == 0 && $(wc -l <"$TMP/1.out") == 6 ]] && ok || bad "first run: exit $rc, $(wc -l <"$TMP/1.out") records: $(cat "$TMP/1.err")"
[[ "$(committed "g-$run" "$t")" == "$(ends "$t")" ]] && ok ||
  bad "committed after the first run: $(committed "g-$run" "$t" | tr '\n' ' ') want $(ends "$t" | tr '\n' ' ')"
timeout 60 "$CAUSAL" tail --group "g-$run" --commit -e --format jsonl "$t" >"$TMP/2.out" 2>"$TMP/2.err"
rc=$?
[[ $rc == 0 && ! -s $TMP/2.out ]] && ok || bad "second run printed again: exit $rc, $(cat "$TMP/2.out")"
printf '{"value":"r%d","partition":%d}\n' 7 2 8 0 | "$CAUSAL" produce --sync "$t" >/dev/null 2>&1
timeout 60 "$CAUSAL" tail --group "g-$run" --commit -e --format jsonl "$t" >"$TMP/3.out" 2>"$TMP/3.err"
[[ "$(jq -r .value "$TMP/3.out" | tr '\n' ' ')" == "r7 r8 " ]] && ok || bad "third run: $(jq -r .value "$TMP/3.out" | tr '\n' ' ')"

# A failed write commits nothing: the group's next run gets every record again.
timeout 60 "$CAUSAL" tail --group "w-$run" --commit -e --format jsonl "$t" >/dev/full 2>"$TMP/w.err"
rc=$?
[[ $rc == 1 && -z "$(committed "w-$run" "$t")" ]] && ok ||
  bad "after a failed write: exit $rc, committed: $(committed "w-$run" "$t" | tr '\n' ' ')"

# --- 2. Never past what was not delivered. ----------------------------------------------
# h/0@0 claims h/1@50, which is never appended: held at exit (4), and the commit of h/0
# stays at 0 while h/1's record (delivered) is committed.
t=group-held-$run
topic "$t" 2
printf '%s\n' '{"value":"effect","partition":0,"claims":[{"topic":"'"$t"'","partition":1,"offset":50}]}' |
  "$CAUSAL" produce --sync "$t" >/dev/null 2>&1
echo '{"value":"free","partition":1}' | "$CAUSAL" produce --no-stamp "$t" >/dev/null 2>&1
timeout 60 "$CAUSAL" tail --group "h-$run" --commit -e --format jsonl "$t" >"$TMP/h.out" 2>"$TMP/h.err"
rc=$?
[[ $rc == 4 ]] && ok || bad "a held record: exit $rc, want 4: $(cat "$TMP/h.err")"
[[ "$(committed "h-$run" "$t" | tr '\n' ' ')" == "0=0,true 1=1,true " ]] && ok ||
  bad "committed with a held record: $(committed "h-$run" "$t" | tr '\n' ' ') want '0=0,true 1=1,true'"
"$CAUSAL" explain --group "h-$run" --topic "$t" >"$TMP/x.out" 2>&1
rc=$?
[[ $rc == 4 ]] && grep -qF "$t/0@0" "$TMP/x.out" && ok || bad "explain on the group causal ran: exit $rc: $(head -5 "$TMP/x.out")"

# --- 3. Two members: partitions handed over at rebalances, nothing lost or repeated. ----
members() {
  local strategy=$1
  local g=m-$strategy-$run
  local t=group-members-$strategy-$run
  topic "$t" 4
  local X=(-X "partition.assignment.strategy=$strategy")
  "$CAUSAL" tail --group "$g" --commit --format jsonl "${X[@]}" "$t" >"$TMP/a.out" 2>"$TMP/a.err" &
  local a=$!
  pids+=("$a")
  for _ in $(seq 150); do grep -qs "generation 1 assigned" "$TMP/a.err" && break; sleep 0.2; done
  "$CAUSAL" tail --group "$g" --commit --format jsonl "${X[@]}" "$t" >"$TMP/b.out" 2>"$TMP/b.err" &
  local b=$!
  pids+=("$b")
  for _ in $(seq 150); do grep -qs "assigned $t" "$TMP/b.err" && break; sleep 0.2; done
  for i in $(seq 20); do printf '{"value":"v%d","partition":%d}\n' "$i" $((i % 4)); done |
    "$CAUSAL" produce --sync "$t" >/dev/null 2>&1
  for _ in $(seq 150); do (($(cat "$TMP/a.out" "$TMP/b.out" | wc -l) >= 20)) && break; sleep 0.2; done
  # A leaves: B takes every partition over from A's commits.
  kill -INT "$a"
  wait "$a"
  local rca=$?
  for i in $(seq 21 28); do printf '{"value":"v%d","partition":%d}\n' "$i" $((i % 4)); done |
    "$CAUSAL" produce --sync "$t" >/dev/null 2>&1
  for _ in $(seq 150); do (($(cat "$TMP/a.out" "$TMP/b.out" | wc -l) >= 28)) && break; sleep 0.2; done
  kill -INT "$b"
  wait "$b"
  local rcb=$?
  local got
  got=$(cat "$TMP/a.out" "$TMP/b.out" | jq -r .value | sort -V | tr '\n' ' ')
  [[ $rca == 0 && $rcb == 0 ]] && ok || bad "$strategy: members exited $rca and $rcb: $(tail -2 "$TMP/a.err") $(tail -2 "$TMP/b.err")"
  [[ $got == "$(seq 28 | sed 's/^/v/' | tr '\n' ' ')" ]] && ok || bad "$strategy: delivered between them: $got"
  [[ -s $TMP/a.out && $(grep -c "assigned" "$TMP/b.err") -ge 2 ]] && ok ||
    bad "$strategy: no hand-over seen: a printed $(wc -l <"$TMP/a.out"), b's generations: $(grep assigned "$TMP/b.err")"
  [[ "$(committed "$g" "$t")" == "$(ends "$t")" ]] && ok ||
    bad "$strategy: committed $(committed "$g" "$t" | tr '\n' ' ') want $(ends "$t" | tr '\n' ' ')"
}
members range
members cooperative-sticky

summary
