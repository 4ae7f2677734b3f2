#!/usr/bin/env bash
# causal installs the way Debian and CMake users expect. Installs BUILD_DIR into a
# fresh prefix (cmake --install --prefix), then, from the installed files only:
#   1. every file a user needs is there: bin/causal, headers, libraries, the CMake package,
#      causal.pc, man pages (footers with the project version), the three completions;
#   2. the installed headers are exactly the public ones (listed below), none the
#      simulator's, and each compiles on its own against the prefix (so none reaches a
#      header that is not installed, under lib/internal/ or beside a library's sources);
#   3. every symbol the libraries define for the linker is in namespace causal (std and fmt
#      template instances, which every user of them may define, are weak and not counted);
#   4. shared builds: each library's SONAME is libNAME.so.SOVERSION, and the installed
#      causal runs from the prefix (RPATH);
#   5. examples/gated-consumer builds out of tree with find_package(causal), and with
#      pkg-config alone, and both run: with MODE broker on the test broker (three stamped
#      records printed in order, exit 0), offline only as far as the usage line, which shows
#      that they load and carry the version. examples/group-member (docs/library.md) builds
#      too, and with MODE broker prints the same three, commits, and a second run of the
#      same group prints nothing. examples/relay builds (tests/relay/relay_test.sh runs it).
#
# Usage: install_test.sh SOURCE_DIR BUILD_DIR broker|offline
set -uo pipefail
# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
SRC=${1:?source dir}
BUILD=${2:?build dir}
MODE=${3:?broker or offline}
P=$TMP/prefix

VERSION=$(sed -n 's/^CMAKE_PROJECT_VERSION:[A-Z]*=//p' "$BUILD/CMakeCache.txt")
SHARED=$(sed -n 's/^BUILD_SHARED_LIBS:[A-Z]*=//p' "$BUILD/CMakeCache.txt")
[[ -n $VERSION ]] || { echo "FAIL no project version in $BUILD/CMakeCache.txt"; exit 1; }

if ! cmake --install "$BUILD" --prefix "$P" >"$TMP/install.log" 2>&1; then
  echo "FAIL cmake --install:"
  tail -5 "$TMP/install.log"
  exit 1
fi
LIBDIR=$(dirname "$(find "$P" -name causal.pc | head -1)")
LIBDIR=${LIBDIR%/pkgconfig}

# 1. The files.
for f in bin/causal include/causal/gate.hpp include/causal/version.hpp include/causal/kafka/consumer_host.hpp \
  share/man/man1/causal.1 share/man/man1/causal-tail.1 share/man/man5/causal-config.5 \
  share/bash-completion/completions/causal \
  share/zsh/site-functions/_causal share/fish/vendor_completions.d/causal.fish; do
  [[ -f $P/$f ]] && ok || bad "not installed: $f"
done
for f in pkgconfig/causal.pc cmake/causal/causalConfig.cmake cmake/causal/causalConfigVersion.cmake \
  cmake/causal/causalTargets.cmake; do
  [[ -f $LIBDIR/$f ]] && ok || bad "not installed: ${LIBDIR#"$P"/}/$f"
done
for lib in causal_core causal_kafka; do
  if [[ $SHARED == ON ]]; then f=$LIBDIR/lib$lib.so; else f=$LIBDIR/lib$lib.a; fi
  [[ -e $f ]] && ok || bad "not installed: ${f#"$P"/}"
