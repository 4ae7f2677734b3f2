// Tests of the diagnosis (causal/diagnosis.hpp): hand-built snapshots for every verdict
// and for chains, cycles and remedies; then real gates driven into the late-joiner wedge.
// The remedies are data here; tests/cli_unit/explain_render_test.cpp checks the commands
// and the text and JSON forms the tool renders from them.
#include "causal/diagnosis.hpp"

#include <catch2/catch.hpp>

#include "causal/gate.hpp"
#include "causal/snapshot.hpp"
#include "snapshot_builders.hpp"

using namespace causal;
using namespace causal::test;

namespace {

ChannelFacts facts(std::string topic, int p, Offset lso, Offset log_end, bool caught_up = true) {
  ChannelFacts f;
  f.topic = std::move(topic);
  f.partition = p;
  f.log_start = 0;
  f.lso = lso;
  f.log_end = log_end;
  f.caught_up = caught_up;
  return f;
}

const ChannelDiagnosis& chan(const Diagnosis& d, const std::string& topic, int p) {
  for (const auto& c : d.channels) {
    if (c.topic == topic && c.partition == p) return c;
  }
  FAIL("no channel " << topic << "/" << p);
  throw;
}

const Root& root_of(const Diagnosis& d, const std::string& topic, int p, std::size_t claim = 0) {
  const auto& c = chan(d, topic, p);
  REQUIRE(c.claims.size() > claim);
  REQUIRE(c.claims[claim].root < d.roots.size());
  return d.roots[c.claims[claim].root];
}

}  // namespace

TEST_CASE("nothing held: not stuck and no roots", "[diagnosis]") {
  GateSnapshot s;
  s.channels.push_back(channel("a", 0, 0, 9));
  auto d = diagnose(s);
  CHECK_FALSE(d.stuck());
  CHECK(d.roots.empty());
  CHECK_FALSE(d.undecided());
}

TEST_CASE("offset claim beyond the log end: not appended", "[diagnosis]") {
  GateSnapshot s;
  auto c = channel("c", 0, 0, 2);
  hold(c, held(3, {offset_claim("a", 0, 7)}));
  s.channels.push_back(c);
  s.channels.push_back(channel("a", 0, 0, 4));
  DiagnosisFacts f;
  f.channels.push_back(facts("a", 0, 5, 5));
  auto d = diagnose(s, f);
  REQUIRE(d.stuck());
  const auto& r = root_of(d, "c", 0);
  CHECK(r.verdict == Verdict::not_appended);
  CHECK(r.awaited_offset == 7);
  CHECK_FALSE(r.remedy);
}

TEST_CASE("offset claim inside an open transaction: names the pinning partition", "[diagnosis]") {
  GateSnapshot s;
  auto c = channel("c", 0, 0, 2);
  hold(c, held(3, {offset_claim("a", 1, 6)}));
  s.channels.push_back(c);
  s.channels.push_back(channel("a", 1, 0, 3));
  DiagnosisFacts f;
  auto af = facts("a", 1, 4, 9);
  af.open_txn_since_ms = 1700000000000;
  f.channels.push_back(af);
  auto d = diagnose(s, f);
  const auto& r = root_of(d, "c", 0);
  CHECK(r.verdict == Verdict::open_transaction);
  CHECK(r.claim.topic == "a");
  CHECK(r.claim.partition == 1);
  CHECK(r.lso == 4);
  CHECK(r.log_end == 9);
  CHECK(r.open_txn_since_ms == 1700000000000);
  CHECK(r.summary.find("a/1") != std::string::npos);
}

