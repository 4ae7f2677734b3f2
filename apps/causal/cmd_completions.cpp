// causal completions bash|zsh|fish: completion scripts derived from the command tree, so
// they cannot drift from the options. The files under completions/ are this command's
// output, and tests/completions checks that they still are, and drives each shell with them.
//
// What a value completes to comes from completion_of() (common.hpp), which the option's
// declaration fills from the list its parser checks; an option that may be given more than
// once (its values accumulate: -X, -F, --from, --topic) stays on offer after its first use,
// any other one is offered only until it is given.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "subcommands.hpp"
#include "usage.hpp"

namespace causal::cli {

namespace {

struct OptionInfo {
  std::vector<std::string> flags;  // as typed: "-g", "--group"
  std::string description;
  bool takes_value = false;
  bool repeatable = false;
  std::optional<ValueCompletion> values;
};

struct PositionalInfo {
  std::string name;
  bool many = false;  // takes every argument from here on
  std::optional<ValueCompletion> values;
};

struct CommandInfo {
  std::string name;
  std::string description;
  std::vector<OptionInfo> options;
  std::vector<PositionalInfo> positionals;
};

struct Tree {
  std::vector<OptionInfo> root_options;  // -h, --help, -V, --version
  std::vector<CommandInfo> commands;     // the subcommands, then `help`
};

std::optional<ValueCompletion> values_of(const CLI::Option* opt) {
  if (const ValueCompletion* v = completion_of(opt)) return *v;
  return std::nullopt;
}

// True when the option's values accumulate over its uses. CLI11 refuses a second use of a
// single-valued option ("At Most 1 required"), and a flag given twice is the flag once.
bool repeatable(const CLI::Option* opt) {
  const auto policy = opt->get_multi_option_policy();
  return (opt->get_items_expected_max() > 1 && policy != CLI::MultiOptionPolicy::TakeLast &&
          policy != CLI::MultiOptionPolicy::TakeFirst) ||
         policy == CLI::MultiOptionPolicy::TakeAll || policy == CLI::MultiOptionPolicy::Join;
}

void collect(const CLI::App& app, std::vector<OptionInfo>& options, std::vector<PositionalInfo>* positionals) {
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_lnames().empty() && opt->get_snames().empty()) {
      if (positionals && opt->get_positional()) {
        positionals->push_back({opt->get_name(), opt->get_items_expected_max() > 1, values_of(opt)});
      }
      continue;
    }
    OptionInfo info;
    for (const auto& sn : opt->get_snames()) info.flags.push_back("-" + sn);
    for (const auto& ln : opt->get_lnames()) info.flags.push_back("--" + ln);
    info.description = opt->get_description();
    info.takes_value = opt->get_items_expected_max() > 0;
    info.repeatable = repeatable(opt);
    info.values = values_of(opt);
    options.push_back(std::move(info));
  }
}

