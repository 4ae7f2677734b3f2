#!/usr/bin/env bash
# What serving health costs causal tail: the same read with and without --metrics-listen,
# side by side on one topic of the real test broker, while a scraper asks /metrics.
#
#   bench/tail_health_cost.sh        uses $CAUSAL_BROKERS, or starts scripts/test-broker (and stops it)
#
# Environment: CAUSAL_BIN (default build/apps/causal), RECORDS (1000000), PARTITIONS (4),
# ROUNDS (5), SCRAPE_INTERVAL (seconds between scrapes, 1), TOPIC (reuse an already filled
# topic instead of filling a new one), BASE_BIN (a causal built without health, e.g. of the
# commit before it: timed too, in the same alternation, for what publishing the snapshot
# once per poll costs, which both runs above pay).
#
# Fills a fresh topic with RECORDS stamped records of 100-byte values through `causal
# produce` (as bench/tail_vs_kcat.sh does), reads it once to warm the page cache, then times,
# alternating, ROUNDS times each:
#   causal tail --exit-at-end --format jsonl -q TOPIC > /dev/null
#   causal tail --exit-at-end --format jsonl -q --metrics-listen 127.0.0.1:0 TOPIC > /dev/null
#     with curl scraping its /metrics every SCRAPE_INTERVAL seconds while it runs
#   BASE_BIN tail --exit-at-end --format jsonl -q TOPIC > /dev/null      (when BASE_BIN is set)
# and prints records/s of each round, the best and the median of each, and the ratios
# (with/without, and each against BASE_BIN). The target: health costs at most 2 % of records/s (ratio >= 0.98).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${CAUSAL_BIN:-$root/build/apps/causal}"
records="${RECORDS:-1000000}"
partitions="${PARTITIONS:-4}"
rounds="${ROUNDS:-5}"
interval="${SCRAPE_INTERVAL:-1}"
[[ -x "$bin" ]] || { echo "tail_health_cost: no causal binary at $bin (build it, or set CAUSAL_BIN)" >&2; exit 1; }
command -v curl >/dev/null || { echo "tail_health_cost: curl not found" >&2; exit 1; }

work="$(mktemp -d /tmp/causal-bench-XXXXXX)"
started=""
scraper=""
cleanup() {
  [[ -n "$scraper" ]] && kill "$scraper" 2>/dev/null || true
  [[ -n "$started" ]] && CAUSAL_BROKER_DIR="$work/broker" "$root/scripts/test-broker" stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
if [[ -z "${CAUSAL_BROKERS:-}" ]]; then
  echo "tail_health_cost: starting a test broker" >&2
  CAUSAL_BROKERS="$(CAUSAL_BROKER_DIR="$work/broker" "$root/scripts/test-broker" start)"
  started=1
fi
export CAUSAL_BROKERS

# Topic creation: librdkafka's admin API in a few lines of C.
cat >"$work/create_topic.c" <<'C'
#include <librdkafka/rdkafka.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  char err[512];
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", argv[1], err, sizeof err);
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  rd_kafka_NewTopic_t *nt = rd_kafka_NewTopic_new(argv[2], atoi(argv[3]), 1, err, sizeof err);
  rd_kafka_queue_t *q = rd_kafka_queue_new(rk);
  rd_kafka_CreateTopics(rk, &nt, 1, NULL, q);
  rd_kafka_event_t *ev = rd_kafka_queue_poll(q, 30000);
  const rd_kafka_CreateTopics_result_t *res = ev ? rd_kafka_event_CreateTopics_result(ev) : NULL;
  size_t n = 0;
  const rd_kafka_topic_result_t **tr = res ? rd_kafka_CreateTopics_result_topics(res, &n) : NULL;
  int rc = (!ev || rd_kafka_event_error(ev) || n != 1 || rd_kafka_topic_result_error(tr[0])) ? 1 : 0;
  if (rc) fprintf(stderr, "create_topic: %s\n", ev ? (n ? rd_kafka_topic_result_error_string(tr[0]) : rd_kafka_event_error_string(ev)) : "timed out");
  return rc;
}
C
cc -O1 -o "$work/create_topic" "$work/create_topic.c" -lrdkafka
topic="${TOPIC:-}"
if [[ -n "$topic" ]]; then
  echo "tail_health_cost: reusing $topic (it must hold exactly RECORDS=$records records)" >&2
else
  topic="causal-bench-health-$(date +%s)-$RANDOM"
  "$work/create_topic" "$CAUSAL_BROKERS" "$topic" "$partitions"
  sleep 1
  echo "tail_health_cost: filling $topic ($partitions partitions) with $records records of 100 bytes" >&2
  awk -v n="$records" 'BEGIN { for (i = 0; i < n; i++) printf "%0100d\n", i }' |
    "$bin" produce --input text "$topic" 2>"$work/produce.err" || { cat "$work/produce.err" >&2; exit 1; }
fi