TEST_CASE("offset claim below the LSO: trailing skip when caught up and unfetched otherwise", "[diagnosis]") {
  GateSnapshot s;
  auto c = channel("c", 0, 0, 2);
  hold(c, held(3, {offset_claim("a", 0, 5)}));
  s.channels.push_back(c);
  s.channels.push_back(channel("a", 0, 0, 4));
  DiagnosisFacts f;
  f.channels.push_back(facts("a", 0, 6, 6, /*caught_up=*/true));
  CHECK(root_of(diagnose(s, f), "c", 0).verdict == Verdict::trailing_skip);
  f.channels[0].caught_up = false;
  CHECK(root_of(diagnose(s, f), "c", 0).verdict == Verdict::unfetched);
  // No facts at all: only "not received", and the detail says what is missing.
  auto bare = diagnose(s);
  CHECK(root_of(bare, "c", 0).verdict == Verdict::not_received);
  // Its remedy is explain against the group, when the facts name it; without the group there
  // is no command (a placeholder would not run as printed), and the detail says to name it.
  CHECK_FALSE(root_of(bare, "c", 0).remedy.has_value());
  CHECK(bare.remedies.empty());
  CHECK(root_of(bare, "c", 0).detail.find("Give `group`") != std::string::npos);
  DiagnosisFacts named;
  named.group = "billing";
  // By default the scope is every topic of the snapshot; the facts may name it.
  CHECK(root_of(diagnose(s, named), "c", 0).remedy ==
        Remedy{Remedy::Kind::explain, "billing", {}, {"a", "c"}, 0, std::nullopt});
  named.scope = std::vector<std::string>{"c", "a/0"};
  CHECK(root_of(diagnose(s, named), "c", 0).remedy ==
        Remedy{Remedy::Kind::explain, "billing", {}, {"c", "a/0"}, 0, std::nullopt});
  CHECK(diagnose(s, named).remedies.size() == 1);
}

TEST_CASE("a chain of waits is followed to its root", "[diagnosis]") {
  // c/0@3 waits on b/0@5; b/0's head is 5 and waits on a/0@8, beyond a's log end.
  GateSnapshot s;
  auto c = channel("c", 0, 0, 2);
  hold(c, held(3, {offset_claim("b", 0, 5)}));
  auto b = channel("b", 0, 0, 4);
  hold(b, held(5, {offset_claim("a", 0, 8)}));
  hold(b, held(6, {}));
  s.channels = {c, b, channel("a", 0, 0, 6)};
  DiagnosisFacts f;
  f.channels.push_back(facts("a", 0, 7, 7));
  auto d = diagnose(s, f);
  const auto& cd = chan(d, "c", 0);
  REQUIRE(cd.claims.size() == 1);
  const auto& chain = cd.claims[0].chain;
  REQUIRE(chain.size() == 2);
  CHECK(chain[0].topic == "c");
  CHECK(chain[0].head_offset == 3);
  CHECK(chain[1].topic == "b");
  CHECK(chain[1].head_offset == 5);
  CHECK(chain[1].claim.topic == "a");
  const auto& r = d.roots[cd.claims[0].root];
  CHECK(r.verdict == Verdict::not_appended);
  CHECK(r.held_topic == "b");
  // b's own claim leads to the same root: one root, shared.
  CHECK(chan(d, "b", 0).claims[0].root == cd.claims[0].root);
  CHECK(d.roots.size() == 1);
  CHECK(d.held_channels() == 2);
}

TEST_CASE("an offset claim above the claimed channel's head waits at that head", "[diagnosis]") {
  // c/0@3 claims b/0@9; b's head is at 5 (below 9) and holds: the chain goes through b.
  GateSnapshot s;
  auto c = channel("c", 0, 0, 2);
  hold(c, held(3, {offset_claim("b", 0, 9)}));
  auto b = channel("b", 0, 0, 4);
  hold(b, held(5, {offset_claim("a", 0, 2)}));
  s.channels = {c, b, channel("a", 0, 0, 1)};
  DiagnosisFacts f;
  f.channels.push_back(facts("a", 0, 2, 4));
  auto d = diagnose(s, f);
  const auto& r = root_of(d, "c", 0);
  CHECK(r.verdict == Verdict::open_transaction);
  CHECK(chan(d, "c", 0).claims[0].chain.size() == 2);
}

