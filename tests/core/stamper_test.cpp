// The stamper: the four parts of a stamp (protocol.md, "The stamp").
#include "causal/stamper.hpp"

#include <catch2/catch.hpp>

using namespace causal;

TEST_CASE("stamp: origin numbers every send of a sender from 1, over all sinks", "[stamper]") {
  Names names;
  const ChannelId K = names.channel("k", 0), L = names.channel("l", 0);
  Stamper s(names.sender("me"), Stamper::Mode::idempotent);
  CHECK(s.stamp_send(K).origin == Origin{names.sender("me"), 1});
  CHECK(s.stamp_send(L).origin == Origin{names.sender("me"), 2});
  CHECK(s.stamp_send(K).origin == Origin{names.sender("me"), 3});
  CHECK(s.last_seq() == 3);
}

TEST_CASE("stamp: an idempotent sender claims acknowledged sends only", "[stamper]") {
  Names names;
  const ChannelId K = names.channel("k", 0), L = names.channel("l", 0);
  Stamper s(names.sender("me"), Stamper::Mode::idempotent);
  s.stamp_send(K);
  Clock second = s.stamp_send(L);
  CHECK(second.offset_of(K) == kNoOffset);  // send 1 not acknowledged yet
  CHECK(second.seqs().empty());             // and never claimed by sequence number
  s.acknowledged(K, 1, 41);
  CHECK(s.stamp_send(L).offset_of(K) == 41);
}

TEST_CASE("stamp: a transactional sender claims in-flight sends by sequence, acknowledged ones by offset", "[stamper]") {
  Names names;
  const ChannelId K = names.channel("k", 0), L = names.channel("l", 0);
  const SenderId me = names.sender("me");
  Stamper s(me, Stamper::Mode::transactional);
  s.stamp_send(K);  // 1
  s.stamp_send(K);  // 2
  Clock third = s.stamp_send(L);
  REQUIRE(third.seqs() == std::vector<SeqClaim>{{K, me, 2}});  // the latest in-flight send to k
  CHECK_THROWS_AS(s.transaction_ended(), std::logic_error);   // commit must flush first

  s.acknowledged(K, 1, 10);
  s.acknowledged(K, 2, 11);
  s.acknowledged(L, 3, 0);
  s.transaction_ended();
  // Next transaction: the acknowledged offsets are kept across transactions.
  Clock next = s.stamp_send(L);
  CHECK(next.seqs().empty());
  CHECK(next.offset_of(K) == 11);
  CHECK(next.offset_of(L) == 0);
}

TEST_CASE("stamp: frontier and custody of every consumed channel are joined in", "[stamper]") {
  Names names;
  const ChannelId A = names.channel("a", 0), X = names.channel("x", 0), K = names.channel("k", 0);
  Gate gate(names);
  gate.add_channel(A, 5);  // frontier seeded to 4
  Clock in;
  in.claim(X, 77);  // custody: folded at receive even though x is not consumed
  gate.receive({A, 5, in});
  Stamper s(names.sender("me"), Stamper::Mode::idempotent, &gate);
  Clock out = s.stamp_send(K);
  CHECK(out.offset_of(A) == 5);
  CHECK(out.offset_of(X) == 77);
}

TEST_CASE("stamp: the end-offset seed claims end - 1 of every sink, and nothing for an empty sink", "[stamper]") {
  Names names;
  const ChannelId K = names.channel("k", 0), E = names.channel("e", 0);
  Stamper s(names.sender("me"), Stamper::Mode::idempotent);
  s.seed(K, 3);
  s.seed(E, 0);
  Clock c = s.current_clock();
  CHECK(c.offset_of(K) == 2);
  CHECK(c.offset_of(E) == kNoOffset);
  CHECK_FALSE(c.origin.has_value());
}

TEST_CASE("stamp: a new gate (a member's new generation) is read from set_gate on, and carry keeps what the old one knew",
          "[stamper]") {
  Names names;
  const ChannelId A = names.channel("a", 0), B = names.channel("b", 0), K = names.channel("k", 0);
  Gate old_gate(names);
  old_gate.add_channel(A, 8);  // frontier a/0@7
  Gate new_gate(names);
  new_gate.add_channel(B, 3);  // frontier b/0@2
  Stamper s(names.sender("relay"), Stamper::Mode::transactional, &old_gate);
  CHECK(s.stamp_send(K).offset_of(A) == 7);
  s.acknowledged(K, 1, 0);
  // What a relay does at a generation change: carry the old clock, then read the new gate.
  s.carry(s.current_clock());
  s.set_gate(&new_gate);
  Clock next = s.stamp_send(K);
  CHECK(next.offset_of(A) == 7);  // carried: still claimed after the old gate is gone
  CHECK(next.offset_of(B) == 2);  // the new gate's frontier
  CHECK_FALSE(next.origin->seq == 0);
}

