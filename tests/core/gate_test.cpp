// The delivery gate, one scenario per rule of the seed pages and protocol.md. Test names
// use the seeds' names for the rules.
#include "causal/gate.hpp"

#include <catch2/catch.hpp>

#include <tuple>

#include <string>
#include <vector>

#include "causal/stamper.hpp"

using namespace causal;

namespace {

struct Seen {
  ChannelId channel;
  Offset offset;
  Release release;
  ChannelId by_channel;
  Offset by_offset;
};

// Records every delivery and lookup request, in order.
struct Recorder : GateObserver {
  std::vector<Seen> delivered_;
  std::vector<LookupRequest> lookups;
  std::vector<std::pair<ChannelId, Offset>> replays;
  void delivered(const Delivery& d) override {
    delivered_.push_back({d.channel, d.offset, d.release, d.released_by_channel, d.released_by_offset});
  }
  void needs_lookup(ChannelId ch, SenderId s, SeqNo q) override { lookups.push_back({ch, s, q}); }
  void replay_dropped(ChannelId ch, Offset o) override { replays.emplace_back(ch, o); }
  std::vector<std::tuple<ChannelId, Offset, std::uint64_t>> discards;
  void discarded(ChannelId ch, Offset o, std::uint64_t tag) override { discards.emplace_back(ch, o, tag); }

  std::vector<std::pair<ChannelId, Offset>> order() const {
    std::vector<std::pair<ChannelId, Offset>> out;
    for (const auto& s : delivered_) out.emplace_back(s.channel, s.offset);
    return out;
  }
  const Seen* find(ChannelId ch, Offset o) const {
    for (const auto& s : delivered_) {
      if (s.channel == ch && s.offset == o) return &s;
    }
    return nullptr;
  }
};

struct Fixture {
  Names names;
  Recorder rec;
  Gate gate{names, &rec};
  ChannelId A = names.channel("a", 0);
  ChannelId B = names.channel("b", 0);
  ChannelId C = names.channel("c", 0);

  Clock clock(std::initializer_list<OffsetClaim> claims) {
    Clock c;
    for (auto cl : claims) c.claim(cl.channel, cl.offset);
    return c;
  }
  std::uint64_t next_tag = 1;  // every received record gets its own tag
  bool receive(ChannelId ch, Offset o, Clock c = {}) { return gate.receive({ch, o, std::move(c), next_tag++}); }
};

using P = std::pair<ChannelId, Offset>;

}  // namespace

TEST_CASE_METHOD(Fixture, "cascade: one delivery releases a chain of held heads across three channels", "[gate]") {
  for (auto ch : {A, B, C}) gate.add_channel(ch, 0);
  receive(C, 0, clock({{B, 0}}));  // c waits on b
  receive(B, 0, clock({{A, 0}}));  // b waits on a
  CHECK(rec.delivered_.empty());
  CHECK(gate.held_count() == 2);

  receive(A, 0);
  REQUIRE(rec.order() == std::vector<P>{{A, 0}, {B, 0}, {C, 0}});
  CHECK(rec.find(A, 0)->release == Release::immediate);
  CHECK(rec.find(B, 0)->release == Release::frontier);
  CHECK(rec.find(B, 0)->by_channel == A);
  CHECK(rec.find(C, 0)->release == Release::frontier);
  CHECK(rec.find(C, 0)->by_channel == B);
  CHECK(gate.held_count() == 0);
  CHECK(gate.stats().cascades_multi == 1);
  CHECK(gate.stats().holds == 2);
}

TEST_CASE_METHOD(Fixture, "head-of-line blocking: a blocked head blocks its channel and no other", "[gate]") {
  for (auto ch : {A, B, C}) gate.add_channel(ch, 0);
  receive(A, 0, clock({{C, 0}}));
  receive(A, 1);  // no claims, but behind a held head
  receive(B, 0);  // another channel flows
  CHECK(rec.order() == std::vector<P>{{B, 0}});
  receive(C, 0);
  CHECK(rec.order() == std::vector<P>{{B, 0}, {C, 0}, {A, 0}, {A, 1}});
  CHECK(rec.find(A, 1)->release == Release::head_of_line);
}

