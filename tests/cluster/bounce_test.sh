#!/usr/bin/env bash
# The relay under bounces and network faults on the three-node test cluster (replication
# factor 3, min.insync.replicas 2; scripts/test-broker start --nodes 3 --proxies 2), in the
# manner of Kafka's own transaction system tests: exactly-once copiers under clean and hard
# bounces of brokers and clients, then a read_committed reader checks the output against the
# input.
#
# Two transactional sources (`causal produce`, every third transaction aborted) write two
# input topics; three relays (examples/relay) in one group relay them, upper-cased, into one
# output topic: relay 1 (consumer protocol) through fault proxy 1, relay 2 (classic) through
# fault proxy 2, relay 3 (consumer protocol) directly; a downstream `causal tail --group D
# --commit` reads the output throughout. One at a time, while everything runs:
#   1. SIGKILL of the node leading in-a/0, restarted once its partitions have moved;
#   2. SIGKILL of the node coordinating the relays' group, restarted;
#   3. SIGKILL of the node coordinating relay 3's transactional id, restarted;
#   4. a clean restart of the node leading out/0;
#   5. relay 1 cut off (proxy 1 blackholes every connection) for 35 s: longer than its
#      session timeout (6 s) and than its transaction timeout (20 s here) plus Kafka's scan
#      for timed-out transactions (every 10 s), so that its open transaction is aborted and
#      its producer fenced meanwhile; then restored;
#   6. 200 ms of latency each way on relay 2's link, for 15 s;
#   7. SIGKILL of the node leading in-b/1 once more, restarted.
# Each fault is printed with its time, so a failure says which fault came before it.
#
# The checker is independent of the gate and the stamper (it uses kcat and jq, and the
# documents' definitions):
#   - exactly once: the committed output (read_committed) holds every committed input
#     record, upper-cased, once, and no aborted one;
#   - causal order downstream: every claim of a delivered record on the output topic was
#     delivered before it;
#   - drain: within DRAIN_S (180) seconds of the last fault the relays' commits reach the
#     inputs' ends, and the downstream group's the output's. Unloaded they take a few
#     seconds; on a loaded two-core machine, where the three nodes, the relays and other
#     tests share the cores, the relay cut off last has taken up to about 150 s after its
#     link healed to commit again (its requests of the cut-off time wait out librdkafka's
#     timeouts first), so a drain slower than SLOW_S (90) is said, with the drain report;
#     only one past DRAIN_S fails;
#   - no relay left running but stuck: every relay still runs, the group has its three
#     members, a last batch of input is relayed within DRAIN_S seconds, and each relay ends
#     cleanly on SIGINT (exit 0).
#
# Usage: bounce_test.sh CAUSAL_BINARY RELAY_BINARY SOURCE_DIR STATE_DIR, under the
# kafka_cluster fixture (tests/cluster/CMakeLists.txt), which starts the cluster in STATE_DIR.
# With KEEP=1 the working directory (logs, timestamped) is kept.
set -uo pipefail
CAUSAL=${1:?causal binary}
RELAY=${2:?relay binary}
SRC=${3:?source dir}
export CAUSAL_BROKER_DIR=${4:?cluster state dir}
readonly DRAIN_S=180 SLOW_S=90
source "$SRC/tests/cluster/cluster_lib.sh"
# The cluster is shared with the other cluster tests: every node runs and every proxy relays
# again afterwards.
on_exit() {
  "$TB" proxy 1 pass >/dev/null 2>&1
  "$TB" proxy 2 pass >/dev/null 2>&1
  for n in 1 2 3; do "$TB" start "$n" >/dev/null 2>&1; done
}
P1=$("$TB" bootstrap --proxy 1) || die "the cluster has no proxy 1"
P2=$("$TB" bootstrap --proxy 2) || die "the cluster has no proxy 2"
run=$$-$RANDOM
in_a=bounce-in-a-$run
in_b=bounce-in-b-$run
out=bounce-out-$run
relays=bounce-relays-$run
down=bounce-down-$run
for t in "$in_a":2 "$in_b":2 "$out":3; do
  "$TB" kafka-topics --bootstrap-server "$B" --create --topic "${t%%:*}" --partitions "${t#*:}" \
    --replication-factor 3 >/dev/null 2>"$TMP/topic.err" || die "cannot create topic ${t%%:*}: $(tail -1 "$TMP/topic.err")"
