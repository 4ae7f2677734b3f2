#!/usr/bin/env bash
# causal tail against kcat, side by side on one topic of the real test broker.
#
#   bench/tail_vs_kcat.sh            uses $CAUSAL_BROKERS, or starts scripts/test-broker (and stops it)
#
# Environment: CAUSAL_BIN (default build/apps/causal), RECORDS (1000000), PARTITIONS (4),
# ROUNDS (2), TOPIC (reuse an already filled topic instead of filling a new one).
#
# Fills a fresh topic with RECORDS records of 100-byte values through `causal produce`: every
# record carries a causal.clock with its origin and one offset claim per partition (4 claims:
# the producer's latest acknowledged send on each partition). Then times, alternating, ROUNDS
# times each after one warm-up read:
#   causal tail --exit-at-end --format jsonl TOPIC > /dev/null
#   kcat -C -e -J -X isolation.level=read_committed -t TOPIC > /dev/null
#   a near-raw librdkafka consume loop (read_committed, values written as lines, nothing else)
# and prints records/s for each (best round) and the ratios tail/kcat and tail/raw loop. All read from the
# same broker over loopback; the tail additionally decodes every clock and runs the gate.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${CAUSAL_BIN:-$root/build/apps/causal}"
records="${RECORDS:-1000000}"
partitions="${PARTITIONS:-4}"
rounds="${ROUNDS:-2}"
[[ -x "$bin" ]] || { echo "tail_vs_kcat: no causal binary at $bin (build it, or set CAUSAL_BIN)" >&2; exit 1; }
command -v kcat >/dev/null || { echo "tail_vs_kcat: kcat not found" >&2; exit 1; }

work="$(mktemp -d /tmp/causal-bench-XXXXXX)"
started=""
cleanup() {
  [[ -n "$started" ]] && CAUSAL_BROKER_DIR="$work/broker" "$root/scripts/test-broker" stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
if [[ -z "${CAUSAL_BROKERS:-}" ]]; then
  echo "tail_vs_kcat: starting a test broker" >&2
  CAUSAL_BROKERS="$(CAUSAL_BROKER_DIR="$work/broker" "$root/scripts/test-broker" start)"
  started=1
fi
export CAUSAL_BROKERS

# Topic creation: librdkafka's admin API in a few lines of C (kcat cannot create topics).
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
# The near-raw consume loop: the same librdkafka, read_committed, every partition from the
# beginning, batches of 4096, each value written to stdout as a line; no headers decoded, no
# gate, no JSON. What reading the topic costs before causal does anything.
cat >"$work/raw_consume.c" <<'C'
#include <librdkafka/rdkafka.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  char err[512];
  int parts = atoi(argv[3]), eofs = 0;
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", argv[1], err, sizeof err);
  rd_kafka_conf_set(conf, "group.id", "raw-consume", err, sizeof err);
  rd_kafka_conf_set(conf, "isolation.level", "read_committed", err, sizeof err);
  rd_kafka_conf_set(conf, "enable.partition.eof", "true", err, sizeof err);
  rd_kafka_conf_set(conf, "enable.auto.commit", "false", err, sizeof err);
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
  rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(parts);
  for (int p = 0; p < parts; p++) rd_kafka_topic_partition_list_add(l, argv[2], p)->offset = RD_KAFKA_OFFSET_BEGINNING;
  rd_kafka_assign(rk, l);
  rd_kafka_queue_t *q = rd_kafka_queue_get_consumer(rk);
  rd_kafka_message_t *batch[4096];
  long n = 0;
  while (eofs < parts) {
    ssize_t got = rd_kafka_consume_batch_queue(q, 100, batch, 4096);
    for (ssize_t i = 0; i < got; i++) {
      if (batch[i]->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) eofs++;
      else if (!batch[i]->err) { fwrite(batch[i]->payload, 1, batch[i]->len, stdout); fputc('\n', stdout); n++; }
      rd_kafka_message_destroy(batch[i]);
    }
  }
  fprintf(stderr, "%ld\n", n);
  rd_kafka_queue_destroy(q);
  rd_kafka_consumer_close(rk);
  rd_kafka_destroy(rk);
  return 0;
}
C
cc -O2 -o "$work/raw_consume" "$work/raw_consume.c" -lrdkafka
topic="${TOPIC:-}"
if [[ -n "$topic" ]]; then
  echo "tail_vs_kcat: reusing $topic (it must hold exactly RECORDS=$records records)" >&2
