#!/usr/bin/env bash
# The exactly-once relay, a plain librdkafka exactly-once loop and a Kafka Streams application
# doing the same transform, side by side on the same input, on the replicated three-node
# test cluster (replication factor 3, min.insync.replicas 2, every producer acks=all); and
# the plain loop again with a header as long as the relay's stamps, to tell what the
# stamps' bytes cost from what the relay's own work costs.
#
#   bench/relay_vs_streams.sh     starts its own cluster (CAUSAL_BROKER_JIT=full
#                                 scripts/test-broker start --nodes 3: the brokers' JVMs
#                                 compile as production brokers do) in a scratch directory,
#                                 and stops it at exit
#
# Environment: CAUSAL_CLUSTER_BROKERS (a running three-node cluster to use instead), CAUSAL_BIN
# (default build/apps/causal), BENCH_BIN (build/bench/relay_vs_eos), STREAMS_BUILD (where the
# Streams application is built: build/bench/streams-relay), RECORDS (1000000: runs of several
# seconds, in which the JVM's warm-up weighs less than in runs of one), PARTITIONS (4),
# ROUNDS (2), COMMIT_MS (200), COMMIT_RECORDS (0: none; a bound on records per transaction
# for the relay and the plain loop, relay_vs_eos.sh's 1000 say, which Kafka Streams cannot
# follow: it then commits on time alone while the other two do not), RUN_TIMEOUT (600: seconds
# one run may take before it is killed and the bench fails).
#
# Builds bench/streams-relay (Kafka Streams 4.4.0, mvn -q package, Java 17) unless its jar is
# newer than its sources. Fills a fresh input topic with RECORDS stamped 100-byte records
# (causal produce, transactions of 1000), runs the relay and the plain loop once uncounted
# (the brokers' JIT warms up on them), then, ROUNDS times, runs each of the four with a
# fresh group (application id) and a fresh, empty output topic, the order reversed every
# other round: relay, plain, streams, stamped; then stamped, streams, plain, relay. One
# instance each, one thread. Each reads the whole input read_committed, upper-cases every
# value into the output (same key), and commits the input offsets in the same transaction,
# every COMMIT_MS milliseconds, on time alone (no bound on records per transaction: Kafka
# Streams has none):
#   relay    causal::kafka::Relay (bench/relay_vs_eos.cpp, relay mode), its own defaults:
#            consumer fetch.wait.max.ms=100, fetch.queue.backoff.ms=10, batches of 4096;
#            producer linger.ms=5, librdkafka's batch.size (1000000 bytes), acks=all,
#            compression.type=lz4
#   plain    the same C++ program's plain mode, given the relay's settings (consumer
#            fetch.wait.max.ms=100, fetch.queue.backoff.ms=10; producer linger.ms=5,
#            compression.type=lz4); batches of 4096
#   streams  bench/streams-relay (processing.guarantee=exactly_once_v2,
#            commit.interval.ms=COMMIT_MS, one stream thread), given the same settings where
#            Streams' defaults differ: consumer fetch.max.wait.ms=100 (500), max.poll.records
#            4096 (1000); producer linger.ms=5 (Streams: 100), batch.size=1000000 (16384),
#            compression.type=lz4 (none)
#   stamped  the plain loop as above, each output record given a causal.clock header as long
#            as the relay's stamps (their mean over 200 records of the warm-up relay run's
#            output, `causal decode`), which is not a clock: the stamps' bytes without the
#            relay's work (relay_vs_eos h:BYTES)
# Every run's output is then read back (kcat, read_committed) and must hold RECORDS records.
# Prints for each run records/s from the first record received to the last commit (warm-up
# of the JVM's JIT included; process start, group join and init_transactions not), the
# transactions it committed, the process's wall time with its start-up, its CPU seconds
# (user + system, every thread), and the load average before and after; then the best
# round of each and the ratios relay/streams, relay/plain and relay/stamped.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${CAUSAL_BIN:-$root/build/apps/causal}"
bench="${BENCH_BIN:-$root/build/bench/relay_vs_eos}"
streams_build="${STREAMS_BUILD:-$(dirname "$bench")/streams-relay}"
records="${RECORDS:-1000000}"
partitions="${PARTITIONS:-4}"
rounds="${ROUNDS:-2}"
commit_ms="${COMMIT_MS:-200}"
commit_records="${COMMIT_RECORDS:-0}"
run_timeout="${RUN_TIMEOUT:-600}"
[[ -x "$bin" && -x "$bench" ]] || { echo "relay_vs_streams: build causal and relay_vs_eos first (or set CAUSAL_BIN, BENCH_BIN)" >&2; exit 1; }
for tool in mvn java kcat; do
  command -v "$tool" >/dev/null || { echo "relay_vs_streams: $tool not found (scripts/install-deps installs it)" >&2; exit 1; }
