// Gate::digest and Stamper::digest: equal for states that behave alike whatever calls led to
// them, different where a later call would tell the states apart.
#include <catch2/catch.hpp>

#include <cstdint>
#include <utility>
#include <vector>

#include "causal/gate.hpp"
#include "causal/stamper.hpp"

using namespace causal;

namespace {

using Words = std::vector<std::uint64_t>;
using P = std::pair<ChannelId, Offset>;

struct Order : GateObserver {
  std::vector<P> seen;
  void delivered(const Delivery& d) override { seen.emplace_back(d.channel, d.offset); }
};

Words digest(const Gate& g, std::uint64_t (*tag)(std::uint64_t) = [](std::uint64_t t) { return t; }) {
  Words w;
  g.digest([&](std::uint64_t v) { w.push_back(v); }, tag);
  return w;
}

Words digest(const Stamper& s) {
  Words w;
  s.digest([&](std::uint64_t v) { w.push_back(v); });
  return w;
}

Clock claims(std::initializer_list<OffsetClaim> cs) {
  Clock c;
  for (const OffsetClaim& x : cs) c.claim(x.channel, x.offset);
  return c;
}

}  // namespace

TEST_CASE("gate digest: two orders of independent receives that leave the gate alike are equal", "[digest]") {
  Names names;
  const ChannelId a = names.channel("a", 0), b = names.channel("b", 0);
  Gate g1(names), g2(names);
  for (Gate* g : {&g1, &g2}) g->add_channel(a, 0), g->add_channel(b, 0);
  const ChannelId x = names.channel("x", 0);  // not consumed: its claims go to custody only
  g1.receive({a, 0, claims({{x, 5}}), 1}), g1.receive({b, 0, claims({{x, 7}}), 2});
  g2.receive({b, 0, claims({{x, 7}}), 2}), g2.receive({a, 0, claims({{x, 5}}), 1});
  CHECK(digest(g1) == digest(g2));
  // A later position report is where they would differ if they did: they do not.
  g1.position_advance(a, 5), g2.position_advance(a, 5);
  CHECK(digest(g1) == digest(g2));
  CHECK(g1.frontier(a) == 4);
}

TEST_CASE("gate digest: the order of two registrations on one claim is part of the state", "[digest]") {
  Names names;
  const ChannelId a = names.channel("a", 0), b = names.channel("b", 0), c = names.channel("c", 0);
  Order o1, o2;
  Gate g1(names, &o1), g2(names, &o2);
  for (Gate* g : {&g1, &g2}) g->add_channel(a, 0), g->add_channel(b, 0), g->add_channel(c, 0);
  g1.receive({a, 0, claims({{c, 0}}), 1}), g1.receive({b, 0, claims({{c, 0}}), 2});
  g2.receive({b, 0, claims({{c, 0}}), 2}), g2.receive({a, 0, claims({{c, 0}}), 1});
  // The same records held on the same claim, registered in opposite orders ...
  CHECK(digest(g1) != digest(g2));
  // ... and the same later call then delivers them in opposite orders.
  g1.receive({c, 0, {}, 3}), g2.receive({c, 0, {}, 3});
  REQUIRE(o1.seen.size() == 3);
  REQUIRE(o2.seen.size() == 3);
  CHECK(o1.seen[1] == o2.seen[2]);
  CHECK(o1.seen[2] == o2.seen[1]);
}

TEST_CASE("gate digest: held records count by their renamed tags", "[digest]") {
  Names names;
  const ChannelId a = names.channel("a", 0), b = names.channel("b", 0);
  Gate g1(names), g2(names);
  for (Gate* g : {&g1, &g2}) g->add_channel(a, 0), g->add_channel(b, 0);
  g1.receive({a, 0, claims({{b, 0}}), 7});
  g2.receive({a, 0, claims({{b, 0}}), 8});
  CHECK(digest(g1) != digest(g2));
  const auto same_name = [](std::uint64_t) -> std::uint64_t { return 0; };
  CHECK(digest(g1, same_name) == digest(g2, same_name));
  // A held record's clock is part of the state.
  Gate g3(names);
  g3.add_channel(a, 0), g3.add_channel(b, 0);
  g3.receive({a, 0, claims({{b, 1}}), 7});
  CHECK(digest(g1) != digest(g3));
}

TEST_CASE("stamper digest: sinks seeded in either order are equal and an acknowledgement is not", "[digest]") {
  Names names;
  const ChannelId a = names.channel("a", 0), b = names.channel("b", 0);
  const SenderId p = names.sender("p");
  Stamper s1(p, Stamper::Mode::transactional), s2(p, Stamper::Mode::transactional);
  s1.seed(a, 3), s1.seed(b, 5);
  s2.seed(b, 5), s2.seed(a, 3);
  CHECK(digest(s1) == digest(s2));
  CHECK(s1.stamp_send(a) == s2.stamp_send(a));
  CHECK(digest(s1) == digest(s2));
  s1.acknowledged(a, 1, 3);
  CHECK(digest(s1) != digest(s2));
  s2.acknowledged(a, 1, 3);
  CHECK(digest(s1) == digest(s2));
}
