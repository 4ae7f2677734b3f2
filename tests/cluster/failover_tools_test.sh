#!/usr/bin/env bash
# explain, baseline (with --apply) and tail on the three-node test cluster while one node is
# dead (scripts/test-broker kill): each gives the answer it gave with all three nodes up, or
# exits 1 with one line saying what it could not read — never a different verdict, never
# other records, never a partial write of committed offsets. Checked twice: at once after the
# kill, before the controller has fenced the node (its partitions have no leader yet), and
# once every partition it led has a new leader.
#
# Usage: failover_tools_test.sh CAUSAL_BINARY SOURCE_DIR STATE_DIR, under the kafka_cluster
# fixture (tests/cluster/CMakeLists.txt), which starts the cluster in STATE_DIR.
set -uo pipefail
CAUSAL=${1:?causal binary}
SRC=${2:?source dir}
export CAUSAL_BROKER_DIR=${3:?cluster state dir}
source "$SRC/tests/cluster/cluster_lib.sh"
killed=""
on_exit() { [[ -z $killed ]] || "$TB" start "$killed" >/dev/null 2>&1; }  # the cluster is shared
run=$$-$RANDOM
t=failover-$run
g=failover-g-$run
"$TB" kafka-topics --bootstrap-server "$B" --create --topic "$t" --partitions 3 --replication-factor 3 \
  >/dev/null 2>"$TMP/topic.err" || die "cannot create topic $t: $(tail -1 "$TMP/topic.err")"
values() { for i in $(seq "$2" "$3"); do printf '{"value":"%s%d","partition":%d}\n' "$1" "$i" $((i % 3)); done; }
values v 1 30 | "$CAUSAL" produce --sync "$t" >/dev/null 2>"$TMP/p.err" || die "produce: $(tail -1 "$TMP/p.err")"
timeout 60 "$CAUSAL" tail "$t" --group "$g" --commit -e --format jsonl >/dev/null 2>"$TMP/c.err" || die "commit: $(tail -1 "$TMP/c.err")"
values w 1 9 | "$CAUSAL" produce --sync "$t" >/dev/null 2>"$TMP/p.err" || die "produce: $(tail -1 "$TMP/p.err")"

# The answers, reduced to what must not change when a node dies (leaders may move).
explain_answer() {
  timeout 60 "$CAUSAL" explain --group "$g" --topic "$t" --format json --timeout-ms 15000 2>"$TMP/x.err" |
    jq -c '{stuck, undecided, held_channels, committed: .source.committed,
            channels: [.channels[] | {topic, partition, lso: .lso, high_watermark: .high_watermark}]}' 2>/dev/null
}
baseline_answer() {
  timeout 60 "$CAUSAL" baseline "$t" --group "$g" --format json --timeout-ms 15000 2>"$TMP/b.err" |
    jq -c '[.channels[] | {topic, partition, baseline, lso, high_watermark, committed}]' 2>/dev/null
}
tail_answer() {
  timeout 60 "$CAUSAL" tail "$t" --from beginning -e --format jsonl --timeout-ms 15000 2>"$TMP/t.err" |
    jq -r 'select(.event == null) | .value' | sort | tr '\n' ' '
}
x0=$(explain_answer)
b0=$(baseline_answer)
t0=$(tail_answer)
[[ -n $x0 && -n $b0 && $t0 == *w9* ]] || die "the answers with every node up: explain '$x0', baseline '$b0', tail '$t0'"
say "answers with three nodes: explain $x0"

