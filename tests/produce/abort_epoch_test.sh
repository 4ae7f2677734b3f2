#!/usr/bin/env bash
# After an abort, causal produce takes its transactional id back with a new producer epoch
# before its next transaction (causal-produce(1), DESCRIPTION): librdkafka keeps one epoch
# for every transaction, so without it a request of the aborted transaction that reached
# Kafka late could join the next one and be committed with it. Checked in the broker's own
# log (Kafka's kafka-dump-log): a committed, an aborted and a committed transaction, in that
# order, write their batches with epochs e, e and a later one, and the markers COMMIT, ABORT,
# COMMIT; a read_committed reader sees the first and the last record only.
# Usage: abort_epoch_test.sh CAUSAL SRC BUILD (under the kafka_broker fixture)
set -uo pipefail
CAUSAL=${1:?causal binary}
SRC=${2:?source dir}
BUILD=${3:?build dir}
# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
fixture_broker

topic=produce-abort-epoch-$$-$RANDOM
create_topic "$topic" 1 || bad "cannot create $topic"
printf '%s\n' '{"value":"one"}' '{"transaction":"commit"}' '{"value":"two"}' '{"transaction":"abort"}' \
  '{"value":"three"}' '{"transaction":"commit"}' |
  "$CAUSAL" produce --transactional-id "abort-epoch-$$-$RANDOM" "$topic" >/dev/null 2>"$TMP/err"
rc=$?
((rc == 0)) && ok || bad "produce exited $rc: $(tail -2 "$TMP/err")"

# The log as Kafka wrote it: "data PRODUCER EPOCH VALUE" per record, "MARKER PRODUCER EPOCH"
# per transaction marker.
CAUSAL_BROKER_DIR=$BUILD/test-broker "$SRC/scripts/test-broker" kafka-dump-log --print-data-log \
  --files "$(ls "$BUILD/test-broker/data/$topic-0/"*.log | paste -sd, -)" 2>"$TMP/dump.err" |
  awk 'function field(name,   i) { for (i = 1; i < NF; i++) if ($i == name ":") return $(i + 1); return "" }
       /^baseOffset:/ { pid = field("producerId"); epoch = field("producerEpoch"); next }
       /endTxnMarker:/ { print field("endTxnMarker"), pid, epoch; next }
       /payload:/ { print "data", pid, epoch, field("payload") }' >"$TMP/log"
want_shape='data one
COMMIT
data two
ABORT
data three
COMMIT'
shape=$(awk '{ print ($1 == "data" ? "data " $4 : $1) }' "$TMP/log")
[[ $shape == "$want_shape" ]] && ok || bad "the log holds, in order: $(echo $shape) (want: $(echo $want_shape)); $(tail -1 "$TMP/dump.err")"
epoch_of() { awk -v v="$1" '$1 == "data" && $4 == v { print $2 "/" $3 }' "$TMP/log"; }
one=$(epoch_of one) two=$(epoch_of two) three=$(epoch_of three)
[[ -n $one && $one == "$two" ]] && ok || bad "a commit changed the producer or its epoch: one $one, two $two"
if [[ -n $three && $three != "$two" && (${three%/*} != "${two%/*}" || ${three#*/} -gt ${two#*/}) ]]; then ok; else
  bad "the transaction after the abort has producer/epoch $three, the aborted one $two: want a later epoch"
fi
seen=$(kcat -b "$B" -C -e -q -X isolation.level=read_committed -t "$topic" -f '%s\n' 2>/dev/null | tr '\n' ' ')
[[ $seen == "one three " ]] && ok || bad "read_committed sees: $seen (want: one three)"
summary