TEST_CASE("a wait cycle is reported as a claim on a later append or a bug", "[diagnosis]") {
  GateSnapshot s;
  auto a = channel("a", 0, 0, 0);
  hold(a, held(1, {offset_claim("b", 0, 1)}));
  auto b = channel("b", 0, 0, 0);
  hold(b, held(1, {offset_claim("a", 0, 1)}));
  s.channels = {a, b};
  auto d = diagnose(s);
  const auto& r = root_of(d, "a", 0);
  CHECK(r.verdict == Verdict::cycle);
  CHECK(r.cycle == std::vector<std::string>{"a/0", "b/0", "a/0"});
  CHECK_FALSE(d.advice.empty());
  // One cycle, one root: b's head, walked into the same cycle from b, shares it (not two,
  // one per rotation).
  CHECK(d.roots.size() == 1);
  CHECK(chan(d, "b", 0).claims[0].root == chan(d, "a", 0).claims[0].root);
}

TEST_CASE("a sequence claim located below the baseline is frozen - the remedy rewinds to it", "[diagnosis]") {
  GateSnapshot s;
  auto c = channel("c", 0, 0, 0);
  hold(c, held(1, {seq_claim("a", 0, "S", 1)}));
  s.channels = {c, channel("a", 0, 4, 3)};
  DiagnosisFacts f;
  f.group = "joiners";
  f.channels.push_back(facts("a", 0, 4, 4));
  f.located.push_back({"a", 0, "S", 1, Offset{2}, 0, 4, std::nullopt});
  auto d = diagnose(s, f);
  const auto& r = root_of(d, "c", 0);
  CHECK(r.verdict == Verdict::frozen_seq_claim);
  CHECK(r.located_offset == 2);
  CHECK(r.baseline == 4);
  REQUIRE(r.remedy);
  CHECK(*r.remedy == Remedy{Remedy::Kind::rewind, "joiners", {{"a", 0, 2}}, {}, 0, std::nullopt});
  REQUIRE_FALSE(d.advice.empty());
  // Every topic of the scope, not only the frozen claim's: a joiner consumes them all.
  REQUIRE(d.advice[0].command);
  CHECK(*d.advice[0].command == Remedy{Remedy::Kind::start_joiners, "", {}, {"a", "c"}, 0, std::nullopt});
  // Without the group (a snapshot explained without --group): the offset to rewind to is in
  // the detail, and no command is printed.
  f.group.reset();
  auto bare = diagnose(s, f);
  const auto& b = root_of(bare, "c", 0);
  CHECK(b.verdict == Verdict::frozen_seq_claim);
  CHECK_FALSE(b.remedy.has_value());
  CHECK(bare.remedies.empty());
  CHECK(b.detail.find("Rewinding a/0 to 2") != std::string::npos);
  CHECK(b.detail.find("Give `group`") != std::string::npos);
}

TEST_CASE("a frozen claim whose sender has later records on the channel is still frozen", "[diagnosis]") {
  // The seeds' "no post-baseline presence" test would miss this: S has a held record on a
  // (its send #5 at offset 6, itself held), but the claimed send #1 sits below the baseline.
  GateSnapshot s;
  auto c = channel("c", 0, 0, 0);
  hold(c, held(1, {seq_claim("a", 0, "S", 1)}));
  auto a = channel("a", 0, 4, 5);
  auto h = held(6, {seq_claim("c", 0, "T", 3)});
  h.origin_sender = "S";
  h.origin_seq = 5;
  hold(a, h);
  s.channels = {c, a};
  DiagnosisFacts f;
  f.located.push_back({"a", 0, "S", 1, Offset{3}, 0, 7, std::nullopt});
  auto d = diagnose(s, f);
  CHECK(root_of(d, "c", 0).verdict == Verdict::frozen_seq_claim);
  CHECK(root_of(d, "c", 0).located_offset == 3);
  // Without the lookup, S's later send held on a proves send #1 sits below the baseline
  // (a sender's sends reach a channel in send-number order); only the offset is unknown.
  DiagnosisFacts nolookup;
  nolookup.group = "g";
  auto d2 = diagnose(s, nolookup);
  const auto& r2 = root_of(d2, "c", 0);
  CHECK(r2.verdict == Verdict::frozen_seq_claim);
  CHECK_FALSE(r2.located_offset);
  REQUIRE(r2.remedy);
  CHECK(r2.remedy->kind == Remedy::Kind::explain);
}