TEST_CASE_METHOD(Fixture, "head gap fold-in: a skipped run behind a held head folds into the frontier", "[gate]") {
  for (auto ch : {A, B, C}) gate.add_channel(ch, 0);
  receive(A, 0, clock({{B, 0}}));  // held
  receive(A, 3, clock({{B, 9}}));  // arrives across a marker gap (1, 2): held behind a@0
  receive(C, 0, clock({{A, 2}}));  // claims an offset inside the gap
  CHECK(rec.delivered_.empty());

  receive(B, 0);  // releases a@0; a@3 becomes head: the gap 1..2 folds in
  CHECK(rec.order() == std::vector<P>{{B, 0}, {A, 0}, {C, 0}});
  CHECK(rec.find(C, 0)->release == Release::fold_in);
  CHECK(gate.frontier(A) == 2);
  CHECK(gate.held_count(A) == 1);  // a@3 itself still waits on b@9
  CHECK(gate.stats().head_fold_ins == 1);
}

TEST_CASE_METHOD(Fixture, "bridge at receive: a record arriving on an empty queue bridges the skipped offsets", "[gate]") {
  for (auto ch : {A, B}) gate.add_channel(ch, 0);
  receive(B, 0, clock({{A, 4}}));  // claims an offset that is a commit marker
  receive(A, 5);                   // 0..4 were markers or aborted: bridged at receive
  CHECK(rec.order() == std::vector<P>{{A, 5}, {B, 0}});
  CHECK(gate.frontier(A) == 5);
  CHECK(gate.stats().bridges_at_receive >= 1);
}

TEST_CASE_METHOD(Fixture, "position advance: a trailing skip is closed only by the consumer's position", "[gate]") {
  for (auto ch : {A, B}) gate.add_channel(ch, 0);
  receive(A, 0);
  // An end-offset seed taken after a commit: the sink's end is 2, the marker sits at 1.
  receive(B, 0, clock({{A, 1}}));
  CHECK(rec.order() == std::vector<P>{{A, 0}});  // nothing after the marker arrives

  gate.position_advance(A, 2);  // read_committed position moved past the marker
  CHECK(rec.order() == std::vector<P>{{A, 0}, {B, 0}});
  CHECK(rec.find(B, 0)->release == Release::position_advance);
  CHECK(gate.frontier(A) == 1);
  CHECK(gate.stats().position_advances == 1);
}

TEST_CASE_METHOD(Fixture, "position advance: a position reported while the head was held is applied when the queue empties",
                 "[gate]") {
  for (auto ch : {A, B, C}) gate.add_channel(ch, 0);
  receive(A, 0, clock({{C, 0}}));  // held
  gate.position_advance(A, 3);     // markers at 1 and 2; reported once (e.g. PARTITION_EOF)
  CHECK(gate.frontier(A) == -1);   // the head is undelivered: the frontier must stay below it
  receive(B, 0, clock({{A, 2}}));  // claims the trailing marker
  CHECK(rec.delivered_.empty());

  receive(C, 0);  // releases a@0; the queue empties; the remembered position applies
  CHECK(rec.order() == std::vector<P>{{C, 0}, {A, 0}, {B, 0}});
  CHECK(rec.find(B, 0)->release == Release::position_advance);
  CHECK(gate.frontier(A) == 2);
  CHECK(gate.stats().position_remembered == 1);
}