done
pages=$(find "$SRC/man" -name '*.1' | wc -l)
[[ $(find "$P/share/man/man1" -name 'causal*.1' | wc -l) == "$pages" ]] && ok || bad "not every man page installed"
if grep -L "^\.TH .* \"causal $VERSION\" \"causal manual\"" "$P"/share/man/man1/*.1 | grep -q .; then
  bad "installed man pages whose footer is not causal $VERSION: $(grep -L "\"causal $VERSION\"" "$P"/share/man/man1/*.1)"
else
  ok
fi
[[ ! -e $P/include/causal/sim ]] && ok || bad "the simulator's headers are installed"
# The public API is these headers and no other: what a library user calls. The headers the
# libraries share with the tool and the tests (lib/internal) are not installed.
PUBLIC_HEADERS="causal/clock.hpp causal/codec.hpp causal/diagnosis.hpp causal/error.hpp causal/gate.hpp
causal/inline_vec.hpp causal/names.hpp causal/resolution_state.hpp causal/snapshot.hpp causal/stamper.hpp
causal/version.hpp causal/kafka/client.hpp causal/kafka/config.hpp causal/kafka/consumer_host.hpp
causal/kafka/explain.hpp causal/kafka/handles.hpp causal/kafka/health.hpp causal/kafka/metrics_text.hpp causal/kafka/offsets.hpp
causal/kafka/producer_host.hpp causal/kafka/watch.hpp
causal/kafka/record_view.hpp causal/kafka/relay.hpp"
installed=$(cd "$P/include" && find . -type f | sed 's|^\./||' | sort)
want=$(tr ' ' '\n' <<<"$PUBLIC_HEADERS" | grep . | sort)
extra=$(comm -23 <(echo "$installed") <(echo "$want") | tr '\n' ' ')
missing=$(comm -13 <(echo "$installed") <(echo "$want") | tr '\n' ' ')
[[ -z $extra ]] && ok || bad "installed but not a public header: $extra"
[[ -z $missing ]] && ok || bad "public headers not installed: $missing"

# 2. Each header on its own, with the prefix as the only causal include directory.
CXXFLAGS_DEPS=$(pkg-config --cflags rdkafka fmt nlohmann_json)
for h in $(cd "$P/include" && find causal -name '*.hpp' | sort); do
  # shellcheck disable=SC2086  # pkg-config's flags are words
  if echo "#include <$h>" | g++ -std=c++23 -fsyntax-only -I"$P/include" $CXXFLAGS_DEPS -x c++ - 2>"$TMP/h.err"; then
    ok
  else
    bad "$h does not compile on its own: $(head -3 "$TMP/h.err")"
  fi
done

# 3. Strong symbols (text, data, bss, read-only) all in causal::.
for lib in "$LIBDIR"/libcausal_core.* "$LIBDIR"/libcausal_kafka.*; do
  [[ -f $lib && ! -L $lib ]] || continue
  if [[ $lib == *.a ]]; then syms=$(nm -C --defined-only -g "$lib" 2>/dev/null); else syms=$(nm -C -D --defined-only "$lib"); fi
  outside=$(awk '$2 ~ /^[TDBR]$/ { $1 = ""; $2 = ""; print }' <<<"$syms" | sed 's/^ *//' |
    grep -vE '^(causal::|(typeinfo|typeinfo name|vtable|VTT|guard variable) for causal::)' |
    grep -vE '^(_init|_fini|_edata|_end|__bss_start)$' || true)
  [[ -z $outside ]] && ok || bad "$(basename "$lib") defines symbols outside causal::: $(head -5 <<<"$outside")"
done

