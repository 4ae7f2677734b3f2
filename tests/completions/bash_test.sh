#!/usr/bin/env bash
# Drives bash's completion of causal with COMPLETIONS_DIR/causal.bash: the function that
# `complete -p causal` names is called as bash calls it on <TAB> (COMP_WORDS split as bash
# splits them, at blanks and at '=' and ':', COMP_CWORD, COMP_LINE, COMP_POINT) and
# COMPREPLY is checked. Runs every case twice: with the bash-completion package loaded
# (whose _filedir then completes file names) and without it. Among the cases: values for
# --scenario and --faults, shells for `causal completions`, file names for `explain
# --snapshot`, non-repeatable options not offered again, and `help`.
# Usage: bash_test.sh COMPLETIONS_DIR
set -uo pipefail
DIR=${1:?completions directory}
BASH_COMPLETION=/usr/share/bash-completion/bash_completion

run_cases() {
  local mode=$1 fails=0 passes=0 func
  if [[ $mode == with-bash-completion ]]; then
    if [[ ! -r $BASH_COMPLETION ]]; then
      echo "FAIL: $BASH_COMPLETION is missing (scripts/install-deps installs bash-completion)"
      return 1
    fi
    # shellcheck disable=SC1090
    source "$BASH_COMPLETION"
  fi
  # shellcheck disable=SC1091
  source "$DIR/causal.bash" || { echo "FAIL: $DIR/causal.bash does not load"; return 1; }
  func=$(complete -p causal 2>/dev/null | sed -n 's/.*-F \([^ ]*\) .*/\1/p')
  if [[ -z $func ]] || ! declare -F "$func" >/dev/null; then
    echo "FAIL ($mode): causal.bash registers no completion function for causal"
    return 1
  fi

  # complete LINE: COMPREPLY for <TAB> at the end of LINE, one per line, sorted.
  complete_line() {
    local line=$1 word= c i
    COMP_WORDS=()
    for ((i = 0; i < ${#line}; i++)); do
      c=${line:i:1}
      case $c in
        ' ') [[ -n $word ]] && COMP_WORDS+=("$word"); word= ;;
        '=' | ':') [[ -n $word ]] && COMP_WORDS+=("$word"); COMP_WORDS+=("$c"); word= ;;
        *) word+=$c ;;
      esac
    done
    # The word being completed: the one the line ends in, or a new empty one after a blank.
    if [[ -n $word ]]; then
      COMP_WORDS+=("$word")
    elif [[ $line == *' ' ]]; then
      COMP_WORDS+=("")
    fi
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMP_LINE=$line
    COMP_POINT=${#line}
    COMPREPLY=()
    "$func" causal "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" >/dev/null 2>&1
    ((${#COMPREPLY[@]})) && printf '%s\n' "${COMPREPLY[@]}" | sort
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
      echo "FAIL ($mode) '$line<TAB>': offers [${got//$'\n'/ }], want [${want//$'\n'/ }]"
      fails=$((fails + 1))
    fi
  }
  # offers LINE WORD...: <TAB> after LINE offers each WORD (among others);
  # lacks LINE WORD...: it offers none of them.
  offers() {
    local line=$1 got w
    shift
    got=$'\n'$(complete_line "$line")$'\n'
    for w; do
      if [[ $got == *$'\n'"$w"$'\n'* ]]; then
        passes=$((passes + 1))
      else
        echo "FAIL ($mode) '$line<TAB>': does not offer $w (offers [${got//$'\n'/ }])"
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
        echo "FAIL ($mode) '$line<TAB>': offers $w (offers [${got//$'\n'/ }])"
        fails=$((fails + 1))
      else
        passes=$((passes + 1))
      fi
    done
  }

  local SUBCOMMANDS=(tail decode encode explain baseline watch produce simulate demo completions)
  expect 'causal ta' tail
  expect 'causal ' "${SUBCOMMANDS[@]}" help
  expect 'causal --v' --version
  expect 'causal tail --fo' --format
  expect 'causal tail --format ' text jsonl json
  expect 'causal tail --format js' json jsonl
  expect 'causal tail --metrics-l' --metrics-listen
  expect 'causal tail --metrics-listen '
  lacks 'causal tail --metrics-listen :0 -' --metrics-listen
  expect 'causal decode --format ' jsonl json text
  expect 'causal baseline --format ' text json csv
  expect 'causal encode --output ' base64 hex raw
  expect 'causal produce --input ' jsonl text
  expect 'causal simulate --scenario ' late-joiner restored-lookup
  expect 'causal simulate --scenario r' restored-lookup
  expect 'causal simulate --faults ' all none crash abort replay growth joiners nolookup rebalance rewind fence refetch handover
  expect 'causal simulate --faults all,-c' all,-crash
  expect 'causal simulate --faults none,rep' none,replay
  expect 'causal simulate --faults=no' nolookup none
  expect 'causal completions ' bash fish zsh
  expect 'causal completions z' zsh
  expect 'causal completions bash ' # one shell only
  expect 'causal help ' "${SUBCOMMANDS[@]}"
  expect 'causal help sim' simulate
  # Repeatable options stay on offer; any other is offered until it is given.
  offers 'causal tail -X k=v -' -X -F --from
  offers 'causal tail --from end -' --from -X
  offers 'causal explain --topic a --topic b -' --topic -t
  offers 'causal watch --group a --group b -' --group -g --listen
  lacks 'causal watch --group a --interval 1 -' --interval
  lacks 'causal tail --format json -' --format
  lacks 'causal tail -g billing -' -g --group
  offers 'causal tail -g billing -' --format -X
  # An option's value that is also a subcommand's name is not taken for the subcommand.
  lacks 'causal tail -g demo --' --pace-ms
  # Values that are any text complete to nothing (not to options or subcommands).
  expect 'causal tail -X '
  expect 'causal tail --from '

  # File names, in a directory that holds one file.
  local tmp
  tmp=$(mktemp -d)
  : >"$tmp/gate.json"
  cd "$tmp" || return 1
  expect 'causal explain --snapshot ' gate.json
  expect 'causal explain --snapshot g' gate.json
  expect 'causal tail -F ' gate.json
  cd - >/dev/null || return 1
  rm -rf "$tmp"

  echo "bash ($mode): $passes passed, $fails failed"
  ((fails == 0))
}

rc=0
(run_cases plain) || rc=1
(run_cases with-bash-completion) || rc=1
exit $rc
