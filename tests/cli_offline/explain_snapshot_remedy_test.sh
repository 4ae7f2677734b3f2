#!/usr/bin/env bash
# explain --snapshot prints only remedies that run as printed (causal-explain(1),
# --snapshot): a snapshot does not record the node's group, so without --group no remedy
# naming the group is printed (a placeholder such as "--group <GROUP>" would run against a
# group called "<GROUP>"), and a group name the shell would split or expand is quoted so that
# the printed command passes it as one argument, unchanged.
# Usage: explain_snapshot_remedy_test.sh CAUSAL_BINARY
set -uo pipefail
# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
CAUSAL=${1:?causal binary}

# The snapshot of docs/snapshot-format.md: orders/3@1041 waits on two claims, with no log
# facts to say why (two not_received roots).
cat >"$TMP/snap.json" <<'JSON'
{"version":1,"channels":[{"topic":"orders","partition":3,"baseline":100,"frontier":1040,"position":1042,"failed":false,"failed_offset":null,"queue_length":1,"held":[{"offset":1041,"received_at":123456789,"origin":{"sender":"billing-7f3a","seq":42},"unsatisfied":[{"kind":"offset","topic":"payments","partition":0,"offset":88210,"consumed":true},{"kind":"seq","topic":"payments","partition":1,"sender":"cart-19c2","seq":7,"consumed":true}],"clock":{"origin":{"sender":"billing-7f3a","seq":42},"claims":[{"topic":"payments","partition":0,"offset":88210}],"seq_claims":[{"topic":"payments","partition":1,"sender":"cart-19c2","seq":7}]}}],"delivered_seq":[{"sender":"billing-7f3a","seq":41}]},{"topic":"payments","partition":0,"baseline":88000,"frontier":88209,"position":88210,"failed":false,"failed_offset":null,"queue_length":0,"held":[],"delivered_seq":[]},{"topic":"payments","partition":1,"baseline":500,"frontier":611,"position":612,"failed":false,"failed_offset":null,"queue_length":0,"held":[],"delivered_seq":[{"sender":"cart-19c2","seq":6}]}],"stats":{"received":320,"delivered":319,"holds":3,"cascades_multi":0,"bridges_at_receive":2,"head_fold_ins":0,"position_advances":1,"position_remembered":0,"replays_dropped":0,"seq_claims_resolved":1,"lookups_resolved":0,"scope_growths":0,"reassignments":0,"failed_closed":0}}
JSON

# Without --group: no remedy, in JSON or text, and each root's detail says what --group adds.
timeout 10 "$CAUSAL" explain --snapshot "$TMP/snap.json" --format json >"$TMP/bare.json"
rc=$?
[[ $rc == 4 ]] || bad "explain --snapshot (held records): exit $rc, want 4"
[[ $(jq -c '[.roots[].verdict]' "$TMP/bare.json") == '["not_received","not_received"]' ]] ||
  bad "verdicts: $(jq -c '[.roots[].verdict]' "$TMP/bare.json")"
[[ $(jq -c '.remedies' "$TMP/bare.json") == '[]' ]] || bad "remedies without --group: $(jq -c .remedies "$TMP/bare.json")"
[[ $(jq -c '[.roots[].remedy]' "$TMP/bare.json") == '[null,null]' ]] || bad "roots[].remedy without --group"
[[ $(jq '[.roots[].detail | test("Give --group")] | all' "$TMP/bare.json") == true ]] ||
  bad "details do not say to give --group"
timeout 10 "$CAUSAL" explain --snapshot "$TMP/snap.json" >"$TMP/bare.txt"
if grep -q 'remedy:\|<GROUP>' "$TMP/bare.txt"; then
  bad "text output prints a remedy without --group:"
  grep 'remedy:\|<GROUP>' "$TMP/bare.txt"
fi

# With a group the shell would split and expand: the remedy, read by the shell as printed,
# gives explain the group unchanged as one argument.
group="bill's \$team \"ops\""
timeout 10 "$CAUSAL" explain --snapshot "$TMP/snap.json" --group "$group" --format json >"$TMP/named.json"
mapfile -t remedies < <(jq -r '.remedies[]' "$TMP/named.json")
[[ ${#remedies[@]} == 1 ]] || bad "one remedy for both roots, got ${#remedies[@]}"
for r in "${remedies[@]}"; do
  eval "set -- $r"
  [[ $1 == causal && $2 == explain && $3 == --group ]] || bad "remedy is not explain --group: $r"
  [[ $4 == "$group" ]] || bad "remedy passes the group as '$4', not '$group': $r"
  [[ "${*:5}" == "--topic orders --topic payments" ]] || bad "remedy's scope: ${*:5}"
done
timeout 10 "$CAUSAL" explain --snapshot "$TMP/snap.json" --group "$group" | grep -c '^    remedy: causal explain --group ' >"$TMP/n"
[[ $(cat "$TMP/n") == 2 ]] || bad "text output: $(cat "$TMP/n") remedy lines, want 2 (one per root)"

if ((fails)); then
  echo "$fails check(s) failed"
  exit 1
fi
echo "explain --snapshot remedies: all checks passed"