# 4. Shared: SONAME and a causal that runs from the prefix.
if [[ $SHARED == ON ]]; then
  so_version=$(sed -n 's/^CMAKE_PROJECT_VERSION_MAJOR:[A-Z]*=//p' "$BUILD/CMakeCache.txt")
  [[ $so_version == 0 ]] && so_version=0.$(sed -n 's/^CMAKE_PROJECT_VERSION_MINOR:[A-Z]*=//p' "$BUILD/CMakeCache.txt")
  for lib in causal_core causal_kafka; do
    soname=$(readelf -d "$LIBDIR/lib$lib.so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
    [[ $soname == "lib$lib.so.$so_version" ]] && ok || bad "lib$lib.so has SONAME '$soname', want lib$lib.so.$so_version"
  done
  loaded=$(ldd "$P/bin/causal" | sed -n "s/.*libcausal_kafka.so.$so_version => \([^ ]*\).*/\1/p")
  [[ -n $loaded && $(readlink -f "$loaded") == $(readlink -f "$LIBDIR")/* ]] && ok ||
    bad "the installed causal does not load its libraries from the prefix: $(ldd "$P/bin/causal" | grep causal)"
fi
"$P/bin/causal" --version >"$TMP/v" 2>&1 && head -1 "$TMP/v" | grep -qx "causal $VERSION" &&
  sed -n 2p "$TMP/v" | grep -q '^librdkafka [0-9]' && ok || bad "installed causal --version: $(cat "$TMP/v")"

# 5. The example, out of tree: with CMake's find_package, and with pkg-config alone.
EX=$SRC/examples/gated-consumer
if cmake -S "$EX" -B "$TMP/ex" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_BUILD_TYPE=Release >"$TMP/ex.log" 2>&1 &&
  cmake --build "$TMP/ex" >>"$TMP/ex.log" 2>&1; then
  ok
else
  bad "examples/gated-consumer does not build with find_package(causal): $(tail -5 "$TMP/ex.log")"
fi
for ex in group-member:gm relay:relay; do
  if cmake -S "$SRC/examples/${ex%%:*}" -B "$TMP/${ex#*:}" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_BUILD_TYPE=Release \
    >"$TMP/${ex#*:}.log" 2>&1 && cmake --build "$TMP/${ex#*:}" >>"$TMP/${ex#*:}.log" 2>&1; then
    ok
  else
    bad "examples/${ex%%:*} does not build with find_package(causal): $(tail -5 "$TMP/${ex#*:}.log")"
  fi
done
# shellcheck disable=SC2046  # pkg-config's flags are words
if PKG_CONFIG_PATH=$LIBDIR/pkgconfig g++ -std=c++23 -o "$TMP/gc-pc" "$EX/main.cpp" \
  $(PKG_CONFIG_PATH=$LIBDIR/pkgconfig pkg-config --cflags --libs causal) -Wl,-rpath,"$LIBDIR" 2>"$TMP/pc.log"; then
  ok
else
  bad "examples/gated-consumer does not build with pkg-config: $(head -5 "$TMP/pc.log")"
fi
for bin in "$TMP/ex/gated_consumer" "$TMP/gc-pc"; do
  [[ -x $bin ]] || continue
  "$bin" >/dev/null 2>"$TMP/usage"
  [[ $? == 2 ]] && grep -qF "(causal $VERSION)" "$TMP/usage" && ok || bad "$bin without arguments: $(cat "$TMP/usage")"
done

if [[ $MODE == broker ]]; then
  brokers=$(cat "$BUILD/test-broker/bootstrap" 2>/dev/null)
  [[ -n $brokers ]] || { echo "FAIL no test broker: $BUILD/test-broker/bootstrap is missing (run under the kafka_broker fixture)"; exit 1; }
  topic=install-example-$$-$RANDOM
  CAUSAL_BROKER_DIR=$BUILD/test-broker "$SRC/scripts/test-broker" kafka-topics --bootstrap-server "$brokers" \
    --create --topic "$topic" --partitions 2 >/dev/null 2>"$TMP/topic.err" || bad "cannot create $topic: $(cat "$TMP/topic.err")"
  # Three records on two partitions, each claiming the one before (--sync): in delivery
  # order whatever the partitions.
  printf '{"value":"one","partition":1}\n{"value":"two","partition":0}\n{"value":"three","partition":1}\n' |
    "$P/bin/causal" produce -b "$brokers" --sync "$topic" >/dev/null 2>"$TMP/produce.err" || bad "produce: $(cat "$TMP/produce.err")"
  for bin in "$TMP/ex/gated_consumer" "$TMP/gc-pc"; do
    [[ -x $bin ]] || continue
    timeout 60 "$bin" "$brokers" "$topic" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    printf '%s\n' "$topic/1@0 one" "$topic/0@0 two" "$topic/1@1 three" >"$TMP/want"
    if [[ $rc == 0 ]] && diff -q "$TMP/want" "$TMP/out" >/dev/null; then
      ok
    else
      bad "$bin $brokers $topic: exit $rc, printed: $(cat "$TMP/out") $(cat "$TMP/err")"
    fi
  done
  # A partition stopped at an undecodable causal.clock header: exit 3 and the record named
  # (not exit 0 in silence, the records after it unread).
  bad_topic=install-example-bad-$$-$RANDOM
  CAUSAL_BROKER_DIR=$BUILD/test-broker "$SRC/scripts/test-broker" kafka-topics --bootstrap-server "$brokers" \
    --create --topic "$bad_topic" --partitions 1 >/dev/null 2>"$TMP/topic.err" || bad "cannot create $bad_topic: $(cat "$TMP/topic.err")"
  printf '%s\n' '{"value":"good0"}' '{"value":"bad1","headers":[{"name":"causal.clock","value":"garbage"}]}' \
    '{"value":"good2"}' | "$P/bin/causal" produce -b "$brokers" --no-stamp --sync "$bad_topic" >/dev/null 2>"$TMP/produce.err" ||
    bad "produce: $(cat "$TMP/produce.err")"
  for bin in "$TMP/ex/gated_consumer" "$TMP/gc-pc"; do
    [[ -x $bin ]] || continue
    timeout 60 "$bin" "$brokers" "$bad_topic" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    if [[ $rc == 3 && $(cat "$TMP/out") == "$bad_topic/0@0 good0" ]] &&
      grep -qF "$bad_topic/0@1: undecodable causal.clock header" "$TMP/err"; then
      ok
    else
      bad "$bin $brokers $bad_topic: exit $rc (want 3), printed: $(cat "$TMP/out") $(cat "$TMP/err")"
    fi
  done
  if [[ -x $TMP/gm/group_member ]]; then
    "$TMP/gm/group_member" "$brokers" "install-example-bad-$$-$RANDOM" "$bad_topic" >"$TMP/gmbad.out" 2>"$TMP/gmbad.err" &
    member=$!
    for _ in $(seq 100); do grep -q undecodable "$TMP/gmbad.err" && break; sleep 0.2; done
    kill -INT "$member"
    wait "$member"
    rc=$?
    if [[ $rc == 3 && $(cat "$TMP/gmbad.out") == "$bad_topic/0@0 good0" ]] &&
      grep -qF "$bad_topic/0@1: undecodable causal.clock header" "$TMP/gmbad.err"; then
      ok
    else
      bad "group_member on $bad_topic: exit $rc (want 3), printed: $(cat "$TMP/gmbad.out") $(cat "$TMP/gmbad.err")"
    fi
  fi
  # The group member (docs/library.md): prints the three in order, commits, and a second
  # member of the same group then has nothing left to print.
  if [[ -x $TMP/gm/group_member ]]; then
    group=install-example-$$-$RANDOM
    for round in 1 2; do
      GROUP_MEMBER_METRICS_PORT=0 "$TMP/gm/group_member" "$brokers" "$group" "$topic" >"$TMP/gm$round.out" \
        2>"$TMP/gm$round.err" &
      member=$!
      for _ in $(seq 100); do (($(wc -l <"$TMP/gm$round.out") >= 3)) && break; sleep 0.2; done
      # Its /metrics (docs/library.md, "Health and metrics"): the three delivered, counted
      # once the poll that delivered them published its health.
      if [[ $round == 1 ]]; then
        url=$(sed -n 's|^group_member: serving metrics on \(http://[^ ]*\)$|\1|p' "$TMP/gm1.err")
        delivered=
        for _ in $(seq 50); do
          delivered=$(curl -fsS "$url" 2>/dev/null |
            awk '/^causal_delivered_records_total\{/ { n += $2 } END { print n + 0 }')
          [[ $delivered == 3 ]] && break
          sleep 0.2
        done
        [[ -n $url && $delivered == 3 ]] && ok || bad "group_member's /metrics ($url): delivered $delivered, want 3"
      fi
      sleep 2  # round 2: time to print what it wrongly would
      kill -INT "$member"
      wait "$member"
      echo "exit $?" >>"$TMP/gm$round.err"
    done
    if diff -q "$TMP/want" "$TMP/gm1.out" >/dev/null && [[ ! -s $TMP/gm2.out ]] &&
      grep -qx "exit 0" "$TMP/gm1.err" && grep -qx "exit 0" "$TMP/gm2.err"; then
      ok
    else
      bad "group_member: round 1 printed '$(cat "$TMP/gm1.out")' ($(cat "$TMP/gm1.err")), round 2 '$(cat "$TMP/gm2.out")' ($(cat "$TMP/gm2.err"))"
    fi
  fi
fi

summary