base_bin="${BASE_BIN:-}"
# Each run's CPU time (user + system, GNU time) is added to $work/cpu.KIND: on a machine
# shared with other work the wall time varies more between rounds than the cost measured,
# and the CPU a run takes varies less.
cpu() { local kind=$1; shift; /usr/bin/time -f '%U %S' -a -o "$work/cpu.$kind" "$@"; }
plain() {  # prints seconds; $1: the binary (default $bin)
  local s e b="${1:-$bin}" kind=plain
  [[ -n ${1:-} ]] && kind=base
  s=$(date +%s.%N)
  cpu "$kind" "$b" tail --exit-at-end --format jsonl -q "$topic" >/dev/null 2>"$work/last.err" || { cat "$work/last.err" >&2; return 1; }
  e=$(date +%s.%N)
  echo "$e - $s" | bc
}
served() {  # prints seconds; a scraper asks /metrics every $interval s while tail runs
  local s e pid url="" rc=0
  s=$(date +%s.%N)
  cpu served "$bin" tail --exit-at-end --format jsonl -q --metrics-listen 127.0.0.1:0 "$topic" >/dev/null 2>"$work/last.err" &
  pid=$!
  while kill -0 "$pid" 2>/dev/null && [[ -z $url ]]; do
    url=$(sed -n 's|^causal: serving metrics on \(http://[^ ]*\)$|\1|p' "$work/last.err")
    [[ -n $url ]] || sleep 0.01
  done
  if [[ -n $url ]]; then
    (while :; do curl -fsS -o /dev/null "$url" 2>/dev/null && echo x >>"$work/scrapes"; sleep "$interval"; done) &
    scraper=$!
  fi
  wait "$pid" || rc=$?
  e=$(date +%s.%N)
  [[ -n $scraper ]] && { kill "$scraper" 2>/dev/null || true; wait "$scraper" 2>/dev/null || true; scraper=""; }
  ((rc == 0)) || { cat "$work/last.err" >&2; return 1; }
  [[ -n $url ]] || { echo "tail_health_cost: tail never said where it serves" >&2; return 1; }
  echo "$e - $s" | bc
}
[[ -x /usr/bin/time ]] || { echo "tail_health_cost: GNU time not found (/usr/bin/time)" >&2; exit 1; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

plain >/dev/null  # warm-up: the log into the page cache
rm -f "$work"/cpu.*
: >"$work/scrapes"
: >"$work/plain" ; : >"$work/served" ; : >"$work/base"
for ((r = 1; r <= rounds; r++)); do
  tp=$(plain)
  ts=$(served)
  echo "$tp" >>"$work/plain"
  echo "$ts" >>"$work/served"
  printf 'round %d: without %.2f s (%d records/s), with --metrics-listen %.2f s (%d records/s)' "$r" \
    "$tp" "$(echo "$records / $tp" | bc)" "$ts" "$(echo "$records / $ts" | bc)"
  if [[ -n $base_bin ]]; then
    tb=$(plain "$base_bin")
    echo "$tb" >>"$work/base"
    printf ', BASE_BIN %.2f s (%d records/s)' "$tb" "$(echo "$records / $tb" | bc)"
  fi
  echo
done
n=$("$bin" tail --exit-at-end --format jsonl -q "$topic" | wc -l)
[[ "$n" -eq "$records" ]] || { echo "tail_health_cost: causal tail printed $n records, expected $records" >&2; exit 1; }
bp=$(sort -g "$work/plain" | head -1)
bs=$(sort -g "$work/served" | head -1)
mp=$(median <"$work/plain")
ms=$(median <"$work/served")
printf 'without --metrics-listen: best %d records/s, median %d records/s\n' "$(echo "$records / $bp" | bc)" \
  "$(echo "$records / $mp" | bc)"
printf 'with --metrics-listen:    best %d records/s, median %d records/s (%d scrapes answered)\n' \
  "$(echo "$records / $bs" | bc)" "$(echo "$records / $ms" | bc)" "$(wc -l <"$work/scrapes")"
printf 'ratio with/without: best %.3f, median %.3f\n' "$(echo "scale=4; $bp / $bs" | bc)" "$(echo "scale=4; $mp / $ms" | bc)"
if [[ -n $base_bin ]]; then
  bb=$(sort -g "$work/base" | head -1)
  mb=$(median <"$work/base")
  printf 'BASE_BIN:                 best %d records/s, median %d records/s\n' "$(echo "$records / $bb" | bc)" \
    "$(echo "$records / $mb" | bc)"
  printf 'ratio without/BASE_BIN: best %.3f, median %.3f; with/BASE_BIN: best %.3f, median %.3f\n' \
    "$(echo "scale=4; $bb / $bp" | bc)" "$(echo "scale=4; $mb / $mp" | bc)" \
    "$(echo "scale=4; $bb / $bs" | bc)" "$(echo "scale=4; $mb / $ms" | bc)"
fi
# CPU seconds per run (user + system), median over the rounds, and the ratio.
cpu_median() { awk '{ print $1 + $2 }' "$work/cpu.$1" | median; }
cp=$(cpu_median plain)
cs=$(cpu_median served)
printf 'CPU per run (median): without %.2f s, with --metrics-listen %.2f s; ratio with/without %.3f\n' "$cp" "$cs" \
  "$(echo "scale=4; $cs / $cp" | bc)"
if [[ -n $base_bin ]]; then
  cb=$(cpu_median base)
  printf 'CPU per run (median): BASE_BIN %.2f s; ratio without/BASE_BIN %.3f, with/BASE_BIN %.3f\n' "$cb" \
    "$(echo "scale=4; $cp / $cb" | bc)" "$(echo "scale=4; $cs / $cb" | bc)"
fi