TEST_CASE("without a lookup - a sender with no post-baseline presence is a suspected frozen claim", "[diagnosis]") {
  GateSnapshot s;
  auto c = channel("c", 0, 0, 0);
  hold(c, held(1, {seq_claim("a", 0, "S", 1)}));
  auto a = channel("a", 0, 4, 3);
  a.delivered_seq = {{"T", 9}};
  s.channels = {c, a};
  DiagnosisFacts g;
  g.group = "g";
  auto d = diagnose(s, g);
  const auto& r = root_of(d, "c", 0);
  CHECK(r.verdict == Verdict::suspected_frozen_seq_claim);
  REQUIRE(r.remedy);
  CHECK(r.remedy->kind == Remedy::Kind::explain);
  CHECK(r.remedy->group == "g");
  // With S present (delivered since the baseline), the claim waits for S's later send.
  a.delivered_seq = {{"S", 0}};
  s.channels[1] = a;
  DiagnosisFacts f;
  f.channels.push_back(facts("a", 0, 4, 6));
  auto d2 = diagnose(s, f);
  CHECK(root_of(d2, "c", 0).verdict == Verdict::open_transaction);
}

TEST_CASE("without a lookup - nothing below a baseline at the log start cannot be frozen", "[diagnosis]") {
  // Not "suspected frozen" under --no-lookup: a/0 starts at its log start 0, no send can sit
  // below that baseline, so the claim waits on an open transaction, or a send not written yet.
  GateSnapshot s;
  auto c = channel("c", 0, 0, 0);
  hold(c, held(1, {seq_claim("a", 0, "S", 1)}));
  s.channels = {c, channel("a", 0, 0, 2)};
  DiagnosisFacts f;
  f.channels.push_back(facts("a", 0, 3, 5));  // log start 0 = baseline; a transaction open at 3
  auto with_open = diagnose(s, f);
  CHECK(root_of(with_open, "c", 0).verdict == Verdict::open_transaction);
  f.channels[0] = facts("a", 0, 3, 3);
  auto d = diagnose(s, f);
  const auto& r = root_of(d, "c", 0);
  CHECK(r.verdict == Verdict::not_appended);
  CHECK(r.summary.find("nothing lies below the baseline 0, the log start: nothing to scan") != std::string::npos);
  // Without log facts it stays suspected: the log start is unknown.
  CHECK(root_of(diagnose(s), "c", 0).verdict == Verdict::suspected_frozen_seq_claim);
}

TEST_CASE("a sequence claim located at or above the baseline waits for it to arrive", "[diagnosis]") {
  GateSnapshot s;
  auto c = channel("c", 0, 0, 0);
  hold(c, held(1, {seq_claim("a", 0, "S", 2)}));
  s.channels = {c, channel("a", 0, 4, 5)};
  DiagnosisFacts f;
  f.channels.push_back(facts("a", 0, 7, 9));
  f.located.push_back({"a", 0, "S", 2, Offset{7}, 0, 9, std::nullopt});
  // Located at 7 = LSO: inside the open transaction.
  auto r = root_of(diagnose(s, f), "c", 0);
  CHECK(r.verdict == Verdict::open_transaction);
  CHECK(r.located_offset == 7);
  // Looked up and not found on a channel with no open transaction: not appended.
  f.channels[0] = facts("a", 0, 9, 9);
  f.located[0] = {"a", 0, "S", 2, std::nullopt, 0, 9, std::nullopt};
  CHECK(root_of(diagnose(s, f), "c", 0).verdict == Verdict::not_appended);
  // The same from a log start above 0: the send may have been deleted below it, so it is not
  // called "not appended" (a send removed by DeleteRecords would be called that wrongly).
  f.channels[0].log_start = 2;
  f.located[0] = {"a", 0, "S", 2, std::nullopt, 2, 4, std::nullopt};
  auto gone = diagnose(s, f);
  const auto& g = root_of(gone, "c", 0);
  CHECK(g.verdict == Verdict::send_not_in_log);
  CHECK(g.summary.find("not found from the log start 2 to the baseline") != std::string::npos);
  CHECK(g.detail.find("deleted") != std::string::npos);
  CHECK_FALSE(g.remedy.has_value());
  CHECK(g.drains_with_lookups == false);
  CHECK(to_string(gone.roots[0].verdict) == "send_not_in_log");
  // From log start 0 on a compacted topic: compaction removes records from inside the log,
  // so the send may have been removed there, and is not called "not appended" either. A topic
  // known not to be compacted stays "not appended".
  f.channels[0].log_start = 0;
  f.located[0] = {"a", 0, "S", 2, std::nullopt, 0, 9, std::nullopt};
  f.channels[0].compacted = true;
  const auto compacted = diagnose(s, f);
  const auto& k = root_of(compacted, "c", 0);
  CHECK(k.verdict == Verdict::send_not_in_log);
  CHECK(k.detail.find("is compacted (cleanup.policy compact)") != std::string::npos);
  f.channels[0].compacted = false;
  CHECK(root_of(diagnose(s, f), "c", 0).verdict == Verdict::not_appended);
}

