// fuzz_decode: libFuzzer target for the causal.clock decoder.
//
// Contract checked on every input: decode never crashes, never reads out of bounds (ASan),
// gives exactly what the general decoder alone gives (decode_general: same clock, or same
// error code and position), and when it accepts an input, encode(decode(x)) == x byte for
// byte (canonical), and the decoded clock round-trips through JSON. A violation aborts, which libFuzzer reports with
// the input saved as a crash-* file.
//
// Extra feedback: besides the compiler's comparison tracing, the target bumps a counter
// in libFuzzer's "extra counters" section for (error code, error position), so inputs
// that reach a new error at a new byte count as new coverage (see fuzz/CMakeLists.txt for
// why the build cannot use clang's -fsanitize=fuzzer edge coverage).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "causal/codec.hpp"

#if defined(__linux__)
__attribute__((section("__libfuzzer_extra_counters"), used)) static std::uint8_t g_feedback[14 * 64 + 256];
#else
static std::uint8_t g_feedback[14 * 64 + 256];
#endif

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace causal;
  static Names names;  // shared across inputs, like a long-running consumer's
  static Clock out;
  // Fresh names now and then, so that interned garbage does not grow without bound.
  if (names.channel_count() > 50000 || names.sender_count() > 50000) names = Names{};
  auto bytes = std::span(reinterpret_cast<const std::byte*>(data), size);
  auto r = decode(bytes, names, out);
  // decode() tries a fast path first; it must give exactly what the general decoder gives.
  static Clock general;
  auto g = decode_general(bytes, names, general);
  if (r.has_value() != g.has_value() || (r && !(out == general)) ||
      (!r && (r.error().code != g.error().code || r.error().at != g.error().at))) {
    std::fprintf(stderr, "decode and decode_general disagree\n");
    std::abort();
  }
  if (!r) {
    auto code = static_cast<std::size_t>(r.error().code);
    g_feedback[code * 64 + (r.error().at < 63 ? r.error().at : 63)]++;
    if (r.error().at > size) {
      std::fprintf(stderr, "error position %zu beyond input size %zu\n", r.error().at, size);
      std::abort();
    }
    if (r.error().detail.starts_with("internal error")) {
      // decode's fast pass rejected what its diagnosing pass accepted: the two disagree.
      std::fprintf(stderr, "%s\n", r.error().detail.c_str());
      std::abort();
    }
    if (!out.empty() || out.origin) {
      std::fprintf(stderr, "decode failed but left a partial clock\n");
      std::abort();
    }
    return 0;
  }
  g_feedback[14 * 64 + (out.offsets().size() + 8 * out.seqs().size()) % 256]++;
  auto again = encode(out, names);
  if (again.size() != size || !std::equal(again.begin(), again.end(), bytes.begin())) {
    std::fprintf(stderr, "encode(decode(x)) != x (input %zu bytes, re-encoded %zu)\n", size, again.size());
    std::abort();
  }
  auto via_json = clock_from_json(clock_to_json(out, names), names);
  if (!via_json || !(*via_json == out)) {
    std::fprintf(stderr, "JSON round trip changed the clock\n");
    std::abort();
  }
  return 0;
}
