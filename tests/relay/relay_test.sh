#!/usr/bin/env bash
# The exactly-once relay (examples/relay) on the real broker.
#   1. A transactional source writes 100 committed records and 50 in an aborted transaction;
#      the relay upper-cases them into the output topic and commits the input offsets in its
#      transactions.
#   2. A second source streams 200 more, slowly; the relay is killed with SIGKILL in the
#      middle (its open transaction never commits), restarted with the same transactional id
#      (which aborts the killed one's transaction), and drains the rest.
#   3. An undecodable header on one input partition stops that partition there; the other
#      goes on.
#   4. Custody across a restart: a claim on a channel the relay does not consume, received
#      before a restart, is still restated in the stamps of the restarted relay.
# After 1, the broker's log shows the output's batches compressed with lz4 (the relay's
# default).
# Then, independently of the relay: the relay group's commits reach the input's end; a
# downstream `causal tail --group D --commit -e` of the output (read_committed) sees every
# committed source record's effect exactly once, none of the aborted ones, and every output
# record's clock claims the input record it came from (topic, partition and offset, found by
# value in the input).
#
# Usage: relay_test.sh CAUSAL_BINARY RELAY_BINARY SOURCE_DIR BUILD_DIR
set -uo pipefail
CAUSAL=${1:?causal binary}
RELAY=${2:?relay binary}
SRC=${3:?source dir}
BUILD=${4:?build dir}
# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
fixture_broker
run=$$-$RANDOM
in=relay-in-$run
out=relay-out-$run
for t in "$in" "$out"; do
  create_topic "$t" 2 || bad "cannot create topic $t"
done
# caught_up: the relay group's commits equal the input's high watermarks.
caught_up() {
  local want got
  want=$("$CAUSAL" baseline "$in" --format json 2>/dev/null | jq -r '.channels[] | "\(.partition)=\(.high_watermark)"' | sort)
  got=$("$CAUSAL" explain --group "r-$run" --topic "$in" --format json 2>/dev/null | jq -r '.source.committed[] | "\(.partition)=\(.offset)"' | sort)
  [[ -n $want && $want == "$got" ]]
}
start_relay() {
  RELAY_METRICS_PORT=0 "$RELAY" "$B" "r-$run" "tx-$run" "$out" "$in" 2>>"$TMP/relay.err" &
  relay=$!
  pids+=("$relay")
}

# 1. Committed, aborted, committed.
{
  for i in $(seq 1 50); do printf '{"value":"a%d","partition":%d}\n' "$i" $((i % 2)); done
  echo '{"transaction":"commit"}'
  for i in $(seq 1 50); do printf '{"value":"x%d","partition":%d}\n' "$i" $((i % 2)); done
  echo '{"transaction":"abort"}'
  for i in $(seq 51 100); do printf '{"value":"a%d","partition":%d}\n' "$i" $((i % 2)); done
} | "$CAUSAL" produce --transactional-id "src1-$run" "$in" >/dev/null 2>"$TMP/src1.err" || bad "source 1: $(cat "$TMP/src1.err")"
start_relay
for _ in $(seq 300); do caught_up && break; sleep 0.2; done
caught_up && ok || bad "the relay did not commit the first source's input within 60 s: $(tail -3 "$TMP/relay.err")"
# Its /metrics (examples/relay/README.md): the 100 committed records delivered, transactions
# committed, and text promtool accepts.
url=$(sed -n 's|^relay: serving metrics on \(http://[^ ]*\)$|\1|p' "$TMP/relay.err" | tail -1)
relay_metrics() {
  curl -fsS -o "$TMP/metrics" "$url" &&
    [[ $(awk '/^causal_delivered_records_total\{/ { n += $NF } END { print n + 0 }' "$TMP/metrics") -ge 100 ]] &&
    awk '/^causal_relay_transactions_committed_total\{/ { exit !($NF >= 1) }' "$TMP/metrics"
}
wait_for 10 relay_metrics && ok || bad "the relay's /metrics ($url): $(grep -E '^causal_(delivered|relay)' "$TMP/metrics" 2>&1)"
if command -v promtool >/dev/null; then
  promtool check metrics <"$TMP/metrics" >"$TMP/promtool" 2>&1 && ok || bad "promtool on the relay's: $(cat "$TMP/promtool")"