TEST_CASE("a send not located says which end its scan stopped short of", "[diagnosis]") {
  // a/0: log start 2, baseline 9; the claimed send was looked up and not found.
  GateSnapshot s;
  auto c = channel("c", 0, 0, 0);
  hold(c, held(1, {seq_claim("a", 0, "S", 2)}));
  s.channels = {c, channel("a", 0, 9, 8)};
  DiagnosisFacts f;
  f.channels.push_back(facts("a", 0, 9, 9));
  f.channels[0].log_start = 2;
  const Remedy further{Remedy::Kind::search_further, "g", {}, {"a", "c"}, 7, std::nullopt};
  auto root_for = [&](Offset from, Offset to) {
    f.located = {{"a", 0, "S", 2, std::nullopt, from, to, further}};
    return root_of(diagnose(s, f), "c", 0);
  };
  SECTION("bounded below: the rest is under the range") {
    Root r = root_for(5, 9);
    CHECK(r.verdict == Verdict::send_not_located);
    CHECK(r.summary.find("not found in offsets [5, 9) of a/0, a scan that stopped short of the log start 2") !=
          std::string::npos);
    CHECK(r.detail.find("in the offsets not scanned, [2, 5), below the baseline 9") != std::string::npos);
    CHECK(r.remedy == further);  // the scan's own remedy
  }
  SECTION("out of time: the rest is above the range, not below it") {
    Root r = root_for(2, 4);
    CHECK(r.verdict == Verdict::send_not_located);
    CHECK(r.summary.find("[2, 4) of a/0, a scan that ran out of time short of the baseline 9") != std::string::npos);
    CHECK(r.summary.find("log start") == std::string::npos);
    CHECK(r.detail.find("in the offsets not scanned, [4, 9), below the baseline 9") != std::string::npos);
  }
  SECTION("both") {
    Root r = root_for(5, 7);
    CHECK(r.summary.find("a scan that reached neither the log start 2 nor, out of time, the baseline 9") !=
          std::string::npos);
    CHECK(r.detail.find("[2, 5) or [7, 9)") != std::string::npos);
  }
  SECTION("the whole range from the log start 2 to the baseline: not in the log (maybe deleted)") {
    CHECK(root_for(2, 9).verdict == Verdict::send_not_in_log);
  }
  SECTION("the whole range from a log start of 0 to the baseline: not appended") {
    f.channels[0].log_start = 0;
    CHECK(root_for(0, 9).verdict == Verdict::not_appended);
  }
}

TEST_CASE("claims outside the scope are reported but do not block", "[diagnosis]") {
  GateSnapshot s;
  auto c = channel("c", 0, 0, 0);
  hold(c, held(1, {offset_claim("z", 0, 4, /*consumed=*/false), offset_claim("a", 0, 3)}));
  s.channels = {c, channel("a", 0, 0, 1)};
  DiagnosisFacts f;
  f.channels.push_back(facts("a", 0, 3, 3));
  auto d = diagnose(s, f);
  CHECK(root_of(d, "c", 0, 0).verdict == Verdict::outside_scope);
  CHECK_FALSE(blocks(root_of(d, "c", 0, 0).verdict));
  CHECK(root_of(d, "c", 0, 1).verdict == Verdict::not_appended);
  CHECK(d.roots.size() == 2);
  CHECK(root_of(d, "c", 0, 0).detail.find("include it (`topic` z)") != std::string::npos);
}

