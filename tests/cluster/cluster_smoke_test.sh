#!/usr/bin/env bash
# The three-node test cluster and its fault proxies work (scripts/test-broker start --nodes 3
# --proxies 2): replication settings, failover of a killed leader, a node's return, and each
# fault mode of one proxy, seen by a short-lived and a long-lived client of it, while the
# other proxy's client and unproxied clients go on.
#
# Usage: cluster_smoke_test.sh SRC STATE_DIR, under the kafka_cluster fixture, which starts
# the cluster with its state in STATE_DIR. Every wait polls a condition against a deadline
# (the machine may be shared with CPU-bound work); every step is printed with a timestamp;
# the first failed check ends the test with "FAIL".
set -euo pipefail

SRC=${1:?usage: cluster_smoke_test.sh SRC STATE_DIR}
export CAUSAL_BROKER_DIR=${2:?usage: cluster_smoke_test.sh SRC STATE_DIR}
TB=$SRC/scripts/test-broker
T0=$(date +%s%N)

ms_now() { echo $(($(date +%s%N) / 1000000)); }
step() { echo "$(date +%T.%3N) [+$((($(date +%s%N) - T0) / 1000000000))s] $*"; }
fail() {
  echo "$(date +%T.%3N) FAIL $*"
  "$TB" status || true
  local f
  for f in "${TMP:-/nonexistent}"/live*.err; do
    [[ -s $f ]] && echo "---- ${f##*/}:" && tail -n 5 "$f"
  done
  exit 1
}
# poll SECONDS CMD...: runs CMD until it succeeds; fails when SECONDS have passed.
poll() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.5
  done
}

B=$("$TB" bootstrap 2>/dev/null) || fail "no cluster runs in $CAUSAL_BROKER_DIR (the kafka_cluster fixture starts it)"
P1=$("$TB" bootstrap --proxy 1) || fail "the cluster has no proxy 1 (start --nodes 3 --proxies 2)"
P2=$("$TB" bootstrap --proxy 2) || fail "the cluster has no proxy 2 (start --nodes 3 --proxies 2)"
TOPIC="cluster-smoke-$$-$RANDOM"
TMP=$(mktemp -d)
live=()
# Whatever happens, proxy 1 relays again afterwards: other tests may share the cluster.
cleanup() {
  local p
  for p in "${live[@]}"; do kill "$p" 2>/dev/null || true; done
  "$TB" proxy 1 pass >/dev/null 2>&1 || true
  rm -rf "$TMP"
}
trap cleanup EXIT

# produce BOOTSTRAP VALUE...: one record per value to partition 0 with acks=all; fails unless
# every record is acknowledged within MSG_TIMEOUT_MS (default 20 s).
produce() {
  local b=$1
  shift
  printf '%s\n' "$@" | timeout 30 kcat -P -b "$b" -t "$TOPIC" -p 0 -X acks=all \
    -X message.timeout.ms="${MSG_TIMEOUT_MS:-20000}" 2>"$TMP/produce.err"
}
# consumed BOOTSTRAP: partition 0's values, from the beginning to its end.
consumed() {
  timeout 30 kcat -C -b "$1" -t "$TOPIC" -p 0 -o beginning -e -q 2>/dev/null
}
# metadata_ms BOOTSTRAP: milliseconds one kcat -L (ApiVersions, then Metadata) takes; fails
# when it gets no answer within 5 s.
metadata_ms() {
  local start rc=0
  start=$(ms_now)
  timeout 10 kcat -L -b "$1" -t "$TOPIC" -m 5 >"$TMP/meta" 2>&1 || rc=$?
  echo $(($(ms_now) - start))
  return "$rc"
}
# start_live N: a long-lived consumer through proxy 1 of partition 0 from offset 5 (after
# a1 a2 a3 b1 b2), into $TMP/liveN; bounded by timeout in case the trap never runs. kcat
# exits once every broker connection is down.
start_live() {
  timeout 150 kcat -C -b "$P1" -t "$TOPIC" -p 0 -o 5 -u -q >"$TMP/live$1" 2>"$TMP/live$1.err" &
  live+=($!)
}
# live_is N VALUES: long-lived consumer N has received exactly VALUES.
live_is() {
  local n=$1
  shift
  [[ "$(tr '\n' ' ' <"$TMP/live$n")" == "${*:+$* }" ]]
}
# proxy1_connections: how many connections proxy 1 relays now.
proxy1_connections() {
  "$TB" proxy 1 status | sed -n 's/.*connections=\([0-9]*\).*/\1/p'
}

