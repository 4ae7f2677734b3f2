#!/usr/bin/env bash
# causal on a secured cluster, end to end, on a broker of its own (scripts/test-broker
# start --secure: SASL_SSL with TLS, SCRAM-SHA-256, SCRAM-SHA-512 and PLAIN users, the
# StandardAuthorizer with ACLs; see that script's header).
#
#   1. every subcommand that talks to Kafka (produce, tail, decode, baseline, explain, watch) works
#      as user alice with credentials from -X, from -F, and from the configuration file
#      (--cluster); and with each SASL mechanism: SCRAM-SHA-256, SCRAM-SHA-512 and PLAIN;
#   2. a wrong password exits 1 within 5 s with one line quoting the authentication error,
#      for each of them, and for each SCRAM mechanism;
#   3. refused ACLs: a topic alice may not Describe, one she may Describe but not Read or
#      Write, a group she may not Describe, one she may Describe but not Read: one line
#      naming the operation and the resource, exit 1; baseline --apply refused changes
#      nothing (the committed offsets read back as the super user);
#   4. secrets: every output of every command run here (stdout and stderr, -X debug=all
#      included) is collected, and none holds any password or secret value given.
#
# Usage: secure_test.sh CAUSAL_BINARY SOURCE_DIR
set -uo pipefail
# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
CAUSAL=${1:?causal binary}
SRC=${2:?source dir}
unset CAUSAL_BROKERS CAUSAL_CONFIG
export HOME=$TMP/home  # no configuration file but the ones made here
mkdir -p "$HOME"
started=$SECONDS

own_broker "secure test broker" --secure
PLAIN=$(cat "$CAUSAL_BROKER_DIR/bootstrap")  # the super user's door, for set-up and checks
SECURE_DIR=$CAUSAL_BROKER_DIR/secure
CA=$SECURE_DIR/ca.pem
ALICE_PW=$(sed -n 's/^alice=//p' "$SECURE_DIR/passwords")
ADMIN_PW=$(sed -n 's/^admin=//p' "$SECURE_DIR/passwords")
[[ -n $ALICE_PW && -n $ADMIN_PW ]] || { echo "FAIL no passwords in $SECURE_DIR/passwords"; exit 1; }
WRONG_PW="wrong-$(head -c 9 /dev/urandom | base64 | tr '+/' '-_')"
KEY_PW="key-$(head -c 9 /dev/urandom | base64 | tr '+/' '-_')"
STORE_PW="store-$(head -c 9 /dev/urandom | base64 | tr '+/' '-_')"
CONF_PW=$ALICE_PW  # the configuration file holds alice's real password

# Set-up as the super users: topics over PLAINTEXT, ACLs over SASL_SSL as admin (SCRAM).
# The topics at once: each tool is a JVM that takes seconds to start.
for t in sec-in:2 sec-hung:1 sec-mech:1 peek-t:1 hidden-t:1; do
  "$SRC/scripts/test-broker" kafka-topics --bootstrap-server "$PLAIN" --create --topic "${t%%:*}" \
    --partitions "${t#*:}" >"$TMP/setup-${t%%:*}.log" 2>&1 &
done
for t in sec-in sec-hung sec-mech peek-t hidden-t; do
  wait -n || { cat "$TMP"/setup-*.log; echo "FAIL cannot create the topics"; exit 1; }
done
acl() {
  "$SRC/scripts/test-broker" kafka-acls --bootstrap-server "$B" --command-config "$SECURE_DIR/admin.properties" \
    --add --allow-principal User:alice --resource-pattern-type prefixed "$@" >"$TMP/setup.log" 2>&1 ||
    { cat "$TMP/setup.log"; echo "FAIL kafka-acls $*"; exit 1; }
}
# Everything on sec-*; Describe only on peek-* topics and view-* groups; nothing on the
# private groups the tools use without joining them (causal-*: see causal(1), SECURITY).
acl --operation All --topic sec- --group sec- --transactional-id sec-
acl --operation Describe --topic peek- --group view-
echo "set-up done in $((SECONDS - started))s"