TEST_CASE_METHOD(Fixture, "replays: offsets at or below the frontier are dropped without effect", "[gate]") {
  gate.add_channel(A, 0);
  receive(A, 0);
  receive(A, 1);
  CHECK_FALSE(receive(A, 1));
  CHECK_FALSE(receive(A, 0));
  CHECK(rec.order() == std::vector<P>{{A, 0}, {A, 1}});
  CHECK(gate.stats().replays_dropped == 2);
  CHECK(rec.replays == std::vector<P>{{A, 1}, {A, 0}});

  SECTION("reassignment discards the queue; the replay guard drops the re-read prefix") {
    gate.add_channel(B, 0);
    receive(A, 2, clock({{B, 0}}));  // held
    receive(A, 3);                   // held behind it
    gate.reassign(A);                // re-read from offset 0
    CHECK(gate.held_count(A) == 0);
    CHECK(gate.held_count() == 0);
    // Each discarded record's tag comes back, head first, so a host can free its payload.
    REQUIRE(rec.discards.size() == 2);
    CHECK(std::get<1>(rec.discards[0]) == 2);
    CHECK(std::get<1>(rec.discards[1]) == 3);
    CHECK(std::get<0>(rec.discards[0]) == A);
    CHECK(std::get<2>(rec.discards[0]) != std::get<2>(rec.discards[1]));
    CHECK_FALSE(receive(A, 0));
    CHECK_FALSE(receive(A, 1));
    CHECK(receive(A, 2, clock({{B, 0}})));
    receive(B, 0);
    CHECK(rec.order() == std::vector<P>{{A, 0}, {A, 1}, {B, 0}, {A, 2}});
  }
}

TEST_CASE_METHOD(Fixture, "fail closed: an undecodable header stops its channel and nothing else", "[gate]") {
  for (auto ch : {A, B}) gate.add_channel(ch, 0);
  receive(A, 0, clock({{B, 0}}));  // held, below the bad record
  gate.fail_closed(A, 1);          // the record at a@1 has an undecodable causal.clock
  CHECK_FALSE(receive(A, 2));      // nothing after it on that channel is taken
  gate.position_advance(A, 10);    // nor does a position carry the frontier past it
  receive(B, 0);                   // other channels flow; a@0 (below the bad record) is delivered
  CHECK(rec.order() == std::vector<P>{{B, 0}, {A, 0}});
  CHECK(gate.frontier(A) == 0);
  REQUIRE(gate.failed_at(A) == 1);
  CHECK(gate.stats().failed_closed == 1);
}

TEST_CASE("the ignore branch: unconsumed claims are ignored, consumed ancestors behind them are still enforced",
          "[gate]") {
  // n1 consumes a and emits to b; n3 consumes b and emits to c; our node consumes a and c
  // but not b. The ancestor a@0 reaches c's clock through b's custody even though n3 never
  // consumed a.
  Names names;
  const ChannelId A = names.channel("a", 0), B = names.channel("b", 0), C = names.channel("c", 0);

  Gate n1(names);
  n1.add_channel(A, 0);
  Stamper s1(names.sender("n1"), Stamper::Mode::idempotent, &n1);
  n1.receive({A, 0, {}});
  Clock b_clock = s1.stamp_send(B);
  CHECK(b_clock.offset_of(A) == 0);

  Gate n3(names);
  n3.add_channel(B, 0);
  Stamper s3(names.sender("n3"), Stamper::Mode::idempotent, &n3);
  n3.receive({B, 0, b_clock});
  Clock c_clock = s3.stamp_send(C);
  CHECK(c_clock.offset_of(A) == 0);  // carried through the unconsumed hop by custody
  CHECK(c_clock.offset_of(B) == 0);

  Recorder rec;
  Gate ours(names, &rec);
  ours.add_channel(A, 0);
  ours.add_channel(C, 0);
  ours.receive({C, 0, c_clock});
  CHECK(rec.delivered_.empty());  // b@0 is ignored, a@0 is enforced
  REQUIRE(ours.unsatisfied(C).size() == 1);
  CHECK(ours.unsatisfied(C)[0] == Blocker{Blocker::Kind::offset, A, 0});
  ours.receive({A, 0, {}});
  CHECK(rec.order() == std::vector<P>{{A, 0}, {C, 0}});

  SECTION("a claim only on an unconsumed channel does not hold") {
    Clock only_b;
    only_b.claim(B, 7);
    ours.receive({C, 1, only_b});
    CHECK(rec.order().back() == P{C, 1});
  }
}

TEST_CASE_METHOD(Fixture, "normalise: claims on the record's own channel are ignored (self-cycles)", "[gate]") {
  gate.add_channel(A, 0);
  receive(A, 3, clock({{A, 5}}));  // at or above its own offset: a self-cycle
  receive(A, 4, clock({{A, 2}}));  // below it: FIFO already delivered it
  CHECK(rec.order() == std::vector<P>{{A, 3}, {A, 4}});
}

