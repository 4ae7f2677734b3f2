#!/usr/bin/env bash
# Standard output that is a pipe is grown to 1 MiB (output::widen_pipe; man/causal-decode.1
# and causal-tail.1, OUTPUT), by decode and by tail's record writer: the reader checks the
# size of the pipe it read, after reading everything, and that the output is whole. Where the kernel would refuse (a pipe-max-size
# below 1 MiB and no CAP_SYS_RESOURCE) the pipe must stay at its default and the run succeed.
# Usage: pipe_widen_test.sh CAUSAL_BINARY
set -uo pipefail
# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
CAUSAL=${1:?causal binary}
max=$(cat /proc/sys/fs/pipe-max-size)
if ((max >= 1048576)) || [[ $(id -u) == 0 ]]; then want=1048576; else want=65536; fi
# The reader: stdin's pipe size (F_GETPIPE_SZ = 1032) and its line count.
reader='import fcntl, sys; n = sys.stdin.buffer.read().count(b"\n"); print(fcntl.fcntl(0, 1032), n)'
for fmt_lines in jsonl:3 text:6; do  # text: two lines a record
  fmt=${fmt_lines%:*} lines=${fmt_lines#*:}
  got=$(printf 'AQA=\nAQA=\nAQA=\n' | timeout 60 "$CAUSAL" decode --format "$fmt" | python3 -c "$reader")
  if [[ $got != "$want $lines" ]]; then
    echo "FAIL decode --format $fmt | reader: pipe size and lines '$got', want '$want $lines'"
    fails=$((fails + 1))
  fi
done
# tail's record writer (RecordWriter, which `causal demo` prints its records through, on
# librdkafka's mock cluster): the same widening, and the demo's closing line arrives.
reader_demo='import fcntl, sys; d = sys.stdin.buffer.read(); print(fcntl.fcntl(0, 1032), b"# Delivered 7 of 7" in d)'
got=$(timeout 60 "$CAUSAL" demo 2>/dev/null | python3 -c "$reader_demo")
if [[ $got != "$want True" ]]; then
  echo "FAIL demo | reader: pipe size and closing line '$got', want '$want True'"
  fails=$((fails + 1))
fi
# Not a pipe: nothing to widen, output unchanged.
out=$(printf 'AQA=\n' | "$CAUSAL" decode --format jsonl >"${TMPDIR:-/tmp}/pipe_widen.$$" && wc -l <"${TMPDIR:-/tmp}/pipe_widen.$$")
rm -f "${TMPDIR:-/tmp}/pipe_widen.$$"
if [[ $out != 1 ]]; then echo "FAIL decode to a file: $out lines, want 1"; fails=$((fails + 1)); fi
echo "$fails failed"
((fails == 0))
