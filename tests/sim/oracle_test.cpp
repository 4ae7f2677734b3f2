// The oracle on hand-made tiny histories: every check must be able to fail.
#include <catch2/catch.hpp>

#include "causal/sim/oracle.hpp"

using namespace causal::sim;

namespace {
Bits of(std::initializer_list<RecordId> ids) {
  Bits b;
  for (RecordId r : ids) b.set(r);
  return b;
}
bool has(const Oracle& o, ViolationKind k) {
  for (const auto& v : o.violations())
    if (v.kind == k) return true;
  return false;
}
}  // namespace

TEST_CASE("oracle: a cause on another channel must be delivered first") {
  Oracle o(2);
  const RecordId a = o.sent(0, {});
  o.appended(a, 0, false);
  const RecordId b = o.sent(1, of({a}));
  o.appended(b, 0, false);
  const ConsumerId c = o.new_consumer(0, "n");
  o.consume(c, 0, 0);
  o.consume(c, 1, 0);

  SECTION("in causal order: no violation, one pair checked") {
    o.delivered(c, a);
    o.delivered(c, b);
    CHECK(o.violation_count() == 0);
    CHECK(o.pairs_checked() == 1);
    CHECK(o.missing(c).empty());
  }
  SECTION("effect before cause: causal_order") {
    o.delivered(c, b);
    CHECK(has(o, ViolationKind::causal_order));
  }
}

TEST_CASE("oracle: causes below the baseline or outside the scope are not required") {
  Oracle o(3);
  const RecordId a = o.sent(0, {});
  o.appended(a, 0, false);
  const RecordId x = o.sent(2, {});
  o.appended(x, 0, false);
  const RecordId b = o.sent(1, of({a, x}));
  o.appended(b, 0, false);
  const ConsumerId c = o.new_consumer(0, "late");
  o.consume(c, 0, 1);  // baseline above a
  o.consume(c, 1, 0);  // channel 2 not consumed
  o.delivered(c, b);
  CHECK(o.violation_count() == 0);
  CHECK(o.missing(c).empty());
}

TEST_CASE("oracle: same-channel cause appended after its effect is a structural inversion") {
  // A fabricated history (the world cannot produce it): y happens after x but sits below it.
  Oracle o(1);
  const RecordId x = o.sent(0, {});
  const RecordId y = o.sent(0, of({x}));
  o.appended(y, 0, false);
  o.appended(x, 1, false);
  const ConsumerId c = o.new_consumer(0, "n");
  o.consume(c, 0, 0);
  o.delivered(c, y);
  CHECK(o.inversions() == 1);
  CHECK(has(o, ViolationKind::structural_inversion));
  CHECK_FALSE(has(o, ViolationKind::causal_order));
}

TEST_CASE("oracle: fifo and duplicates and non-business deliveries and duplicate effects") {
  Oracle o(1);
  const RecordId r0 = o.sent(0, {});
  const RecordId r1 = o.sent(0, {});
  const RecordId t = o.sent(0, {});
  o.appended(r0, 0, false);
  o.appended(r1, 1, false);
  o.appended(t, 2, true);
  o.resolved(t, false);  // aborted
  const ConsumerId c = o.new_consumer(0, "n");
  o.consume(c, 0, 0);

  SECTION("out of log order") {
    o.delivered(c, r1);
    o.delivered(c, r0);
    CHECK(has(o, ViolationKind::fifo));
  }
  SECTION("twice") {
    o.delivered(c, r0);
    o.delivered(c, r0);
    CHECK(has(o, ViolationKind::duplicate_delivery));
  }
  SECTION("an aborted record") {
    o.delivered(c, r0);
    o.delivered(c, r1);
    o.delivered(c, t);
    CHECK(has(o, ViolationKind::bad_delivery));
  }
  SECTION("an aborted record is not owed") {
    o.delivered(c, r0);
    CHECK(o.missing(c) == std::vector<RecordId>{r1});
  }
  SECTION("an effect committed twice under EOS") {
    o.effect_committed(0, r0);
    CHECK(o.violation_count() == 0);
    o.effect_committed(0, r0);
    CHECK(has(o, ViolationKind::duplicate_effect));
  }
}

TEST_CASE("oracle: a retired incarnation stops accumulating obligations") {
  Oracle o(1);
  const ConsumerId c1 = o.new_consumer(0, "n.1");
  o.consume(c1, 0, 0);
  o.retire(c1);
  const RecordId r = o.sent(0, {});
  o.appended(r, 0, false);
  CHECK(o.missing(c1).empty());
  const ConsumerId c2 = o.new_consumer(0, "n.2");
  o.consume(c2, 0, 0);
  CHECK(o.missing(c2) == std::vector<RecordId>{r});
}

TEST_CASE("oracle: delivering a transaction's record teaches the sends of that transaction before it") {
  // p's transaction sends s1 to a/0 (channel 0), then s2 to b/0 (channel 1). Relay n
  // consumes only b/0, delivers s2 and then emits y to c/0 (channel 2). m consumes a/0 and
  // c/0: s1 is not an ancestor of s2 (one transaction: concurrent), but it is an ancestor
  // of y, which n emitted knowing s1 was committed.
  Oracle o(3);
  const RecordId s1 = o.sent(0, {});
  const RecordId s2 = o.sent(1, {}, s1);
  o.appended(s1, 0, true);
  o.appended(s2, 0, true);
  o.resolved(s1, true);
  o.resolved(s2, true);
  CHECK_FALSE(o.ancestors(s2).test(s1));

  Bits n_knows;
  CHECK(o.learn_from_delivery(n_knows, s2) == 1);  // taught s1, which s2 did not carry
  CHECK(n_knows.test(s1));
  CHECK(n_knows.test(s2));
  const RecordId y = o.sent(2, n_knows);
  o.appended(y, 0, false);

  const ConsumerId m = o.new_consumer(1, "m");
  o.consume(m, 0, 0);
  o.consume(m, 2, 0);
  SECTION("y before s1: causal_order") {
    o.delivered(m, y);
    CHECK(has(o, ViolationKind::causal_order));
  }
  SECTION("s1 then y: fine") {
    o.delivered(m, s1);
    o.delivered(m, y);
    CHECK(o.violation_count() == 0);
  }
  SECTION("a direct consumer of both may deliver s2 before s1") {
    const ConsumerId d = o.new_consumer(2, "d");
    o.consume(d, 0, 0);
    o.consume(d, 1, 0);
    o.delivered(d, s2);
    o.delivered(d, s1);
    CHECK(o.violation_count() == 0);
  }
}