done

# --- the workload ---------------------------------------------------------------------------
declare -A relay_pid
start_relay() {  # start_relay N PROTOCOL BOOTSTRAP
  # transaction.timeout.ms 20 s: a relay cut off for longer has its transaction aborted and
  # its producer fenced by the coordinator, which the relay must survive (docs/library.md).
  # librdkafka wants message.timeout.ms no longer; 20 s outlasts a leader's failover here.
  RELAY_METRICS_PORT=0 "$RELAY" --group-protocol "$2" -X transaction.timeout.ms=20000 -X message.timeout.ms=20000 "$3" "$relays" "bounce-tx-$1-$run" "$out" \
    "$in_a" "$in_b" 2> >(while IFS= read -r l; do printf '%s %s\n' "$(date +%T.%3N)" "$l"; done >>"$TMP/relay-$1.err") &
  relay_pid[$1]=$!
  pids+=("$!")
}
# source NAME TOPIC UNTIL: rounds of transactions of 4 records, every third aborted, values
# NAME-ROUND-i (committed) or x-NAME-ROUND-i (aborted), until the file UNTIL exists. A round
# that a fault breaks exits 1 (causal-produce(1): what it committed stays committed, its open
# transaction is aborted); the next round goes on with a new transactional id.
source_loop() {
  local name=$1 topic=$2 until=$3 round=0 i txn prefix
  while [[ ! -e $until ]]; do
    round=$((round + 1))
    txn=0
    {
      for ((i = 1; i <= 400; i++)); do
        [[ -e $until ]] && break
        prefix=""
        ((txn % 3 == 2)) && prefix=x-
        printf '{"value":"%s%s-%s-%d","partition":%d}\n' "$prefix" "$name" "$round" "$i" $((i % 2))
        if ((i % 4 == 0)); then
          if ((txn % 3 == 2)); then echo '{"transaction":"abort"}'; else echo '{"transaction":"commit"}'; fi
          txn=$((txn + 1))
          sleep 0.25
        fi
      done
      echo '{"transaction":"abort"}'
    } | "$CAUSAL" produce --transactional-id "bounce-src-$name-$run-$round" "$topic" >/dev/null 2>>"$TMP/source-$name.err" ||
      echo "$(date +%T.%3N) round $round exited $?" >>"$TMP/source-$name.rounds"
  done
}
relays_caught_up() {  # the relays' commits equal the inputs' high watermarks
  local want got
  want=$("$CAUSAL" baseline "$in_a" "$in_b" --format json 2>/dev/null | jq -r '.channels[] | "\(.topic)/\(.partition)=\(.high_watermark)"' | sort)
  got=$("$CAUSAL" explain --group "$relays" --topic "$in_a" --topic "$in_b" --format json 2>/dev/null |
    jq -r '.source.committed[] | "\(.topic)/\(.partition)=\(.offset)"' | sort)
  [[ -n $want && $want == "$got" ]]
}
down_caught_up() {
  local want got
  want=$("$CAUSAL" baseline "$out" --format json 2>/dev/null | jq -r '.channels[] | "\(.partition)=\(.high_watermark)"' | sort)
  got=$("$CAUSAL" explain --group "$down" --topic "$out" --format json 2>/dev/null | jq -r '.source.committed[] | "\(.partition)=\(.offset)"' | sort)
  [[ -n $want && $want == "$got" ]]
}
# behind: one line per input partition the relays' commits have not reached: its committed
# offset, last stable offset and high watermark. A committed offset at a stuck LSO is an open
# transaction of a source, not the relays; one below it is the relays'.
behind() {
  local committed
  committed=$("$CAUSAL" explain --group "$relays" --topic "$in_a" --topic "$in_b" --format json 2>/dev/null |
    jq -c '[.source.committed[] | {key: "\(.topic)/\(.partition)", value: .offset}] | from_entries')
  [[ -n $committed ]] || committed='{}'
  "$CAUSAL" baseline "$in_a" "$in_b" --format json 2>/dev/null |
    jq -r --argjson c "$committed" '.channels[] | "\(.topic)/\(.partition)" as $p | select($c[$p] != .high_watermark) |
      "\($p) committed \($c[$p] // "none") lso \(.lso) high watermark \(.high_watermark)"' | paste -sd ';' - | sed 's/;/; /g'
}
# drain_report: what a failure to drain needs to be understood, most telling first (a CI log
# may keep only the first lines of a failed test): the partitions behind (above), causal
# explain's verdict on the relays' group (what an engineer would run: it names a transaction
# that pins an LSO, a held head and what it waits on), each relay's /metrics for its
# partitions (frontier, held records, what a held head waits on, generation), and the
# group's view of every input partition from Kafka's own tool (owner, committed offset, end,
# lag).
drain_report() {
  local n port
  say "  behind: $(behind)"
  "$CAUSAL" explain --group "$relays" --topic "$in_a" --topic "$in_b" 2>&1 | head -8 | sed 's/^/  explain: /'
  for n in 1 2 3; do
    port=$(sed -n 's|.*serving metrics on http://.*:\([0-9][0-9]*\)/metrics.*|\1|p' "$TMP/relay-$n.err" | head -1)
    [[ -n $port ]] || continue
    curl -s --max-time 5 "http://127.0.0.1:$port/metrics" |
      grep -E '^causal_(frontier_offset|held_records|held_head_waiting|member_generation|failed_closed|hold_budget_paused)' |
      grep -v ' 0$' | sed "s/^/  relay $n: /"
  done
  "$TB" kafka-consumer-groups --bootstrap-server "$B" --describe --group "$relays" 2>&1 |
    awk 'NF && $1 != "GROUP" { printf "  group: %s\n", $0 }'
}
# Who the coordinator counts in the relays' group (member id, client, host, partitions), and
# each relay's last lines: which relay a short group lacks, and what it said last.
members_report() {
  local n
  "$TB" kafka-consumer-groups --bootstrap-server "$B" --describe --members --verbose --group "$relays" 2>&1 |
    awk 'NF && $1 != "GROUP" { printf "  member: %s\n", $0 }'
  for n in 1 2 3; do tail -n 3 "$TMP/relay-$n.err" | sed "s/^/  relay $n: /"; done
}
relay_members() { "$CAUSAL" explain --group "$relays" --topic "$in_a" --topic "$in_b" --format json 2>/dev/null | jq '.source.members'; }
three_members() { [[ $(relay_members) == 3 ]]; }
relays_alive() { local n; for n in 1 2 3; do kill -0 "${relay_pid[$n]}" 2>/dev/null || return 1; done; }
three_members_or_dead() { ! relays_alive || three_members; }

