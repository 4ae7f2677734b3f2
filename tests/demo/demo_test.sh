#!/usr/bin/env bash
# causal demo: exits 0, shows at least one hold and one release, and prints every record after
# the records it claims (the mock cluster stands in for Kafka: this tests the tool, not Kafka).
set -euo pipefail
bin="$1"
out="$(NO_COLOR=1 "$bin" demo)"
echo "$out"
grep -q '^  hold ' <<<"$out" || { echo "FAIL: no hold event" >&2; exit 1; }
grep -q '^  release ' <<<"$out" || { echo "FAIL: no release event" >&2; exit 1; }
# The order record shop/0@0 is printed before the payment shop/1@0, and that before the shipment shop/2@0.
order=$(grep -n '^shop/0@0 ' <<<"$out" | cut -d: -f1)
payment=$(grep -n '^shop/1@0 ' <<<"$out" | cut -d: -f1)
shipment=$(grep -n '^shop/2@0 ' <<<"$out" | cut -d: -f1)
[[ -n "$order" && -n "$payment" && -n "$shipment" ]] || { echo "FAIL: a record is missing" >&2; exit 1; }
(( order < payment && payment < shipment )) || { echo "FAIL: printed out of causal order" >&2; exit 1; }
jsonl="$("$bin" demo --format jsonl)"
[[ $(grep -c '"event":"hold"' <<<"$jsonl") -ge 3 ]] || { echo "FAIL: expected 3 holds in jsonl" >&2; exit 1; }
# The README's pipeline, on the output it is shown with: each held record once (hold and
# release events carry held_ms too, and used to print every record twice), at least one.
picked="$(jq -c 'select(.event == null and .held_ms > 100) | {topic, partition, offset, released_by}' <<<"$jsonl")"
[[ -n "$picked" ]] || { echo "FAIL: the README pipeline picked no record from the demo" >&2; exit 1; }
[[ -z "$(jq -c '{topic, partition, offset}' <<<"$picked" | sort | uniq -d)" ]] ||
  { echo "FAIL: the README pipeline printed a record twice" >&2; exit 1; }
echo "demo test: ok"