TEST_CASE_METHOD(Fixture, "sequence claims: resolved by delivering the claimed send, then normalised to offsets",
                 "[gate][stamper]") {
  for (auto ch : {A, B}) gate.add_channel(ch, 0);
  const SenderId S = names.sender("S");
  Clock relayed;
  relayed.claim_seq(A, S, 4);
  receive(B, 0, relayed);
  CHECK(rec.delivered_.empty());

  Clock send;
  send.origin = Origin{S, 4};
  receive(A, 0, send);
  CHECK(rec.order() == std::vector<P>{{A, 0}, {B, 0}});
  CHECK(rec.find(B, 0)->release == Release::seq_resolved);
  CHECK(gate.delivered_seq(A, S) == 4);
  CHECK(gate.stats().seq_claims_resolved == 1);

  // Normalised in this node's stamps: the frontier entry on a covers the send by offset.
  Stamper st(names.sender("me"), Stamper::Mode::idempotent, &gate);
  Clock out = st.stamp_send(C);
  CHECK(out.seqs().empty());
  CHECK(out.offset_of(A) == 0);

  SECTION("a sequence claim on a channel not consumed here passes through unchanged") {
    const ChannelId X = names.channel("x", 0);
    Clock far;
    far.claim_seq(X, S, 9);
    receive(B, 1, far);
    Clock out2 = st.stamp_send(C);
    REQUIRE(out2.seqs().size() == 1);
    CHECK(out2.seqs()[0] == SeqClaim{X, S, 9});
  }
}

TEST_CASE("concurrent transactions writing two partitions in opposite orders do not deadlock a consumer of both",
          "[gate][stamper]") {
  Names names;
  const ChannelId P0 = names.channel("t", 0), P1 = names.channel("t", 1);
  const SenderId S1 = names.sender("s1"), S2 = names.sender("s2");
  Stamper t1(S1, Stamper::Mode::transactional);
  Stamper t2(S2, Stamper::Mode::transactional);
  Clock t1_p0 = t1.stamp_send(P0);
  Clock t1_p1 = t1.stamp_send(P1);  // claims (P0, s1, 1): its own transaction's earlier send
  Clock t2_p1 = t2.stamp_send(P1);
  Clock t2_p0 = t2.stamp_send(P0);  // claims (P1, s2, 1)
  REQUIRE(t1_p1.seqs() == std::vector<SeqClaim>{{P0, S1, 1}});
  REQUIRE(t2_p0.seqs() == std::vector<SeqClaim>{{P1, S2, 1}});

  // Appended in the order that inverts both: p0 = [t2's second, t1's first], p1 = [t1's second, t2's first].
  Recorder rec;
  Gate gate(names, &rec);
  gate.add_channel(P0, 0);
  gate.add_channel(P1, 0);
  gate.receive({P0, 0, t2_p0});
  gate.receive({P0, 1, t1_p0});
  gate.receive({P1, 0, t1_p1});
  gate.receive({P1, 1, t2_p1});
  CHECK(rec.delivered_.size() == 4);
  CHECK(gate.held_count() == 0);
}

