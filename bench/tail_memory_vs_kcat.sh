#!/usr/bin/env bash
# causal tail against kcat: peak RSS and records/s, side by side, on uniform and skewed
# backlogs of the real test broker (the hold budget, --max-held-bytes, bounds tail's memory).
#
#   bench/tail_memory_vs_kcat.sh     uses $CAUSAL_BROKERS, or starts scripts/test-broker (and stops it)
#
# Environment: CAUSAL_BIN (default build/apps/causal), SIZES ("250000 1000000 4000000"),
# SHAPES ("uniform skewed"), PARTITIONS (8), TAIL_ARGS (extra causal tail options, e.g.
# "--max-held-bytes 0" for no budget).
#
# Each backlog is a fresh topic of PARTITIONS partitions holding SIZE records of 100-byte
# values written by `causal produce` (every record claims its sender's latest acknowledged
# send on each partition, and the end offset of each partition when the producer started):
#   uniform  one producer over every partition (the partitioner spreads the records);
#   skewed   first SIZE/2 records to partition 0 alone, then SIZE/2 over every partition
#            by a second producer, whose every record claims partition 0's last offset of
#            the first half: read from the beginning, every partition but 0 is held until
#            partition 0 has been read to the middle.
# Then, after one warm-up kcat read (the log into the page cache), once each:
#   causal tail --exit-at-end --format jsonl $TAIL_ARGS TOPIC
#   kcat -C -e -J -q -X isolation.level=read_committed -t TOPIC
# both to a pipe into `wc -l` (which checks that each read every record), under GNU time
# for wall time and peak RSS (ru_maxrss). Prints one row per backlog and the ratios: tail's
# records/s over kcat's, and tail's peak RSS minus kcat's.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${CAUSAL_BIN:-$root/build/apps/causal}"
sizes="${SIZES:-250000 1000000 4000000}"
shapes="${SHAPES:-uniform skewed}"
partitions="${PARTITIONS:-8}"
read -r -a tail_args <<<"${TAIL_ARGS:-}"
[[ -x "$bin" ]] || { echo "tail_memory_vs_kcat: no causal binary at $bin (build it, or set CAUSAL_BIN)" >&2; exit 1; }
command -v kcat >/dev/null || { echo "tail_memory_vs_kcat: kcat not found" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "tail_memory_vs_kcat: GNU time (/usr/bin/time, Debian package time) not found" >&2; exit 1; }

work="$(mktemp -d /tmp/causal-bench-XXXXXX)"
started=""
cleanup() {
  [[ -n "$started" ]] && CAUSAL_BROKER_DIR="$work/broker" "$root/scripts/test-broker" stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
if [[ -z "${CAUSAL_BROKERS:-}" ]]; then
  echo "tail_memory_vs_kcat: starting a test broker" >&2
  CAUSAL_BROKERS="$(CAUSAL_BROKER_DIR="$work/broker" "$root/scripts/test-broker" start)"
  started=1
fi
export CAUSAL_BROKERS
create_topic() {
  CAUSAL_BROKER_DIR="${CAUSAL_BROKER_DIR:-$work/broker}" "$root/scripts/test-broker" kafka-topics \
    --bootstrap-server "$CAUSAL_BROKERS" --create --topic "$1" --partitions "$2" >/dev/null
}
values() { awk -v from="$1" -v n="$2" 'BEGIN { for (i = from; i < from + n; i++) printf "%0100d\n", i }'; }
produce() {  # produce SINK FROM N
  values "$2" "$3" | "$bin" produce --input text "$1" 2>"$work/produce.err" || { cat "$work/produce.err" >&2; exit 1; }
}

# measure NAME CMD...: runs CMD | wc -l under GNU time; sets secs, rss_kib, lines.
measure() {
  local name=$1
  shift
  lines=$(/usr/bin/time -f '%e %M' -o "$work/$name.time" "$@" 2>"$work/$name.err" | wc -l)
  read -r secs rss_kib <"$work/$name.time"
}

printf '%-8s %8s | %9s %9s %9s | %9s %9s %9s | %6s %9s\n' shape records "tail r/s" "tail MiB" "held MiB" \
  "kcat r/s" "kcat MiB" "" "r/s x" "MiB diff"
for shape in $shapes; do
  for n in $sizes; do
    topic="causal-mem-$shape-$n-$(date +%s)-$RANDOM"
    create_topic "$topic" "$partitions"
    sleep 1
    t0=$(date +%s.%N)
    if [[ $shape == skewed ]]; then
      produce "$topic/0" 0 $((n / 2))
      produce "$topic" $((n / 2)) $((n - n / 2))
    else
      produce "$topic" 0 "$n"
    fi
    echo "tail_memory_vs_kcat: $topic filled with $n records ($shape) in $(echo "$(date +%s.%N) - $t0" | bc) s" >&2
    kcat_cmd=(kcat -C -b "$CAUSAL_BROKERS" -t "$topic" -o beginning -e -J -q -X isolation.level=read_committed)
    "${kcat_cmd[@]}" >/dev/null  # warm-up
    measure tail "$bin" tail --exit-at-end --format jsonl "${tail_args[@]}" "$topic"
    [[ $lines -eq $n ]] || { echo "tail_memory_vs_kcat: causal tail printed $lines records, expected $n:" >&2; cat "$work/tail.err" >&2; exit 1; }
    t_secs=$secs t_rss=$rss_kib
    held=$(sed -n 's/.*peak \([0-9]*\) bytes held.*/\1/p' "$work/tail.err")
    measure kcat "${kcat_cmd[@]}"
    [[ $lines -eq $n ]] || { echo "tail_memory_vs_kcat: kcat printed $lines records, expected $n" >&2; exit 1; }
    k_secs=$secs k_rss=$rss_kib
    printf '%-8s %8d | %9d %9.0f %9s | %9d %9.0f %9s | %6.2f %+9.0f\n' "$shape" "$n" \
      "$(echo "$n / $t_secs" | bc)" "$(echo "$t_rss / 1024" | bc -l)" \
      "$([[ -n $held ]] && printf '%.0f' "$(echo "$held / 1048576" | bc -l)" || echo "-")" \
      "$(echo "$n / $k_secs" | bc)" "$(echo "$k_rss / 1024" | bc -l)" "" \
      "$(echo "scale=3; $k_secs / $t_secs" | bc)" "$(echo "($t_rss - $k_rss) / 1024" | bc -l)"
    grep -h "budget" "$work/tail.err" | sed 's/^/    /' >&2 || true
  done
done
echo "held MiB: the hold budget's peak (the tail's exit line; '-' when nothing was paused)." \
  "r/s x: tail's records/s over kcat's. MiB diff: tail's peak RSS minus kcat's."
