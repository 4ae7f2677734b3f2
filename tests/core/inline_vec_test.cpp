// Tests of inline_vec.hpp: the same observable behaviour as std::vector across the move
// from inline storage to the heap, for every operation Clock uses, checked against a
// std::vector model on random operation sequences.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <vector>

#include "causal/inline_vec.hpp"

using namespace causal;

namespace {
struct Item {
  std::uint32_t key;
  std::int64_t value;
  friend bool operator==(const Item&, const Item&) = default;
};
using Vec = InlineVec<Item, 4>;

bool same(const Vec& v, const std::vector<Item>& model) {
  return v.size() == model.size() && std::equal(v.begin(), v.end(), model.begin(), model.end());
}
}  // namespace

TEST_CASE("InlineVec stays inline up to N and moves to the heap beyond", "[inline_vec]") {
  Vec v;
  CHECK(v.empty());
  CHECK(v.capacity() == 4);
  for (std::uint32_t i = 0; i < 4; ++i) v.push_back({i, i * 10});
  CHECK(v.capacity() == 4);  // still inline
  v.push_back({4, 40});
  CHECK(v.capacity() > 4);  // moved to the heap, contents kept
  REQUIRE(v.size() == 5);
  for (std::uint32_t i = 0; i < 5; ++i) CHECK(v[i] == Item{i, i * 10});
  CHECK(v.front() == Item{0, 0});
  CHECK(v.back() == Item{4, 40});
  v.clear();
  CHECK(v.empty());
  CHECK(v.capacity() > 4);  // clear keeps the capacity, as std::vector does
}

TEST_CASE("InlineVec copies and moves keep contents in both storage modes", "[inline_vec]") {
  for (std::size_t n : {0U, 3U, 4U, 9U}) {
    Vec a;
    for (std::uint32_t i = 0; i < n; ++i) a.push_back({i, -static_cast<std::int64_t>(i)});
    const Vec copy = a;
    CHECK(copy == a);
    Vec assigned;
    assigned.push_back({99, 99});
    assigned = a;
    CHECK(assigned == a);
    Vec moved = std::move(a);
    CHECK(moved == copy);
    CHECK(a.empty());  // NOLINT(bugprone-use-after-move): a moved-from InlineVec is empty
    Vec move_assigned;
    for (std::uint32_t i = 0; i < 6; ++i) move_assigned.push_back({i, 1});  // on the heap
    move_assigned = std::move(moved);
    CHECK(move_assigned == copy);
    CHECK(move_assigned == std::span<const Item>(copy.begin(), copy.size()));
  }
}

TEST_CASE("InlineVec matches a std::vector model on random operations", "[inline_vec]") {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    Vec v;
    std::vector<Item> model;
    for (int op = 0; op < 60; ++op) {
      Item x{static_cast<std::uint32_t>(rng() % 50), static_cast<std::int64_t>(rng() % 1000)};
      switch (rng() % 6) {
        case 0:
        case 1:
          v.push_back(x);
          model.push_back(x);
          break;
        case 2: {
          std::size_t at = model.empty() ? 0 : rng() % (model.size() + 1);
          Item* it = v.insert(v.begin() + at, x);
          CHECK(*it == x);
          model.insert(model.begin() + static_cast<std::ptrdiff_t>(at), x);
          break;
        }
        case 3:
          v.erase_if([&](const Item& i) { return i.key == x.key; });
          std::erase_if(model, [&](const Item& i) { return i.key == x.key; });
          break;
        case 4: {
          std::size_t n = model.empty() ? 0 : rng() % (model.size() + 1);
          v.truncate(n);
          model.resize(n);
          break;
        }
        case 5: {
          Vec copy = v;  // copy, then carry on with the copy
          v = std::move(copy);
          break;
        }
      }
      REQUIRE(same(v, model));
    }
  }
}
