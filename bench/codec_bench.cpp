// codec_bench: decode and encode throughput of causal.clock headers, side by side with
// baselines measured in the same run (the general decoder alone, without decode()'s fast
// path; a plain copy of the same bytes; parsing the same clock from JSON with nlohmann),
// and encoded sizes of typical clocks beside the size of the same clock as protocol.md's
// JSON.
//
// Usage: codec_bench [seconds-per-measurement]   (default 0.5)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "causal/codec.hpp"

using namespace causal;
using Clock_ = std::chrono::steady_clock;

namespace {

double g_seconds = 0.5;
volatile std::size_t g_sink = 0;  // keeps results observable so the work is not elided

// Runs `op` in batches for g_seconds, split into kRounds rounds; returns the median
// round's operations per second. The median, not the best: other tenants of a shared
// machine only ever slow a round down, but a figure quoted against a goal should be a
// typical round, not a lucky one. The spread is kept for the decode rows.
constexpr int kRounds = 5;
struct Rate {
  double median = 0;
  double low = 0;
  double high = 0;
};
template <class Op>
Rate rate(Op op) {
  for (int i = 0; i < 1000; ++i) op();  // warm up (interning, capacity)
  std::vector<double> rounds;
  for (int k = 0; k < kRounds; ++k) {
    std::size_t n = 0;
    auto start = Clock_::now();
    std::chrono::duration<double> elapsed{};
    do {
      for (int i = 0; i < 4096; ++i) op();
      n += 4096;
      elapsed = Clock_::now() - start;
    } while (elapsed.count() < g_seconds / kRounds);
    rounds.push_back(static_cast<double>(n) / elapsed.count());
  }
  std::sort(rounds.begin(), rounds.end());
  return {rounds[kRounds / 2], rounds.front(), rounds.back()};
}

Clock eight_claims(Names& names) {
  Clock c;
  c.claim(names.channel("orders", 0), 1041);
  c.claim(names.channel("orders", 1), 998);
  c.claim(names.channel("orders", 3), 1207);
  c.claim(names.channel("orders", 7), 1533);
  c.claim(names.channel("payments", 0), 88210);
  c.claim(names.channel("payments", 1), 90017);
  c.claim(names.channel("payments", 2), 87654);
  c.claim(names.channel("payments", 5), 91002);
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) g_seconds = std::atof(argv[1]);
  Names names;
  const Clock eight = eight_claims(names);
  const std::vector<std::byte> header = encode(eight, names);
  const std::string json_text = clock_to_json(eight, names).dump();

  fmt::print("causal.clock codec, one core, {:.1f} s per measurement\n\n", g_seconds);
  fmt::print("8 offset claims over 2 topics: {} bytes on the wire, {} bytes as JSON\n\n", header.size(),
             json_text.size());

  // decode: the hot path of every consumed record. Its names are interned after the
  // first call, as in a consumer, so decode() takes its fast path; the general decoder
  // alone (what every header would cost without the fast path) is measured beside it.
  Clock out;
  const Rate decode_rate = rate([&] {
    auto r = decode(header, names, out);
    g_sink = g_sink + (r ? out.offsets().size() : 0);
  });
  const Rate general_rate = rate([&] {
    auto r = decode_general(header, names, out);
    g_sink = g_sink + (r ? out.offsets().size() : 0);
  });
  // baseline 1: copying the same bytes into a reused buffer (a lower bound on any decoder).
  std::vector<std::byte> copy(header.size());
  const double memcpy_rate = rate([&] {
                               std::memcpy(copy.data(), header.data(), header.size());
                               g_sink = g_sink + static_cast<std::size_t>(copy[header.size() / 2]);
                             }).median;
  // baseline 2: the same clock parsed from JSON (what a JSON header would cost).
  const double json_rate = rate([&] {
                             auto c = clock_from_json(nlohmann::json::parse(json_text), names);
                             g_sink = g_sink + (c ? c->offsets().size() : 0);
                           }).median;
  std::vector<std::byte> enc;
  const double encode_rate = rate([&] {
                               enc.clear();
                               encode(eight, names, enc);
                               g_sink = g_sink + enc.size();
                             }).median;
  const double json_encode_rate = rate([&] {
                                    auto s = clock_to_json(eight, names).dump();
                                    g_sink = g_sink + s.size();
                                  }).median;

