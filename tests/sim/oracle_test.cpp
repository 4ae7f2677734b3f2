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