# Credentials three ways.
X=(-X security.protocol=SASL_SSL -X sasl.mechanism=PLAIN -X sasl.username=alice -X "sasl.password=$ALICE_PW"
  -X "ssl.ca.location=$CA")
printf '%s\n' security.protocol=SASL_SSL sasl.mechanism=PLAIN sasl.username=alice "sasl.password=$ALICE_PW" \
  "ssl.ca.location=$CA" >"$TMP/alice.properties"
chmod 600 "$TMP/alice.properties"
F=(-F "$TMP/alice.properties")
cat >"$TMP/causal.conf" <<EOF
# causal's configuration file, as causal-config(5) describes it
request.timeout.ms = 20000

[secure]
bootstrap.servers = $B
security.protocol = SASL_SSL
sasl.mechanism = PLAIN
sasl.username = alice
sasl.password = $CONF_PW
ssl.ca.location = $CA

[plain]
bootstrap.servers = $PLAIN
EOF
chmod 600 "$TMP/causal.conf"
export CAUSAL_BROKERS=$B  # for -X and -F; the configuration file's section names its own

# run NAME [--stdin FILE] ARGS...: causal ARGS with a 60 s bound; stdout in $TMP/NAME.out,
# stderr in $TMP/NAME.err, both appended to $TMP/all-output; exit status in $rc, how long
# it took in $took_ms.
run() {
  local name=$1 input=/dev/null t0
  shift
  if [[ $1 == --stdin ]]; then input=$2; shift 2; fi
  t0=$(date +%s%N)
  timeout 60 "$CAUSAL" "$@" <"$input" >"$TMP/$name.out" 2>"$TMP/$name.err"
  rc=$?
  took_ms=$((($(date +%s%N) - t0) / 1000000))
  {
    echo "==== causal $name: exit $rc"
    cat "$TMP/$name.out" "$TMP/$name.err"
  } >>"$TMP/all-output"
}
# expect_ok NAME: exit 0.
expect_ok() {
  if [[ $rc == 0 ]]; then ok; else bad "$1: exit $rc: $(head -3 "$TMP/$1.err")"; fi
}
# expect_refused NAME TEXT: exit 1, one line "causal: ..." on stderr holding TEXT.
expect_refused() {
  local name=$1 text=$2
  if [[ $rc != 1 ]]; then
    bad "$name: exit $rc, want 1: $(head -3 "$TMP/$name.err")"
  elif ! grep -qF -- "$text" "$TMP/$name.err"; then
    bad "$name: stderr does not say \"$text\": $(head -3 "$TMP/$name.err")"
  elif [[ $(grep -c '^causal: ' "$TMP/$name.err") != 1 || $(tail -1 "$TMP/$name.err" | cut -c1-8) != "causal: " ]]; then
    bad "$name: not one 'causal: ' line at the end of stderr: $(cat "$TMP/$name.err")"
  else
    ok
  fi
}

# ---- 1. every subcommand works, credentials from -X, -F and the configuration file -------
printf '%s\n' '{"value":"a1","partition":0}' '{"value":"a2","partition":1}' '{"value":"a3","partition":0}' >"$TMP/in1"
run produce-X --stdin "$TMP/in1" produce sec-in "${X[@]}"
expect_ok produce-X
printf '%s\n' '{"value":"b1","partition":1}' '{"value":"b2","partition":0}' '{"transaction":"commit"}' >"$TMP/in2"
run produce-F --stdin "$TMP/in2" produce --transactional-id sec-tx sec-in "${F[@]}"
expect_ok produce-F
for how in X F; do
  if [[ $how == X ]]; then creds=("${X[@]}"); else creds=("${F[@]}"); fi
  run "tail-$how" tail sec-in --from beginning -e --format jsonl "${creds[@]}"
  expect_ok "tail-$how"
  n=$(grep -c '"offset"' "$TMP/tail-$how.out")
  [[ $n == 5 ]] && ok || bad "tail-$how: $n records, want 5"
  run "decode-$how" decode sec-in/0@0 "${creds[@]}"
  expect_ok "decode-$how"
  run "baseline-$how" baseline sec-in --format json "${creds[@]}"
  expect_ok "baseline-$how"