  fmt::print("{:<44} {:>14} {:>12}\n", "operation (8 claims / 2 topics)", "per second", "ns each");
  auto row = [](std::string_view what, double r) {
    fmt::print("{:<44} {:>14.0f} {:>12.1f}\n", what, r, 1e9 / r);
  };
  row("decode (binary, reused Clock)", decode_rate.median);
  row("baseline: general decoder alone", general_rate.median);
  row("baseline: memcpy of the same bytes", memcpy_rate);
  row("baseline: clock_from_json(json::parse)", json_rate);
  row("encode (binary, reused buffer)", encode_rate);
  row("baseline: clock_to_json().dump()", json_encode_rate);
  fmt::print("\ndecode: median of {} rounds; the rounds ranged {:.0f}..{:.0f}/s\n", kRounds, decode_rate.low,
             decode_rate.high);
  fmt::print(
      "decode is {:.2f}x the general decoder alone, {:.1f}x faster than JSON parsing, {:.1f}x slower than "
      "memcpy\n",
      decode_rate.median / general_rate.median, decode_rate.median / json_rate,
      memcpy_rate / decode_rate.median);
  fmt::print("target >= 10,000,000 decodes/s (median round): {}\n\n",
             decode_rate.median >= 1e7 ? "met" : "NOT met");

  // Sizes of typical clocks.
  struct Case {
    std::string name;
    Clock clock;
  };
  std::vector<Case> cases;
  cases.push_back({"empty", Clock{}});
  {
    Clock c;
    c.origin = Origin{names.sender("billing-7f3a"), 42};
    cases.push_back({"origin only", c});
  }
  {
    Clock c;
    c.origin = Origin{names.sender("billing-7f3a"), 42};
    c.claim(names.channel("orders", 3), 1041);
    cases.push_back({"origin + 1 claim", c});
  }
  cases.push_back({"8 claims / 2 topics", eight});
  {
    Clock c = eight;
    c.origin = Origin{names.sender("billing-7f3a"), 1234567};
    c.claim_seq(names.channel("shipments", 4), names.sender("billing-7f3a"), 1234566);
    cases.push_back({"8 claims + origin + 1 seq claim", c});
  }
  {
    Clock c;
    c.origin = Origin{names.sender("billing-7f3a"), 1234567};
    const char* topics[] = {"orders",  "payments", "shipments", "invoices",
                            "refunds", "carts",    "stock",     "audit"};
    for (int t = 0; t < 8; ++t) {
      for (int p = 0; p < 8; ++p) c.claim(names.channel(topics[t], p), 2'000'000 + 37 * t + 1013 * p);
    }
    cases.push_back({"64 claims / 8 topics + origin", c});
    for (int t = 0; t < 4; ++t) {
      c.claim_seq(names.channel(topics[t], t), names.sender("billing-7f3a"), 1234560 + t);
    }
    c.claim_seq(names.channel("orders", 0), names.sender("cart-19c2"), 99);
    cases.push_back({"64 claims / 8 topics + origin + 5 seq", c});
  }
  fmt::print("{:<40} {:>8} {:>8} {:>8}\n", "clock", "binary", "JSON", "ratio");
  for (const auto& c : cases) {
    auto b = encode(c.clock, names).size();
    auto j = clock_to_json(c.clock, names).dump().size();
    fmt::print("{:<40} {:>8} {:>8} {:>7.1f}x\n", c.name, b, j,
               static_cast<double>(j) / static_cast<double>(b));
  }
  // Decode rate of the largest clock, for scale.
  auto big = encode(cases.back().clock, names);
  const Rate big_rate = rate([&] {
    auto r = decode(big, names, out);
    g_sink = g_sink + (r ? out.offsets().size() : 0);
  });
  fmt::print("\ndecode of the 64+5-claim clock: {:.0f}/s ({:.1f} ns)\n", big_rate.median,
             1e9 / big_rate.median);
  return 0;
}
