#!/usr/bin/env bash
# causal decode reads standard input with a bound (man/causal-decode.1, LIMITS): a line
# longer than the longest valid header's text, or raw input over the 65536-byte header
# limit, is refused at once with exit 3 naming the line, without reading it whole; the
# largest valid header still decodes in every input form. Running out of memory is exit 1
# with a message, never a silent exit 0. Every input here is at most 70 MB, every run
# bounded by `timeout`, and memory by `ulimit -v` where memory is the point.
# Usage: decode_bounds_test.sh CAUSAL_BINARY
set -uo pipefail
# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
CAUSAL=${1:?causal binary}

# check_run NAME WANT_RC -- [texts stderr must hold...] (tests/lib.sh): the command's
# stderr is in $TMP/err, its status in $rc.

# The smallest address-space limit (KiB) under which causal starts and decodes a header,
# found by trying; then a limit some MB above it lets a test allocate only that much more.
base_kib=0
for kib in $(seq 20000 2000 1000000); do
  if (ulimit -v "$kib" && echo AQA= | "$CAUSAL" decode >/dev/null 2>&1); then
    base_kib=$kib
    break
  fi
done
((base_kib > 0)) || { echo "FAIL cannot find a memory limit under which causal runs"; exit 1; }

# 1. A line of 10 MB (no newline at all), under a limit that leaves 8 MB to spare: refused
#    as soon as it passes the longest base64 header (87,400 characters), not read whole.
(ulimit -v $((base_kib + 8000)) && head -c 10000000 /dev/zero | timeout 60 "$CAUSAL" decode >/dev/null 2>"$TMP/err")
rc=$?
check_run "decode: a 10 MB line of zeros" 3 -- "line 1:" "oversized" "longer than 87400 characters"
printf 'AQA=\n' >"$TMP/in"
head -c 200000 /dev/zero | tr '\0' A >>"$TMP/in"
printf '\nAQA=\n' >>"$TMP/in"
timeout 60 "$CAUSAL" decode --validate <"$TMP/in" >/dev/null 2>"$TMP/err"
rc=$?
check_run "decode: the over-long line is named by its number" 3 -- "line 2:" "longer than 87400 characters"
(ulimit -v $((base_kib + 8000)) && head -c 10000000 /dev/zero | tr '\0' 0 | timeout 60 "$CAUSAL" decode --input hex >/dev/null 2>"$TMP/err")
rc=$?
check_run "decode --input hex: a 10 MB line" 3 -- "line 1:" "longer than 196624 characters"
(ulimit -v $((base_kib + 8000)) && head -c 10000000 /dev/zero | timeout 60 "$CAUSAL" decode --input raw >/dev/null 2>"$TMP/err")
rc=$?
check_run "decode --input raw: 10 MB" 3 -- "line 1:" "oversized at byte 65536"

# 2. The largest valid header, 65536 bytes (32764 offset claims on topic t), decodes in
#    every form, with whitespace and a CR around its line; one byte more is oversized.
python3 - "$TMP" <<'EOF'
import base64, sys
def varint(n):
    out = b""
    while n >= 0x80:
        out += bytes([(n & 0x7F) | 0x80]); n >>= 7
    return out + bytes([n])
n = 32764
h = b"\x01\x02\x01\x01t" + varint(n) + b"\x00\x00" * n
assert len(h) == 65536
d = sys.argv[1]
open(d + "/max.bin", "wb").write(h)
open(d + "/over.bin", "wb").write(h + b"\x00")
open(d + "/max.b64", "w").write("  " + base64.b64encode(h).decode() + " \r\n")
open(d + "/max.hex", "w").write(" ".join("%02x" % b for b in h) + " \r\n")
open(d + "/over.b64", "w").write(base64.b64encode(h + b"\x00").decode() + "\n")
EOF
for form in b64:base64 hex:hex bin:raw; do
  timeout 60 "$CAUSAL" decode --validate --input "${form#*:}" <"$TMP/max.${form%%:*}" >/dev/null 2>"$TMP/err"
  rc=$?
  check_run "decode --input ${form#*:}: the largest valid header" 0 -- "1 header valid"
done
timeout 60 "$CAUSAL" decode --validate --input raw <"$TMP/over.bin" >/dev/null 2>"$TMP/err"
rc=$?
check_run "decode --input raw: 65537 bytes" 3 -- "oversized at byte 65536"
timeout 60 "$CAUSAL" decode --validate <"$TMP/over.b64" >/dev/null 2>"$TMP/err"
rc=$?
check_run "decode: 65537 bytes in base64" 3 -- "line 1:" "oversized at byte 65536"

# 3. kcat -J lines hold whole records, so their bound is 64 MiB: a 70 MB line is refused
#    (exit 3, fail closed: its header cannot be checked); a 10 MB record payload is read.
head -c 70000000 /dev/zero | tr '\0' a | timeout 60 "$CAUSAL" decode --kcat >/dev/null 2>"$TMP/err"
rc=$?
check_run "decode --kcat: a 70 MB line" 3 -- "line 1:" "longer than 64 MiB"
{
  printf '{"topic":"t","partition":0,"offset":7,"payload":"'
  head -c 10000000 /dev/zero | tr '\0' a
  printf '","headers":["causal.clock","\\u0001\\u0000"]}\n'
} >"$TMP/big.jsonl"
timeout 60 "$CAUSAL" decode --kcat --validate <"$TMP/big.jsonl" >/dev/null 2>"$TMP/err"
rc=$?
check_run "decode --kcat: a 10 MB payload" 0 -- "1 header valid"

# 4. Out of memory is a failure with a message: the 10 MB kcat line needs more than the
#    8 MB left to it.
(ulimit -v $((base_kib + 8000)) && timeout 60 "$CAUSAL" decode --kcat <"$TMP/big.jsonl" >/dev/null 2>"$TMP/err")
rc=$?
check_run "decode --kcat: out of memory" 1 -- "causal: out of memory"
(ulimit -v $((base_kib + 8000)) && head -c 10000000 /dev/zero | tr '\0' a | timeout 60 "$CAUSAL" encode >/dev/null 2>"$TMP/err")
rc=$?
check_run "encode: a 10 MB stdin line, out of memory" 1 -- "causal: out of memory"

summary