TEST_CASE("resolution state saved and restored across a restart resolves a relayed claim below the committed position",
          "[gate]") {
  Names names;
  const ChannelId A = names.channel("a", 0), B = names.channel("b", 0);
  const SenderId S = names.sender("S");
  Gate before(names);
  before.add_channel(A, 0);
  before.add_channel(B, 0);
  Clock send;
  send.origin = Origin{S, 1};
  before.receive({A, 0, send});
  const auto saved = before.resolution_state();  // committed with positions a=1, b=0
  REQUIRE(saved == std::vector<ResolutionEntry>{{A, S, 1}});

  Clock relayed;
  relayed.claim_seq(A, S, 1);

  // The restart: the same channels from the committed positions, the state restored.
  Recorder rec;
  Gate after(names, &rec);
  after.add_channel(A, 1);
  after.add_channel(B, 0);
  after.restore_resolution_state(saved);

  SECTION("restored: delivered at once") {
    after.receive({B, 0, relayed});
    CHECK(rec.order() == std::vector<P>{{B, 0}});
  }
  SECTION("restored entries are not presence: a later claim of the same sender still asks for a lookup") {
    Clock later;
    later.claim_seq(A, S, 3);  // S's send 3 may sit below the new baseline too
    after.receive({B, 0, later});
    CHECK(rec.delivered_.empty());
    CHECK(after.pending_lookups() == std::vector<LookupRequest>{{A, S, 3}});
  }
  SECTION("not restored: held, and reported as needing a lookup") {
    Recorder unrestored_rec;
    Gate unrestored(names, &unrestored_rec);
    unrestored.add_channel(A, 1);
    unrestored.add_channel(B, 0);
    unrestored.receive({B, 0, relayed});
    CHECK(unrestored_rec.delivered_.empty());
    CHECK(unrestored.pending_lookups() == std::vector<LookupRequest>{{A, S, 1}});
  }
}

TEST_CASE_METHOD(Fixture, "lookups: a frozen sequence claim below the baseline is satisfied once located", "[gate]") {
  gate.add_channel(A, 10);  // a late joiner baselined at 10
  gate.add_channel(B, 0);
  const SenderId S = names.sender("S");
  Clock relayed;
  relayed.claim_seq(A, S, 3);
  receive(B, 0, relayed);
  CHECK(rec.delivered_.empty());
  REQUIRE(rec.lookups == std::vector<LookupRequest>{{A, S, 3}});
  const auto pending = gate.pending_lookups();
  REQUIRE(pending == std::vector<LookupRequest>{{A, S, 3}});

  SECTION("located below the baseline: satisfied") {
    gate.answer_lookup(pending[0], 7);
    CHECK(rec.order() == std::vector<P>{{B, 0}});
    CHECK(rec.find(B, 0)->release == Release::lookup);
    CHECK(gate.stats().lookups_resolved == 1);
  }
  SECTION("located at or above the baseline: it will arrive; no longer pending") {
    gate.answer_lookup(pending[0], 12);
    CHECK(rec.delivered_.empty());
    CHECK(gate.pending_lookups().empty());
    Clock send;
    send.origin = Origin{S, 3};
    receive(A, 12, send);
    CHECK(rec.order() == std::vector<P>{{A, 12}, {B, 0}});
  }
  SECTION("a sender with a delivered post-baseline record needs no lookup") {
    Clock send;
    send.origin = Origin{S, 2};
    receive(A, 10, send);
    CHECK(gate.pending_lookups().empty());
  }
}

TEST_CASE_METHOD(Fixture, "scope growth: a channel added while running is enforced from then on", "[gate]") {
  gate.add_channel(A, 0);
  gate.add_channel(C, 0);
  receive(A, 0, clock({{B, 1}, {C, 0}}));  // held on c@0; b is not consumed yet
  gate.add_channel(B, 0);                  // scope growth: the head is evaluated again
  CHECK(gate.stats().scope_growths == 1);
  receive(C, 0);
  CHECK(rec.order() == std::vector<P>{{C, 0}});  // now it waits on b@1 too
  receive(B, 0);
  receive(B, 1);
  CHECK(rec.order() == std::vector<P>{{C, 0}, {B, 0}, {B, 1}, {A, 0}});
}

TEST_CASE_METHOD(Fixture, "baseline: the frontier is seeded to baseline - 1 and claims below it are satisfied", "[gate]") {
  gate.add_channel(A, 100);
  gate.add_channel(B, 0);
  CHECK(gate.frontier(A) == 99);
  receive(B, 0, clock({{A, 99}}));
  CHECK(rec.order() == std::vector<P>{{B, 0}});
  CHECK_FALSE(receive(A, 50));  // below the baseline: a replay
}