Tree command_tree(const CLI::App& root) {
  Tree tree;
  collect(root, tree.root_options, nullptr);
  std::vector<std::string> names;
  for (const CLI::App* sub : root.get_subcommands([](const CLI::App*) { return true; })) {
    CommandInfo cmd{sub->get_name(), sub->get_description(), {}, {}};
    collect(*sub, cmd.options, &cmd.positionals);
    names.push_back(cmd.name);
    tree.commands.push_back(std::move(cmd));
  }
  tree.commands.push_back(
      {kHelpCommand, kHelpDescription, {}, {{"subcommand", false, ValueCompletion{ValueCompletion::Kind::one_of, names}}}});
  return tree;
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (const auto& s : items) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

// Quotes for a single-quoted shell string.
std::string sq(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out;
}

std::vector<std::string> valued_flags(const CommandInfo& c) {
  std::vector<std::string> out;
  for (const auto& o : c.options) {
    if (o.takes_value) out.insert(out.end(), o.flags.begin(), o.flags.end());
  }
  return out;
}

bool has_positional_values(const CommandInfo& c) {
  for (const auto& p : c.positionals) {
    if (p.values) return true;
  }
  return false;
}

// ---- bash ----------------------------------------------------------------------------

std::string bash_value(const ValueCompletion& v) {
  switch (v.kind) {
    case ValueCompletion::Kind::one_of: return fmt::format("_causal_words '{}'", sq(join(v.names, " ")));
    case ValueCompletion::Kind::list_of: return fmt::format("_causal_list '{}'", sq(join(v.names, " ")));
    case ValueCompletion::Kind::file: return "_causal_files";
  }
  return {};
}

constexpr const char* kBashHelpers = R"SH(# With or without the bash-completion package (whose _filedir, when loaded, completes file
# names). Bash splits `--format=json` and `k=v` at '=' (COMP_WORDBREAKS): the helpers take a
# lone '=' or ':' word as joining the words either side.

# Offers those of the words $1 that begin with $cur (after $eq, the '=' of --option=).
_causal_words() {
  local IFS=$' \t\n'
  COMPREPLY=($(compgen -P "$eq" -W "$1" -- "$cur"))
}

# Offers the last item of a comma-separated list of the words $1, each of which may be
# prefixed with '-'.
_causal_list() {
  local item=${cur##*,} words=$1 w
  local head=${cur%"$item"}
  if [[ $item == -* ]]; then
    words=
    for w in $1; do words+=" -$w"; done
  fi
  local IFS=$' \t\n'
  COMPREPLY=($(compgen -P "$eq$head" -W "$words" -- "$item"))
}

_causal_files() {
  if declare -F _filedir >/dev/null; then
    _filedir
  else
    compopt -o filenames 2>/dev/null
    local IFS=$'\n'
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
  [[ $eq ]] && COMPREPLY=("${COMPREPLY[@]/#/=}")
}

# True when one of the options "$@" is on the line before the word being completed.
_causal_given() {
  local w o
  for w in "${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
    for o; do [[ $w == "$o" ]] && return 0; done
  done
  return 1
}

# Offers the options: the words before '--' always (they may be given again), each group of
# aliases after it (such as '-g --group') only while none of them has been given.
_causal_options() {
  local words= g
  while [[ $# -gt 0 && $1 != -- ]]; do words+=" $1"; shift; done
  shift
  for g; do
    # shellcheck disable=SC2086  # a group is its aliases, one per word
    _causal_given $g || words+=" $g"
  done
  _causal_words "$words"
}

# Sets nargs to the number of arguments (neither options nor their values) between the
# subcommand, word $sub_at, and the word being completed; "$@" are the options that take a
# value.
_causal_nargs() {
  local i w o
  nargs=0
  for ((i = sub_at + 1; i < COMP_CWORD; i++)); do
    w=${COMP_WORDS[i]}
    case $w in
      = | :) ((i++)) ;;
      -*)
        for o; do
          if [[ $w == "$o" ]]; then
            [[ ${COMP_WORDS[i + 1]} == = ]] && ((i++))
            ((i++))
            break
          fi
        done
        ;;
      *) ((nargs++)) ;;
    esac
  done
}

)SH";

std::string bash_command(const CommandInfo& c) {
  std::string s = fmt::format("    {})\n", c.name);
  // The options that take a value, by what completes it ("" for any text: nothing).
  std::vector<std::pair<std::string, std::vector<std::string>>> by_action;
  for (const auto& o : c.options) {
    if (!o.takes_value) continue;
    const std::string action = o.values ? bash_value(*o.values) + "; " : std::string();
    auto it = std::find_if(by_action.begin(), by_action.end(), [&](const auto& a) { return a.first == action; });
    if (it == by_action.end()) it = by_action.insert(by_action.end(), {action, {}});
    it->second.insert(it->second.end(), o.flags.begin(), o.flags.end());
  }
  std::stable_partition(by_action.begin(), by_action.end(), [](const auto& a) { return !a.first.empty(); });
  if (!by_action.empty()) {
    s += "      case $prev in\n";
    for (const auto& [action, flags] : by_action) s += fmt::format("        {}) {}return ;;\n", join(flags, "|"), action);
    s += "      esac\n";
  }
  s += "      [[ $eq ]] && return\n";

  std::vector<std::string> again, once;
  for (const auto& o : c.options) {
    if (o.repeatable) {
      again.insert(again.end(), o.flags.begin(), o.flags.end());
    } else {
      once.push_back(fmt::format("'{}'", join(o.flags, " ")));
    }
  }
  std::string options = "_causal_options";
  for (const auto& a : again) options += " " + a;
  options += " --";
  for (const auto& g : once) options += " " + g;

  if (!has_positional_values(c)) {
    s += fmt::format("      [[ $cur == -* ]] && {} ;;\n", options);
    return s;
  }
  s += fmt::format("      if [[ $cur == -* ]]; then\n        {}\n      else\n", options);
  std::string nargs = "_causal_nargs";
  for (const auto& f : valued_flags(c)) nargs += " " + f;
  s += fmt::format("        {}\n        case $nargs in\n", nargs);
  for (std::size_t i = 0; i < c.positionals.size(); ++i) {
    const auto& p = c.positionals[i];
    const std::string pattern = p.many ? "*" : std::to_string(i);
    if (p.values) s += fmt::format("          {}) {} ;;\n", pattern, bash_value(*p.values));
    if (p.many) break;
  }
  s += "        esac\n      fi ;;\n";
  return s;
}