TEST_CASE("stamp: an abandoned transaction's unacknowledged sends are no longer claimed", "[stamper]") {
  Names names;
  const ChannelId K = names.channel("k", 0), L = names.channel("l", 0);
  const SenderId me = names.sender("me");
  Stamper s(me, Stamper::Mode::transactional);
  s.stamp_send(K);  // 1, never acknowledged: its delivery failed
  REQUIRE(s.unacknowledged() == 1);
  s.transaction_abandoned();
  CHECK(s.unacknowledged() == 0);
  CHECK_NOTHROW(s.transaction_ended());
  CHECK(s.stamp_send(L).seqs().empty());  // no sequence claim on the aborted send 1
}

TEST_CASE("stamp: a late report of an abandoned send is ignored, an unknown send's refused", "[stamper]") {
  Names names;
  const ChannelId K = names.channel("k", 0);
  Stamper s(names.sender("me"), Stamper::Mode::transactional);
  s.stamp_send(K);  // 1 and 2, forgotten before their reports are served (a fenced producer)
  s.stamp_send(K);
  s.transaction_abandoned();
  CHECK_NOTHROW(s.acknowledged(K, 2, 7));
  CHECK(s.stamp_send(K).offset_of(K) == kNoOffset);  // 3: the forgotten send is not claimed
  CHECK_THROWS_AS(s.acknowledged(K, 4, 8), std::logic_error);
  s.acknowledged(K, 3, 9);
  CHECK(s.stamp_send(K).offset_of(K) == 9);
}

// The stamper keeps what it read of the gate until the gate's version changes: every stamp
// must still be what a stamper reading the gate afresh takes, also one taken from inside a
// delivery, in the middle of a cascade that goes on raising frontiers after it.
TEST_CASE("stamp: what the stamper keeps of the gate follows every change, mid-cascade too", "[stamper]") {
  Names names;
  const ChannelId A = names.channel("a", 0), B = names.channel("b", 0), X = names.channel("x", 0);
  const SenderId me = names.sender("me"), src = names.sender("src");
  struct Check : GateObserver {
    Names* names = nullptr;
    Gate* gate = nullptr;
    Stamper* kept = nullptr;
    int checked = 0;
    void delivered(const Delivery&) override {
      Stamper fresh(names->sender("me"), Stamper::Mode::transactional, gate);
      CHECK(kept->current_clock() == fresh.current_clock());
      ++checked;
    }
  } check;
  Gate gate(names, &check);
  Stamper kept(me, Stamper::Mode::transactional, &gate);
  check.names = &names;
  check.gate = &gate;
  check.kept = &kept;
  gate.add_channel(A, 0);
  gate.add_channel(B, 0);
  const Clock before = kept.current_clock();
  // a/0..2 each claim the b record of the same number, by offset and by sequence; they are
  // held until b arrives, then released in one cascade.
  for (Offset i = 0; i < 3; ++i) {
    Clock c;
    c.claim(B, i);
    c.claim(X, 10 + i);
    c.claim_seq(B, src, static_cast<SeqNo>(i + 1));
    gate.receive({A, i, c});
  }
  CHECK(check.checked == 0);
  CHECK(kept.current_clock() == Stamper(me, Stamper::Mode::transactional, &gate).current_clock());
  for (Offset i = 0; i < 3; ++i) {
    Clock c;
    c.origin = Origin{src, static_cast<SeqNo>(i + 1)};
    gate.receive({B, i, c});
  }
  CHECK(check.checked == 6);
  gate.position_advance(A, 10);
  const Clock after = kept.current_clock();
  CHECK(after == Stamper(me, Stamper::Mode::transactional, &gate).current_clock());
  CHECK(after.offset_of(A) == 9);
  CHECK(after.offset_of(X) == 12);
  CHECK(after != before);
  // A new gate (a new generation) is read afresh.
  Gate next(names);
  next.add_channel(A, 20);
  kept.set_gate(&next);
  CHECK(kept.current_clock() == Stamper(me, Stamper::Mode::transactional, &next).current_clock());
}
