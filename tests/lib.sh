# What the shell tests share. Source it at the top of a test, after `set -uo pipefail`:
#
#   source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
#
# It gives:
#   TMP        a scratch directory of the test's own, removed at exit (kept with KEEP=1)
#   pids       an array; every process added to it is killed (SIGKILL) at exit
#   on_exit    a function the test may define: run at exit after the pids are killed
#   passes, fails, ok, bad DESCRIPTION
#              the counts, one pass, one failure (a "FAIL DESCRIPTION" line)
#   check DESCRIPTION COMMAND...
#              a pass when COMMAND succeeds, else a failure named DESCRIPTION
#   run ARGS..., run_in INPUT ARGS..., check_run NAME WANT_RC [STDOUT_TEXT...] [-- STDERR_TEXT...]
#              run $CAUSAL with stdout and stderr in $TMP/out and $TMP/err and its status in
#              $rc; then check the status and that each text is in the output named
#   summary [PREFIX]
#              the line "PREFIX<passes> passed, <fails> failed"; its status says whether
#              nothing failed, so a test ends with it
#   exited PID
#              true once PID has ended (a condition for wait_for)
#   wait_exit SECONDS PID WHAT [LOG]
#              waits for PID (a child) to exit, at most SECONDS; its status in $rc. Still
#              running then: a failure naming WHAT, with LOG's last lines, the process killed
#              (SIGKILL) and rc=137, so that a hang is said before CTest's timeout kills
#              the test with nothing said
#   wait_for SECONDS COMMAND...
#              until COMMAND succeeds (polled every WAIT_FOR_POLL seconds, default 0.2);
#              false when SECONDS have passed
# and for tests on the kafka_broker fixture's broker or on a broker of their own:
#   fixture_broker          B and CAUSAL_BROKERS from the fixture's broker in $BUILD/test-broker;
#                           exit 1 when there is none
#   create_topic NAME PARTITIONS   a topic on the fixture's broker
#   own_broker WHAT [START_ARGS...]
#                           starts a broker of the test's own in $TMP/broker
#                           (CAUSAL_BROKER_DIR), stopped at exit; B is its bootstrap list
#                           (not exported: a test may want brokers named otherwise); exit 1,
#                           naming WHAT, when it does not start
#   txn_outcome TOPIC PARTITION OFFSET
#                           one line: what the broker wrote of the record at OFFSET (Kafka's
#                           kafka-dump-log on a replica's segment files in CAUSAL_BROKER_DIR):
#                           its batch's producer id and epoch, the producer's marker before
#                           it, and the marker (COMMIT or ABORT) that ended its transaction
#                           in that partition. It tells a
#                           transaction that the broker committed from one that a reader
#                           showed although it was aborted
#   markers_skipped TXID TOPIC PARTITION
#                           true when a broker's log (CAUSAL_BROKER_DIR) says that Kafka
#                           skipped the transaction markers of TXID for TOPIC-PARTITION:
#                           its transaction coordinator drops the markers for a partition
#                           that has no leader at that moment ("likely deleted already"), as
#                           every partition of a single node has while the node shuts down,
#                           and completes the transaction. The aborted records then stay
#                           open in that partition, and the producer's next marker there
#                           commits them. Prints the broker's line
#   aborted_inputs_check IN_JSON TXID_FORMAT
#                           the relay tests' sources write "x-NAME-ROUND-i" in transactions
#                           they abort: a pass when IN_JSON (kcat -J, read_committed) holds
#                           none, or when markers_skipped explains each (TXID_FORMAT: the
#                           printf format of a source's transactional id from NAME and ROUND),
#                           said in a note; else a failure naming them, with the txn_outcome
#                           of the first three
# SRC (the source directory) must be set for create_topic, own_broker and txn_outcome, BUILD for the
# fixture's broker, CAUSAL for run and run_in.

fails=0
passes=0
pids=()
TMP=$(mktemp -d "${TMPDIR:-/tmp}/causal-test.XXXXXX") || { echo "FAIL cannot make a scratch directory"; exit 1; }

