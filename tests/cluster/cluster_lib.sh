# The set-up the cluster test scripts share. Sourced once SRC is set and CAUSAL_BROKER_DIR
# names the state directory of the kafka_cluster fixture's cluster. Gives: TB (the
# test-broker script), B and CAUSAL_BROKERS (every node's address), TMP (a scratch
# directory), pids (killed at exit, with the script's own `on_exit` run first if it defines
# one), say (a line stamped with the time and the seconds since the start), ok/bad and
# their counts, die (bad, the counts, exit 1), wait_for, and finish (the counts; the exit
# status says whether anything failed).
TB=$SRC/scripts/test-broker
T0=$SECONDS
TMP=$(mktemp -d)
pids=()
fails=0
passes=0
cluster_cleanup() {
  local p
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  declare -F on_exit >/dev/null && on_exit
  [[ -n ${KEEP:-} ]] && echo "kept: $TMP" || rm -rf "$TMP"
}
trap cluster_cleanup EXIT
say() { echo "$(date +%T.%3N) [+$((SECONDS - T0))s] $*"; }
ok() { passes=$((passes + 1)); }
bad() {
  say "FAIL $*"
  fails=$((fails + 1))
}
finish() {
  echo "$passes passed, $fails failed"
  ((fails == 0))
}
die() {
  bad "$*"
  finish
  exit 1
}
# wait_for SECONDS COMMAND...: until COMMAND succeeds, polling every 0.5 s; false on timeout.
wait_for() {
  local until=$((SECONDS + $1))
  shift
  while ((SECONDS < until)); do
    "$@" && return 0
    sleep 0.5
  done
  return 1
}
B=$("$TB" bootstrap 2>/dev/null) || die "no cluster runs in $CAUSAL_BROKER_DIR (the kafka_cluster fixture starts it)"
export CAUSAL_BROKERS=$B
