#!/usr/bin/env bash
# The exactly-once relay against a plain librdkafka consume-transform-produce loop, side by
# side on the same input topic of the real test broker.
#
#   bench/relay_vs_eos.sh            uses $CAUSAL_BROKERS, or starts scripts/test-broker (and stops it)
#
# Environment: CAUSAL_BIN (default build/apps/causal), BENCH_BIN (build/bench/relay_vs_eos),
# RECORDS (200000), PARTITIONS (4), ROUNDS (2).
#
# Fills a fresh input topic with RECORDS stamped 100-byte records (causal produce, in
# transactions of 1000), then, ROUNDS times, alternating, runs each mode with a fresh group
# and output topic: both read the whole input (read_committed), upper-case every value into
# the output, and commit the input offsets in transactions of at most 1000 records or
# 200 ms. Prints records/s of each (best round; from the first record to the last commit)
# and the ratio relay/plain. The relay also runs the gate, stamps every output and commits
# the resolution state.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${CAUSAL_BIN:-$root/build/apps/causal}"
bench="${BENCH_BIN:-$root/build/bench/relay_vs_eos}"
records="${RECORDS:-200000}"
partitions="${PARTITIONS:-4}"
rounds="${ROUNDS:-2}"
[[ -x "$bin" && -x "$bench" ]] || { echo "relay_vs_eos: build causal and relay_vs_eos first (or set CAUSAL_BIN, BENCH_BIN)" >&2; exit 1; }

work="$(mktemp -d /tmp/causal-bench-XXXXXX)"
started=""
cleanup() {
  [[ -n "$started" ]] && CAUSAL_BROKER_DIR="$work/broker" "$root/scripts/test-broker" stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
if [[ -z "${CAUSAL_BROKERS:-}" ]]; then
  echo "relay_vs_eos: starting a test broker" >&2
  CAUSAL_BROKERS="$(CAUSAL_BROKER_DIR="$work/broker" "$root/scripts/test-broker" start)"
  started=1
fi
export CAUSAL_BROKERS
topic() {
  CAUSAL_BROKER_DIR="$work/broker" "$root/scripts/test-broker" kafka-topics --bootstrap-server "$CAUSAL_BROKERS" \
    --create --topic "$1" --partitions "$partitions" >/dev/null
}
run=$$
in=relay-bench-in-$run
topic "$in"
value=$(head -c 100 /dev/zero | tr '\0' v)
echo "relay_vs_eos: filling $in with $records records over $partitions partitions" >&2
seq "$records" | sed "s/.*/$value/" |
  "$bin" produce --input text --transactional-id "fill-$run" --commit-every 1000 "$in" >/dev/null 2>&1

best_plain=0
best_relay=0
for r in $(seq "$rounds"); do
  for mode in plain relay; do
    out=relay-bench-out-$mode-$run-$r
    topic "$out"
    read -r _ n secs < <("$bench" "$mode" "$CAUSAL_BROKERS" "$in" "$out" "g-$mode-$run-$r" "tx-$mode-$run-$r" "$records")
    rate=$(awk -v n="$n" -v s="$secs" 'BEGIN { printf "%d", n / s }')
    echo "round $r  $mode  $n records in $secs s  $rate records/s"
    if [[ $mode == plain ]]; then ((rate > best_plain)) && best_plain=$rate; else ((rate > best_relay)) && best_relay=$rate; fi
  done
done
awk -v r="$best_relay" -v p="$best_plain" 'BEGIN { printf "best: relay %d records/s, plain EOS loop %d records/s, ratio relay/plain %.2f\n", r, p, r / p }'
