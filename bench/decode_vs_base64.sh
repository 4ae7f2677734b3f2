#!/usr/bin/env bash
# causal decode against base64 -d, side by side on one file of base64 header lines (no broker).
#
#   bench/decode_vs_base64.sh
#
# Environment: CAUSAL_BIN (default build/apps/causal), LINES (1000000), ROUNDS (3).
#
# Makes 1,000 distinct causal.clock headers with `causal encode` (an origin, four offset
# claims on one topic, one sequence claim: about 66 bytes, 88 characters of base64 each) and
# repeats them to LINES lines. Then times, alternating, ROUNDS times each, after one warm-up:
#   causal decode --format jsonl < FILE > /dev/null      (base64 → header → clock → JSON line)
#   base64 -d < FILE > /dev/null                          (base64 → bytes, nothing else)
# and prints lines/s for each (best round, wall clock; both run on one core) and the ratio
# decode/base64. Before timing, it checks that decode printed one JSON line per input line.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${CAUSAL_BIN:-$root/build/apps/causal}"
lines="${LINES:-1000000}"
rounds="${ROUNDS:-3}"
[[ -x "$bin" ]] || { echo "decode_vs_base64: no causal binary at $bin (build it, or set CAUSAL_BIN)" >&2; exit 1; }
work="$(mktemp -d /tmp/causal-bench-XXXXXX)"
trap 'rm -rf "$work"' EXIT

awk 'BEGIN { srand(7); for (i = 1; i <= 1000; i++)
  printf "origin=svc-%04x-billing:%d orders/0@%d orders/1@%d orders/2@%d orders/3@%d payments/%d#cart-%02x:%d\n",
         int(rand() * 50), i, int(rand() * 1e6), int(rand() * 1e6), int(rand() * 1e6), int(rand() * 1e6),
         i % 3, int(rand() * 20), 1 + int(rand() * 998) }' >"$work/clocks.txt"
"$bin" encode <"$work/clocks.txt" >"$work/base.b64"
awk -v n="$lines" '{ l[NR] = $0 } END { for (i = 0; i < n; i++) print l[i % NR + 1] }' "$work/base.b64" >"$work/lines.b64"
echo "decode_vs_base64: $lines lines, $(wc -c <"$work/lines.b64") bytes; first decoded:" >&2
head -1 "$work/lines.b64" | "$bin" decode >&2
got=$("$bin" decode <"$work/lines.b64" | wc -l)
[[ $got == "$lines" ]] || { echo "decode_vs_base64: decode printed $got lines for $lines" >&2; exit 1; }

time_it() {  # prints seconds
  local s e
  s=$(date +%s.%N)
  "$@" <"$work/lines.b64" >/dev/null
  e=$(date +%s.%N)
  echo "$e - $s" | bc
}
time_it "$bin" decode >/dev/null
best_dec="" best_b64=""
for ((r = 1; r <= rounds; r++)); do
  td=$(time_it "$bin" decode --format jsonl)
  tb=$(time_it base64 -d)
  printf 'round %d: causal decode %.3f s, base64 -d %.3f s\n' "$r" "$td" "$tb"
  [[ -z "$best_dec" || $(echo "$td < $best_dec" | bc) -eq 1 ]] && best_dec=$td
  [[ -z "$best_b64" || $(echo "$tb < $best_b64" | bc) -eq 1 ]] && best_b64=$tb
done
printf 'causal decode: %.0f lines/s\nbase64 -d:     %.0f lines/s\nratio decode/base64: %.2f\n' \
  "$(echo "$lines / $best_dec" | bc -l)" "$(echo "$lines / $best_b64" | bc -l)" "$(echo "$best_b64 / $best_dec" | bc -l)"
