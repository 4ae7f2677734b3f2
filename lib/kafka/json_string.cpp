// JSON string literals: see causal/kafka/json_string.hpp.
#include "causal/kafka/json_string.hpp"

#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace causal::kafka {

namespace {
// The length (2..4) of the strict UTF-8 sequence starting at p, whose first byte is
// >= 0x80, or 0 when it is invalid: a bad lead byte, a truncated or bad continuation, an
// overlong form, a surrogate, or a code point above U+10FFFF.
inline int utf8_sequence(const unsigned char* p, const unsigned char* end) {
  const unsigned c = *p;
  int n;
  unsigned cp;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 1;
    cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 2;
    cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 3;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (end - p <= n) return 0;
  for (int i = 1; i <= n; ++i) {
    const unsigned cc = p[i];
    if ((cc & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3F);
  }
  if (n == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) return 0;
  if (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)) return 0;
  return n + 1;
}
}  // namespace

bool valid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    // Fast path: 8 ASCII bytes at a time.
    while (end - p >= 8) {
      std::uint64_t w;
      __builtin_memcpy(&w, p, 8);
      if (w & 0x8080808080808080ULL) break;
      p += 8;
    }
    if (p >= end) break;
    unsigned c = *p;
    if (c < 0x80) {
      ++p;
      continue;
    }
    const int len = utf8_sequence(p, end);
    if (len == 0) return false;
    p += len;
  }
  return true;
}

void append_json_string(fmt::memory_buffer& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  const char* run = s.data();
  const char* end = s.data() + s.size();
  for (const char* p = run; p < end; ++p) {
    auto c = static_cast<unsigned char>(*p);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(run, p);
    run = p + 1;
    switch (c) {
      case '"': out.append(std::string_view("\\\"")); break;
      case '\\': out.append(std::string_view("\\\\")); break;
      case '\n': out.append(std::string_view("\\n")); break;
      case '\r': out.append(std::string_view("\\r")); break;
      case '\t': out.append(std::string_view("\\t")); break;
      case '\b': out.append(std::string_view("\\b")); break;
      case '\f': out.append(std::string_view("\\f")); break;
      default: {
        char u[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
        out.append(u, u + 6);
      }
    }
  }
  out.append(run, end);
  out.push_back('"');
}

char* write_json_string_utf8(char* out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  *out++ = '"';
  for (;;) {
#if defined(__SSE2__)
    // 16 bytes at a time while none needs a look: no control character, '"', '\\' or
    // non-ASCII byte. The store may run ahead of what is kept; json_string_max leaves room
    // (at least 16 bytes of input remain, each worth 6 bytes of room).
    while (end - p >= 16) {
      __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out), x);
      __m128i ctrl = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x1f)), x);  // x <= 0x1f
      __m128i quote = _mm_cmpeq_epi8(x, _mm_set1_epi8('"'));
      __m128i bslash = _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'));
      // movemask also takes the top bit of x itself: the non-ASCII bytes.
      auto m = static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(ctrl, quote), _mm_or_si128(bslash, x))));
      if (m == 0) {
        p += 16;
        out += 16;
        continue;
      }
      auto k = static_cast<unsigned>(__builtin_ctz(m));
      p += k;
      out += k;
      break;
    }
#endif
    if (p >= end) break;
    unsigned c = *p;
    if (c < 0x80) {
      ++p;
      if (c >= 0x20 && c != '"' && c != '\\') {
        *out++ = static_cast<char>(c);
        continue;
      }
      *out++ = '\\';
      switch (c) {
        case '"': *out++ = '"'; break;
        case '\\': *out++ = '\\'; break;
        case '\n': *out++ = 'n'; break;
        case '\r': *out++ = 'r'; break;
        case '\t': *out++ = 't'; break;
        case '\b': *out++ = 'b'; break;
        case '\f': *out++ = 'f'; break;
        default:
          std::memcpy(out, "u00", 3);
          out[3] = kHex[c >> 4];
          out[4] = kHex[c & 15];
          out += 5;
      }
      continue;
    }
    // A multi-byte sequence: the same checks as valid_utf8, then copied as is.
    const int len = utf8_sequence(p, end);
    if (len == 0) return nullptr;
    std::memcpy(out, p, static_cast<std::size_t>(len));
    out += len;
    p += len;
  }
  *out++ = '"';
  return out;
}

}  // namespace causal::kafka
