# The set-up every broker test script in this directory shares. Sourced once CAUSAL, SRC and
# BUILD are set; run under the kafka_broker fixture (the broker's bootstrap file must exist).
# Gives: B and CAUSAL_BROKERS, TMP (removed at exit), pids (killed at exit), bad/ok and their
# counts, and create_topic NAME PARTITIONS.
B=$(cat "$BUILD/test-broker/bootstrap" 2>/dev/null)
[[ -n $B ]] || { echo "FAIL no test broker: $BUILD/test-broker/bootstrap is missing (run under the kafka_broker fixture)"; exit 1; }
export CAUSAL_BROKERS=$B
TMP=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT
fails=0
passes=0
ok() { passes=$((passes + 1)); }
bad() {
  echo "FAIL $*"
  fails=$((fails + 1))
}
create_topic() {
  CAUSAL_BROKER_DIR=$BUILD/test-broker "$SRC/scripts/test-broker" kafka-topics --bootstrap-server "$B" --create \
    --topic "$1" --partitions "$2" >/dev/null 2>&1
}
