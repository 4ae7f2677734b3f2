#!/usr/bin/env bash
# Drives fish's completion of causal with COMPLETIONS_DIR/causal.fish: `complete -C LINE` in
# fish --no-config prints what <TAB> after LINE offers, one candidate a line. Among the
# cases: values for --scenario and --faults, shells for `causal completions`, options not
# offered again once given (nor under another subcommand when an option's value is a
# subcommand's name), and `help`. Fails, rather than skips, when fish is missing.
# Usage: fish_test.sh COMPLETIONS_DIR
set -uo pipefail
# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
DIR=$(cd "${1:?completions directory}" && pwd) || exit 1
if ! command -v fish >/dev/null; then
  echo "FAIL: fish is not installed (scripts/install-deps installs it)"
  exit 1
fi
mkdir "$TMP/home" "$TMP/work" && : >"$TMP/work/gate.json"
cd "$TMP/work" || exit 1

# complete LINE: the candidates <TAB> after LINE offers, sorted, one a line.
complete_line() {
  # shellcheck disable=SC2016  # $argv is fish's
  HOME=$TMP/home XDG_CONFIG_HOME=$TMP/home XDG_DATA_HOME=$TMP/home \
    timeout 20 fish --no-config -c 'source $argv[1]; complete -C $argv[2]' "$DIR/causal.fish" "$1" | cut -f1 | sort
}

# expect LINE WANT...: <TAB> after LINE offers exactly WANT.
expect() {
  local line=$1 got want
  shift
  got=$(complete_line "$line")
  want=$( (($#)) && printf '%s\n' "$@" | sort)
  if [[ $got == "$want" ]]; then
    passes=$((passes + 1))
  else
    echo "FAIL '$line<TAB>': offers [${got//$'\n'/ }], want [${want//$'\n'/ }]"
    fails=$((fails + 1))
  fi
}
# offers LINE WORD...: <TAB> offers each WORD (among others); lacks LINE WORD...: none.
offers() {
  local line=$1 got w
  shift
  got=$'\n'$(complete_line "$line")$'\n'
  for w; do
    if [[ $got == *$'\n'"$w"$'\n'* ]]; then
      passes=$((passes + 1))
    else
      echo "FAIL '$line<TAB>': does not offer $w (offers [${got//$'\n'/ }])"
      fails=$((fails + 1))
    fi
  done
}
lacks() {
  local line=$1 got w
  shift
  got=$'\n'$(complete_line "$line")$'\n'
  for w; do
    if [[ $got == *$'\n'"$w"$'\n'* ]]; then
      echo "FAIL '$line<TAB>': offers $w (offers [${got//$'\n'/ }])"
      fails=$((fails + 1))
    else
      passes=$((passes + 1))
    fi
  done
}

SUBCOMMANDS=(tail decode encode explain baseline watch produce simulate demo completions)
expect 'causal ta' tail
expect 'causal ' "${SUBCOMMANDS[@]}" help
expect 'causal tail --fo' --format
expect 'causal tail --format ' text jsonl json
expect 'causal tail --metrics-l' --metrics-listen
lacks 'causal tail --metrics-listen :0 --' --metrics-listen
expect 'causal baseline --format ' text json csv
expect 'causal encode --output ' base64 hex raw
expect 'causal simulate --scenario ' late-joiner restored-lookup
expect 'causal simulate --scenario r' restored-lookup
expect 'causal simulate --faults ' all none crash abort replay growth joiners nolookup rebalance rewind fence refetch handover
expect 'causal simulate --faults all,-c' all,-crash
expect 'causal simulate --faults=none,rep' --faults=none,replay
expect 'causal completions ' bash fish zsh
expect 'causal completions bash ' # one shell only
expect 'causal help ' "${SUBCOMMANDS[@]}"
expect 'causal explain --snapshot ' gate.json
expect 'causal tail -F g' gate.json
# Repeatable options stay on offer; any other is offered until it is given.
offers 'causal tail -X k=v -' -X -F --from
offers 'causal tail --from end --' --from
offers 'causal explain --topic a --' --topic
lacks 'causal tail --format json --' --format
lacks 'causal tail -g billing -' -g --group
offers 'causal tail -g billing --' --format
# An option's value that is also a subcommand's name is not taken for the subcommand.
lacks 'causal tail -g demo --' --pace-ms

summary "fish: "