std::string bash_script(const Tree& tree) {
  std::string s = "# bash completion for causal. Generated by `causal completions bash`; do not edit.\n";
  s += kBashHelpers;
  std::vector<std::string> names, root_flags;
  for (const auto& c : tree.commands) names.push_back(c.name);
  for (const auto& o : tree.root_options) root_flags.insert(root_flags.end(), o.flags.begin(), o.flags.end());
  s += R"SH(_causal() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} eq= sub= sub_at=0 nargs i
  if [[ $cur == = && $prev == --* ]]; then
    eq='=' cur=  # --option=<TAB>
  elif [[ $prev == = && ${COMP_WORDS[COMP_CWORD-2]} == --* ]]; then
    prev=${COMP_WORDS[COMP_CWORD-2]}  # --option=value<TAB>
  fi
  for ((i = 1; i < COMP_CWORD; i++)); do
    if [[ ${COMP_WORDS[i]} != -* ]]; then
      sub=${COMP_WORDS[i]} sub_at=$i
      break
    fi
  done
  case $sub in
)SH";
  s += fmt::format(
      "    '')\n"
      "      if [[ $eq ]]; then return; fi\n"
      "      if [[ $cur == -* ]]; then _causal_words '{}'; else _causal_words '{}'; fi ;;\n",
      join(root_flags, " "), join(names, " "));
  for (const auto& c : tree.commands) s += bash_command(c);
  s += "  esac\n}\ncomplete -F _causal causal\n";
  return s;
}

// ---- zsh -----------------------------------------------------------------------------

// For the text between the brackets of an _arguments spec, or after the ':' of a _describe
// item: both inside a single-quoted word.
std::string zsh_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '[' || c == ']' || c == ':' || c == '\\') out += '\\';
    if (c == '\'') {
      out += "'\\''";
      continue;
    }
    out += c;
  }
  return out;
}

// What follows an option spec, or is a positional's spec after its number: ':what:action'.
// Any text completes to nothing; a positional then only names itself (_guard), so that a
// word that starts with '-' still completes to an option.
std::string zsh_action(const std::optional<ValueCompletion>& v, const std::string& what, bool positional) {
  if (!v) return positional ? fmt::format(":{0}:_guard \"^-*\" {0}", what) : fmt::format(":{}: ", what);
  switch (v->kind) {
    case ValueCompletion::Kind::one_of: return fmt::format(":{}:({})", what, join(v->names, " "));
    case ValueCompletion::Kind::list_of: return fmt::format(":{}:_causal_list -- {}", what, join(v->names, " "));
    case ValueCompletion::Kind::file: return ":file:_files";
  }
  return {};
}

