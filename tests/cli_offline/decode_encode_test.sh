#!/usr/bin/env bash
# Runs `causal decode` / `causal encode` and checks stdout, stderr and exit codes.
# Usage: decode_encode_test.sh CAUSAL_BINARY THIS_DIR
set -uo pipefail
# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
CAUSAL=${1:?causal binary}
HERE=${2:?test dir}

# run / run_in, then check_run NAME WANT_RC [stdout texts...] -- [stderr texts...] (tests/lib.sh).

EXAMPLE='origin=billing-7f3a:42 orders/3@1041 payments/0#cart-19c2:7'
EXAMPLE_HEX=01070c62696c6c696e672d376633612a01066f72646572730103910801087061796d656e7473010009636172742d3139633207

# --- encode ---------------------------------------------------------------------------
run encode --output hex "$EXAMPLE"
check_run "encode text -> hex (protocol.md example vector)" 0 "$EXAMPLE_HEX"
run encode --output hex '{"origin":{"sender":"billing-7f3a","seq":42},"claims":[{"topic":"orders","partition":3,"offset":1041}],"seq_claims":[{"topic":"payments","partition":0,"sender":"cart-19c2","seq":7}]}'
check_run "encode JSON -> hex" 0 "$EXAMPLE_HEX"
run encode '{}'
check_run "encode empty clock -> base64" 0 "AQA="
run_in '{}\norders/0@1\n\n' encode --output hex
check_run "encode one clock per stdin line" 0 "0100" "010201066f7264657273010001"
run encode orders/3@x
check_run "encode: bad offset is a usage error" 2 -- "orders/3@x" "offset 'x'"
run encode 'orders/3@1 orders/3@2'
check_run "encode: duplicate claim" 2 -- "a second claim on that channel"
run encode '{"claims":[{"topic":"orders","partition":3}]}'
check_run "encode: JSON error names the field" 2 -- "claims[0].offset: missing"
run_in 'orders/1@1\nbad token\n' encode
check_run "encode: stdin error names the line" 2 -- "line 2:" "'bad'"
"$CAUSAL" encode </tmp >"$TMP/out" 2>"$TMP/err"; rc=$?
check_run "encode: unreadable stdin is exit 1, not 'no clock given'" 1 -- "cannot read standard input: Is a directory"
run_in 'orders/1@1\norders/1@2\n' encode --output raw
check_run "encode: raw takes one clock" 2 -- "one header"
run encode --output hexx orders/1@1
check_run "encode: unknown --output" 2 -- "--output"

# --- decode: stdin ----------------------------------------------------------------------
run_in "$EXAMPLE_HEX\n" decode --input hex
check_run "decode hex -> jsonl" 0 '"line":1' '"origin":{"sender":"billing-7f3a","seq":42}' \
  '"claims":[{"offset":1041,"partition":3,"topic":"orders"}]' '"seq_claims":[{"partition":0,"sender":"cart-19c2","seq":7,"topic":"payments"}]'
"$CAUSAL" encode "$EXAMPLE" | "$CAUSAL" decode --format text >"$TMP/out" 2>"$TMP/err"; rc=$?
check_run "encode | decode --format text" 0 "line 1  51 bytes" "origin  billing-7f3a:42" "claim   orders/3@1041" "seq     payments/0#cart-19c2:7"
# A sender's control bytes reach no terminal raw (80211eb printed ESC and BEL as they were).
"$CAUSAL" encode '{"origin":{"sender":"ev\u001b]0;x\u0007il","seq":1},"seq_claims":[{"topic":"t","partition":0,"sender":"a\u001bb","seq":2}]}' |
  "$CAUSAL" decode --format text >"$TMP/out" 2>"$TMP/err"
rc=$?
check_run "decode --format text escapes a sender's control bytes" 0 'origin  ev\x1b]0;x\x07il:1' 'seq     t/0#a\x1bb:2'
if grep -q $'\x1b' "$TMP/out"; then
  echo "FAIL decode --format text wrote an ESC byte"
  fails=$((fails + 1))
fi
"$CAUSAL" encode --output raw "$EXAMPLE" | "$CAUSAL" decode --input raw --format json >"$TMP/out" 2>"$TMP/err"; rc=$?
check_run "decode raw stdin -> json document" 0 '[' '"bytes":51' ']'
run_in 'AQA=\nAQIBBm9yZGVycwEDkQg=\n' decode --format json
check_run "decode json: one array" 0 '"line":2' '"offset":1041'
[[ $(head -c1 "$TMP/out") == "[" ]] || { echo "FAIL json output does not start with ["; fails=$((fails + 1)); }
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d)==2' "$TMP/out" 2>/dev/null ||
  { echo "FAIL decode --format json is not one JSON array of 2"; fails=$((fails + 1)); }