step "cluster at $B; proxy 1 at $P1; proxy 2 at $P2"
"$TB" status
[[ $("$TB" status | grep -c '^node [0-9]: running') -eq 3 ]] || fail "not all three nodes run"

step "create topic $TOPIC with the cluster's defaults"
"$TB" kafka-topics --bootstrap-server "$B" --create --topic "$TOPIC" --partitions 1 >/dev/null ||
  fail "creating $TOPIC failed"
"$TB" kafka-topics --bootstrap-server "$B" --describe \
  --topic "$TOPIC|__consumer_offsets|__transaction_state" >"$TMP/describe"
cat "$TMP/describe"
for t in "$TOPIC" __consumer_offsets __transaction_state; do
  grep -E "^Topic: $t\s.*ReplicationFactor: 3\s.*min.insync.replicas=2" "$TMP/describe" >/dev/null ||
    fail "$t has not replication factor 3 and min.insync.replicas 2"
  grep -E "^\s+Topic: $t\s" "$TMP/describe" | grep -vE "Isr: [0-9],[0-9],[0-9]\s" && fail "a partition of $t has not 3 replicas in sync"
  step "$t: replication factor 3, min.insync.replicas 2, all replicas in sync"
done
grep -E "^Topic: $TOPIC\s.*unclean.leader.election.enable=false" "$TMP/describe" >/dev/null ||
  fail "$TOPIC allows unclean leader election"

step "produce a1 a2 a3 with acks=all"
produce "$B" a1 a2 a3 || fail "produce with acks=all failed: $(cat "$TMP/produce.err")"
[[ $(consumed "$B" | tr '\n' ' ') == "a1 a2 a3 " ]] || fail "consumed '$(consumed "$B" | tr '\n' ' ')', not a1 a2 a3"

# The three lookups are a JVM each; side by side they cost one start on a busy machine.
"$TB" leader "$TOPIC" 0 >"$TMP/leader" 2>&1 &
lp=$!
"$TB" group-coordinator g-smoke >"$TMP/group" 2>&1 &
gp=$!
"$TB" txn-coordinator t-smoke >"$TMP/txn" 2>&1 &
wait "$lp" || fail "leader $TOPIC 0 failed: $(cat "$TMP/leader")"
wait "$gp" || fail "group-coordinator g-smoke failed: $(cat "$TMP/group")"
wait "$!" || fail "txn-coordinator t-smoke failed: $(cat "$TMP/txn")"
L=$(cat "$TMP/leader")
[[ $L =~ ^[123]$ ]] || fail "leader $TOPIC 0 answered '$L', not a node id"
[[ $(cat "$TMP/group") =~ ^[123]$ ]] || fail "group-coordinator answered '$(cat "$TMP/group")', not a node id"
[[ $(cat "$TMP/txn") =~ ^[123]$ ]] || fail "txn-coordinator answered '$(cat "$TMP/txn")', not a node id"
step "node $L leads $TOPIC-0; group g-smoke: node $(cat "$TMP/group"); txn t-smoke: node $(cat "$TMP/txn")"