_lib_owns_broker=
_lib_cleanup() {
  local p
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  if declare -F on_exit >/dev/null; then on_exit; fi
  if [[ -n $_lib_owns_broker ]]; then "$SRC/scripts/test-broker" stop >/dev/null 2>&1; fi
  if [[ -n ${KEEP:-} ]]; then echo "kept: $TMP"; else rm -rf "$TMP"; fi
}
trap _lib_cleanup EXIT

ok() { passes=$((passes + 1)); }
bad() {
  echo "FAIL $*"
  fails=$((fails + 1))
}

check() {
  local what=$1
  shift
  if "$@"; then ok; else bad "$what"; fi
}

run() { "$CAUSAL" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null; rc=$?; }
run_in() {
  local input=$1
  shift
  printf '%b' "$input" | "$CAUSAL" "$@" >"$TMP/out" 2>"$TMP/err"
  rc=$?
}
check_run() {
  local name=$1 want_rc=$2 pat good=1 where=out
  shift 2
  if [[ $rc != "$want_rc" ]]; then
    echo "FAIL $name: exit $rc, want $want_rc"
    good=0
  fi
  for pat in "$@"; do
    if [[ $pat == -- ]]; then where=err; continue; fi
    if ! grep -qF -- "$pat" "$TMP/$where"; then
      echo "FAIL $name: std$where lacks: $pat"
      good=0
    fi
  done
  if ((good)); then
    passes=$((passes + 1))
  else
    fails=$((fails + 1))
    echo "  stdout: $(head -c 600 "$TMP/out" 2>/dev/null)"
    echo "  stderr: $(head -c 600 "$TMP/err" 2>/dev/null)"
  fi
}

summary() {
  echo "${1:-}$passes passed, $fails failed"
  ((fails == 0))
}

exited() { ! kill -0 "$1" 2>/dev/null; }

wait_exit() {
  local pid=$2 what=$3 log=${4:-}
  if ! WAIT_FOR_POLL=0.1 wait_for "$1" exited "$pid"; then
    bad "$what: still running after $1 s${log:+; its last lines: $(tail -n 5 "$log" | tr '\n' '|')}"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    rc=137
    return 1
  fi
  wait "$pid"
  rc=$?
}

wait_for() {
  local until=$((SECONDS + $1))
  shift
  while ((SECONDS < until)); do
    "$@" && return 0
    sleep "${WAIT_FOR_POLL:-0.2}"
  done
  return 1
}

fixture_broker() {
  B=$(cat "$BUILD/test-broker/bootstrap" 2>/dev/null)
  [[ -n $B ]] || { echo "FAIL no test broker: $BUILD/test-broker/bootstrap is missing (run under the kafka_broker fixture)"; exit 1; }
  export CAUSAL_BROKERS=$B
}
create_topic() {
  CAUSAL_BROKER_DIR=$BUILD/test-broker "$SRC/scripts/test-broker" kafka-topics --bootstrap-server "$B" --create \
    --topic "$1" --partitions "$2" >/dev/null 2>&1
}
own_broker() {
  local what=$1
  shift
  export CAUSAL_BROKER_DIR=$TMP/broker
  _lib_owns_broker=1
  B=$("$SRC/scripts/test-broker" start "$@" 2>"$TMP/broker.err") || {
    echo "FAIL the $what did not start:"
    tail -20 "$TMP/broker.err"
    exit 1
  }
}