// One _arguments spec per option: '*' when it may be given again, else the (a b) of its
// aliases, which _arguments then stops offering together.
std::string zsh_option_specs(const OptionInfo& o, const std::string& exclusions, const std::string& indent) {
  std::string prefix;
  if (!exclusions.empty()) {
    prefix = exclusions;
  } else if (o.repeatable) {
    prefix = "*";
  } else if (o.flags.size() > 1) {
    prefix = "(" + join(o.flags, " ") + ")";
  }
  const std::string action = o.takes_value ? zsh_action(o.values, "value", false) : std::string();
  std::string s;
  for (const auto& f : o.flags) {
    s += fmt::format("{}'{}{}[{}]{}' \\\n", indent, prefix, f, zsh_escape(o.description), action);
  }
  return s;
}

std::string zsh_script(const Tree& tree) {
  std::string s = "#compdef causal\n# zsh completion for causal. Generated by `causal completions zsh`; do not edit.\n";
  s += R"SH(
# The last item of a comma-separated list of the words after '--', each of which may be
# prefixed with '-'; _arguments puts compadd's options (-J, -X...) before the '--'.
_causal_list() {
  local -a opts=("${@[1,${@[(i)--]}-1]}") names=("${@[${@[(i)--]}+1,-1]}")
  compset -P '*,'
  compset -P '-'
  compadd "$opts[@]" -qS , -- "$names[@]"
}

_causal() {
  local curcontext=$curcontext state state_descr line ret=1
  typeset -A opt_args
  local -a subcommands
  subcommands=(
)SH";
  for (const auto& c : tree.commands) {
    s += fmt::format("    '{}:{}'\n", c.name, zsh_escape(c.description));
  }
  s += "  )\n  _arguments -C \\\n";
  for (const auto& o : tree.root_options) s += zsh_option_specs(o, "(- : *)", "    ");
  s += R"SH(    ': :->subcommand' \
    '*:: :->argument' && ret=0
  case $state in
    subcommand)
      _describe -t subcommands subcommand subcommands && ret=0
      ;;
    argument)
      curcontext=${curcontext%:*:*}:causal-$words[1]:
      case $words[1] in
)SH";
  for (const auto& c : tree.commands) {
    s += fmt::format("        {})\n          _arguments \\\n", c.name);
    for (const auto& o : c.options) s += zsh_option_specs(o, "", "            ");
    for (std::size_t i = 0; i < c.positionals.size(); ++i) {
      const auto& p = c.positionals[i];
      s += fmt::format("            '{}{}' \\\n", p.many ? std::string("*") : std::to_string(i + 1),
                       zsh_action(p.values, p.name, true));
      if (p.many) break;
    }
    s += "            && ret=0\n          ;;\n";
  }
  s += R"SH(      esac
      ;;
  esac
  return ret
}

_causal "$@"
)SH";
  return s;
}

// ---- fish ----------------------------------------------------------------------------

constexpr const char* kFishHelpers = R"SH(complete -c causal -f

# True when the subcommand (the word after causal) is $argv[1]; without an argument, when
# there is none yet.
function __causal_sub
    set -l tokens (commandline -opc)
    if set -q argv[1]
        test "$tokens[2]" = "$argv[1]"
    else
        not set -q tokens[2]
    end
end

# True unless one of the options $argv[2..] is on the line before the cursor; when $argv[1]
# is 'value', the word just before the cursor is left aside (its value is being completed).
function __causal_once
    set -l tokens (commandline -opc)
    test "$argv[1]" = value; and set -e tokens[-1]
    for t in $tokens[3..-1]
        contains -- (string replace -r -- '=.*' '' $t) $argv[2..-1]; and return 1
    end
    return 0
end

# The number of arguments (neither options nor their values) after the subcommand, before the
# cursor; $argv are the subcommand's options that take a value.
function __causal_nargs
    set -l tokens (commandline -opc)
    set -l n 0
    set -l skip 0
    for t in $tokens[3..-1]
        if test $skip = 1
            set skip 0
        else if contains -- $t $argv
            set skip 1
        else if not string match -q -- '-*' $t
            set n (math $n + 1)
        end
    end
    echo $n
end