TEST_CASE("end-offset seeds: a restarted node's stamps claim everything its sinks held at init", "[gate][stamper]") {
  Names names;
  const ChannelId K = names.channel("k", 0), B = names.channel("b", 0);
  Stamper restarted(names.sender("n-2"), Stamper::Mode::idempotent);
  restarted.seed(K, 10);  // the sink's end offset at init
  Clock c = restarted.stamp_send(B);
  CHECK(c.offset_of(K) == 9);

  Recorder rec;
  Gate gate(names, &rec);
  gate.add_channel(K, 0);
  gate.add_channel(B, 0);
  gate.receive({B, 0, c});
  for (Offset o = 0; o < 9; ++o) gate.receive({K, o, {}});
  CHECK(rec.delivered_.size() == 9);  // b@0 still waits on k@9
  gate.receive({K, 9, {}});
  CHECK(rec.order().back() == P{B, 0});
}

TEST_CASE_METHOD(Fixture, "snapshot inspection: unsatisfied lists every blocking claim of the head", "[gate]") {
  for (auto ch : {A, B}) gate.add_channel(ch, 0);
  const SenderId S = names.sender("S");
  Clock c = clock({{A, 3}, {C, 8}});
  c.claim_seq(A, S, 2);
  receive(B, 0, c);
  auto u = gate.unsatisfied(B);
  REQUIRE(u.size() == 2);  // c is outside the scope
  CHECK(u[0] == Blocker{Blocker::Kind::offset, A, 3});
  CHECK(u[1] == Blocker{Blocker::Kind::seq, A, kNoOffset, S, 2});
  REQUIRE(gate.head(B));
  CHECK(gate.head(B)->offset == 0);
}

TEST_CASE("custody across a restart: the restatement is committed, restored and stamped again", "[gate][stamper]") {
  // A node consumes a/0 and c/0, not k/0. It delivers x on c/0 claiming k/0@4 (unconsumed),
  // a/0@0 (consumed: kept, the next owner of c/0 may not consume a/0), c/0@0 (its own
  // channel: dropped, c/0's committed position covers it), a resolved sequence claim on a/0
  // (replaced by an offset claim on a/0's frontier) and an unresolved one on k/0 (kept).
  Names names;
  const ChannelId A = names.channel("a", 0), C = names.channel("c", 0), K = names.channel("k", 0);
  const SenderId S = names.sender("S"), T = names.sender("T");
  Gate before(names);
  before.add_channel(A, 0);
  before.add_channel(C, 0);
  Clock s1;
  s1.origin = Origin{S, 1};
  before.receive({A, 0, s1});
  Clock x;
  x.claim(K, 4);
  x.claim(A, 0);
  x.claim(C, 0);
  x.claim_seq(A, S, 1);
  x.claim_seq(K, T, 2);
  before.receive({C, 1, x});
  REQUIRE(before.frontier(C) == 1);  // delivered

  const Clock restated = before.custody_restatement(C);
  CHECK(restated.offset_of(K) == 4);
  CHECK(restated.offset_of(A) == 0);
  CHECK(restated.offset_of(C) == kNoOffset);
  REQUIRE(restated.seqs().size() == 1);
  CHECK(restated.seqs()[0] == SeqClaim{K, T, 2});
  CHECK_FALSE(restated.origin);

  // The restart: a new gate from the committed positions, custody restored; its stamper's
  // every stamp carries the restated claims, and so does its next restatement.
  Gate after(names);
  after.add_channel(A, 1);
  after.add_channel(C, 2);
  CHECK_THROWS_AS(after.restore_custody(K, restated), std::logic_error);
  after.restore_custody(C, restated);
  Stamper stamper(names.sender("n-2"), Stamper::Mode::idempotent, &after);
  const Clock y = stamper.stamp_send(names.channel("out", 0));
  CHECK(y.offset_of(K) == 4);
  REQUIRE(y.seqs().size() == 1);
  CHECK(y.seqs()[0] == SeqClaim{K, T, 2});
  CHECK(after.custody_restatement(C).offset_of(K) == 4);

  // Without the restoration, nothing names k/0.
  Gate empty(names);
  empty.add_channel(A, 1);
  empty.add_channel(C, 2);
  Stamper forgetful(names.sender("n-3"), Stamper::Mode::idempotent, &empty);
  CHECK(forgetful.stamp_send(names.channel("out", 0)).offset_of(K) == kNoOffset);
}
