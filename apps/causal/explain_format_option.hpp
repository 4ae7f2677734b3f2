// --format for causal explain and causal baseline.
//
// Why not common.hpp's add_format_option: as of 76a7c30 its callback captures the
// std::initializer_list of choices by value, which does not copy the list's backing
// array; the array is gone when the callback runs, so --format is silently ignored.
// This keeps the choices in a vector the callback owns. Drop it once common.cpp does so.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "common.hpp"

namespace causal::cli {

inline void add_owned_format_option(CLI::App& sub, Format& f, std::vector<Format> choices, Format deflt) {
  std::vector<std::string> names;
  for (Format c : choices) names.emplace_back(to_string(c));
  f = deflt;
  std::string help = "Output format: ";
  for (std::size_t i = 0; i < names.size(); ++i) help += (i ? "|" : "") + names[i];
  help += " (default " + std::string(to_string(deflt)) + ")";
  sub.add_option_function<std::string>(
         "--format",
         [&f, choices = std::move(choices)](const std::string& v) {
           const std::string lower = CLI::detail::to_lower(v);
           for (Format c : choices) {
             if (lower == to_string(c)) f = c;
           }
         },
         help)
      ->check(CLI::IsMember(names, CLI::ignore_case))
      ->type_name("FORMAT");
}

}  // namespace causal::cli
