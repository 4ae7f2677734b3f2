#!/usr/bin/env bash
# A real Prometheus server (Debian's prometheus package) scrapes `causal watch --listen` and
# `causal tail --metrics-listen` on the test broker. The shipped alerting rules
# (examples/prometheus/causal-alerts.yml, their thresholds lowered from minutes to a second
# so that the test takes seconds) fire when a sequence claim is frozen on purpose, and the
# watch's alerts clear once the remedy `causal explain` prints has run, as printed.
# `promtool check rules` passes on the shipped rules and the lowered copy, and
# `promtool check metrics` on every exposition scraped.
#
#   prometheus_test.sh CAUSAL SRC BUILD
set -uo pipefail
CAUSAL=$1
SRC=$2
BUILD=$3
source "$SRC/tests/lib.sh"
fixture_broker
for tool in prometheus promtool curl jq; do
  command -v "$tool" >/dev/null || { echo "FAIL $tool is not installed (scripts/install-deps installs it)"; exit 1; }
done

# The frozen claim, as docs/runbook.md describes it: a payment on P claims sender cart's send
# #2 to O (O/0@1), and the group's committed offset on O is above it (3), so a node without
# lookups restarted from the commits holds the payment for good.
id="prom-$$-$RANDOM"
O="$id-orders" P="$id-payments" G="$id-billing"
create_topic "$O" 1 && create_topic "$P" 1 || { echo "FAIL cannot create topics $O, $P"; exit 1; }
seq 3 | "$CAUSAL" produce --input text --sender cart "$O" >/dev/null 2>"$TMP/produce.err" &&
  echo '{"value":"pay","seq_claims":[{"topic":"'"$O"'","partition":0,"sender":"cart","seq":2}]}' |
  "$CAUSAL" produce --sender billing "$P" >/dev/null 2>>"$TMP/produce.err" &&
  "$CAUSAL" baseline --group "$G" --apply "$O/0@3" "$P/0@0" >/dev/null 2>>"$TMP/produce.err" ||
  { echo "FAIL cannot build the frozen claim: $(tr '\n' '|' <"$TMP/produce.err")"; exit 1; }

# metrics_port LOG: the port from "causal: serving metrics on http://ADDR:PORT/metrics".
metrics_port() { sed -n 's|.*serving metrics on http://.*:\([0-9][0-9]*\)/metrics.*|\1|p' "$1" | head -1; }
listening() { [[ -n $(metrics_port "$1") ]]; }

"$CAUSAL" watch --group "$G" --topic "$O" --topic "$P" --interval 1 --listen 127.0.0.1:0 \
  >"$TMP/watch.jsonl" 2>"$TMP/watch.err" &
watch_pid=$!
pids+=("$watch_pid")
"$CAUSAL" tail "$O" "$P" --group "$G" --from committed --no-lookup --metrics-listen 127.0.0.1:0 \
  >"$TMP/tail.out" 2>"$TMP/tail.err" &
tail_pid=$!
pids+=("$tail_pid")
wait_for 30 listening "$TMP/watch.err" || { echo "FAIL watch serves no metrics: $(tail -3 "$TMP/watch.err" | tr '\n' '|')"; exit 1; }
wait_for 30 listening "$TMP/tail.err" || { echo "FAIL tail serves no metrics: $(tail -3 "$TMP/tail.err" | tr '\n' '|')"; exit 1; }
watch_port=$(metrics_port "$TMP/watch.err")
tail_port=$(metrics_port "$TMP/tail.err")

# held_on PORT: the exposition names the held payment's partition with a positive age.
held_on() {
  curl -sf "http://127.0.0.1:$1/metrics" >"$TMP/scrape.$1" &&
    awk -v g="$G" -v t="$P" '$1 ~ /^causal_held_head_age_seconds\{/ && index($1, "group=\"" g "\"") &&
      index($1, "topic=\"" t "\"") && index($1, "partition=\"0\"") && $2 > 0 { found = 1 } END { exit !found }' \
      "$TMP/scrape.$1"
}
check "watch exports the held head's age" wait_for 30 held_on "$watch_port"
check "tail exports the held head's age" wait_for 30 held_on "$tail_port"
for port in "$watch_port" "$tail_port"; do
  if promtool check metrics <"$TMP/scrape.$port" >"$TMP/lint" 2>&1; then ok; else
    bad "promtool check metrics on :$port: $(head -3 "$TMP/lint" | tr '\n' '|')"
  fi
