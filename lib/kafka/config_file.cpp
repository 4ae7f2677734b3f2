#include "causal/kafka/config_file.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/core.h>

#include "causal/excerpt.hpp"

namespace causal::kafka {

namespace {

bool valid_section_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) return false;
  }
  return true;
}

}  // namespace

const std::vector<ConfigEntry>* ConfigFile::section(const std::string& name) const {
  for (const auto& [n, entries] : sections) {
    if (n == name) return &entries;
  }
  return nullptr;
}

bool holds_secret(std::string_view key) {
  std::string lower(key);  // any case: a misspelt "Sasl.Password" still holds one
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower.ends_with(".location") || lower.find("keytab") != std::string::npos) return false;
  for (std::string_view word :
       {"password", "passwd", "secret", "sasl.jaas", "token", "credentials", "ssl.key.pem", "ssl_key"}) {
    if (lower.find(word) != std::string::npos) return true;
  }
  return false;
}

std::string config_file_path() {
  if (const char* env = std::getenv("CAUSAL_CONFIG"); env && *env) return env;
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.config/causal/causal.conf";
  return {};
}

std::expected<ConfigFile, Error> parse_config_file(const std::string& path, const std::string& text) {
  ConfigFile file;
  file.path = path;
  std::vector<ConfigEntry>* into = &file.global;
  std::istringstream in(text);
  std::string raw;
  for (int lineno = 1; std::getline(in, raw); ++lineno) {
    std::string_view line = trim_blanks(raw);
    if (line.empty() || line.front() == '#') continue;
    if (line.front() == '[') {
      std::string_view name = line.back() == ']' ? trim_blanks(line.substr(1, line.size() - 2)) : std::string_view{};
      if (!valid_section_name(name)) {
        return std::unexpected(
            // The line is not shown: a mistyped one may hold a secret ("[prod] sasl.password=...").
            usage_error(fmt::format("{}:{}: a line starting with '[' must be a section header [NAME] (NAME of "
                                    "[A-Za-z0-9._-], nothing else on the line)",
                                    path, lineno)));
      }
      into = nullptr;
      for (auto& [n, entries] : file.sections) {
        if (n == name) into = &entries;
      }
      if (!into) into = &file.sections.emplace_back(std::string(name), std::vector<ConfigEntry>{}).second;
      continue;
    }
    auto eq = line.find('=');
    std::string_view key = eq == std::string_view::npos ? std::string_view{} : trim_blanks(line.substr(0, eq));
    if (key.empty()) {
      // The line itself is not quoted: it may hold a secret that lost its '='.
      return std::unexpected(
          usage_error(fmt::format("{}:{}: expected key=value or [section]", path, lineno)));
    }
    into->push_back({std::string(key), std::string(trim_blanks(line.substr(eq + 1))), lineno});
  }
  return file;
}

std::expected<std::optional<ConfigFile>, Error> load_config_file() {
  const std::string path = config_file_path();
  if (path.empty()) return std::nullopt;
  const bool named = std::getenv("CAUSAL_CONFIG") && *std::getenv("CAUSAL_CONFIG");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (!named) return std::nullopt;
    return std::unexpected(usage_error(
        fmt::format("$CAUSAL_CONFIG names {}, which does not exist (unset it or create the file)", path)));
  }
  if (S_ISDIR(st.st_mode)) {
    return std::unexpected(usage_error(fmt::format(
        "the configuration file {} is a directory{}", path, named ? " ($CAUSAL_CONFIG names a file, not a directory)" : "")));
  }
  std::ifstream in(path);
  if (!in || !S_ISREG(st.st_mode)) {
    return std::unexpected(usage_error(fmt::format("cannot read the configuration file {}{}", path,
                                                   S_ISREG(st.st_mode) ? fmt::format(": {}", std::strerror(errno))
                                                                       : std::string(" (not a regular file)"))));
  }
  std::ostringstream text;
  text << in.rdbuf();
  auto file = parse_config_file(path, text.str());
  if (!file) return std::unexpected(file.error());
  // A secret in a file others can read is refused before anything uses it.
  if (st.st_mode & (S_IRGRP | S_IROTH)) {
    auto secret_in = [](const std::vector<ConfigEntry>& entries) -> const ConfigEntry* {
      for (const auto& e : entries) {
        if (holds_secret(e.key)) return &e;
      }
      return nullptr;
    };
    const ConfigEntry* secret = secret_in(file->global);
    for (const auto& s : file->sections) {
      if (!secret) secret = secret_in(s.second);
    }
    if (secret) {
      return std::unexpected(usage_error(
          fmt::format("{} is readable by group or others and holds {} (line {}); run: chmod 600 {}", path,
                      secret->key, secret->line, path)));
    }
  }
  return std::optional<ConfigFile>(std::move(*file));
}

std::string_view trim_blanks(std::string_view s) {
  auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  auto last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

}  // namespace causal::kafka