else
topic="causal-bench-$(date +%s)-$RANDOM"
"$work/create_topic" "$CAUSAL_BROKERS" "$topic" "$partitions"
sleep 1

echo "tail_vs_kcat: filling $topic ($partitions partitions) with $records records of 100 bytes" >&2
t0=$(date +%s.%N)
awk -v n="$records" 'BEGIN { for (i = 0; i < n; i++) printf "%0100d\n", i }' |
  "$bin" produce --input text "$topic" 2>"$work/produce.err" || { cat "$work/produce.err" >&2; exit 1; }
t1=$(date +%s.%N)
echo "tail_vs_kcat: filled in $(echo "$t1 - $t0" | bc) s ($(cat "$work/produce.err"))" >&2
fi
{ "$bin" tail -c 1 -q --format jsonl "$topic" 2>/dev/null || true; } | head -c 600 >&2
echo >&2

time_it() {  # prints seconds
  local s e
  s=$(date +%s.%N)
  "$@" >/dev/null 2>"$work/last.err" || { cat "$work/last.err" >&2; return 1; }
  e=$(date +%s.%N)
  echo "$e - $s" | bc
}
tail_cmd=("$bin" tail --exit-at-end --format jsonl -q "$topic")
kcat_cmd=(kcat -C -b "$CAUSAL_BROKERS" -t "$topic" -o beginning -e -J -q -X isolation.level=read_committed)
raw_cmd=("$work/raw_consume" "$CAUSAL_BROKERS" "$topic" "$partitions")

time_it "${kcat_cmd[@]}" >/dev/null  # warm-up: the log into the page cache
best_tail="" best_kcat="" best_raw=""
for ((r = 1; r <= rounds; r++)); do
  tt=$(time_it "${tail_cmd[@]}")
  tk=$(time_it "${kcat_cmd[@]}")
  tr=$(time_it "${raw_cmd[@]}")
  printf 'round %d: causal tail %.2f s, kcat %.2f s, raw loop %.2f s\n' "$r" "$tt" "$tk" "$tr"
  [[ -z "$best_tail" || $(echo "$tt < $best_tail" | bc) -eq 1 ]] && best_tail=$tt
  [[ -z "$best_kcat" || $(echo "$tk < $best_kcat" | bc) -eq 1 ]] && best_kcat=$tk
  [[ -z "$best_raw" || $(echo "$tr < $best_raw" | bc) -eq 1 ]] && best_raw=$tr
done
# Check that the tail really read every record.
n=$("$bin" tail --exit-at-end --format jsonl -q "$topic" | wc -l)
[[ "$n" -eq "$records" ]] || { echo "tail_vs_kcat: causal tail printed $n records, expected $records" >&2; exit 1; }
rt=$(echo "$records / $best_tail" | bc)
rk=$(echo "$records / $best_kcat" | bc)
rr=$(echo "$records / $best_raw" | bc)
printf 'causal tail: %d records/s (%.2f s)\nkcat:        %d records/s (%.2f s)\nraw loop:    %d records/s (%.2f s)\n' \
  "$rt" "$best_tail" "$rk" "$best_kcat" "$rr" "$best_raw"
printf 'ratio tail/kcat: %.2f\nratio tail/raw loop: %.2f\n' "$(echo "scale=3; $rt / $rk" | bc)" \
  "$(echo "scale=3; $rt / $rr" | bc)"