# check_answers WHEN: each tool's answer is the one above, or exit 1 with one line on stderr.
# shellcheck disable=SC2317  # called below
check_answers() {
  local when=$1 x b tl rc lines
  x=$(explain_answer)
  rc=${PIPESTATUS[0]}
  lines=$(grep -c . "$TMP/x.err")
  if [[ $x == "$x0" ]]; then ok; elif [[ -z $x && $lines == 1 ]]; then say "$when: explain said: $(cat "$TMP/x.err")"; ok; else
    bad "$when: explain answered '$x' (stderr: $(head -3 "$TMP/x.err" | tr '\n' ' ')), want '$x0' or one line"
  fi
  b=$(baseline_answer)
  lines=$(grep -c . "$TMP/b.err")
  if [[ $b == "$b0" ]]; then ok; elif [[ -z $b && $lines == 1 ]]; then say "$when: baseline said: $(cat "$TMP/b.err")"; ok; else
    bad "$when: baseline answered '$b' (stderr: $(head -3 "$TMP/b.err" | tr '\n' ' ')), want '$b0' or one line"
  fi
  tl=$(tail_answer)
  if [[ $tl == "$t0" ]]; then ok; else
    # A tail that could not read a partition says so in one line and prints only records of
    # the topic (a subset); it must not exit 0 with records missing.
    local extra
    extra=$(comm -13 <(tr ' ' '\n' <<<"$t0" | sort) <(tr ' ' '\n' <<<"$tl" | sort) | grep -c .)
    if ((extra == 0)) && grep -q . "$TMP/t.err" && ! grep -q "^causal tail: .*0 held" "$TMP/t.err" 2>/dev/null; then
      say "$when: tail said: $(grep -v '^causal tail: [0-9]' "$TMP/t.err" | head -1)"
      ok
    else
      bad "$when: tail printed '$tl' (stderr: $(head -3 "$TMP/t.err" | tr '\n' ' ')), want '$t0'"
    fi
  fi
}
# apply GROUP WHEN: baseline --apply to a new group is whole or nothing.
apply() {
  local group=$1 when=$2 rc plan got
  timeout 60 "$CAUSAL" baseline "$t" --group "$group" --apply --format json --timeout-ms 15000 >"$TMP/apply.json" 2>"$TMP/apply.err"
  rc=$?
  plan=$(jq -r '.channels[] | "\(.partition)=\(.baseline)"' "$TMP/apply.json" 2>/dev/null | sort | tr '\n' ' ')
  got=$("$CAUSAL" explain --group "$group" --topic "$t" --format json 2>/dev/null | jq -r '.source.committed[] | "\(.partition)=\(.offset)"' | sort | tr '\n' ' ')
  if [[ $rc == 0 && -n $plan && $got == "$plan" ]]; then
    ok
  elif [[ $rc == 1 && -z $got ]]; then
    say "$when: baseline --apply wrote nothing: $(cat "$TMP/apply.err")"
    ok
  else
    bad "$when: baseline --apply exited $rc, planned '$plan', the group now commits '$got': $(head -2 "$TMP/apply.err" | tr '\n' ' ')"
  fi
}

# Kill the node that leads partition 0 and coordinates, if it does, the group.
node=$("$TB" leader "$t" 0) || die "no leader for $t/0"
say "SIGKILL node $node (leader of $t/0; group coordinator: node $("$TB" group-coordinator "$g" 2>/dev/null))"
"$TB" kill "$node" >/dev/null 2>&1 || die "cannot kill node $node"
killed=$node
check_answers "node $node just killed"
apply "$g-a1-$run" "node $node just killed"
moved() { local now; now=$("$TB" leader "$t" 0 2>/dev/null) && [[ $now != "$node" ]]; }
wait_for 60 moved || bad "$t/0 still led by node $node 60 s after it was killed"
say "$t/0 now led by node $("$TB" leader "$t" 0)"
check_answers "node $node dead, leaders moved"
apply "$g-a2-$run" "node $node dead, leaders moved"
x=$(explain_answer)
[[ $x == "$x0" ]] && ok || bad "explain with leaders moved: '$x', want '$x0'"
"$TB" start "$node" >/dev/null 2>"$TMP/start.err" || bad "node $node did not start again: $(tail -2 "$TMP/start.err")"
killed=""
summary
