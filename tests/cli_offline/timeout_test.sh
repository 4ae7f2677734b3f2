#!/usr/bin/env bash
# Every subcommand that talks to Kafka has --timeout-ms, and it bounds the wait on a cluster
# that is there (the TCP connection is accepted) but never answers, tail's and produce's
# included. Each must exit 1 with one "causal: " line, after at least the timeout and well
# before the default. The line names the wait and --timeout-ms: a wait too short for the
# brokers is not an outage. A signal during tail's wait at start ends it at once.
# Usage: timeout_test.sh CAUSAL_BINARY SILENT_LISTENER_BINARY
set -uo pipefail
# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
CAUSAL=${1:?causal binary}
LISTENER=${2:?silent_listener binary}
"$LISTENER" 100 >"$TMP/port" &
listener=$!
pids+=("$listener")
for _ in $(seq 50); do [[ -s $TMP/port ]] && break; sleep 0.1; done
port=$(cat "$TMP/port")
[[ -n $port ]] || { echo "FAIL: the silent listener did not start"; exit 1; }

for args in "tail -e t" "tail t/0" "produce t" "decode t/0@1" "explain --group g --topic t" "baseline t"; do
  start=$(date +%s%N)
  # shellcheck disable=SC2086  # one word per argument
  timeout 60 "$CAUSAL" $args -b "127.0.0.1:$port" --timeout-ms 1500 </dev/null >/dev/null 2>"$TMP/err"
  rc=$?
  ms=$((($(date +%s%N) - start) / 1000000))
  if [[ $rc == 1 && $ms -ge 1400 && $ms -lt 6000 && $(wc -l <"$TMP/err") == 1 &&
    $(head -c 8 "$TMP/err") == "causal: " ]] && grep -qF "127.0.0.1:$port" "$TMP/err" &&
    grep -qF "that 1500 ms (--timeout-ms) is long enough for them to answer" "$TMP/err"; then
    passes=$((passes + 1))
  else
    echo "FAIL causal $args --timeout-ms 1500 against a silent broker: exit $rc after $ms ms:"
    sed 's/^/  stderr: /' "$TMP/err" | head -5
    fails=$((fails + 1))
  fi
done

# A signal while tail waits at start ends it at once, not when --timeout-ms runs out:
# exit 130, one line, nothing on stdout. Both tail paths (reading, and joining a group with --commit).
for args in "tail t" "tail t --group g --commit" "tail t --format json"; do
  for sig in INT TERM; do
    # shellcheck disable=SC2086  # one word per argument
    "$CAUSAL" $args -b "127.0.0.1:$port" --timeout-ms 30000 </dev/null >"$TMP/out" 2>"$TMP/err" &
    pid=$!
    sleep 1
    start=$(date +%s%N)
    kill -$sig $pid
    wait $pid
    rc=$?
    ms=$((($(date +%s%N) - start) / 1000000))
    if [[ $rc == 130 && $ms -lt 2000 && ! -s $TMP/out && $(wc -l <"$TMP/err") == 1 ]] &&
      grep -qF "causal tail: interrupted while starting: exiting before anything was read" "$TMP/err"; then
      passes=$((passes + 1))
    else
      echo "FAIL causal $args: SIG$sig while starting: exit $rc after $ms ms, stdout $(wc -c <"$TMP/out") bytes:"
      sed 's/^/  stderr: /' "$TMP/err" | head -5
      fails=$((fails + 1))
    fi
  done
done
summary
