# The set-up the cluster test scripts share. Sourced once SRC is set and CAUSAL_BROKER_DIR
# names the state directory of the kafka_cluster fixture's cluster. Gives what tests/lib.sh
# gives (TMP, pids, on_exit, ok, the counts, summary, wait_for, here polling every 0.5 s),
# and: TB (the test-broker script), B and CAUSAL_BROKERS (every node's address), say (a line
# stamped with the time and the seconds since the start), bad as a stamped line, and die
# (bad, the counts, exit 1).
# shellcheck source=../lib.sh
source "$SRC/tests/lib.sh"
TB=$SRC/scripts/test-broker
# A node the tests start again waits up to 120 s to answer, not test-broker's 60: on a loaded
# two-core machine (the other two nodes, the clients and other tests beside it) a node's JVM
# has taken over 60 s to start once.
export CAUSAL_BROKER_TIMEOUT=${CAUSAL_BROKER_TIMEOUT:-120}
T0=$SECONDS
WAIT_FOR_POLL=0.5
say() { echo "$(date +%T.%3N) [+$((SECONDS - T0))s] $*"; }
bad() {
  say "FAIL $*"
  fails=$((fails + 1))
}
die() {
  bad "$*"
  summary
  exit 1
}
B=$("$TB" bootstrap 2>/dev/null) || die "no cluster runs in $CAUSAL_BROKER_DIR (the kafka_cluster fixture starts it)"
export CAUSAL_BROKERS=$B