step "kill node $L"
"$TB" kill "$L"
killed_ms=$(ms_now)
# Polled with kcat (no JVM per look), then `leader` must say the same.
new_leader() {
  NL=$(kcat -L -b "$B" -t "$TOPIC" -m 5 2>/dev/null | sed -n 's/^ *partition 0, leader \([0-9]*\),.*/\1/p')
  [[ $NL =~ ^[123]$ && $NL != "$L" ]]
}
poll 60 new_leader || fail "no new leader for $TOPIC-0 within 60 s of killing node $L"
elected_ms=$(($(ms_now) - killed_ms))
leader_says_new() { [[ $(CAUSAL_LOOKUP_TIMEOUT=10 "$TB" leader "$TOPIC" 0 2>/dev/null) == "$NL" ]]; }
poll 30 leader_says_new || fail "kcat sees node $NL lead $TOPIC-0, leader says $("$TB" leader "$TOPIC" 0)"
step "node $NL leads $TOPIC-0 now (kcat saw it $elected_ms ms after the kill; leader agrees)"

step "produce b1 b2 with acks=all on the two nodes left (ISR 2 = min.insync.replicas)"
produce "$B" b1 b2 || fail "produce after the failover failed: $(cat "$TMP/produce.err")"
[[ $(consumed "$B" | tr '\n' ' ') == "a1 a2 a3 b1 b2 " ]] || fail "after the failover consumed '$(consumed "$B" | tr '\n' ' ')'"
step "consumed a1 a2 a3 b1 b2 after the failover"

step "start node $L again"
"$TB" start "$L"
in_isr() {
  kcat -L -b "$B" -t "$TOPIC" -m 5 2>/dev/null | grep -E "partition 0, .*isrs: .*\b$L\b" >/dev/null
}
poll 60 in_isr || fail "node $L did not rejoin $TOPIC-0's ISR within 60 s"
step "node $L is back in $TOPIC-0's ISR: $(kcat -L -b "$B" -t "$TOPIC" -m 5 2>/dev/null | grep 'partition 0,' | sed 's/^ *//')"

step "long-lived consumer 1 through proxy 1, from offset 5 (after a1 a2 a3 b1 b2)"
start_live 1

step "proxy 1, pass: metadata through it names only proxy 1's addresses"
base_ms=$(metadata_ms "$P1") || fail "kcat -L through proxy 1 failed in pass mode: $(cat "$TMP/meta")"
sed -n 's/^  broker [0-9] at \([^ ]*\).*/\1/p' "$TMP/meta" >"$TMP/addresses"
[[ $(wc -l <"$TMP/addresses") -eq 3 ]] || fail "metadata through proxy 1 names not three brokers: $(cat "$TMP/meta")"
while read -r a; do
  [[ ",$P1," == *",$a,"* ]] || fail "metadata through proxy 1 names $a, not one of $P1"
done <"$TMP/addresses"
produce "$P1" c1 || fail "produce through proxy 1 failed in pass mode: $(cat "$TMP/produce.err")"
poll 30 live_is 1 c1 || fail "consumer 1 through proxy 1 received '$(cat "$TMP/live1")', not c1"
n=$(proxy1_connections)
((n >= 1)) || fail "proxy 1 relays $n connections while its consumer runs"
step "pass: metadata in $base_ms ms, produce acknowledged, consumer 1 received c1; $n connections relayed"

step "proxy 1, drop"
answer=$("$TB" proxy 1 drop)
echo "$answer"
[[ $answer == *connections=0* ]] || fail "proxy 1 still relays connections after drop: $answer"
consumer1_gone() { ! kill -0 "${live[0]}" 2>/dev/null; }
poll 30 consumer1_gone || fail "consumer 1 through proxy 1 still runs 30 s after drop"
grep -q "All broker connections are down" "$TMP/live1.err" ||
  fail "consumer 1 ended without losing its connections: $(cat "$TMP/live1.err")"
if ms=$(metadata_ms "$P1"); then fail "kcat -L through a dropping proxy 1 answered in $ms ms"; fi
grep -q "Connection refused" "$TMP/meta" || fail "kcat -L through a dropping proxy 1 was not refused: $(cat "$TMP/meta")"
MSG_TIMEOUT_MS=3000 produce "$P1" dropped && fail "produce through a dropping proxy 1 was acknowledged"
ms=$(metadata_ms "$P2") || fail "proxy 2's client failed while proxy 1 drops: $(cat "$TMP/meta")"
produce "$B" x1 || fail "an unproxied produce failed while proxy 1 drops: $(cat "$TMP/produce.err")"
step "drop: consumer 1 lost every connection and ended, new ones refused, no acknowledgement; proxy 2's client answers in $ms ms; unproxied produce of x1 acknowledged"

