#!/usr/bin/env bash
# Drives a real interactive zsh (zsh -f -i in a zsh/zpty pseudo-terminal, compinit, with
# COMPLETIONS_DIR first in $fpath) through its completion of causal: each case types a line
# and <TAB>, then a key whose widget writes the edited line to a file; a compadd wrapper in
# that shell records every match the completion functions add. Nothing is parsed from the
# terminal. Options and values after a subcommand complete (`causal tail --fo<TAB>`: the
# subcommand is not taken for _arguments' first word). Fails, rather than skips, when zsh
# or its zpty module is missing.
# Usage: zsh_test.sh COMPLETIONS_DIR
set -uo pipefail
DIR=$(cd "${1:?completions directory}" && pwd) || exit 1
if ! command -v zsh >/dev/null; then
  echo "FAIL: zsh is not installed (scripts/install-deps installs it)"
  exit 1
fi

read -r -d '' DRIVER <<'ZSH'
emulate -R zsh
zmodload zsh/zpty || { print "FAIL: zsh has no zsh/zpty module"; exit 1 }
zmodload zsh/datetime
dir=$1
tmp=$(mktemp -d) || exit 1
mkdir $tmp/work && : >$tmp/work/gate.json
integer fails=0 passes=0

# The interactive shell's setup: compinit, the recorders, then a sign that it is ready.
cat >$tmp/init.zsh <<'INIT'
PS1='> ' RPS1= PROMPT_EOL_MARK=
unsetopt beep
LISTMAX=100000
stty rows 60 columns 250 2>/dev/null
fpath=($D $fpath)
autoload -Uz compinit && compinit -u -D
compadd() {
  # -O, -A, -D: the caller only asks which words match; anything else adds matches.
  if [[ -n ${(M)@:#-[OAD]*} ]]; then builtin compadd "$@"; return; fi
  local -a __m
  builtin compadd -O __m "$@"
  (( $#__m )) && print -rl -- $__m >>$T/matches
  builtin compadd "$@"
}
_test_dump() {
  print -r -- "$BUFFER" >$T/buffer.tmp && mv $T/buffer.tmp $T/buffer
  BUFFER=
}
zle -N _test_dump
bindkey '^Xd' _test_dump
cd $T/work
print ready >$T/ready
INIT

# Reads what the shell printed, so that it never blocks on a full terminal.
drain() { local out; while zpty -rt comp out 2>/dev/null; do :; done }

# wait_for FILE WHAT: until FILE exists, at most 10 s.
wait_for() {
  local deadline=$(( EPOCHREALTIME + 10 ))
  while [[ ! -e $1 ]]; do
    if (( EPOCHREALTIME > deadline )); then
      print -r -- "FAIL $2: no answer from zsh within 10 s"
      return 1
    fi
    drain
    sleep 0.05
  done
}

zpty comp "env T=${(q)tmp} D=${(q)dir} HOME=${(q)tmp} TERM=xterm zsh -f -i" ||
  { print "FAIL: cannot start zsh in a pseudo-terminal"; exit 1 }
zpty -w comp "source ${(q)tmp}/init.zsh"
if ! wait_for $tmp/ready "starting zsh with compinit"; then
  zpty -d comp; rm -rf $tmp; exit 1
fi

# tab LINE: types LINE and <TAB>; sets BUF to the line then, MATCHES to the matches offered
# (sorted, each once).
typeset BUF
typeset -a MATCHES
tab() {
  rm -f $tmp/buffer $tmp/matches
  BUF= MATCHES=()
  zpty -n -w comp "$1"$'\t\C-Xd'
  wait_for $tmp/buffer "'$1<TAB>'" || return 1
  BUF=$(<$tmp/buffer)
  [[ -e $tmp/matches ]] && MATCHES=(${(ou)${(f)"$(<$tmp/matches)"}})
  return 0
}
ok() { passes+=1 }
bad() { print -r -- "FAIL $*"; fails+=1 }

# completes LINE RESULT: <TAB> after LINE makes the line RESULT.
completes() {
  tab "$1" || { fails+=1; return }
  [[ $BUF == "$2" ]] && ok || bad "'$1<TAB>': the line is '$BUF', want '$2'"
}
# offers LINE WANT...: <TAB> after LINE offers exactly WANT.
offers() {
  local line=$1; shift
  local -a want=(${(ou)@})
  tab "$line" || { fails+=1; return }
  [[ "$MATCHES" == "$want" ]] && ok || bad "'$line<TAB>': offers [$MATCHES], want [$want]"
}
# includes LINE WORD...: <TAB> offers each WORD; excludes LINE WORD...: none of them.
includes() {
  local line=$1 w; shift
  tab "$line" || { fails+=1; return }
  for w; do
    (( ${MATCHES[(Ie)$w]} )) && ok || bad "'$line<TAB>': does not offer $w (offers [$MATCHES])"
  done
}
excludes() {
  local line=$1 w; shift
  tab "$line" || { fails+=1; return }
  for w; do
    (( ${MATCHES[(Ie)$w]} )) && bad "'$line<TAB>': offers $w (offers [$MATCHES])" || ok
  done
}

subcommands=(tail decode encode explain baseline watch produce simulate demo completions)
completes 'causal ta' 'causal tail '
offers 'causal ' $subcommands help
completes 'causal tail --fo' 'causal tail --format '
completes 'causal simulate --scena' 'causal simulate --scenario '
offers 'causal tail --format ' text jsonl json
completes 'causal tail --metrics-l' 'causal tail --metrics-listen '
excludes 'causal tail --metrics-listen :0 -' --metrics-listen
offers 'causal decode --input ' base64 hex raw
offers 'causal simulate --scenario ' late-joiner restored-lookup
completes 'causal simulate --scenario r' 'causal simulate --scenario restored-lookup '
offers 'causal simulate --faults ' all none crash abort replay growth joiners nolookup rebalance rewind fence refetch handover
# The item after the last comma, '-' kept; the ',' after it goes when a blank is typed.
completes 'causal simulate --faults all,-cr' 'causal simulate --faults all,-crash,'
offers 'causal completions ' bash fish zsh
offers 'causal help ' $subcommands
completes 'causal explain --snapshot ' 'causal explain --snapshot gate.json '
completes 'causal tail -F g' 'causal tail -F gate.json '
# Repeatable options stay on offer after their first use; any other one does not.
includes 'causal tail -X k=v -' -X -F --from
completes 'causal tail -X k=v --fr' 'causal tail -X k=v --from '
completes 'causal tail --from end --fr' 'causal tail --from end --from '
completes 'causal explain --topic a --to' 'causal explain --topic a --topic '
excludes 'causal tail --format json -' --format
excludes 'causal tail -g billing -' -g --group
completes 'causal tail --format json --for' 'causal tail --format json --for'

zpty -d comp
rm -rf $tmp
print "zsh: $passes passed, $fails failed"
(( fails == 0 ))
ZSH

exec timeout 120 zsh -f -c "$DRIVER" zsh_test "$DIR"
