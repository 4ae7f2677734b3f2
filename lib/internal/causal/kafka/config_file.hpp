// The configuration file, as kcat users know theirs: librdkafka properties as key=value
// lines, with a section per cluster that --cluster NAME selects.
//
// Where: $CAUSAL_CONFIG when set and not empty (then the file must exist), else
// $HOME/.config/causal/causal.conf (when it does not exist, there is no file).
//
// Format (man/causal-config.5 documents it):
//   # comment                   blank lines and lines starting with '#' are skipped
//   key = value                 before any section header: applies to every cluster
//   [NAME]                      starts section NAME ([A-Za-z0-9._-]+); a name may appear twice,
//                               its lines then add up
//   key = value                 in a section: applies only with --cluster NAME
// Spaces around the key and around the value are dropped; the value is the rest of the line
// after the first '=' (it may hold '=' and '#').
//
// Secrets: a file holding a secret property (see holds_secret) must not be readable by group
// or others, or it is refused with the chmod that fixes it.
#pragma once

#include <expected>
#include <optional>
#include <string>
#include <vector>

#include "causal/error.hpp"

namespace causal::kafka {

struct ConfigEntry {
  std::string key;
  std::string value;
  int line = 0;  // 1-based, for messages
};

struct ConfigFile {
  std::string path;
  std::vector<ConfigEntry> global;  // the lines before any section header
  std::vector<std::pair<std::string, std::vector<ConfigEntry>>> sections;  // in file order

  // The entries of section `name`, or null.
  const std::vector<ConfigEntry>* section(const std::string& name) const;
};

// $CAUSAL_CONFIG, else $HOME/.config/causal/causal.conf ("" when neither is known).
std::string config_file_path();

// Parses `text` as the file at `path` (no permission check). Errors name path:line.
std::expected<ConfigFile, Error> parse_config_file(const std::string& path, const std::string& text);

// Finds, checks and parses the configuration file: nullopt when there is none (the default
// path does not exist). Usage errors: $CAUSAL_CONFIG names a missing or unreadable file, a
// line is malformed, the file holds a secret and is readable by group or others.
std::expected<std::optional<ConfigFile>, Error> load_config_file();

// `s` without the spaces, tabs and carriage returns around it: what the configuration file
// and -F files drop around a key and a value.
std::string_view trim_blanks(std::string_view s);

// True for a property whose value is a secret to keep out of readable files: the name holds
// "password", "secret", "sasl.jaas", "token" or "credentials", or is an inline key
// ("ssl.key.pem", "ssl_key"). Paths (*.location, keytabs) are not secrets.
bool holds_secret(std::string_view key);

}  // namespace causal::kafka