step "proxy 1, restore to pass; long-lived consumer 2 through it"
"$TB" proxy 1 pass
start_live 2
poll 30 live_is 2 c1 x1 || fail "consumer 2 through a restored proxy 1 received '$(cat "$TMP/live2")', not c1 x1"
step "restored: consumer 2 received c1 x1"

step "proxy 1, blackhole"
"$TB" proxy 1 blackhole
n=$(proxy1_connections)
((n >= 1)) || fail "proxy 1 holds $n connections in blackhole while consumer 2 runs"
produce "$B" y1 || fail "an unproxied produce failed while proxy 1 blackholes: $(cat "$TMP/produce.err")"
if ms=$(metadata_ms "$P1"); then fail "kcat -L through a blackholed proxy 1 answered in $ms ms"; fi
grep -qiE "timed out|timeout" "$TMP/meta" || fail "a blackholed kcat -L did not time out: $(cat "$TMP/meta")"
# The kcat -L above waited 5 s: time enough for a fetch to bring y1, were it relayed.
live_is 2 c1 x1 || fail "consumer 2 through a blackholed proxy 1 received '$(cat "$TMP/live2")', not just c1 x1"
ms=$(metadata_ms "$P2") || fail "proxy 2's client failed while proxy 1 blackholes: $(cat "$TMP/meta")"
step "blackhole: $n connections held, consumer 2 received nothing for 5 s, kcat -L timed out; proxy 2's client answers in $ms ms"

step "proxy 1, latency 200 ms each way"
"$TB" proxy 1 latency 200
# What the blackhole held flows on: consumer 2's fetch is answered and brings y1.
poll 30 live_is 2 c1 x1 y1 || fail "after the blackhole consumer 2 received '$(cat "$TMP/live2")', not c1 x1 y1"
slow_ms=$(metadata_ms "$P1") || fail "kcat -L through proxy 1 failed with latency: $(cat "$TMP/meta")"
# Two request round trips (ApiVersions, Metadata) at 2 x 200 ms each: 800 ms at least.
((slow_ms >= 800)) || fail "kcat -L took $slow_ms ms with 200 ms latency each way; expected >= 800"
((slow_ms > base_ms)) || fail "kcat -L took $slow_ms ms with latency, not more than $base_ms ms without"
start=$(ms_now)
produce "$P1" d1 || fail "produce through a slow proxy 1 failed: $(cat "$TMP/produce.err")"
step "latency: metadata in $slow_ms ms (pass: $base_ms ms), produce acknowledged in $(($(ms_now) - start)) ms; consumer 2 went on from the blackhole"

step "proxy 1, restore to pass"
"$TB" proxy 1 pass
ms=$(metadata_ms "$P1") || fail "kcat -L through proxy 1 failed after restore: $(cat "$TMP/meta")"
produce "$P1" e1 || fail "produce through proxy 1 failed after restore: $(cat "$TMP/produce.err")"
poll 30 live_is 2 c1 x1 y1 d1 e1 || fail "consumer 2 through proxy 1 received '$(cat "$TMP/live2")', not c1 x1 y1 d1 e1"
got=$(timeout 30 kcat -C -b "$P1" -t "$TOPIC" -p 0 -o beginning -e -q 2>/dev/null | tr '\n' ' ')
[[ $got == "a1 a2 a3 b1 b2 c1 x1 y1 d1 e1 " ]] ||
  fail "through proxy 1 consumed '$got', not a1 a2 a3 b1 b2 c1 x1 y1 d1 e1"
step "restored: metadata in $ms ms; consumer 2 and a new one have everything acknowledged, in order, nothing else"

step "PASS in $((($(date +%s%N) - T0) / 1000000)) ms"