done

say() { echo "relay_vs_streams: $*" >&2; }
work="$(mktemp -d /tmp/causal-bench-XXXXXX)"
started=""
cleanup() {
  if [[ -n "$started" ]]; then CAUSAL_BROKER_DIR="$work/cluster" "$root/scripts/test-broker" stop >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# The Streams application: rebuilt when a source is newer than its jar.
src="$root/bench/streams-relay"
jar="$streams_build/streams-relay.jar"
if [[ ! -f "$jar" || ! -f "$streams_build/classpath" ]] ||
  [[ -n "$(find "$src/pom.xml" "$src/src" -newer "$jar" -print -quit)" ]]; then
  say "building $src into $streams_build"
  timeout 900 mvn -B -q -f "$src/pom.xml" package -Dstreams.build.dir="$streams_build" >"$work/mvn.log" 2>&1 ||
    { cat "$work/mvn.log" >&2; say "mvn package failed"; exit 1; }
fi
classpath="$jar:$(cat "$streams_build/classpath")"

if [[ -n "${CAUSAL_CLUSTER_BROKERS:-}" ]]; then
  brokers="$CAUSAL_CLUSTER_BROKERS"
else
  say "starting a three-node test cluster"
  started=1
  brokers="$(CAUSAL_BROKER_JIT=full CAUSAL_BROKER_DIR="$work/cluster" "$root/scripts/test-broker" start --nodes 3)"
fi
bound="every $commit_ms ms"
if ((commit_records > 0)); then bound+=", or $commit_records records (relay and plain loop only)"; fi
say "cluster $brokers; transactions commit $bound"
topic() {
  "$root/scripts/test-broker" kafka-topics --bootstrap-server "$brokers" --create --topic "$1" \
    --partitions "$partitions" --replication-factor 3 --config min.insync.replicas=2 >/dev/null
}
run=$$
in=streams-bench-in-$run
topic "$in"
value=$(head -c 100 /dev/zero | tr '\0' v)
say "filling $in with $records records over $partitions partitions"
seq "$records" | sed "s/.*/$value/" |
  "$bin" produce -b "$brokers" --input text --transactional-id "fill-$run" --commit-every 1000 "$in" >/dev/null

# stamp_bytes OUT: the mean length of the causal.clock headers of the first 200 records of
# the first partition of OUT that has any.
stamp_bytes() {
  local p sizes
  for p in $(seq 0 $((partitions - 1))); do
    sizes=$(timeout 60 "$bin" decode -b "$brokers" "$1/$p@0..199" --format jsonl 2>/dev/null |
      jq -r 'select(.header_present) | .bytes')
    if [[ -n $sizes ]]; then
      awk '{ n++; s += $1 } END { printf "%d", s / n + 0.5 }' <<<"$sizes"
      return
    fi
  done
  say "no stamped record in the first 200 offsets of $1"
  return 1
}
stamp=""  # the stamped mode's header length, measured before the first round

# run_mode MODE OUT GROUP: one run; prints "RECORDS SECONDS WALL CPU TRANSACTIONS".
run_mode() {
  local mode=$1 out=$2 group=$3 cmd
  case $mode in
    relay) cmd=("$bench" relay "$brokers" "$in" "$out" "$group" "tx-$group" "$records" "$commit_records" "$commit_ms") ;;
    plain | stamped)
      cmd=("$bench" plain "$brokers" "$in" "$out" "$group" "tx-$group" "$records" "$commit_records" "$commit_ms"
        c:fetch.wait.max.ms=100 c:fetch.queue.backoff.ms=10 p:compression.type=lz4)
      if [[ $mode == stamped ]]; then cmd+=("h:$stamp"); fi
      ;;
    streams)
      cmd=(java -cp "$classpath" StreamsRelay "$brokers" "$in" "$out" "$group" "$records" "$commit_ms"
        consumer.fetch.max.wait.ms=100 consumer.max.poll.records=4096
        producer.linger.ms=5 producer.batch.size=1000000 producer.compression.type=lz4)
      ;;
  esac
  timeout -k 10 "$run_timeout" /usr/bin/time -f '%e %U %S' -o "$work/time" "${cmd[@]}" >"$work/out" 2>"$work/err" ||
    { cat "$work/err" >&2; say "$mode failed"; return 1; }
  local n secs wall user sys txns
  read -r _ n secs <"$work/out"
  read -r wall user sys <"$work/time"
  txns=$(sed -n 's/.*: \([0-9]*\) transactions committed$/\1/p' "$work/err" | tail -1)
  echo "$n $secs $wall $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }') ${txns:-?}"
}

