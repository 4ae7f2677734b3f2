#!/usr/bin/env bash
# A transaction's commit that times out is resumed, not abandoned (ProducerHost, through
# `causal produce`): librdkafka keeps such a commit in progress and refuses an abort until it
# completes ("Conflicting commit_transaction API call is already in progress"), and the
# commit may well have reached the coordinator: an abort in its place fails, and produce
# would exit 1 although Kafka committed the records.
#
# On the three-node test cluster, through fault proxy 1: produce sends a record in a
# transaction with --timeout-ms 2000; once the record is in the log, the proxy adds 1.5 s of
# latency each way, so that the commit's round trip to the coordinator takes longer than
# the timeout; then the commit. produce must exit 0, and a read_committed reader must see the
# record.
#
# Usage: commit_resume_test.sh CAUSAL_BINARY SOURCE_DIR STATE_DIR, under the kafka_cluster
# fixture (tests/cluster/CMakeLists.txt), which starts the cluster in STATE_DIR.
set -uo pipefail
CAUSAL=${1:?causal binary}
SRC=${2:?source dir}
export CAUSAL_BROKER_DIR=${3:?cluster state dir}
source "$SRC/tests/cluster/cluster_lib.sh"
on_exit() { "$TB" proxy 1 pass >/dev/null 2>&1; }  # the cluster is shared
P1=$("$TB" bootstrap --proxy 1) || die "the cluster has no proxy 1"
run=$$-$RANDOM
t=resume-$run
"$TB" kafka-topics --bootstrap-server "$B" --create --topic "$t" --partitions 1 --replication-factor 3 \
  >/dev/null 2>"$TMP/topic.err" || die "cannot create topic $t: $(tail -1 "$TMP/topic.err")"

mkfifo "$TMP/in"
"$CAUSAL" produce -b "$P1" --transactional-id "resume-$run" --timeout-ms 2000 "$t" <"$TMP/in" >"$TMP/out" 2>"$TMP/err" &
producer=$!
pids+=("$producer")
exec 3>"$TMP/in"
echo '{"value":"resumed"}' >&3
in_log() { [[ $("$CAUSAL" baseline "$t" --format json 2>/dev/null | jq '.channels[0].high_watermark') == 1 ]]; }
wait_for 30 in_log || die "the record did not reach the log within 30 s: $(tail -2 "$TMP/err")"
"$TB" proxy 1 latency 1500 >/dev/null || die "proxy 1 latency"
say "1.5 s of latency each way on produce's link; committing with --timeout-ms 2000"
echo '{"transaction":"commit"}' >&3
exec 3>&-
wait "$producer"
rc=$?
"$TB" proxy 1 pass >/dev/null || bad "proxy 1 pass"
((rc == 0)) && ok || bad "produce exited $rc after its commit timed out: $(tail -2 "$TMP/err" | tr '\n' ' ')"
committed=$(kcat -b "$B" -C -e -q -X isolation.level=read_committed -t "$t" -f '%s\n' 2>/dev/null)
[[ $committed == resumed ]] && ok || bad "read_committed sees '$committed', want the record 'resumed'"
summary