# The last item of a comma-separated list of $argv, each of which may be prefixed with '-'.
# (Quoted: an empty command substitution is no word at all, and would empty "$head$name".)
function __causal_list
    set -l token (commandline -ct | string replace -r -- '^--[^=]*=' '')
    set -l item (string replace -r -- '^.*,' '' "$token")
    set -l head (string replace -r -- '[^,]*$' '' "$token")
    set -l sign ''
    string match -q -- '-*' "$item"; and set sign -
    for name in $argv
        echo "$head$sign$name"
    end
end

)SH";

// The candidates of a value: the words themselves, or file names (-F).
std::string fish_value(const ValueCompletion& v) {
  switch (v.kind) {
    case ValueCompletion::Kind::one_of: return fmt::format(" -a '{}'", sq(join(v.names, " ")));
    case ValueCompletion::Kind::list_of: return fmt::format(" -a '(__causal_list {})'", sq(join(v.names, " ")));
    case ValueCompletion::Kind::file: return " -F";
  }
  return {};
}

std::string fish_script(const Tree& tree) {
  std::string s = "# fish completion for causal. Generated by `causal completions fish`; do not edit.\n";
  s += kFishHelpers;
  for (const auto& o : tree.root_options) {
    std::string line = "complete -c causal -n __causal_sub";
    for (const auto& f : o.flags) line += f.starts_with("--") ? " -l " + f.substr(2) : " -s " + f.substr(1);
    s += line + fmt::format(" -d '{}'\n", sq(o.description));
  }
  for (const auto& c : tree.commands) {
    s += fmt::format("complete -c causal -n __causal_sub -a {} -d '{}'\n", c.name, sq(c.description));
  }
  for (const auto& c : tree.commands) {
    const std::string sub = "__causal_sub " + c.name;
    for (const auto& o : c.options) {
      std::string cond = sub;
      if (!o.repeatable) cond += fmt::format("; and __causal_once {} {}", o.takes_value ? "value" : "flag", join(o.flags, " "));
      std::string line = fmt::format("complete -c causal -n '{}'", cond);
      for (const auto& f : o.flags) line += f.starts_with("--") ? " -l " + f.substr(2) : " -s " + f.substr(1);
      // -x: takes a value, no file names; -r: takes a value (-F then offers file names).
      if (o.takes_value) {
        const bool files = o.values && o.values->kind == ValueCompletion::Kind::file;
        line += (files ? " -r" : " -x") + (o.values ? fish_value(*o.values) : std::string());
      }
      s += line + fmt::format(" -d '{}'\n", sq(o.description));
    }
    std::string nargs = "__causal_nargs";
    for (const auto& f : valued_flags(c)) nargs += " " + f;
    for (std::size_t i = 0; i < c.positionals.size(); ++i) {
      const auto& p = c.positionals[i];
      if (p.values) {
        s += fmt::format("complete -c causal -n '{}; and test ({}) -{} {}'{}\n", sub, nargs, p.many ? "ge" : "eq", i,
                         fish_value(*p.values));
      }
      if (p.many) break;
    }
  }
  return s;
}

// The shells, by the name `causal completions` takes.
struct Shell {
  const char* name;
  std::string (*script)(const Tree&);
};
constexpr Shell kShells[] = {{"bash", bash_script}, {"fish", fish_script}, {"zsh", zsh_script}};

}  // namespace

void setup_completions(CLI::App& sub, Outcome& result) {
  static std::string shell;
  std::vector<std::string> shells;
  for (const auto& s : kShells) shells.emplace_back(s.name);
  one_of(sub.add_option("shell", shell, "Shell to generate for")->required(), shells);
  sub.footer(
      "Examples:\n"
      "  causal completions bash > ~/.local/share/bash-completion/completions/causal\n"
      "  causal completions zsh > ~/.zfunc/_causal     # with fpath+=(~/.zfunc) before compinit in ~/.zshrc\n"
      "  causal completions fish > ~/.config/fish/completions/causal.fish");
  sub.callback([&sub, &result] {
    const CLI::App& root = *sub.get_parent();
    const Tree tree = command_tree(root);
    for (const auto& s : kShells) {
      if (shell == s.name) {
        const std::string script = s.script(tree);
        std::fwrite(script.data(), 1, script.size(), stdout);
      }
    }
    result = {};
  });
}

}  // namespace causal::cli