done
run baseline-apply baseline sec-in --group sec-grp --apply "${X[@]}"
expect_ok baseline-apply
run explain-X explain --group sec-grp --topic sec-in "${X[@]}"
expect_ok explain-X
run explain-F explain --group sec-grp --topic sec-in --format json "${F[@]}"
expect_ok explain-F
jq -e '.source' "$TMP/explain-F.out" >/dev/null 2>&1 && ok || bad "explain-F: not a JSON document"
# The configuration file: $CAUSAL_CONFIG, and the default path under $HOME.
CAUSAL_CONFIG=$TMP/causal.conf run tail-conf tail sec-in --from beginning -e --cluster secure
expect_ok tail-conf
mkdir -p "$HOME/.config/causal" && cp -p "$TMP/causal.conf" "$HOME/.config/causal/causal.conf"
run baseline-conf baseline sec-in --cluster secure
expect_ok baseline-conf
run explain-conf explain --group sec-grp --topic sec-in --cluster secure --format json
expect_ok explain-conf
# watch (runs until a signal): its first verdict line for the group, then SIGINT, exit 0.
# watch_first NAME ARGS...: output and status as run's.
watch_first() {
  local name=$1 pid
  shift
  "$CAUSAL" watch --interval 1 "$@" </dev/null >"$TMP/$name.out" 2>"$TMP/$name.err" &
  pid=$!
  pids+=("$pid")
  wait_for 60 test -s "$TMP/$name.out"
  kill -INT "$pid" 2>/dev/null
  wait_exit 30 "$pid" "$name" "$TMP/$name.err"
  {
    echo "==== causal $name: exit $rc"
    cat "$TMP/$name.out" "$TMP/$name.err"
  } >>"$TMP/all-output"
}
for how in X conf; do
  if [[ $how == X ]]; then creds=("${X[@]}"); else creds=(--cluster secure); fi
  watch_first "watch-$how" --group sec-grp --topic sec-in "${creds[@]}"
  expect_ok "watch-$how"
  [[ $(jq -r 'select(.group == "sec-grp") | .verdict' "$TMP/watch-$how.out" 2>/dev/null | head -1) == drains ]] && ok ||
    bad "watch-$how: no drains verdict for sec-grp: $(head -c 300 "$TMP/watch-$how.out") $(head -3 "$TMP/watch-$how.err")"
done
echo '{"value":"c1","partition":1}' >"$TMP/in3"
run produce-conf --stdin "$TMP/in3" produce sec-in --cluster secure
expect_ok produce-conf
run decode-conf decode sec-in/1@0 --cluster secure
expect_ok decode-conf
rm "$HOME/.config/causal/causal.conf"