txn_outcome() {
  local topic=$1 partition=$2 offset=$3 dir
  dir=$(ls -d "$CAUSAL_BROKER_DIR/data/$topic-$partition" "$CAUSAL_BROKER_DIR"/node-*/data/"$topic-$partition" 2>/dev/null | head -1)
  [[ -n $dir ]] || { echo "$topic/$partition@$offset: no replica in $CAUSAL_BROKER_DIR"; return; }
  "$SRC/scripts/test-broker" kafka-dump-log --print-data-log --files "$(ls "$dir"/*.log | paste -sd, -)" 2>/dev/null |
    awk -v off="$offset" -v what="$topic/$partition@$offset" '
      function field(name,   i) { for (i = 1; i < NF; i++) if ($i == name ":") return $(i + 1); return "" }
      /^baseOffset:/ {
        base = field("baseOffset") + 0; last = field("lastOffset") + 0; pid = field("producerId")
        if (!found && base <= off && off <= last) {
          found = 1; want = pid
          batch = sprintf("batch %d..%d of producer %s epoch %s, transactional %s", base, last, pid, field("producerEpoch"), field("isTransactional"))
          if (pid in prev) batch = batch " (after the producer'"'"'s " prev[pid] ")"
          if (field("isTransactional") != "true") { print what ": " batch; done = 1; exit }
          next
        }
        if (found && field("isControl") == "true" && pid == want) { marker_at = base; marker_epoch = field("producerEpoch"); in_marker = 1; next }
        if (!found && field("isControl") == "true") { prev_pid = pid; prev_at = base; prev_epoch = field("producerEpoch"); in_prev = 1; next }
        in_marker = 0; in_prev = 0
      }
      in_prev && /endTxnMarker:/ { prev[prev_pid] = field("endTxnMarker") " at offset " prev_at " (epoch " prev_epoch ")"; in_prev = 0; next }
      in_marker && /endTxnMarker:/ { print what ": " batch "; its transaction ended here with " field("endTxnMarker") " at offset " marker_at " (epoch " marker_epoch ")"; done = 1; exit }
      END { if (!done) print what ": " (found ? batch "; no marker of its transaction follows in this replica" : "not in this replica") }'
}

# Only the logs that exist are read, and nothing in the pipe stops early: the tests run with
# pipefail, under which a missing file (a single broker has no node-*/, a cluster no
# logs/ of its own) or a reader closed after the first line would fail the whole pipe.
markers_skipped() {
  local txid=$1 topic=$2 partition=$3 f logs=() found
  for f in "$CAUSAL_BROKER_DIR"/logs/server.log "$CAUSAL_BROKER_DIR"/node-*/logs/server.log; do
    [[ -f $f ]] && logs+=("$f")
  done
  ((${#logs[@]} > 0)) || return 1
  found=$(grep -hF "while trying to send transaction markers for $txid," "${logs[@]}" |
    grep -E "Couldn't find leader endpoint for partitions (Set|HashSet)\(([^)]*, )?$topic-$partition(, [^)]*)?\)") ||
    return 1
  printf '%s\n' "${found%%$'\n'*}"
}

# An aborted record read as committed is causal's failure unless Kafka's own log says why:
# its transaction coordinator skipped the abort's markers for a partition without a leader
# (markers_skipped), which a broker shutting down can cause. Those records are then
# committed in the log, and a test's other checks take the log as it is.
aborted_inputs_check() {
  local in_json=$1 txid_format=$2 seen at name round line="" skipped="" unexplained="" aborted
  aborted=$(jq -r 'select(.payload | startswith("x-")) | "\(.topic)/\(.partition)@\(.offset)=\(.payload)"' "$in_json")
  while IFS= read -r seen; do
    [[ -n $seen ]] || continue
    at=${seen%%=*}
    IFS=- read -r _ name round _ <<<"${seen#*=}"
    # shellcheck disable=SC2059  # the format is the caller's
    if line=$(markers_skipped "$(printf "$txid_format" "$name" "$round")" "${at%%/*}" "$(cut -d/ -f2 <<<"${at%@*}")"); then
      skipped+="$seen "
    else
      unexplained+="$seen "
    fi
  done <<<"$aborted"
  if [[ -n $unexplained ]]; then
    bad "an aborted source record is committed: $(echo $unexplained | cut -c1-300)"
    for seen in $(head -3 <<<"$aborted"); do
      at=${seen%%=*}
      txn_outcome "${at%%/*}" "$(cut -d/ -f2 <<<"${at%@*}")" "${at##*@}"
    done
  else
    ok
    [[ -z $skipped ]] || echo "note: aborted source records read as committed, $(echo $skipped | cut -c1-200): Kafka skipped their abort's markers on a partition without a leader (${line:0:160})"
  fi
}
