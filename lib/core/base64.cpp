// Base64: see causal/base64.hpp.
#include "causal/base64.hpp"

#include <array>
#include <cstdint>

namespace causal {

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// The value of each character in `alphabet`, or -1.
constexpr std::array<std::int8_t, 256> values(Base64Alphabet alphabet) {
  std::array<std::int8_t, 256> t{};
  t.fill(-1);
  for (int i = 0; i < 64; ++i) t[static_cast<unsigned char>(kAlphabet[i])] = static_cast<std::int8_t>(i);
  if (alphabet == Base64Alphabet::standard_or_url) {
    t['-'] = 62;
    t['_'] = 63;
  }
  return t;
}
constexpr auto kStandard = values(Base64Alphabet::standard);
constexpr auto kStandardOrUrl = values(Base64Alphabet::standard_or_url);

}  // namespace

char* write_base64(char* out, std::string_view bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t n = bytes.size();
  std::size_t i = 0;
  for (; i + 3 <= n; i += 3) {
    std::uint32_t v = (std::uint32_t{p[i]} << 16) | (std::uint32_t{p[i + 1]} << 8) | p[i + 2];
    out[0] = kAlphabet[v >> 18];
    out[1] = kAlphabet[(v >> 12) & 63];
    out[2] = kAlphabet[(v >> 6) & 63];
    out[3] = kAlphabet[v & 63];
    out += 4;
  }
  if (n - i == 1) {
    std::uint32_t v = std::uint32_t{p[i]} << 16;
    out[0] = kAlphabet[v >> 18];
    out[1] = kAlphabet[(v >> 12) & 63];
    out[2] = out[3] = '=';
    out += 4;
  } else if (n - i == 2) {
    std::uint32_t v = (std::uint32_t{p[i]} << 16) | (std::uint32_t{p[i + 1]} << 8);
    out[0] = kAlphabet[v >> 18];
    out[1] = kAlphabet[(v >> 12) & 63];
    out[2] = kAlphabet[(v >> 6) & 63];
    out[3] = '=';
    out += 4;
  }
  return out;
}

std::string base64(std::string_view bytes) {
  std::string out(base64_size(bytes.size()), '\0');
  write_base64(out.data(), bytes);
  return out;
}

std::size_t base64_decode_into(std::string_view text, std::string& out, Base64Alphabet alphabet) {
  const auto& value = alphabet == Base64Alphabet::standard ? kStandard : kStandardOrUrl;
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  out.resize(text.size() * 3 / 4);
  char* o = out.data();
  std::uint32_t acc = 0;
  int bits = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const int v = value[static_cast<unsigned char>(text[i])];
    if (v < 0) return i;
    acc = (acc << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      *o++ = static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  if (text.size() % 4 == 1) return text.size();
  out.resize(static_cast<std::size_t>(o - out.data()));
  return kBase64Decoded;
}

std::optional<std::string> base64_decode_canonical(std::string_view text) {
  std::string out;
  if (text.size() % 4 != 0 || base64_decode_into(text, out) != kBase64Decoded) return std::nullopt;
  // Canonical: what base64() writes for these bytes (padding where due and nowhere else,
  // unused bits zero).
  if (base64(out) != text) return std::nullopt;
  return out;
}

}  // namespace causal