fi

# The output producer compresses with lz4 by default (docs/library.md, "Compression"): the
# broker's log says each data batch's codec.
codecs=$(for p in 0 1; do
  CAUSAL_BROKER_DIR=$BUILD/test-broker "$SRC/scripts/test-broker" kafka-dump-log \
    --files "$(ls "$BUILD/test-broker/data/$out-$p"/*.log | paste -sd, -)" 2>/dev/null |
    awk '/^baseOffset:/ && / isControl: false/ { for (i = 1; i < NF; i++) if ($i == "compresscodec:") print $(i + 1) }'
done | sort | uniq -c | tr -s ' ')
[[ $codecs =~ ^\ ?[0-9]+\ lz4$|^\ ?[0-9]+\ LZ4$ ]] && ok || bad "the relay's output batches are not all lz4: '${codecs}'"

# 2. A slow stream; SIGKILL in the middle; a restart with the same transactional id.
{
  for i in $(seq 1 200); do
    printf '{"value":"b%d","partition":%d}\n' "$i" $((i % 2))
    sleep 0.02
  done
} | "$CAUSAL" produce --transactional-id "src2-$run" --commit-every 10 "$in" >/dev/null 2>"$TMP/src2.err" &
source2=$!
sleep 2
kill -9 "$relay"
wait "$relay" 2>/dev/null
start_relay
wait "$source2" || bad "source 2: $(cat "$TMP/src2.err")"
for _ in $(seq 300); do caught_up && break; sleep 0.2; done
caught_up && ok || bad "the restarted relay did not commit the input within 60 s: $(tail -3 "$TMP/relay.err")"

# 3. Fail closed: an undecodable header on in/1 stops that partition at it (nothing after it
# relayed, nothing committed past it, its coordinates said); in/0 goes on.
bad_at=$("$CAUSAL" baseline "$in/1" --format json | jq '.channels[0].high_watermark')
printf '%s\n' '{"value":"broken","partition":1,"headers":[{"name":"causal.clock","value":"not a clock"}]}' \
  '{"value":"c2","partition":1}' | "$CAUSAL" produce --no-stamp "$in" >/dev/null 2>&1
printf '%s\n' '{"value":"c1","partition":0}' '{"value":"c3","partition":0}' | "$CAUSAL" produce --no-stamp "$in" >/dev/null 2>&1
end0=$("$CAUSAL" baseline "$in/0" --format json | jq '.channels[0].high_watermark')
for _ in $(seq 150); do
  committed=$("$CAUSAL" explain --group "r-$run" --topic "$in" --format json 2>/dev/null | jq -r '.source.committed[] | "\(.partition)=\(.offset)"' | sort | tr '\n' ' ')
  [[ $committed == "0=$end0 1=$bad_at " ]] && break
  sleep 0.2
done
[[ $committed == "0=$end0 1=$bad_at " ]] && ok || bad "after a bad header at $in/1@$bad_at: committed $committed, want 0=$end0 1=$bad_at"
grep -qF "$in/1@$bad_at: undecodable causal.clock header" "$TMP/relay.err" && ok ||
  bad "the relay did not report $in/1@$bad_at: $(tail -3 "$TMP/relay.err")"

kill -INT "$relay"
wait "$relay"
rc=$?
[[ $rc == 0 ]] && ok || bad "the relay exited $rc on SIGINT: $(tail -3 "$TMP/relay.err")"

# The checker: what was appended to the output and committed, read downstream.
timeout 60 "$CAUSAL" tail --group "d-$run" --commit -e --format jsonl "$out" >"$TMP/down.jsonl" 2>"$TMP/down.err"
rc=$?
[[ $rc == 0 ]] && ok || bad "downstream tail exited $rc: $(tail -3 "$TMP/down.err")"
want=$({ seq 1 100 | sed 's/^/A/'; seq 1 200 | sed 's/^/B/'; echo C1; echo C3; } | sort)
got=$(jq -r .value "$TMP/down.jsonl" | sort)
if [[ $got == "$want" ]]; then
  ok