TEST_CASE("a channel failed closed below the awaited offset is the root", "[diagnosis]") {
  GateSnapshot s;
  auto c = channel("c", 0, 0, 0);
  hold(c, held(1, {offset_claim("a", 0, 5)}));
  auto a = channel("a", 0, 0, 2);
  a.failed = true;
  a.failed_offset = 3;
  s.channels = {c, a};
  auto d = diagnose(s);
  const auto& r = root_of(d, "c", 0);
  CHECK(r.verdict == Verdict::failed_closed);
  REQUIRE(r.remedy);
  CHECK(*r.remedy == Remedy{Remedy::Kind::decode, "", {{"a", 0, 3}}, {}, 0, std::nullopt});
}

TEST_CASE("a channel failed closed with nothing waiting on it is stuck, with its own root", "[diagnosis]") {
  // Nothing is held anywhere, but a/0 delivers nothing at or after offset 1: not "drains".
  GateSnapshot s;
  auto a = channel("a", 0, 0, 0);
  a.failed = true;
  a.failed_offset = 1;
  s.channels = {a, channel("b", 0, 0, 4)};
  auto d = diagnose(s);
  CHECK(d.stuck());
  CHECK(d.held_channels() == 0);
  CHECK(d.failed_channels() == 1);
  REQUIRE(d.roots.size() == 1);
  CHECK(d.roots[0].verdict == Verdict::failed_closed);
  CHECK(d.roots[0].held_offset == 1);
  REQUIRE(d.roots[0].remedy);
  CHECK(*d.roots[0].remedy == Remedy{Remedy::Kind::decode, "", {{"a", 0, 1}}, {}, 0, std::nullopt});
  CHECK(d.remedies == std::vector<Remedy>{*d.roots[0].remedy});
  CHECK(d.roots[0].claim.kind.empty());
  const auto& ca = chan(d, "a", 0);
  REQUIRE(ca.claims.size() == 1);
  CHECK(ca.claims[0].root == 0);
}

TEST_CASE("a failed channel a chain already ends at gets no second root", "[diagnosis]") {
  GateSnapshot s;
  auto c = channel("c", 0, 0, 0);
  hold(c, held(1, {offset_claim("a", 0, 5)}));
  auto a = channel("a", 0, 0, 2);
  a.failed = true;
  a.failed_offset = 3;
  s.channels = {c, a};
  auto d = diagnose(s);
  REQUIRE(d.roots.size() == 1);
  CHECK(chan(d, "a", 0).claims.empty());
}

TEST_CASE("a failed channel that also holds a head: its claims and its failure are both roots", "[diagnosis]") {
  GateSnapshot s;
  auto a = channel("a", 0, 0, 0);
  hold(a, held(1, {offset_claim("b", 0, 9)}));
  a.failed = true;
  a.failed_offset = 2;
  s.channels = {a, channel("b", 0, 0, 4)};
  auto d = diagnose(s);
  REQUIRE(d.roots.size() == 2);
  CHECK(root_of(d, "a", 0).verdict == Verdict::not_received);
  CHECK(d.roots[1].verdict == Verdict::failed_closed);
  CHECK(chan(d, "a", 0).claims.size() == 1);  // the head's claim only
}

TEST_CASE("head age uses the facts' now", "[diagnosis]") {
  GateSnapshot s;
  auto c = channel("c", 0, 0, 0);
  hold(c, held(1, {offset_claim("a", 0, 5)}, /*at=*/1000));
  s.channels = {c, channel("a", 0, 0, 0)};
  DiagnosisFacts f;
  f.now = 4500;
  auto d = diagnose(s, f);
  CHECK(chan(d, "c", 0).head_age == 3500);
}

// --- real gates -------------------------------------------------------------------------

namespace {

Clock seq_clock(Names& n, const char* topic, int p, const char* sender, SeqNo q, const char* self, SeqNo self_q) {
  Clock c;
  c.origin = Origin{n.sender(self), self_q};
  c.claim_seq(n.channel(topic, p), n.sender(sender), q);
  return c;
}

}  // namespace

