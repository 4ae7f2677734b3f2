#!/usr/bin/env bash
# A sweep with --jobs 2 prints exactly what --jobs 1 prints (docs/verification.md, "Running
# it"): same exit status, same bytes, except the documented timing fields — the "N.Ns  N
# worlds/s" at the end of the summary's first line, and "seconds" / "worlds_per_second"
# in JSON — which are masked before the comparison.
#
#   jobs_identical.sh [--want-first-failure] COMMAND ARGS...
#
# runs `COMMAND ARGS --jobs 1` and `COMMAND ARGS --jobs 2`. The output must show a sweep
# ("worlds N" in text, "worlds": N in JSON) so an empty or refused run cannot pass. With
# --want-first-failure (a mutant build with --stop-at-first) it must also name a first
# failing seed, and that seed is printed.
set -uo pipefail
want_failure=0
if [[ ${1:-} == --want-first-failure ]]; then
  want_failure=1
  shift
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

mask() {
  sed -E -e '/^worlds [0-9]+ /s/  [0-9]+\.[0-9]s  [0-9]+ worlds\/s$/  <timing>/' \
    -e 's/^(  "(seconds|worlds_per_second)": ).*[^,](,?)$/\1<timing>\3/' "$1"
}

for j in 1 2; do
  "$@" --jobs "$j" >"$TMP/out$j" 2>"$TMP/err$j"
  echo $? >"$TMP/rc$j"
  mask "$TMP/out$j" >"$TMP/masked$j"
done
fail=0
if [[ $(cat "$TMP/rc1") != $(cat "$TMP/rc2") ]]; then
  echo "FAIL exit status: --jobs 1 $(cat "$TMP/rc1"), --jobs 2 $(cat "$TMP/rc2")"
  fail=1
fi
if ! diff -u "$TMP/masked1" "$TMP/masked2"; then
  echo "FAIL the outputs above differ (timing fields masked)"
  fail=1
fi
if ! grep -qE '^worlds [1-9][0-9]* |^  "worlds": [1-9]' "$TMP/masked1"; then
  echo "FAIL no sweep in the output of --jobs 1:"
  head -5 "$TMP/out1" "$TMP/err1"
  fail=1
fi
if ! grep -q '<timing>' "$TMP/masked1"; then
  echo "FAIL no timing field was masked: the mask no longer matches the summary's format"
  fail=1
fi
if [[ $want_failure == 1 ]]; then
  seed=$(sed -n 's/.*first failing seed \([0-9]*\).*/\1/p' "$TMP/out2")
  if [[ -z $seed ]]; then
    echo "FAIL --jobs 2 names no first failing seed"
    fail=1
  else
    echo "first failing seed with --jobs 1 and --jobs 2: $seed"
  fi
fi
[[ $fail == 0 ]] && echo "PASS: $* --jobs 1 and --jobs 2 print the same bytes (timing masked), exit $(cat "$TMP/rc1")"
exit $fail
