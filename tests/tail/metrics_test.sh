#!/usr/bin/env bash
# causal tail --metrics-listen on the real broker: the port it names on stderr serves the
# consumer's health as Prometheus text (content type 0.0.4, 404 elsewhere) that promtool
# accepts; the delivered counters equal the records produced; a head held on a claim of an
# offset never appended shows as held records, a head age and what it waits on; a member
# (--group --commit) adds its group's families; and a second tail on the same port fails at
# start-up with exit 1 and one line naming the option (causal-tail(1)).
#
# Usage: metrics_test.sh CAUSAL_BINARY SOURCE_DIR BUILD_DIR
set -uo pipefail
CAUSAL=${1:?causal binary}
SRC=${2:?source dir}
BUILD=${3:?build dir}
# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
fixture_broker
command -v promtool >/dev/null || { echo "FAIL promtool not found (scripts/install-deps installs prometheus)"; exit 1; }
a=metrics-a-$$-$RANDOM h=metrics-h-$$-$RANDOM
create_topic "$a" 3 && create_topic "$h" 2 || { echo "FAIL cannot create $a or $h"; exit 1; }
# $a: 30 plain records over its 3 partitions, all deliverable.
for i in $(seq 30); do printf '{"value":"a%d","partition":%d}\n' "$i" $((i % 3)); done |
  "$CAUSAL" produce --no-stamp "$a" >/dev/null 2>&1 || bad "cannot produce to $a"
# $h: 5 plain records on $h/1; on $h/0 a head claiming $h/1@10 (never appended) and 2 behind it.
for i in $(seq 5); do printf '{"value":"h%d","partition":1}\n' "$i"; done |
  "$CAUSAL" produce --no-stamp "$h" >/dev/null 2>&1 || bad "cannot produce to $h/1"
printf '{"value":"head","claims":[{"topic":"%s","partition":1,"offset":10}]}\n' "$h" |
  "$CAUSAL" produce "$h/0" >/dev/null 2>&1 || bad "cannot produce the head to $h/0"
printf '{"value":"behind1"}\n{"value":"behind2"}\n' | "$CAUSAL" produce --no-stamp "$h/0" >/dev/null 2>&1 ||
  bad "cannot produce to $h/0"

# The URL tail names on stderr ($1: its stderr file), once it is there.
url_of() { sed -n 's|^causal: serving metrics on \(http://[^ ]*\)$|\1|p' "$1"; }
# The sum of a family's samples whose labels contain $2 (e.g. topic="x"), from $1.
sum_of() { awk -v f="$2" -v l="$3" 'index($0, f "{") == 1 && index($0, l) { n += $NF } END { print n + 0 }' "$1"; }