# A relay run and a plain run first, not counted: the brokers' JVMs compile their hot paths
# during the first runs after they start, which would count against whichever ran first.
# It is not enough to even them out (the first counted relay run still often takes up to
# twice its later time, as the JIT keeps compiling): the best of ROUNDS rounds is what is
# compared. The warm-up relay's output gives the stamps' length.
say "warming the cluster up: one relay run and one plain run, not counted"
for mode in relay plain; do
  topic "streams-bench-warm-up-$mode-$run"
  run_mode "$mode" "streams-bench-warm-up-$mode-$run" "g-warm-up-$mode-$run" >/dev/null || exit 1
done
stamp=$(stamp_bytes "streams-bench-warm-up-relay-$run") || exit 1
say "the relay's stamps: $stamp bytes on average"

declare -A best=([relay]=0 [plain]=0 [streams]=0 [stamped]=0)
for r in $(seq "$rounds"); do
  order=(relay plain streams stamped)
  if ((r % 2 == 0)); then order=(stamped streams plain relay); fi
  for mode in "${order[@]}"; do
    out=streams-bench-out-$mode-$run-$r
    topic "$out"
    load=$(cut -d' ' -f1 /proc/loadavg)
    read -r n secs wall cpu txns < <(run_mode "$mode" "$out" "g-$mode-$run-$r") || exit 1
    got=$(timeout 120 kcat -C -b "$brokers" -t "$out" -o beginning -e -q -X isolation.level=read_committed -f '.' | wc -c)
    ((got == records)) || { say "$mode round $r: the output holds $got records, not $records"; exit 1; }
    rate=$(awk -v n="$n" -v s="$secs" 'BEGIN { printf "%d", n / s }')
    printf 'round %d  %-7s  %d records in %s s  %d records/s  (%s transactions; process %s s with start-up, %s CPU s; load %s -> %s)\n' \
      "$r" "$mode" "$n" "$secs" "$rate" "$txns" "$wall" "$cpu" "$load" "$(cut -d' ' -f1 /proc/loadavg)"
    if ((rate > best[$mode])); then best[$mode]=$rate; fi
  done
done
awk -v r="${best[relay]}" -v p="${best[plain]}" -v s="${best[streams]}" -v h="${best[stamped]}" -v b="$stamp" 'BEGIN {
  printf "best: relay %d records/s, plain EOS loop %d records/s, Kafka Streams %d records/s, plain loop with %d-byte headers %d records/s\n", r, p, s, b, h
  printf "ratios: relay/streams %.2f, relay/plain %.2f, relay/stamped %.2f\n", r / s, r / p, r / h }'