start_relay 1 consumer "$P1"
start_relay 2 classic "$P2"
start_relay 3 consumer "$B"
"$CAUSAL" tail "$out" --group "$down" --commit --format jsonl >"$TMP/down-1.jsonl" 2>"$TMP/down-1.err" &
down_pid=$!
pids+=("$down_pid")
wait_for 60 three_members_or_dead && relays_alive && three_members || die "the relays did not form a group of three: $(relay_members) member(s); $(tail -q -n 2 "$TMP"/relay-*.err)"
say "three relays and the downstream member run"
source_loop a "$in_a" "$TMP/stop-sources" &
sa=$!
pids+=("$sa")
source_loop b "$in_b" "$TMP/stop-sources" &
sb=$!
pids+=("$sb")
sleep 5

# --- the faults, one at a time ----------------------------------------------------------------
# bounce WHAT LOOKUP...: SIGKILL the node that LOOKUP names (leader or coordinator of WHAT),
# wait until LOOKUP names another node (the controller fences the dead one after
# broker.session.timeout.ms, 9 s), then start it again.
bounce() {
  local what=$1 node
  shift
  node=$("$TB" "$@" 2>/dev/null) || die "no $what: $TB $*"
  say "fault: SIGKILL node $node ($what)"
  "$TB" kill "$node" >/dev/null 2>&1 || bad "kill node $node"
  moved() { local now; now=$("$TB" "$@" 2>/dev/null) && [[ $now != "$node" ]]; }
  wait_for 60 moved "$@" || bad "the $what is still node $node 60 s after it was killed"
  say "fault: the $what moved to node $("$TB" "$@" 2>/dev/null); node $node starts again"
  "$TB" start "$node" >/dev/null 2>"$TMP/start.err" || bad "node $node did not start again: $(tail -2 "$TMP/start.err")"
  sleep 4
}
bounce "leader of $in_a/0" leader "$in_a" 0
bounce "coordinator of group $relays" group-coordinator "$relays"
bounce "transaction coordinator of relay 3" txn-coordinator "bounce-tx-3-$run"
node=$("$TB" leader "$out" 0) || die "no leader for $out/0"
say "fault: clean restart of node $node (leader of $out/0)"
"$TB" restart "$node" >/dev/null 2>"$TMP/restart.err" || bad "node $node did not restart: $(tail -2 "$TMP/restart.err")"
sleep 4
say "fault: relay 1 cut off (proxy 1 blackholes) for 35 s"
"$TB" proxy 1 blackhole >/dev/null || bad "proxy 1 blackhole"
sleep 35
"$TB" proxy 1 pass >/dev/null || bad "proxy 1 pass"
say "fault: relay 1 restored"
sleep 4
say "fault: 200 ms latency each way on relay 2's link, for 15 s"
"$TB" proxy 2 latency 200 >/dev/null || bad "proxy 2 latency"
sleep 15
"$TB" proxy 2 pass >/dev/null || bad "proxy 2 pass"
say "fault: relay 2's latency removed"
bounce "leader of $in_b/1" leader "$in_b" 1
say "last fault over; sources stop"
touch "$TMP/stop-sources"
wait "$sa"
wait "$sb"
for s in a b; do [[ -s $TMP/source-$s.rounds ]] && say "source $s: rounds ended by a fault: $(wc -l <"$TMP/source-$s.rounds")"; done

