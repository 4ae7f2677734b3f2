// Tests of clock.cpp: claims keep the max, join is the pointwise max, dominates, and
// normalize() after bulk appends restores the sorted, one-per-coordinate invariant.
#include <catch2/catch.hpp>

#include <map>
#include <random>

#include "causal/clock.hpp"

using namespace causal;

namespace {
bool sorted_unique(const Clock& c) {
  for (std::size_t i = 1; i < c.offsets().size(); ++i) {
    if (!(c.offsets()[i - 1].channel < c.offsets()[i].channel)) return false;
  }
  for (std::size_t i = 1; i < c.seqs().size(); ++i) {
    const auto& a = c.seqs()[i - 1];
    const auto& b = c.seqs()[i];
    if (!(a.channel < b.channel || (a.channel == b.channel && a.sender < b.sender))) return false;
  }
  return true;
}
}  // namespace

TEST_CASE("claim keeps the max per coordinate and stays sorted", "[clock]") {
  Clock c;
  c.claim(5, 10);
  c.claim(2, 7);
  c.claim(5, 3);   // lower: ignored
  c.claim(9, 0);
  c.claim(2, 8);   // higher: raises
  REQUIRE(c.offsets().size() == 3);
  CHECK(c.offsets()[0] == OffsetClaim{2, 8});
  CHECK(c.offsets()[1] == OffsetClaim{5, 10});
  CHECK(c.offsets()[2] == OffsetClaim{9, 0});
  CHECK(c.offset_of(5) == 10);
  CHECK(c.offset_of(6) == kNoOffset);

  c.claim_seq(1, 4, 7);
  c.claim_seq(1, 2, 3);
  c.claim_seq(1, 4, 5);  // lower
  c.claim_seq(0, 9, 1);
  REQUIRE(c.seqs().size() == 3);
  CHECK(c.seqs()[0] == SeqClaim{0, 9, 1});
  CHECK(c.seqs()[1] == SeqClaim{1, 2, 3});
  CHECK(c.seqs()[2] == SeqClaim{1, 4, 7});
  CHECK_FALSE(c.empty());
}

TEST_CASE("join is the pointwise max and ignores the other origin", "[clock]") {
  Clock a, b;
  a.origin = Origin{1, 5};
  a.claim(1, 10);
  a.claim(3, 4);
  a.claim_seq(2, 1, 9);
  b.origin = Origin{2, 6};
  b.claim(1, 12);
  b.claim(2, 1);
  b.claim_seq(2, 1, 3);
  b.claim_seq(2, 0, 1);
  a.join(b);
  CHECK(a.origin == Origin{1, 5});
  REQUIRE(a.offsets().size() == 3);
  CHECK(a.offset_of(1) == 12);
  CHECK(a.offset_of(2) == 1);
  CHECK(a.offset_of(3) == 4);
  REQUIRE(a.seqs().size() == 2);
  CHECK(a.seqs()[0] == SeqClaim{2, 0, 1});
  CHECK(a.seqs()[1] == SeqClaim{2, 1, 9});
  CHECK(a.dominates(b));
  CHECK_FALSE(b.dominates(a));
}

TEST_CASE("dominates", "[clock]") {
  Clock empty, a, b;
  CHECK(empty.dominates(empty));
  a.claim(1, 5);
  CHECK(a.dominates(empty));
  CHECK_FALSE(empty.dominates(a));
  b.claim(1, 5);
  CHECK(a.dominates(b));
  b.claim(1, 6);
  CHECK_FALSE(a.dominates(b));   // lower offset on the same channel
  b = Clock{};
  b.claim(2, 0);
  CHECK_FALSE(a.dominates(b));   // channel missing
  b = Clock{};
  b.claim_seq(1, 1, 2);
  a.claim_seq(1, 1, 1);
  CHECK_FALSE(a.dominates(b));   // lower send number
  a.claim_seq(1, 1, 2);
  CHECK(a.dominates(b));
  b.claim_seq(1, 2, 1);
  CHECK_FALSE(a.dominates(b));   // other sender on the same channel
  // The origin takes no part.
  Clock o;
  o.origin = Origin{0, 1};
  CHECK(empty.dominates(o));
}

TEST_CASE("normalize merges duplicates by max and sorts", "[clock]") {
  Clock c;
  c.append_unsorted(OffsetClaim{4, 1});
  c.append_unsorted(OffsetClaim{1, 9});
  c.append_unsorted(OffsetClaim{4, 7});
  c.append_unsorted(OffsetClaim{4, 3});
  c.append_unsorted(SeqClaim{3, 2, 5});
  c.append_unsorted(SeqClaim{3, 1, 8});
  c.append_unsorted(SeqClaim{3, 2, 6});
  c.append_unsorted(SeqClaim{0, 2, 1});
  c.normalize();
  REQUIRE(c.offsets().size() == 2);
  CHECK(c.offsets()[0] == OffsetClaim{1, 9});
  CHECK(c.offsets()[1] == OffsetClaim{4, 7});
  REQUIRE(c.seqs().size() == 3);
  CHECK(c.seqs()[0] == SeqClaim{0, 2, 1});
  CHECK(c.seqs()[1] == SeqClaim{3, 1, 8});
  CHECK(c.seqs()[2] == SeqClaim{3, 2, 6});
}