# Every subcommand with each SASL mechanism (credentials from -X): one record per mechanism
# on sec-mech, so the n-th mechanism's tail reads n records.
n_mech=0
for mech in SCRAM-SHA-256 SCRAM-SHA-512 PLAIN; do
  MX=(-X security.protocol=SASL_SSL -X "sasl.mechanism=$mech" -X sasl.username=alice -X "sasl.password=$ALICE_PW"
    -X "ssl.ca.location=$CA")
  echo "{\"value\":\"by-$mech\"}" >"$TMP/in-$mech"
  run "produce-$mech" --stdin "$TMP/in-$mech" produce --transactional-id "sec-tx-$mech" sec-mech "${MX[@]}"
  expect_ok "produce-$mech"
  n_mech=$((n_mech + 1))
  run "tail-$mech" tail sec-mech --from beginning -e --format jsonl "${MX[@]}"
  expect_ok "tail-$mech"
  n=$(grep -c '"offset"' "$TMP/tail-$mech.out")
  [[ $n == "$n_mech" ]] && ok || bad "tail-$mech: $n records, want $n_mech"
  grep -qF "\"by-$mech\"" "$TMP/tail-$mech.out" && ok || bad "tail-$mech: its own record is not in the output"
  # The mechanism's record sits before its commit marker: the last record but one.
  run "decode-$mech" decode "sec-mech/0@$(jq -s 'map(.offset) | max' "$TMP/tail-$mech.out")" "${MX[@]}"
  expect_ok "decode-$mech"
  run "baseline-$mech" baseline sec-mech --group "sec-mgrp-$mech" --apply --format json "${MX[@]}"
  expect_ok "baseline-$mech"
  [[ $(jq '.applied' "$TMP/baseline-$mech.out" 2>/dev/null) == true ]] && ok || bad "baseline-$mech: not applied"
  run "explain-$mech" explain --group "sec-mgrp-$mech" --topic sec-mech --format json "${MX[@]}"
  expect_ok "explain-$mech"
  [[ $(jq -r '.source.group' "$TMP/explain-$mech.out" 2>/dev/null) == "sec-mgrp-$mech" ]] && ok ||
    bad "explain-$mech: not the group's diagnosis"
done

# A hung transaction on a secured cluster: explain's advice gives Kafka's tool --command-config
# FILE (it reads no -X) and says what FILE is; its abort, run as printed with FILE the super
# user's Java properties, moves the LSO on.
mkfifo "$TMP/hung.fifo"
"$CAUSAL" produce --transactional-id sec-hung sec-hung "${X[@]}" <"$TMP/hung.fifo" >/dev/null 2>&1 &
hung_pid=$!
exec 7>"$TMP/hung.fifo"
echo '{"value":"in-txn"}' >&7
open_span=0
for _ in $(seq 100); do
  run hung-span baseline sec-hung --format json -b "$PLAIN"
  open_span=$(jq '.channels[0].open_span' "$TMP/hung-span.out" 2>/dev/null)
  [[ $open_span == 1 ]] && break
  sleep 0.2
done
kill -9 "$hung_pid" 2>/dev/null
wait "$hung_pid" 2>/dev/null
exec 7>&-
[[ $open_span == 1 ]] && ok || bad "hung: the transaction's record never reached sec-hung (open span $open_span)"
run hung-commit baseline sec-hung --group sec-hung-grp --apply -b "$PLAIN"
expect_ok hung-commit
run hung-explain explain --group sec-hung-grp --topic sec-hung --format json "${X[@]}"
expect_ok hung-explain
advice=$(jq -r '.advice[0] // ""' "$TMP/hung-explain.out")
[[ $advice == *"FILE: on this cluster (security.protocol=sasl_ssl) a Java client properties file"* ]] && ok ||
  bad "hung: the advice does not say what FILE is: $advice"