TEST_CASE("real gate: an at-log-end joiner wedges on a frozen sequence claim - a from-start joiner does not",
          "[diagnosis][gate]") {
  // The liveness page's scenario: S's send #1 sits at a/0@0 (its commit marker at 1). The
  // joiner baselines a at the log end (2); c/0@0 carries the claim (a, S, 1) relayed from
  // custody by a node that does not consume a.
  Names n;
  const ChannelId a = n.channel("a", 0);
  const ChannelId c = n.channel("c", 0);

  Gate late(n);
  late.add_channel(a, 2);
  late.add_channel(c, 0);
  late.receive({c, 0, seq_clock(n, "a", 0, "S", 1, "R", 1), 0, 100});
  late.position_advance(c, 1);
  late.position_advance(a, 2);
  REQUIRE(late.held_count() == 1);

  DiagnosisFacts f;
  f.group = "late";
  f.now = 600;
  f.channels.push_back(facts("a", 0, 2, 2));
  f.channels.push_back(facts("c", 0, 1, 1));
  auto snap = take_snapshot(late);
  auto unlocated = diagnose(snap, f);
  CHECK(unlocated.stuck());
  CHECK(root_of(unlocated, "c", 0).verdict == Verdict::suspected_frozen_seq_claim);

  f.located.push_back({"a", 0, "S", 1, Offset{0}, 0, 2, std::nullopt});
  auto d = diagnose(snap, f);
  const auto& r = root_of(d, "c", 0);
  CHECK(r.verdict == Verdict::frozen_seq_claim);
  CHECK(r.baseline == 2);
  CHECK(*r.remedy == Remedy{Remedy::Kind::rewind, "late", {{"a", 0, 0}}, {}, 0, std::nullopt});
  CHECK(chan(d, "c", 0).head_age == 500);

  // Applying the remedy = a gate baselined at 0 on a: it drains.
  Gate rewound(n);
  rewound.add_channel(a, 0);
  rewound.add_channel(c, 0);
  Clock sends;
  sends.origin = Origin{n.sender("S"), 1};
  rewound.receive({a, 0, sends, 0, 0});
  rewound.receive({c, 0, seq_clock(n, "a", 0, "S", 1, "R", 1), 0, 100});
  rewound.position_advance(a, 2);
  rewound.position_advance(c, 1);
  CHECK(rewound.held_count() == 0);
  CHECK_FALSE(diagnose(take_snapshot(rewound), f).stuck());
}

TEST_CASE("real gate: a dependency on a record not yet written and then written", "[diagnosis][gate]") {
  Names n;
  const ChannelId a = n.channel("a", 0);
  const ChannelId c = n.channel("c", 0);
  Gate g(n);
  g.add_channel(a, 0);
  g.add_channel(c, 0);
  Clock k;
  k.claim(a, 3);
  g.receive({c, 0, k, 0, 0});
  g.receive({a, 0, Clock{}, 0, 0});
  g.position_advance(a, 1);
  DiagnosisFacts f;
  f.channels.push_back(facts("a", 0, 1, 1));
  f.channels.push_back(facts("c", 0, 1, 1));
  auto d = diagnose(take_snapshot(g), f);
  REQUIRE(d.stuck());
  const auto& r = root_of(d, "c", 0);
  CHECK(r.verdict == Verdict::not_appended);
  CHECK(r.awaited_offset == 3);
  for (Offset o = 1; o <= 3; ++o) g.receive({a, o, Clock{}, 0, 0});
  CHECK_FALSE(diagnose(take_snapshot(g), f).stuck());
}

TEST_CASE("a held head with nothing unsatisfied is inconsistent and waits on no claim", "[diagnosis]") {
  GateSnapshot s;
  auto c = channel("c", 0, 0, 0);
  hold(c, held(1, {}));
  s.channels = {c};
  auto d = diagnose(s);
  REQUIRE(d.roots.size() == 1);
  CHECK(d.roots[0].verdict == Verdict::inconsistent);
  CHECK(d.roots[0].claim.kind.empty());
  CHECK(d.roots[0].held_offset == 1);
}
