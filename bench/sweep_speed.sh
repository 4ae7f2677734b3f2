#!/usr/bin/env bash
# The simulator's sweep speed, side by side with a baseline build:
#
#   BASE_BIN=/path/to/old/sim_sweep bench/sweep_speed.sh
#
# BASE_BIN is sim_sweep built from the commit to compare against (e.g. `git archive <commit>`
# into a scratch directory, configured like build/, `cmake --build ... --target sim_sweep`).
# Environment: NEW_BIN (default build/tests/sim/sim_sweep), SEEDS (1..10000), ROUNDS (2).
#
# Runs, alternating, ROUNDS times each, the serial sweep of SEEDS with BASE_BIN and NEW_BIN
# and prints the best CPU seconds (user + sys) of each, worlds per second of one core, and
# the ratio; checks that both print the same summary (timing fields masked). Then NEW_BIN
# with --jobs 1 and --jobs 2: best wall seconds, worlds per second of wall time, speed-up.
# Run it alone on the machine (under flock /tmp/causal-build.lock where builds share it).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
new="${NEW_BIN:-$root/build/tests/sim/sim_sweep}"
base="${BASE_BIN:?set BASE_BIN to a baseline sim_sweep}"
seeds="${SEEDS:-1..10000}"
rounds="${ROUNDS:-2}"
worlds=$((${seeds#*..} - ${seeds%%..*} + 1))
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# run NAME ARGS...: appends "cpu wall" of one run to $work/NAME; keeps its masked output.
run() {
  local name=$1
  shift
  /usr/bin/time -f "%U %S %e" -o "$work/t" "$@" --seeds "$seeds" >"$work/$name.out" || true
  awk '{ printf "%.2f %.2f\n", $1 + $2, $3 }' "$work/t" >>"$work/$name"
  sed -E '/^worlds [0-9]+ /s/  [0-9]+\.[0-9]s  [0-9]+ worlds\/s$//' "$work/$name.out" | sed 1d >"$work/$name.masked"
}
best() { sort -n -k"$2" "$work/$1" | head -1 | cut -d' ' -f"$2"; }

for ((r = 0; r < rounds; r++)); do
  run base "$base"
  run new "$new"
  run jobs1 "$new" --jobs 1
  run jobs2 "$new" --jobs 2
done
cmp -s "$work/base.masked" "$work/new.masked" || { echo "sweep_speed: the outputs differ" >&2; diff "$work/base.masked" "$work/new.masked" >&2; exit 1; }
cmp -s "$work/jobs1.masked" "$work/jobs2.masked" || { echo "sweep_speed: --jobs 2 output differs" >&2; exit 1; }

b=$(best base 1) n=$(best new 1)
printf 'serial, seeds %s (%d worlds), best of %d, CPU seconds:\n' "$seeds" "$worlds" "$rounds"
printf '  %-10s %8s %16s\n' build cpu_s worlds_per_core_s
printf '  %-10s %8s %16.0f\n' base "$b" "$(echo "$worlds / $b" | bc -l)"
printf '  %-10s %8s %16.0f\n' new "$n" "$(echo "$worlds / $n" | bc -l)"
printf '  ratio new/base CPU: %.2f (speed-up %.2fx)\n' "$(echo "$n / $b" | bc -l)" "$(echo "$b / $n" | bc -l)"
w1=$(best jobs1 2) w2=$(best jobs2 2)
printf 'new build, wall seconds:\n'
printf '  %-10s %8s %16s\n' jobs wall_s worlds_per_s
printf '  %-10s %8s %16.0f\n' 1 "$w1" "$(echo "$worlds / $w1" | bc -l)"
printf '  %-10s %8s %16.0f\n' 2 "$w2" "$(echo "$worlds / $w2" | bc -l)"
printf '  speed-up --jobs 2 / --jobs 1: %.2fx; outputs identical (timing masked)\n' "$(echo "$w1 / $w2" | bc -l)"