abort_cmd=$(grep -oE "kafka-transactions.sh --bootstrap-server [^ ]+ --command-config FILE abort --topic sec-hung --partition 0 --start-offset [0-9]+" <<<"$advice")
if [[ -n $abort_cmd ]]; then
  abort_cmd=${abort_cmd#kafka-transactions.sh }
  # shellcheck disable=SC2086  # the printed command's words, FILE the super user's properties
  "$SRC/scripts/test-broker" kafka-transactions ${abort_cmd/FILE/$SECURE_DIR/admin.properties} \
    >"$TMP/hung-abort.log" 2>&1 && ok ||
    bad "hung: the printed abort with FILE given failed: $(tail -3 "$TMP/hung-abort.log")"
  run hung-after baseline sec-hung --format json -b "$PLAIN"
  [[ $(jq '.channels[0].open_span' "$TMP/hung-after.out") == 0 ]] && ok || bad "hung: the LSO did not move on after the abort"
else
  bad "hung: no abort command in the advice: $advice"
fi

# ---- 2. a wrong password: exit 1 within 5 s, one line quoting the authentication error ----
WX=(-X security.protocol=SASL_SSL -X sasl.mechanism=PLAIN -X sasl.username=alice -X "sasl.password=$WRONG_PW"
  -X "ssl.ca.location=$CA")
slowest=0
for cmd in "tail sec-in -e" "decode sec-in/0@0" "baseline sec-in" "explain --group sec-grp --topic sec-in" "produce sec-in"; do
  name="wrong-${cmd%% *}"
  # shellcheck disable=SC2086  # the subcommand's words
  run "$name" --stdin "$TMP/in3" $cmd "${WX[@]}"
  expect_refused "$name" "cannot authenticate to Kafka at $B"
  grep -qF "Invalid username or password" "$TMP/$name.err" && ok || bad "$name: does not quote the broker's reason"
  if ((took_ms > 5000)); then bad "$name: took ${took_ms} ms, want at most 5 s"; else ok; fi
  ((took_ms > slowest)) && slowest=$took_ms
done
echo "wrong password: the slowest of 5 subcommands exited after ${slowest} ms"
run wrong-debug baseline sec-in "${WX[@]}" -X debug=security,broker
expect_refused wrong-debug "cannot authenticate"
# A wrong SCRAM password: the same refusal, for each mechanism.
for mech in SCRAM-SHA-256 SCRAM-SHA-512; do
  run "wrong-$mech" baseline sec-in -X security.protocol=SASL_SSL -X "sasl.mechanism=$mech" -X sasl.username=alice \
    -X "sasl.password=$WRONG_PW" -X "ssl.ca.location=$CA"
  expect_refused "wrong-$mech" "cannot authenticate to Kafka at $B"
  grep -qF "$mech" "$TMP/wrong-$mech.err" && ok || bad "wrong-$mech: does not name the mechanism"
done
# A CA that did not sign the broker's certificate: the TLS handshake fails, at once.
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=other CA" -keyout "$TMP/other.key" \
  -out "$TMP/other.pem" >/dev/null 2>&1
run tls baseline sec-in -X security.protocol=SASL_SSL -X sasl.mechanism=PLAIN -X sasl.username=alice \
  -X "sasl.password=$ALICE_PW" -X "ssl.ca.location=$TMP/other.pem"
expect_refused tls "TLS handshake with Kafka at $B failed"

# ---- 3. what the ACLs refuse -----------------------------------------------------------
run deny-baseline baseline hidden-t "${X[@]}"
expect_refused deny-baseline "not authorised to Describe topic 'hidden-t' (TOPIC_AUTHORIZATION_FAILED)"
run deny-tail-describe tail hidden-t -e "${X[@]}"
expect_refused deny-tail-describe "not authorised to Describe topic 'hidden-t'"
run deny-explain-topic explain --group sec-grp --topic hidden-t "${X[@]}"
expect_refused deny-explain-topic "not authorised to Describe topic 'hidden-t'"
run deny-tail-read tail peek-t --from beginning -e "${F[@]}"
expect_refused deny-tail-read "not authorised to Read topic 'peek-t' (TOPIC_AUTHORIZATION_FAILED)"
run deny-decode decode peek-t/0@0 "${X[@]}"
expect_refused deny-decode "not authorised to Read topic 'peek-t'"
echo '{"value":"d1"}' >"$TMP/in4"
run deny-produce --stdin "$TMP/in4" produce peek-t "${X[@]}"
expect_refused deny-produce "not authorised to Write topic 'peek-t'"
run deny-txn --stdin "$TMP/in3" produce --transactional-id other-tx sec-in "${X[@]}"
expect_refused deny-txn "not authorised to Write transactional id 'other-tx'"
run deny-explain-group explain --group locked-grp --topic sec-in "${X[@]}"
expect_refused deny-explain-group "not authorised to Describe group 'locked-grp' (GROUP_AUTHORIZATION_FAILED)"
run deny-tail-group tail sec-in --group locked-grp -e "${F[@]}"
expect_refused deny-tail-group "not authorised to Describe group 'locked-grp'"
# baseline --apply without Read on the group: refused, nothing changed. The super user
# commits view-grp's baselines first; more records then move the LSO past them.
run view-apply baseline sec-in --group view-grp --apply -b "$PLAIN"
expect_ok view-apply
run view-before baseline sec-in --group view-grp --format json -b "$PLAIN"
before=$(jq -c '[.channels[] | .committed]' "$TMP/view-before.out")
run produce-more --stdin "$TMP/in1" produce sec-in "${X[@]}"
expect_ok produce-more
run deny-apply baseline sec-in --group view-grp --apply --allow-skip "${X[@]}"
expect_refused deny-apply "not authorised to Read group 'view-grp' (GROUP_AUTHORIZATION_FAILED)"
run view-after baseline sec-in --group view-grp --format json -b "$PLAIN"
after=$(jq -c '[.channels[] | .committed]' "$TMP/view-after.out")
lso=$(jq -c '[.channels[] | .lso]' "$TMP/view-after.out")
if [[ -n $before && $before == "$after" && $after != "$lso" ]]; then ok; else
  bad "refused apply changed view-grp's offsets, or the check is vacuous: before $before, after $after, lso $lso"
fi

# ---- 4. no secret in any output ----------------------------------------------------------
# -X debug=all prints librdkafka's configuration dump and every protocol step.
run debug-all baseline sec-in "${X[@]}" -X "ssl.key.password=$KEY_PW" -X "ssl.keystore.password=$STORE_PW" \
  -X debug=all
expect_ok debug-all
grep -q 'sasl.password = \[redacted\]' "$TMP/debug-all.err" && ok ||
  bad "debug-all: no configuration dump with sasl.password redacted (the check below would be vacuous)"
run debug-tail tail sec-in -e --from beginning "${F[@]}" -X debug=all -X "ssl.key.password=$KEY_PW"
expect_ok debug-tail
# Errors that name a secret property: the value is redacted.
run bad-property baseline sec-in "${X[@]}" -X "sasl.jaas.config=$KEY_PW"
[[ $rc == 2 ]] && ok || bad "bad-property: exit $rc, want 2"
printf 'sasl.password %s\n' "$KEY_PW" >"$TMP/broken.properties"
run bad-line baseline sec-in -F "$TMP/broken.properties"
[[ $rc == 2 ]] && ok || bad "bad-line: exit $rc, want 2"
# A configuration file holding a password, readable by others: refused, without the value.
chmod 644 "$TMP/causal.conf"
CAUSAL_CONFIG=$TMP/causal.conf run conf-mode baseline sec-in --cluster secure
[[ $rc == 2 ]] && grep -qF "run: chmod 600 $TMP/causal.conf" "$TMP/conf-mode.err" && ok ||
  bad "conf-mode: exit $rc: $(cat "$TMP/conf-mode.err")"
lines=$(wc -l <"$TMP/all-output")
for secret in "$ALICE_PW" "$ADMIN_PW" "$WRONG_PW" "$KEY_PW" "$STORE_PW" "$CONF_PW"; do
  if grep -nF -- "$secret" "$TMP/all-output" | head -3 | grep -q .; then
    bad "a secret value appears in the output: $(grep -nF -- "$secret" "$TMP/all-output" | head -3 | sed "s/$secret/<SECRET>/g")"
  else
    ok
  fi
done
echo "searched $lines lines of output of $(grep -c '^==== causal' "$TMP/all-output") commands for 6 secret values"

echo "secure: $passes passed, $fails failed in $((SECONDS - started))s"
((fails == 0))