"$CAUSAL" tail --metrics-listen 127.0.0.1:0 --format jsonl "$a" "$h" >"$TMP/out" 2>"$TMP/err" &
tail_pid=$!
pids+=("$tail_pid")
wait_for 60 grep -qs '^causal: serving metrics on ' "$TMP/err" || bad "no 'serving metrics' line: $(head -c 1000 "$TMP/err")"
url=$(url_of "$TMP/err")
[[ $url =~ ^http://127\.0\.0\.1:[0-9]+/metrics$ ]] && ok || bad "the line names '$url'"
port=${url#http://127.0.0.1:}
port=${port%/metrics}
printed() { (($(wc -l <"$TMP/out") >= 35)); }  # a function: wait_for runs it anew each time
wait_for 120 printed || bad "tail printed $(wc -l <"$TMP/out") records within 120 s, want 35"
# Health is published at the end of each poll: the counters reach what was printed.
scrape() { curl -fsS -D "$TMP/headers" -o "$TMP/metrics" "$url"; }
delivered_all() {
  scrape && [[ $(sum_of "$TMP/metrics" causal_delivered_records_total "topic=\"$a\"") == 30 &&
    $(sum_of "$TMP/metrics" causal_delivered_records_total "topic=\"$h\"") == 5 ]]
}
wait_for 30 delivered_all && ok || bad "delivered counters: $(grep '^causal_delivered' "$TMP/metrics")"
grep -qi '^Content-Type: text/plain; version=0.0.4; charset=utf-8' "$TMP/headers" && ok ||
  bad "content type: $(grep -i content-type "$TMP/headers")"
[[ $(sum_of "$TMP/metrics" causal_frontier_offset "topic=\"$a\"") == 30 ]] && ok ||
  bad "frontiers of $a: $(grep "^causal_frontier_offset.*$a" "$TMP/metrics")"
grep -qx "causal_frontier_offset{group=\"\",topic=\"$h\",partition=\"1\"} 5" "$TMP/metrics" && ok ||
  bad "frontier of $h/1: $(grep "^causal_frontier_offset.*$h" "$TMP/metrics")"
grep -qx "causal_held_records{group=\"\",topic=\"$h\",partition=\"0\"} 3" "$TMP/metrics" && ok ||
  bad "held records of $h/0: $(grep "^causal_held_records" "$TMP/metrics")"
grep -qx "causal_held_records{group=\"\",topic=\"$a\",partition=\"0\"} 0" "$TMP/metrics" && ok ||
  bad "held records of $a/0: $(grep "^causal_held_records" "$TMP/metrics")"
age=$(sed -n "s/^causal_held_head_age_seconds{group=\"\",topic=\"$h\",partition=\"0\"} //p" "$TMP/metrics")
[[ -n $age ]] && awk -v a="$age" 'BEGIN { exit !(a > 0) }' && ok || bad "head age of $h/0: '$age'"
grep -qx "causal_held_head_waiting{group=\"\",topic=\"$h\",partition=\"0\",on=\"channel\",channel=\"$h/1\",offset=\"10\",sender=\"\",seq=\"\"} 1" \
  "$TMP/metrics" && ok || bad "what $h/0's head waits on: $(grep '^causal_held_head_waiting' "$TMP/metrics")"
[[ $(grep -c '^causal_held_head_waiting{' "$TMP/metrics") == 1 ]] && ok || bad "more than one held head reported"
[[ $(sum_of "$TMP/metrics" causal_held_bytes "topic=\"$h\",partition=\"0\"") -gt 3000 ]] && ok ||
  bad "held bytes of $h/0: $(grep "^causal_held_bytes.*$h" "$TMP/metrics")"
promtool check metrics <"$TMP/metrics" >"$TMP/promtool" 2>&1 && ok || bad "promtool check metrics: $(cat "$TMP/promtool")"
# The alert of docs/library.md is a valid rule.
printf 'groups:\n- name: causal\n  rules:\n  - alert: CausalHeadHeld\n    expr: %s\n' \
  'max by (group, topic, partition) (causal_held_head_age_seconds) > 300' >"$TMP/rules.yml"
promtool check rules "$TMP/rules.yml" >"$TMP/promtool" 2>&1 && ok || bad "promtool check rules: $(cat "$TMP/promtool")"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/")
[[ $code == 404 ]] && ok || bad "GET / answered $code, want 404"

# A second tail on the same port: exit 1 at start-up, one line naming the option.
timeout 20 "$CAUSAL" tail --metrics-listen "127.0.0.1:$port" "$a" >"$TMP/out2" 2>"$TMP/err2"
rc=$?
[[ $rc == 1 ]] && ok || bad "a second tail on port $port: exit $rc, want 1"
[[ $(wc -l <"$TMP/err2") == 1 ]] && grep -q "^causal: --metrics-listen '127.0.0.1:$port': cannot listen there: the port is in use" \
  "$TMP/err2" && ok || bad "a second tail's stderr: $(cat "$TMP/err2")"
[[ ! -s $TMP/out2 ]] && ok || bad "a second tail printed records"
# Not ADDR:PORT: a usage error, exit 2.
timeout 20 "$CAUSAL" tail --metrics-listen "localhost" "$a" >/dev/null 2>"$TMP/err3"
rc=$?
[[ $rc == 2 && $(wc -l <"$TMP/err3") == 1 ]] && grep -q -- "--metrics-listen 'localhost': no port" "$TMP/err3" && ok ||
  bad "--metrics-listen localhost: exit $rc, $(cat "$TMP/err3")"

kill -INT "$tail_pid"
wait_exit 30 "$tail_pid" "the first tail after SIGINT" "$TMP/err"
[[ $rc == 4 ]] && ok || bad "the first tail: exit $rc, want 4 (a head is held)"
curl -fsS -o /dev/null "$url" 2>/dev/null && bad "still served after tail exited" || ok

# A member: its group labels every sample, and the member's families are there.
g=metrics-group-$$-$RANDOM
"$CAUSAL" tail --group "$g" --commit --metrics-listen 127.0.0.1:0 --format jsonl "$a" >"$TMP/mout" 2>"$TMP/merr" &
member=$!
pids+=("$member")
wait_for 60 grep -qs '^causal: serving metrics on ' "$TMP/merr" || bad "member: no 'serving metrics' line: $(head -c 1000 "$TMP/merr")"
url=$(url_of "$TMP/merr")
member_delivered() {
  curl -fsS -o "$TMP/mmetrics" "$url" && [[ $(sum_of "$TMP/mmetrics" causal_delivered_records_total "group=\"$g\",topic=\"$a\"") == 30 ]]
}
wait_for 120 member_delivered && ok || bad "member's delivered: $(grep '^causal_delivered' "$TMP/mmetrics")"
grep -qx "causal_member_generation{group=\"$g\"} 1" "$TMP/mmetrics" && ok ||
  bad "member generation: $(grep '^causal_member_generation' "$TMP/mmetrics")"
grep -qx "causal_rebalances_total{group=\"$g\"} 1" "$TMP/mmetrics" && ok ||
  bad "member rebalances: $(grep '^causal_rebalances_total' "$TMP/mmetrics")"
grep -qx "causal_assignments_lost_total{group=\"$g\"} 0" "$TMP/mmetrics" && ok ||
  bad "member lost: $(grep '^causal_assignments_lost_total' "$TMP/mmetrics")"
promtool check metrics <"$TMP/mmetrics" >"$TMP/promtool" 2>&1 && ok || bad "promtool on the member's: $(cat "$TMP/promtool")"
kill -INT "$member"
wait_exit 60 "$member" "the member after SIGINT" "$TMP/merr"
[[ $rc == 0 ]] && ok || bad "the member: exit $rc, want 0: $(tail -3 "$TMP/merr")"

summary