# Malformed headers: exit 3, the line and the reason; what decoded before is printed whole.
run_in '0100\n0102\n0100\n' decode --input hex
check_run "decode: truncated header on line 2" 3 '"line":1' -- "line 2:" "truncated at byte 2"
if grep -q '"line":3' "$TMP/out"; then echo "FAIL decode went past the bad header"; fails=$((fails + 1)); fi
run_in '0100\n0102\n' decode --input hex --format json
check_run "decode json: document closed before exit 3" 3 '[' ']' -- "line 2:"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d)==1' "$TMP/out" 2>/dev/null ||
  { echo "FAIL partial json document is not valid JSON"; fails=$((fails + 1)); }
for vec in "0200:unknown_version at byte 0" "0108:bad_flags at byte 1" "01010161 8000:overlong_varint at byte 5" \
  "0102020162010000016101 0000:not_canonical at byte 8" "010000:trailing_bytes at byte 2" \
  "010201036 12f62010000:bad_topic at byte 3"; do
  hex=${vec%%:*}; want=${vec#*:}
  run_in "0100\n$hex\n" decode --input hex --validate
  check_run "decode --validate $want" 3 -- "line 2:" "$want"
  [[ ! -s $TMP/out ]] || { echo "FAIL --validate printed on stdout"; fails=$((fails + 1)); }
done
run_in '0100\n\n010201016101000a\n' decode --input hex --validate
check_run "decode --validate all good" 0 -- "2 headers valid"
run_in '0100\nzz\n' decode --input hex --validate
check_run "decode --validate counts what was valid before the error" 3 -- "before the error, 1 header valid" "line 2:"
run_in 'not base64!\n' decode
check_run "decode: undecodable base64 line" 3 -- "line 1:" "not base64"
run_in 'zz\n' decode --input hex
check_run "decode: undecodable hex line" 3 -- "line 1:" "not hex"

# --- decode: kcat -J output (kcat 1.7.1 against a real broker, binary values as kcat prints them)
"$CAUSAL" decode --kcat <"$HERE/kcat-1.7.1-sample.jsonl" >"$TMP/out" 2>"$TMP/err"; rc=$?
check_run "decode --kcat" 3 '"topic":"codecdemo"' '"offset":0' '"sender":"café"' '"offset":1041' \
  '"header_present":false' -- "codecdemo/0@3:" "count_too_large"
run_in '{"topic":"t","partition":0,"offset":5,"headers":["x","y"]\n' decode --kcat
check_run "decode --kcat: not kcat output is a usage error" 2 -- "line 1: not kcat -J output"
run_in '{"topic":"t","partition":0,"offset":5,"headers":["causal.clock","\\u0001\\u0000","x"]}\n' decode --kcat
check_run "decode --kcat: an odd headers array is not kcat output" 2 -- '"headers" holds an odd number of elements'
run_in '{"not":"kcat"}\n' decode --kcat
check_run "decode --kcat: an object without topic, partition and offset is not kcat output" 2 -- \
  'line 1: not kcat -J output: a record has "topic", "partition" and "offset"'

# --- decode writes in large pieces, but shows each record before it waits for more input:
# from a live pipe, the first line's record arrives while the second line is 3 s away.
h=$("$CAUSAL" encode 'origin=live:1')
{ echo "$h"; sleep 3; echo "$h"; } | "$CAUSAL" decode | {
  IFS= read -r first
  t1=$(date +%s%N)
  IFS= read -r second
  t2=$(date +%s%N)
  [[ $first == *'"seq":1'* && $second == *'"line":2'* ]] && echo "$(((t2 - t1) / 1000000))" || echo "bad: $first / $second"
} >"$TMP/out"
gap=$(cat "$TMP/out")
if [[ $gap =~ ^[0-9]+$ ]] && ((gap >= 2000)); then
  passes=$((passes + 1))
else
  echo "FAIL decode from a live pipe: the first record came with the second (gap: $gap ms)"
  fails=$((fails + 1))
fi

# --- usage errors -------------------------------------------------------------------------
run decode orders
check_run "decode: source without @" 2 -- "'orders': expected topic/partition@offset"
run decode orders/3@9..2
check_run "decode: backwards range" 2 -- "ends before it starts"
run decode --input b64
check_run "decode: unknown --input" 2 -- "--input"
run decode --kcat orders/0@1
check_run "decode: --kcat with a Kafka source" 2 -- "--kcat reads stdin"
run decode --help
check_run "decode --help shows examples" 0 "Examples:" "causal decode --kcat"
run encode --help
check_run "encode --help shows examples" 0 "Examples:" "origin=SENDER:SEQ"

summary