# --- drain, and no relay stuck ----------------------------------------------------------------
last_fault=$SECONDS
if wait_for "$SLOW_S" relays_caught_up; then
  ok
  say "relays drained after $((SECONDS - last_fault)) s"
else
  say "the relays have not drained $SLOW_S s after the last fault; waiting up to $DRAIN_S s in all:"
  drain_report
  if wait_for $((DRAIN_S - SLOW_S)) relays_caught_up; then
    ok
    say "relays drained after $((SECONDS - last_fault)) s"
  else
    bad "the relays did not drain within $DRAIN_S s of the last fault: $(behind); $(tail -q -n 2 "$TMP"/relay-*.err)"
    drain_report
  fi
fi
for n in 1 2 3; do
  kill -0 "${relay_pid[$n]}" 2>/dev/null && ok || bad "relay $n ended during the run: $(tail -2 "$TMP/relay-$n.err")"
done
wait_for 60 three_members && ok || { bad "the relay group has $(relay_members) member(s) after the faults, want 3"; members_report; }
# A last batch, committed, must be relayed: a relay that runs but is stuck holds its partitions.
for t in "$in_a" "$in_b"; do
  printf '{"value":"last-%s-1","partition":0}\n{"value":"last-%s-2","partition":1}\n' "$t" "$t" |
    "$CAUSAL" produce --transactional-id "bounce-last-$t" "$t" >/dev/null 2>>"$TMP/last.err" || bad "the last batch to $t: $(tail -1 "$TMP/last.err")"
done
wait_for "$DRAIN_S" relays_caught_up && ok || { bad "the last batch was not relayed within $DRAIN_S s: a relay is stuck: $(behind)"; drain_report; }
wait_for "$DRAIN_S" down_caught_up && ok || bad "the downstream group did not drain within $DRAIN_S s: $(tail -2 "$TMP/down-1.err")"
say "downstream drained"
for n in 1 2 3; do
  kill -INT "${relay_pid[$n]}"
  wait "${relay_pid[$n]}" || bad "relay $n exited $? on SIGINT: $(tail -2 "$TMP/relay-$n.err")"
done
kill -INT "$down_pid"
wait "$down_pid" || bad "the downstream member exited $? on SIGINT: $(tail -2 "$TMP/down-1.err")"
timeout 60 "$CAUSAL" tail "$out" --group "$down" --commit -e --format jsonl >"$TMP/down-2.jsonl" 2>"$TMP/down-2.err" ||
  bad "the downstream's second run exited $?: $(tail -2 "$TMP/down-2.err")"
