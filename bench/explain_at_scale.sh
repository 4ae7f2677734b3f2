#!/usr/bin/env bash
# causal explain against causal baseline, side by side, on topics of 1, 1,000 and 3,000
# partitions of the real test broker: does explain's cost grow with the partition count
# like baseline's (one request round per question), or faster?
#
#   bench/explain_at_scale.sh        uses $CAUSAL_BROKERS, or starts scripts/test-broker with
#                                    a 1 GiB heap in /tmp/wt14-bench-* (and stops it)
#
# Environment: CAUSAL_BIN (default build/apps/causal), SIZES ("1 1000 3000": partition
# counts), RECORDS (3: records per partition), CHUNK (50: partitions per producer run),
# ROUNDS (2: timed runs of each command per size, the best is printed).
#
# For each size: creates a topic (scripts/test-broker kafka-topics), commits group G's
# offsets at 0 on every partition (causal baseline --group G --apply on the empty topic),
# then fills it with RECORDS stamped records per partition through `causal produce --sync`,
# one producer run (one sender) per CHUNK partitions, so each record carries offset claims
# on the earlier sends of its run; the first record of every partition p >= CHUNK also
# claims offset 0 of partition p - CHUNK (an earlier run's send: waits across senders and
# partitions, the replay's gate work; never a cycle), and the last record of
# partition 0 claims an offset on the last partition that is never appended, so one head
# stays held (verdict not_appended, exit 4) for topics of two partitions or more. Then
# times, alternating, ROUNDS times each:
#   causal explain --group G --topic T --format json > /dev/null   (replays every record)
#   causal baseline --group G T > /dev/null                        (offsets only)
# and prints, per size, the best seconds of each and the ratio explain/baseline:
#   partitions  explain_s  baseline_s  ratio
# Run it alone on the machine (under flock /tmp/causal-build.lock where builds share it).
# Figures: bench/RESULTS.md; what they mean: docs/runbook.md, step 1 ("How long it takes").
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${CAUSAL_BIN:-$root/build/apps/causal}"
sizes="${SIZES:-1 1000 3000}"
records="${RECORDS:-3}"
chunk="${CHUNK:-50}"
rounds="${ROUNDS:-2}"
[[ -x "$bin" ]] || { echo "explain_at_scale: no causal binary at $bin (build it, or set CAUSAL_BIN)" >&2; exit 1; }

work="$(mktemp -d /tmp/wt14-bench-XXXXXX)"
started=""
cleanup() {
  [[ -n "$started" ]] && CAUSAL_BROKER_DIR="$work/broker" "$root/scripts/test-broker" stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
if [[ -z "${CAUSAL_BROKERS:-}" ]]; then
  echo "explain_at_scale: starting a test broker (1 GiB heap: 4,000+ partitions)" >&2
  CAUSAL_BROKERS="$(CAUSAL_BROKER_DIR="$work/broker" CAUSAL_BROKER_HEAP=1g "$root/scripts/test-broker" start)"
  started=1
fi
export CAUSAL_BROKERS
broker_dir="$work/broker"
[[ -n "$started" ]] || broker_dir="${CAUSAL_BROKER_DIR:-/tmp/causal-test-broker-$(id -u)}"

# fill TOPIC PARTITIONS: RECORDS records per partition, one `causal produce --sync` per CHUNK.
fill() {
  local topic=$1 n=$2 lo hi
  for ((lo = 0; lo < n; lo += chunk)); do
    hi=$((lo + chunk < n ? lo + chunk : n))
    local sinks=()
    for ((p = lo; p < hi; p++)); do sinks+=("$topic/$p"); done
    awk -v t="$topic" -v lo="$lo" -v hi="$hi" -v n="$n" -v r="$records" -v c="$chunk" 'BEGIN {
      for (i = 0; i < r; i++) for (p = lo; p < hi; p++) {
        claims = ""
        if (i == 0 && p >= c) claims = sprintf("{\"topic\":\"%s\",\"partition\":%d,\"offset\":0}", t, p - c)
        if (i == r - 1 && p == 0 && n > 1) claims = sprintf("{\"topic\":\"%s\",\"partition\":%d,\"offset\":%d}", t, n - 1, r + 1000)
        printf "{\"partition\":%d,\"value\":\"record %d of %s/%d\"%s}\n", p, i, t, p, claims == "" ? "" : ",\"claims\":[" claims "]"
      }
    }' | "$bin" produce --sync -X linger.ms=0 "${sinks[@]}" 2>"$work/produce.err" >/dev/null ||
      { cat "$work/produce.err" >&2; exit 1; }
  done
}

time_it() {  # prints seconds; exit status 0 and 4 (records held) both count as an answer
  local s e rc=0
  s=$(date +%s.%N)
  "$@" >/dev/null 2>"$work/last.err" || rc=$?
  e=$(date +%s.%N)
  if ((rc != 0 && rc != 4)); then
    echo "explain_at_scale: '$*' exited $rc:" >&2
    cat "$work/last.err" >&2
    return 1
  fi
  echo "$e - $s" | bc
}

results=()
for n in $sizes; do
  topic="explain-scale-$n-$(date +%s)-$RANDOM"
  group="explain-scale-$n-$RANDOM"
  t0=$(date +%s.%N)
  CAUSAL_BROKER_DIR="$broker_dir" "$root/scripts/test-broker" kafka-topics --bootstrap-server "$CAUSAL_BROKERS" \
    --create --topic "$topic" --partitions "$n" >/dev/null
  # A topic created a moment ago answers "not leader" until its leaders settle: ask again.
  for ((try = 1; ; try++)); do
    "$bin" baseline --group "$group" --apply "$topic" >/dev/null 2>"$work/apply.err" && break
    ((try < 30)) || { cat "$work/apply.err" >&2; exit 1; }
    sleep 1
  done
  fill "$topic" "$n"
  t1=$(date +%s.%N)
  echo "explain_at_scale: $topic: $n partitions, $((n * records)) records, group $group committed at 0 (set up in $(echo "$t1 - $t0" | bc) s)" >&2
  # What explain says, once (its first line: the verdict), and a warm-up of both.
  { "$bin" explain --group "$group" --topic "$topic" 2>/dev/null || true; } | head -1 >&2
  "$bin" baseline --group "$group" "$topic" >/dev/null
  best_e="" best_b=""
  for ((r = 1; r <= rounds; r++)); do
    te=$(time_it "$bin" explain --group "$group" --topic "$topic" --format json)
    tb=$(time_it "$bin" baseline --group "$group" "$topic")
    printf 'explain_at_scale: %d partitions, round %d: explain %.2f s, baseline %.2f s\n' "$n" "$r" "$te" "$tb" >&2
    [[ -z "$best_e" || $(echo "$te < $best_e" | bc) -eq 1 ]] && best_e=$te
    [[ -z "$best_b" || $(echo "$tb < $best_b" | bc) -eq 1 ]] && best_b=$tb
  done
  results+=("$(printf '%10d  %9.2f  %10.2f  %5.1f' "$n" "$best_e" "$best_b" "$(echo "scale=3; $best_e / $best_b" | bc)")")
done
printf '%10s  %9s  %10s  %5s\n' partitions explain_s baseline_s ratio
printf '%s\n' "${results[@]}"
