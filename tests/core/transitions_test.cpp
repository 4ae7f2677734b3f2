// The runtime's transitions of a stamper (causal/transitions.hpp; docs/protocol.md, "The
// relay's transitions").
#include "causal/transitions.hpp"

#include <catch2/catch.hpp>

using namespace causal;

namespace {
Received rcv(ChannelId ch, Offset o, Clock c = {}) { return Received{ch, o, std::move(c), 0, 0}; }
}  // namespace

TEST_CASE("new generation: the stamp still claims what the old gate delivered past the new one's baseline",
          "[transitions]") {
  Names names;
  const ChannelId X = names.channel("x", 0), Y = names.channel("y", 0), Z = names.channel("z", 0);
  auto old_gate = std::make_unique<Gate>(names);
  old_gate->add_channel(X, 0);
  Clock with_seq;
  with_seq.claim_seq(Z, names.sender("s"), 4);  // on a channel not consumed here: never resolved
  REQUIRE(old_gate->receive(rcv(X, 0)));
  REQUIRE(old_gate->receive(rcv(X, 1, with_seq)));
  Stamper st(names.sender("me"), Stamper::Mode::transactional, old_gate.get());
  // The rewind's new gate starts from the committed position 0: it knows nothing of x@0..1.
  auto new_gate = std::make_unique<Gate>(names);
  carry_into_generation(st, new_gate.get());
  old_gate.reset();  // the carry keeps no reference to the old gate
  new_gate->add_channel(X, 0);
  const Clock c = st.stamp_send(Y);
  CHECK(c.offset_of(X) == 1);
  CHECK(c.seqs() == std::vector<SeqClaim>{{Z, names.sender("s"), 4}});
}

TEST_CASE("fencing: the claims carried over drop the fenced sender's unacknowledged sends, and keep the rest",
          "[transitions]") {
  Names names;
  const ChannelId X = names.channel("x", 0), Y = names.channel("y", 0);
  const SenderId old_id = names.sender("old");
  Gate gate(names);
  gate.add_channel(X, 0);
  REQUIRE(gate.receive(rcv(X, 0)));
  Stamper fenced(old_id, Stamper::Mode::transactional, &gate);
  fenced.stamp_send(Y);          // 1, acknowledged at y@7
  fenced.acknowledged(Y, 1, 7);
  fenced.stamp_send(Y);          // 2, never acknowledged: Kafka aborts it with the fenced transaction
  REQUIRE(fenced.current_clock().seqs() == std::vector<SeqClaim>{{Y, old_id, 2}});
  const Clock claimed = claims_of_fenced(fenced);
  CHECK(claimed.seqs().empty());
  CHECK(claimed.offset_of(Y) == 7);
  CHECK(claimed.offset_of(X) == 0);
  Stamper fresh(names.sender("new"), Stamper::Mode::transactional);
  take_over(fresh, claimed, &gate);
  const Clock c = fresh.stamp_send(Y);
  CHECK(c.offset_of(Y) == 7);
  CHECK(c.offset_of(X) == 0);
  CHECK(c.seqs().empty());
}

TEST_CASE("queue tail: a held channel fetched again drops every record it already holds, the tail included",
          "[transitions]") {
  Names names;
  const ChannelId X = names.channel("x", 0), W = names.channel("w", 0);
  Gate gate(names);
  gate.add_channel(X, 0);
  gate.add_channel(W, 0);
  Clock waits;
  waits.claim(W, 0);
  REQUIRE(gate.receive(rcv(X, 0, waits)));  // held: w@0 not delivered
  REQUIRE(gate.receive(rcv(X, 1)));
  REQUIRE(gate.held_count(X) == 2);
  CHECK_FALSE(gate.receive(rcv(X, 0, waits)));
  CHECK_FALSE(gate.receive(rcv(X, 1)));  // the tail
  CHECK(gate.held_count(X) == 2);
  CHECK(gate.receive(rcv(X, 2)));
  CHECK(gate.held_count(X) == 3);
}