[[ ! -s $TMP/down-2.jsonl ]] && ok || bad "the downstream group did not drain: a second run printed $(wc -l <"$TMP/down-2.jsonl")"

# --- the checker ------------------------------------------------------------------------------
read_committed() { kcat -b "$B" -C -e -J -X isolation.level=read_committed -t "$1" 2>/dev/null; }
{ read_committed "$in_a"; read_committed "$in_b"; } >"$TMP/in.json"
read_committed "$out" >"$TMP/out.json"
committed_inputs=$(jq -r .payload "$TMP/in.json" | sort)
n_in=$(grep -c . <<<"$committed_inputs")
((n_in >= 100)) && ok || bad "too few committed input records for the test to mean anything: $n_in"
aborted_inputs_check "$TMP/in.json" "bounce-src-%s-$run-%s"
want=$(tr '[:lower:]' '[:upper:]' <<<"$committed_inputs" | sort)
got=$(jq -r .payload "$TMP/out.json" | sort)
if [[ $got == "$want" ]]; then
  ok
else
  bad "exactly once in the committed output: $(diff <(echo "$want") <(echo "$got") | grep -c '^[<>]') differences: $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | head -6 | tr '\n' ' ')"
fi
down_values=$(jq -r 'select(.event == null) | .value' "$TMP/down-1.jsonl" | sort)
[[ $(sort -u <<<"$down_values") == "$want" ]] && ok ||
  bad "the downstream member did not print every output record: $(comm -23 <(echo "$want") <(sort -u <<<"$down_values") | head -6 | tr '\n' ' ')"
twice=$(uniq -d <<<"$down_values" | grep -c .)
((twice == 0)) || say "downstream: $twice records printed twice (after: $(grep -h 'assignment lost\|not committed\|commit failed' "$TMP/down-1.err" | head -2 | tr '\n' ' '))"
((twice == 0)) || grep -q 'assignment lost\|not committed\|commit failed' "$TMP/down-1.err" && ok ||
  bad "downstream: $twice records printed twice, and the member said nothing of an uncommitted delivery"
# Causal order: for each delivered record in order, its claims on the output topic are delivered.
jq -r '"\(.partition) \(.offset)"' "$TMP/out.json" | sort -n -k1,1 -k2,2 >"$TMP/out.offsets"
violations=$(jq -r --arg out "$out" 'select(.event == null) | "\(.partition) \(.offset) " + ([.clock.claims[]? | select(.topic == $out and .offset != null) | "\(.partition):\(.offset)"] | join(" "))' \
  "$TMP/down-1.jsonl" | awk -v offsets="$TMP/out.offsets" '
    BEGIN { while ((getline line < offsets) > 0) { split(line, f, " "); n[f[1]]++; at[f[1], n[f[1]]] = f[2] } }
    function rank(p, o,   i, r) { r = 0; for (i = 1; i <= n[p]; i++) if (at[p, i] <= o) r++; return r }
    {
      if (seen[$1, $2]++) next
      for (i = 3; i <= NF; i++) {
        split($i, c, ":")
        if (done[c[1]] < rank(c[1], c[2])) print "out/" $1 "@" $2 " before its claim out/" c[1] "@" c[2]
      }
      done[$1]++
    }')
[[ -z $violations ]] && ok || bad "causal order downstream: $(head -3 <<<"$violations" | tr '\n' ' ')"
claiming=$(jq -r --arg out "$out" 'select(.event == null) | [.clock.claims[]? | select(.topic == $out)] | length' "$TMP/down-1.jsonl" | awk '$1 > 0' | wc -l)
((claiming > 0)) && ok || bad "no output record claims another: the order check above checked nothing"

say "relays: $(grep -h 'transactions committed' "$TMP"/relay-*.err | sed 's/^[^ ]* //' | tr '\n' ';')"
say "relay notes: $(cat "$TMP"/relay-*.err | grep -c 'assignment lost') assignments lost, $(cat "$TMP"/relay-*.err | grep -c 'transaction aborted') transactions aborted, $(cat "$TMP"/relay-*.err | grep -c 'new producer took') producers made again"
say "$n_in committed input records; downstream printed $(grep -c . <<<"$down_values")"
summary