else
  bad "downstream values differ from the committed source's, upper-cased, once each: $(diff <(echo "$want") <(echo "$got") | head -8 | tr '\n' ' ')"
fi
# Each output record claims its input record: the input's coordinates by value.
"$CAUSAL" tail -e --format jsonl "$in" 2>/dev/null |
  jq -r '"\(.value | ascii_upcase) \(.partition) \(.offset)"' | sort >"$TMP/inputs"
missing=$(jq -r --arg in "$in" '"\(.value) " + ([.clock.claims[]? | select(.topic == $in) | "\(.partition):\(.offset)"] | join(","))' \
  "$TMP/down.jsonl" | sort | join - "$TMP/inputs" | awk '{ if (index("," $2 ",", "," $3 ":") == 0) { print $1; next }
    split($2, cs, ","); hit = 0; for (i in cs) { split(cs[i], po, ":"); if (po[1] == $3 && po[2] + 0 >= $4 + 0) hit = 1 }
    if (!hit) print $1 }')
[[ -z $missing && $(wc -l <"$TMP/inputs") -ge 302 ]] && ok ||
  bad "output records whose clock does not claim their input: $(head -5 <<<"$missing" | tr '\n' ' ') (inputs: $(wc -l <"$TMP/inputs"))"
grep -q "transactions committed" "$TMP/relay.err" && ok || bad "the relay's last line is missing: $(tail -2 "$TMP/relay.err")"

# 4. Custody across a restart (docs/protocol.md). On a second input, x
# claims a channel the relay does not consume (cause/0 @ 5). The relay delivers x, commits
# and is stopped; restarted, it relays an unrelated y. y's effect must still claim cause/0 @
# 5: the relay committed its custody's restatement (causal2: metadata) and restored it.
# A restarted relay that began with empty custody would have y's effect name nothing on cause.
cin=relay-cin-$run
cout=relay-cout-$run
cause=relay-cause-$run
for t in "$cin" "$cout"; do
  create_topic "$t" 1 || bad "cannot create topic $t"
done
hdr=$("$CAUSAL" encode "origin=src-$run:1 $cause/0@5") || bad "causal encode failed"
printf '{"value":"x","headers":[{"name":"causal.clock","value":"%s","value_encoding":"base64"}]}\n' "$hdr" |
  "$CAUSAL" produce --no-stamp "$cin" >/dev/null 2>&1 || bad "cannot produce x"
cin_caught_up() {
  local got
  got=$("$CAUSAL" explain --group "rc-$run" --topic "$cin" --format json 2>/dev/null | jq -r '.source.committed[0].offset')
  [[ $got == "$1" ]]
}
# One run of the relay on cin: start it, wait until it committed offset $1, stop it.
relay_cin_round() {
  "$RELAY" "$B" "rc-$run" "txc-$run" "$cout" "$cin" 2>>"$TMP/relay-c.err" &
  relay=$!
  pids+=("$relay")
  for _ in $(seq 150); do cin_caught_up "$1" && break; sleep 0.2; done
  cin_caught_up "$1" && ok || bad "$2 within 30 s: $(tail -3 "$TMP/relay-c.err")"
  kill -INT "$relay"
  wait "$relay"
}
relay_cin_round 1 "the relay did not commit x"
"$CAUSAL" produce "$cin" <<<'{"value":"y"}' >/dev/null 2>&1 || bad "cannot produce y"
relay_cin_round 2 "the restarted relay did not commit y"
claim=$(timeout 30 "$CAUSAL" tail -e --format jsonl "$cout" 2>/dev/null |
  jq -r --arg c "$cause" 'select(.value == "Y") | [.clock.claims[]? | select(.topic == $c and .partition == 0) | .offset] | max // "none"')
[[ $claim == 5 ]] && ok || bad "after a restart the relay's effect of y claims cause/0 at '$claim', want 5 (custody restated)"

summary
