#!/usr/bin/env bash
# The configuration file and --cluster (causal-config(5)), without a
# broker: which file is read, which brokers win (seen in the "cannot reach" message that
# names them, on ports where nothing listens), and every refusal: a bad line (file:line,
# the line not echoed), an unknown section (the sections named), --cluster without a file,
# $CAUSAL_CONFIG naming no file, and a file holding a secret that group or others can read
# (exit 2, the chmod that fixes it, never the secret).
# Usage: config_file_test.sh CAUSAL_BINARY
set -uo pipefail
# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
CAUSAL=${1:?causal binary}
unset CAUSAL_BROKERS CAUSAL_CONFIG
export HOME=$TMP/home
mkdir -p "$HOME/.config/causal"

# expect RC TEXT ARGS...: `causal ARGS` exits RC with one "causal: " line holding TEXT.
expect() {
  local want=$1 text=$2
  shift 2
  timeout 20 "$CAUSAL" "$@" </dev/null >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  if [[ $rc != "$want" ]]; then
    echo "FAIL causal $*: exit $rc, want $want: $(head -3 "$TMP/err")"
    fails=$((fails + 1))
  elif ! grep -qF -- "$text" "$TMP/err"; then
    echo "FAIL causal $*: stderr does not say \"$text\": $(head -3 "$TMP/err")"
    fails=$((fails + 1))
  elif [[ $(wc -l <"$TMP/err") != 1 || $(head -c 8 "$TMP/err") != "causal: " ]]; then
    echo "FAIL causal $*: not one 'causal: ' line: $(cat "$TMP/err")"
    fails=$((fails + 1))
  elif grep -qF hunter2 "$TMP/err" "$TMP/out"; then
    echo "FAIL causal $*: a secret value in the output"
    fails=$((fails + 1))
  else
    passes=$((passes + 1))
  fi
}
unreachable() { echo "cannot reach the Kafka brokers at $1:"; }

CONF=$HOME/.config/causal/causal.conf
cat >"$CONF" <<'EOF2'
# for every cluster
bootstrap.servers=127.0.0.1:3
client.id = from-the-file

[prod]
  bootstrap.servers = 127.0.0.1:4
sasl.password = hunter2=with#signs

[staging]
bootstrap.servers=127.0.0.1:5
EOF2
chmod 600 "$CONF"

# Which brokers: -b > -X > -F > [section] > $CAUSAL_BROKERS > lines outside any section.
expect 1 "$(unreachable 127.0.0.1:3)" baseline t
expect 1 "$(unreachable 127.0.0.1:4)" baseline t --cluster prod
expect 1 "$(unreachable 127.0.0.1:5)" tail t --cluster staging
CAUSAL_BROKERS=127.0.0.1:6 expect 1 "$(unreachable 127.0.0.1:6)" baseline t
CAUSAL_BROKERS=127.0.0.1:6 expect 1 "$(unreachable 127.0.0.1:4)" baseline t --cluster prod
printf 'bootstrap.servers=127.0.0.1:7\n' >"$TMP/props"
expect 1 "$(unreachable 127.0.0.1:7)" baseline t --cluster prod -F "$TMP/props"
expect 1 "$(unreachable 127.0.0.1:8)" baseline t --cluster prod -F "$TMP/props" -X bootstrap.servers=127.0.0.1:8
expect 1 "$(unreachable 127.0.0.1:9)" explain --group g --topic t --cluster prod -X bootstrap.servers=127.0.0.1:8 \
  -b 127.0.0.1:9
# $CAUSAL_CONFIG instead of the default path.
printf '[x]\nbootstrap.servers=127.0.0.1:10\n' >"$TMP/other.conf"
CAUSAL_CONFIG=$TMP/other.conf expect 1 "$(unreachable 127.0.0.1:10)" decode t/0@0 --cluster x
CAUSAL_CONFIG=$TMP/other.conf expect 2 "no Kafka brokers given" baseline t

# Refusals, all usage errors (exit 2).
expect 2 "--cluster nope: $CONF has no section [nope] (it has: prod, staging)" baseline t --cluster nope
CAUSAL_CONFIG=$TMP/missing.conf expect 2 "\$CAUSAL_CONFIG names $TMP/missing.conf, which does not exist" baseline t
HOME=$TMP/empty expect 2 "--cluster prod: there is no configuration file" baseline t --cluster prod
printf 'bootstrap.servers=127.0.0.1:3\nsasl.password hunter2\n' >"$TMP/bad.conf"
CAUSAL_CONFIG=$TMP/bad.conf expect 2 "$TMP/bad.conf:2: expected key=value or [section]" baseline t
printf '[prod\n' >"$TMP/bad.conf"
CAUSAL_CONFIG=$TMP/bad.conf expect 2 "$TMP/bad.conf:1: " baseline t
printf '[prod]\nno.such.property=1\n' >"$TMP/bad.conf"
CAUSAL_CONFIG=$TMP/bad.conf expect 2 "$TMP/bad.conf:2: cannot set property no.such.property (value not shown)" baseline t --cluster prod
# A misspelt or capitalised secret property: its value is never shown, though librdkafka
# knows no such property and would quote it.
expect 2 "cannot set property sasl.pasword (value not shown)" baseline t -b 127.0.0.1:1 -X sasl.pasword=hunter2typo
expect 2 "cannot set property Sasl.Password" baseline t -b 127.0.0.1:1 -X Sasl.Password=hunter2caps
expect 2 "got text naming a secret property (not shown)" baseline t -b 127.0.0.1:1 -X sasl.password:hunter2colon
printf '[prod]\nSASL.PASSWORD = hunter2upper\n' >"$TMP/upper.conf"
chmod 644 "$TMP/upper.conf"
CAUSAL_CONFIG=$TMP/upper.conf expect 2 "holds SASL.PASSWORD (line 2); run: chmod 600" baseline t
# -F from a pipe is read once and used by every client the command makes (it was read
# empty by the second one, and its properties silently lost).
expect 1 "$(unreachable 127.0.0.1:11)" baseline t -F <(printf 'bootstrap.servers=127.0.0.1:11\n')
# A -F line as the configuration file writes it (spaces around '='; causal(1), -F) works:
# the key is not taken with its trailing blank ("bootstrap.servers ").
expect 1 "$(unreachable 127.0.0.1:12)" baseline t -F <(printf '  bootstrap.servers = 127.0.0.1:12 \n# c\n\n')
printf '[prod]\nsasl.jaas.config=hunter2\n' >"$TMP/bad.conf"
chmod 600 "$TMP/bad.conf"
CAUSAL_CONFIG=$TMP/bad.conf expect 2 "cannot set property sasl.jaas.config=[redacted]" baseline t --cluster prod
# A secret others can read: refused whichever section holds it, and with or without --cluster.
for mode in 644 640 604; do
  chmod "$mode" "$CONF"
  expect 2 "$CONF is readable by group or others and holds sasl.password (line 7); run: chmod 600 $CONF" baseline t
done
expect 2 "run: chmod 600 $CONF" tail t --cluster staging
# Readable by others but without a secret: fine.
chmod 644 "$TMP/other.conf"
CAUSAL_CONFIG=$TMP/other.conf expect 1 "$(unreachable 127.0.0.1:10)" baseline t --cluster x

summary "config file: "
