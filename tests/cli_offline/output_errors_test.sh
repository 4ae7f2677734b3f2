#!/usr/bin/env bash
# A failed write to standard output is never success (man/causal.1, EXIT STATUS): every
# subcommand that prints exits 1 with one line naming standard output and the reason when
# stdout is /dev/full (a truncated header.bin or plan.csv is data lost) or closed; a
# reader that goes away (EPIPE, `| head`) stops a streaming command quietly, status 0.
# Usage: output_errors_test.sh CAUSAL_BINARY THIS_DIR
set -uo pipefail
# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
CAUSAL=${1:?causal binary}
HERE=${2:?test dir}
if [[ ! -w /dev/full ]]; then
  echo "FAIL: no writable /dev/full here: this test cannot show what it must"
  exit 1
fi

FULL='causal: cannot write to standard output: No space left on device'

# full NAME [ARGS...]: runs causal ARGS with stdout on /dev/full and stdin from $TMP/in.
full() {
  local name=$1
  shift
  timeout 120 "$CAUSAL" "$@" >/dev/full 2>"$TMP/err" <"$TMP/in"
  local rc=$? ok=1
  if [[ $rc != 1 ]]; then echo "FAIL $name: exit $rc, want 1"; ok=0; fi
  if [[ $(grep -cxF -- "$FULL" "$TMP/err") != 1 ]]; then echo "FAIL $name: stderr lacks one line: $FULL"; ok=0; fi
  if ((ok)); then
    passes=$((passes + 1))
  else
    fails=$((fails + 1))
    echo "  stderr: $(head -c 600 "$TMP/err")"
  fi
}

: >"$TMP/in"
full "encode --output raw" encode --output raw orders/3@1041
full "encode (base64)" encode orders/3@1041
full "encode --output hex" encode --output hex '{}'
for i in $(seq 1 3000); do echo "orders/$((i % 7))@$i"; done >"$TMP/in"
full "encode, 3000 stdin lines (past stdio's buffer)" encode
printf 'AQA=\nAQIBBm9yZGVycwEDkQg=\n' >"$TMP/in"
full "decode (jsonl)" decode
full "decode --format json" decode --format json
full "decode --format text" decode --format text
"$CAUSAL" encode --output raw orders/3@1041 >"$TMP/in"
full "decode --input raw" decode --input raw
head -n 3 "$HERE/kcat-1.7.1-sample.jsonl" >"$TMP/in"
full "decode --kcat" decode --kcat
: >"$TMP/in"
full "simulate --seed" simulate --seed 1
full "simulate --seed --format json" simulate --seed 1 --format json
full "simulate --seed --trace" simulate --seed 1 --trace
full "simulate --seeds" simulate --seeds 1..5
full "simulate --scenario" simulate --scenario late-joiner
for shell in bash zsh fish; do full "completions $shell" completions "$shell"; done
full "causal --help" --help
full "causal --version" --version
for sub in tail decode encode explain baseline produce simulate demo completions; do
  full "$sub --help" "$sub" --help
done
full "demo (mock cluster, record writer)" demo
full "demo --format jsonl" demo --format jsonl

# Standard output closed: EBADF is a failed write too.
"$CAUSAL" encode orders/3@1041 >&- 2>"$TMP/err"
rc=$?
if [[ $rc == 1 ]] && grep -qF 'causal: cannot write to standard output: Bad file descriptor' "$TMP/err"; then
  passes=$((passes + 1))
else
  echo "FAIL encode with stdout closed: exit $rc, stderr: $(cat "$TMP/err")"
  fails=$((fails + 1))
fi

# EPIPE: the reader took one line and left. decode reads an endless input, so only
# stopping at the failed write ends it; it stops quietly with status 0.
for fmt in jsonl json text; do
  timeout 60 bash -c 'yes AQA= | "$1" decode --format "$2" 2>"$3" | head -n 1 >/dev/null; echo "${PIPESTATUS[1]}" >"$4"' \
    sh "$CAUSAL" "$fmt" "$TMP/err" "$TMP/rc"
  rc=$(cat "$TMP/rc" 2>/dev/null || echo timeout)
  if [[ $rc == 0 && ! -s $TMP/err ]]; then
    passes=$((passes + 1))
  else
    echo "FAIL decode --format $fmt | head -1: exit $rc, want 0 and nothing on stderr; stderr: $(head -c 300 "$TMP/err")"
    fails=$((fails + 1))
  fi
done

# encode streams too: were it to read all of stdin first, `yes | encode | head -1` would
# never end (and its memory would grow without bound).
timeout 30 bash -c 'yes orders/0@1 | "$1" encode 2>"$2" | head -n 1 >/dev/null; echo "${PIPESTATUS[1]}" >"$3"' \
  sh "$CAUSAL" "$TMP/err" "$TMP/rc"
rc=$(cat "$TMP/rc" 2>/dev/null || echo timeout)
if [[ $rc == 0 && ! -s $TMP/err ]]; then
  passes=$((passes + 1))
else
  echo "FAIL encode | head -1 on an endless input: exit $rc, want 0 and nothing on stderr; stderr: $(head -c 300 "$TMP/err")"
  fails=$((fails + 1))
fi
# At a bad line, the clocks before it are written (exit 2).
printf 'a/0@1\nb/0@2\nbad\n' | "$CAUSAL" encode >"$TMP/out" 2>"$TMP/err"
rc=$?
if [[ $rc == 2 && $(wc -l <"$TMP/out") == 2 ]] && grep -q "^causal: line 3: 'bad'" "$TMP/err"; then
  passes=$((passes + 1))
else
  echo "FAIL encode with a bad third line: exit $rc, $(wc -l <"$TMP/out") lines out, want 2 and 2; $(cat "$TMP/err")"
  fails=$((fails + 1))
fi

summary