done

# The shipped rules, then a copy with seconds for minutes (the expressions unchanged).
check "promtool check rules passes on the shipped rules" promtool check rules "$SRC/examples/prometheus/causal-alerts.yml"
sed -e 's/) > 300$/) > 1/' -e 's/for: .*/for: 1s/' "$SRC/examples/prometheus/causal-alerts.yml" >"$TMP/rules.yml"
grep -q ') > 1$' "$TMP/rules.yml" || bad "the lowered copy of the rules did not lower CausalHeadHeld's threshold"
check "promtool check rules passes on the lowered copy" promtool check rules "$TMP/rules.yml"

prom_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: ["$TMP/rules.yml"]
scrape_configs:
  - job_name: watch
    static_configs: [{targets: ["127.0.0.1:$watch_port"]}]
  - job_name: tail
    static_configs: [{targets: ["127.0.0.1:$tail_port"]}]
EOF
check "promtool check config passes" promtool check config "$TMP/prometheus.yml"
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" \
  --web.listen-address="127.0.0.1:$prom_port" >"$TMP/prometheus.log" 2>&1 &
pids+=("$!")

# firing ALERT JOB: Prometheus reports ALERT firing for a series of JOB (on group G).
alerts() { curl -sf "http://127.0.0.1:$prom_port/api/v1/alerts" >"$TMP/alerts.json"; }
firing() {
  alerts && jq -e --arg a "$1" --arg j "$2" --arg g "$G" \
    '[.data.alerts[] | select(.labels.alertname == $a and .labels.job == $j and .labels.group == $g and .state == "firing")] | length > 0' \
    "$TMP/alerts.json" >/dev/null
}
quiet() { alerts && ! jq -e --arg j "$1" --arg g "$G" \
  '[.data.alerts[] | select(.labels.job == $j and .labels.group == $g)] | length > 0' "$TMP/alerts.json" >/dev/null; }
check "Prometheus fires CausalHeadHeld on the watch's scrape" wait_for 60 firing CausalHeadHeld watch
check "Prometheus fires CausalHeadHeld on tail's scrape" wait_for 30 firing CausalHeadHeld tail
check "Prometheus fires CausalGroupStuck on the watch's verdict" wait_for 30 firing CausalGroupStuck watch
[[ $fails == 0 ]] || { echo "  prometheus: $(tail -3 "$TMP/prometheus.log" | tr '\n' '|')"; echo "  alerts: $(head -c 600 "$TMP/alerts.json")"; }
check "watch printed a stuck verdict for the group" jq -e --arg g "$G" 'select(.group == $g and .verdict == "stuck")' "$TMP/watch.jsonl"

# The remedy, as explain prints it (docs/runbook.md): tail is no member, so --apply may run.
kill "$tail_pid" 2>/dev/null
remedy=$("$CAUSAL" explain --group "$G" --topic "$O" --topic "$P" --format json 2>/dev/null | jq -r '.remedies[]')
[[ $remedy == "causal baseline --group $G --apply $O/0@1" ]] || bad "explain's remedy: '$remedy'"
PATH="$(dirname "$CAUSAL"):$PATH" bash -c "$remedy" >"$TMP/remedy.out" 2>&1 || bad "the remedy failed: $(tr '\n' '|' <"$TMP/remedy.out")"
drains() { jq -e --arg g "$G" 'select(.group == $g and .verdict == "drains")' "$TMP/watch.jsonl" >/dev/null; }
check "watch printed drains after the remedy" wait_for 30 drains
check "the watch's alerts clear after the remedy" wait_for 60 quiet watch
for port in "$watch_port"; do
  curl -sf "http://127.0.0.1:$port/metrics" >"$TMP/scrape.after" || bad "watch's /metrics after the remedy"
  if promtool check metrics <"$TMP/scrape.after" >"$TMP/lint" 2>&1; then ok; else
    bad "promtool check metrics after the remedy: $(head -3 "$TMP/lint" | tr '\n' '|')"
  fi
done
kill -INT "$watch_pid"
wait_exit 30 "$watch_pid" "causal watch after SIGINT" "$TMP/watch.err"
[[ $rc == 0 ]] || bad "causal watch exited $rc after SIGINT, want 0"
summary "prometheus: "
