// kcat -J lines: see kcat_json.hpp.
#include "kcat_json.hpp"

#include <cctype>
#include <cstring>

#include <fmt/core.h>

namespace causal::cli {

namespace {

class KcatParser {
 public:
  explicit KcatParser(std::string_view s) : s_(s) {}

  std::expected<KcatRecord, std::string> record() {
    KcatRecord rec;
    ws();
    if (!eat('{')) return fail("expected a JSON object");
    ws();
    if (eat('}')) return rec;
    while (true) {
      ws();
      std::string key;
      if (!string(key)) return fail("expected a field name");
      ws();
      if (!eat(':')) return fail("expected ':'");
      ws();
      if (key == "topic") {
        std::string t;
        if (!string(t)) return fail("\"topic\" is not a string");
        rec.topic = t;
      } else if (key == "partition" || key == "offset") {
        std::int64_t v = 0;
        if (!integer(v)) return fail(fmt::format("\"{}\" is not an integer", key));
        (key == "partition" ? rec.partition : rec.offset) = v;
      } else if (key == "headers") {
        rec.has_headers = true;
        if (!eat('[')) return fail("\"headers\" is not an array");
        ws();
        if (!eat(']')) {
          while (true) {
            ws();
            if (literal("null")) {
              rec.headers.emplace_back(std::nullopt);
            } else {
              std::string v;
              if (!string(v)) return fail("a \"headers\" element is not a string or null");
              rec.headers.emplace_back(std::move(v));
            }
            ws();
            if (eat(']')) break;
            if (!eat(',')) return fail("expected ',' or ']' in \"headers\"");
          }
        }
        // kcat -J writes name, value pairs: an odd count is not its output (a name whose
        // value went missing would otherwise be dropped unseen).
        if (rec.headers.size() % 2 != 0) return fail("\"headers\" holds an odd number of elements (kcat -J writes name, value pairs)");
      } else if (!skip_value()) {
        return fail(fmt::format("cannot read the value of \"{}\"", key));
      }
      ws();
      if (eat('}')) break;
      if (!eat(',')) return fail("expected ',' or '}'");
    }
    ws();
    if (i_ != s_.size()) return fail("text after the JSON object");
    return rec;
  }

 private:
  std::unexpected<std::string> fail(std::string what) const {
    return std::unexpected(fmt::format("{} at column {}", what, i_ + 1));
  }
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\r' || s_[i_] == '\n')) ++i_;
  }
  bool eat(char c) {
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  bool literal(std::string_view w) {
    if (s_.substr(i_, w.size()) == w) {
      i_ += w.size();
      return true;
    }
    return false;
  }
  bool integer(std::int64_t& v) {
    std::size_t start = i_;
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    if (i_ == start) return false;
    try {
      v = std::stoll(std::string(s_.substr(start, i_ - start)));
    } catch (...) {
      return false;
    }
    return true;
  }
  static void put_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  bool hex4(std::uint32_t& v) {
    if (i_ + 4 > s_.size()) return false;
    v = 0;
    for (int k = 0; k < 4; ++k) {
      char c = s_[i_++];
      int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
              : (c >= 'a' && c <= 'f')                    ? c - 'a' + 10
              : (c >= 'A' && c <= 'F')                    ? c - 'A' + 10
                                                          : -1;
      if (d < 0) return false;
      v = v * 16 + static_cast<std::uint32_t>(d);
    }
    return true;
  }
  bool string(std::string& out) {
    if (!eat('"')) return false;
    while (i_ < s_.size()) {
      char c = s_[i_++];
      if (c == '"') return true;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= s_.size()) return false;
      char e = s_[i_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          std::uint32_t cp = 0;
          if (!hex4(cp)) return false;
          if (cp < 0x100) {
            out += static_cast<char>(cp);  // kcat's escape of one raw byte
          } else if (cp >= 0xD800 && cp <= 0xDBFF && s_.substr(i_, 2) == "\\u") {
            i_ += 2;
            std::uint32_t lo = 0;
            if (!hex4(lo) || lo < 0xDC00 || lo > 0xDFFF) return false;
            put_utf8(out, 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00));
          } else {
            put_utf8(out, cp);
          }
          break;
        }
        default: return false;
      }
    }
    return false;
  }
  bool skip_value(int depth = 0) {
    if (depth > 64) return false;
    ws();
    if (i_ >= s_.size()) return false;
    char c = s_[i_];
    if (c == '"') {
      std::string ignored;
      return string(ignored);
    }
    if (c == '{' || c == '[') {
      char close = c == '{' ? '}' : ']';
      ++i_;
      ws();
      if (eat(close)) return true;
      while (true) {
        ws();
        if (c == '{') {
          std::string k;
          if (!string(k)) return false;
          ws();
          if (!eat(':')) return false;
        }
        if (!skip_value(depth + 1)) return false;
        ws();
        if (eat(close)) return true;
        if (!eat(',')) return false;
      }
    }
    if (literal("null") || literal("true") || literal("false")) return true;
    std::size_t start = i_;
    while (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || std::strchr("+-.eE", s_[i_]))) ++i_;
    return i_ > start;
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

}  // namespace

std::expected<KcatRecord, std::string> parse_kcat_line(std::string_view line) { return KcatParser(line).record(); }

}  // namespace causal::cli