TEST_CASE("random clocks: normalize agrees with claim, join with a reference", "[clock][property]") {
  std::mt19937_64 rng(20240611);
  for (int round = 0; round < 500; ++round) {
    Clock via_claim, via_append, other;
    std::map<ChannelId, Offset> ref_off;
    std::map<std::pair<ChannelId, SenderId>, SeqNo> ref_seq;
    int n = static_cast<int>(rng() % 20);
    for (int i = 0; i < n; ++i) {
      ChannelId ch = rng() % 6;
      Offset o = static_cast<Offset>(rng() % 100);
      SenderId s = rng() % 3;
      SeqNo q = 1 + rng() % 50;
      if (rng() % 2) {
        via_claim.claim(ch, o);
        via_append.append_unsorted(OffsetClaim{ch, o});
        ref_off[ch] = std::max(ref_off[ch], o);
      } else {
        via_claim.claim_seq(ch, s, q);
        via_append.append_unsorted(SeqClaim{ch, s, q});
        ref_seq[{ch, s}] = std::max(ref_seq[{ch, s}], q);
      }
      if (rng() % 3 == 0) other.claim(rng() % 6, static_cast<Offset>(rng() % 100));
      if (rng() % 3 == 0) other.claim_seq(rng() % 6, rng() % 3, 1 + rng() % 50);
    }
    via_append.normalize();
    CHECK(via_append == via_claim);
    CHECK(sorted_unique(via_claim));
    CHECK(via_claim.offsets().size() == ref_off.size());
    for (auto [ch, o] : ref_off) CHECK(via_claim.offset_of(ch) == o);

    Clock joined = via_claim;
    joined.join(other);
    CHECK(sorted_unique(joined));
    CHECK(joined.dominates(via_claim));
    CHECK(joined.dominates(other));
    // The join is the least upper bound: it claims nothing beyond the two.
    for (const auto& c : joined.offsets()) {
      CHECK(c.offset == std::max(via_claim.offset_of(c.channel), other.offset_of(c.channel)));
    }
    Clock rev = other;
    rev.join(via_claim);
    CHECK(rev.offsets() == joined.offsets());
    CHECK(rev.seqs() == joined.seqs());
  }
}

// What a decoder appends: ascending runs (one per topic block) in an order of their own.
// normalize() merges up to 16 runs and sorts anything with more; both must agree with a
// reference, duplicates across runs included.
TEST_CASE("normalize sorts clocks made of ascending runs, merged or not", "[clock][property]") {
  std::mt19937_64 rng(0x5EED);
  int few_runs = 0, many_runs = 0;  // at most 16 runs, or more (some of which may join up)
  for (int round = 0; round < 2000; ++round) {
    const int runs = 1 + static_cast<int>(rng() % 24);
    (runs <= 16 ? few_runs : many_runs)++;
    Clock c;
    std::map<ChannelId, Offset> ref;
    for (int r = 0; r < runs; ++r) {
      // A run: ascending ids from a random base, some gaps, possibly overlapping others.
      ChannelId ch = static_cast<ChannelId>(rng() % 200);
      const int len = 1 + static_cast<int>(rng() % 10);
      for (int i = 0; i < len; ++i) {
        const auto o = static_cast<Offset>(rng() % 1000);
        c.append_unsorted(OffsetClaim{ch, o});
        ref[ch] = std::max(ref.contains(ch) ? ref[ch] : kNoOffset, o);
        ch += 1 + static_cast<ChannelId>(rng() % 3);
      }
    }
    c.normalize();
    INFO("round " << round << " runs " << runs);
    REQUIRE(c.offsets().size() == ref.size());
    std::size_t i = 0;
    for (auto [ch, o] : ref) {
      CHECK(c.offsets()[i].channel == ch);
      CHECK(c.offsets()[i].offset == o);
      ++i;
    }
  }
  CHECK(few_runs > 1000);
  CHECK(many_runs > 300);
}

TEST_CASE("drop_seqs_if and clear", "[clock]") {
  Clock c;
  c.origin = Origin{1, 1};
  c.claim(0, 1);
  c.claim_seq(0, 1, 4);
  c.claim_seq(1, 1, 9);
  c.drop_seqs_if([](const SeqClaim& s) { return s.seq < 5; });
  REQUIRE(c.seqs().size() == 1);
  CHECK(c.seqs()[0].channel == 1);
  c.clear();
  CHECK(c.empty());
  CHECK_FALSE(c.origin);
}
