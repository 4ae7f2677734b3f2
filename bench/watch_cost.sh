#!/usr/bin/env bash
# What `causal watch` costs: its CPU share of one core while it watches NGROUPS groups, each
# on PARTITIONS partitions, every INTERVAL seconds, on the real test broker. Target: 10 %.
#
#   bench/watch_cost.sh       uses $CAUSAL_BROKERS, or starts scripts/test-broker in
#                             /tmp/watch-cost-* (and stops it)
#
# Environment: CAUSAL_BIN (default build/apps/causal), NGROUPS (100), PARTITIONS (100: one
# topic of that many partitions, which every group commits), RECORDS (3: records per
# partition), INTERVAL (15 s), ROUNDS (4: rounds watched).
#
# Set-up: creates the topic, commits each group's offsets at 0 on every partition (causal
# baseline --group G --apply on the empty topic), then writes RECORDS stamped records per
# partition (causal produce --sync), so every group's first round replays
# PARTITIONS x RECORDS records and the later rounds find nothing moved. Then runs
#   causal watch --group G1 ... --group GN --interval INTERVAL --listen 127.0.0.1:0
# for ROUNDS rounds (read from its /metrics) and prints its CPU seconds (utime + stime from
# /proc/PID/stat) over wall seconds: the whole run, and the steady state after the first
# round (the rounds that reuse every verdict, and the idle time between them).
# Run it alone on the machine (under flock /tmp/causal-build.lock where builds share it).
# Figures: bench/RESULTS.md.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${CAUSAL_BIN:-$root/build/apps/causal}"
ngroups="${NGROUPS:-100}"
partitions="${PARTITIONS:-100}"
records="${RECORDS:-3}"
interval="${INTERVAL:-15}"
rounds="${ROUNDS:-4}"
[[ -x "$bin" ]] || { echo "watch_cost: no causal binary at $bin (build it, or set CAUSAL_BIN)" >&2; exit 1; }

work="$(mktemp -d /tmp/watch-cost-XXXXXX)"
started="" watch_pid=""
cleanup() {
  [[ -n "$watch_pid" ]] && kill "$watch_pid" 2>/dev/null && wait "$watch_pid" 2>/dev/null
  [[ -n "$started" ]] && CAUSAL_BROKER_DIR="$work/broker" "$root/scripts/test-broker" stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
if [[ -z "${CAUSAL_BROKERS:-}" ]]; then
  echo "watch_cost: starting a test broker" >&2
  CAUSAL_BROKERS="$(CAUSAL_BROKER_DIR="$work/broker" "$root/scripts/test-broker" start)"
  started=1
fi
export CAUSAL_BROKERS
broker_dir="$work/broker"
[[ -n "$started" ]] || broker_dir="${CAUSAL_BROKER_DIR:-/tmp/causal-test-broker-$(id -u)}"

tag="$(date +%s)-$RANDOM"
topic="watch-cost-$tag"
CAUSAL_BROKER_DIR="$broker_dir" "$root/scripts/test-broker" kafka-topics --bootstrap-server "$CAUSAL_BROKERS" \
  --create --topic "$topic" --partitions "$partitions" >/dev/null
groups=()
for ((g = 1; g <= ngroups; g++)); do
  group="watch-cost-$tag-$g"
  # A topic created a moment ago answers "not leader" until its leaders settle: ask again.
  for ((try = 1; ; try++)); do
    "$bin" baseline --group "$group" --apply "$topic" >/dev/null 2>"$work/apply.err" && break
    ((try < 30)) || { cat "$work/apply.err" >&2; exit 1; }
    sleep 1
  done
  groups+=(--group "$group")
done
sinks=()
for ((p = 0; p < partitions; p++)); do sinks+=("$topic/$p"); done
awk -v r="$records" -v n="$partitions" 'BEGIN {
  for (i = 0; i < r; i++) for (p = 0; p < n; p++) printf "{\"partition\":%d,\"value\":\"record %d\"}\n", p, i
}' | "$bin" produce --sync -X linger.ms=0 "${sinks[@]}" >/dev/null 2>"$work/produce.err" ||
  { cat "$work/produce.err" >&2; exit 1; }
echo "watch_cost: $ngroups groups committed at 0 on $topic ($partitions partitions, $((partitions * records)) records)" >&2

ticks=$(getconf CLK_TCK)
cpu() { awk -v t="$ticks" '{ printf "%.2f", ($14 + $15) / t }' "/proc/$1/stat"; }
now() { date +%s.%N; }
"$bin" watch "${groups[@]}" --interval "$interval" --listen 127.0.0.1:0 >"$work/out" 2>"$work/err" &
watch_pid=$!
t0=$(now)
url=""
for ((i = 0; i < 100; i++)); do
  [[ -z "$url" ]] || break
  url=$(sed -n 's/.*serving metrics on \(http[^ ]*\).*/\1/p' "$work/err")
  sleep 0.1
done
[[ -n "$url" ]] || { cat "$work/err" >&2; exit 1; }
rounds_done() { curl -sf "$url" | awk '$1 == "causal_watch_rounds_total" { print $2 }'; }
wait_rounds() {
  while (( $(rounds_done || echo 0) < $1 )); do
    kill -0 "$watch_pid" 2>/dev/null || { cat "$work/err" >&2; exit 1; }
    sleep 0.2
  done
}
wait_rounds 1
t1=$(now); c1=$(cpu "$watch_pid")
first=$(curl -sf "$url" | awk '$1 == "causal_watch_round_duration_seconds" { print $2 }')
wait_rounds "$rounds"
# The steady state ends where the next round would start: a whole number of intervals.
t2=$(now); c2=$(cpu "$watch_pid")
kill -TERM "$watch_pid"
wait "$watch_pid"
watch_pid=""
lines=$(wc -l <"$work/out")
errors=$(grep -c '^causal watch:' "$work/err" || true)
drains=$(grep -c '"verdict":"drains"' "$work/out" || true)
whole=$(echo "scale=4; $c2 / ($t2 - $t0)" | bc)
steady=$(echo "scale=4; ($c2 - $c1) / ($t2 - $t1)" | bc)
printf 'watch_cost: %d groups x %d partitions, interval %s s, %d rounds; %d verdict lines (%d drains), %d error lines\n' \
  "$ngroups" "$partitions" "$interval" "$rounds" "$lines" "$drains" "$errors"
printf 'watch_cost: first round %.2f s wall (every group replays %d records), %.2f CPU s\n' "$first" \
  "$((partitions * records))" "$c1"
printf 'watch_cost: whole run  %.2f CPU s / %.2f wall s = %.1f %% of one core\n' "$c2" "$(echo "$t2 - $t0" | bc)" \
  "$(echo "$whole * 100" | bc)"
printf 'watch_cost: steady     %.2f CPU s / %.2f wall s = %.1f %% of one core (target 10 %%)\n' "$(echo "$c2 - $c1" | bc)" \
  "$(echo "$t2 - $t1" | bc)" "$(echo "$steady * 100" | bc)"
