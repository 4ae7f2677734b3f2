// A causal.clock header value built with the library's codec, for the tests that write
// stamped records to the test broker (tests/explain, tests/watch): an origin, sequence
// claims and offset claims, encoded as a sender's host would.
// Thread-safety: none; one Stamp per record.
#pragma once

#include <string>
#include <utility>

#include "broker_env.hpp"
#include "causal/clock.hpp"
#include "causal/codec.hpp"
#include "causal/names.hpp"

namespace causal::test {

struct Stamp {
  causal::Names names;
  causal::Clock clock;
  Stamp& origin(const std::string& sender, causal::SeqNo q) {
    clock.origin = causal::Origin{names.sender(sender), q};
    return *this;
  }
  Stamp& seq(const std::string& topic, int p, const std::string& sender, causal::SeqNo q) {
    clock.claim_seq(names.channel(topic, p), names.sender(sender), q);
    return *this;
  }
  Stamp& offset(const std::string& topic, int p, causal::Offset o) {
    clock.claim(names.channel(topic, p), o);
    return *this;
  }
  std::string bytes() const {
    auto b = causal::encode(clock, names);
    return std::string(reinterpret_cast<const char*>(b.data()), b.size());
  }
};

inline Record stamped(std::string value, int partition, const Stamp& s) {
  return Record(std::move(value), partition).with_header("causal.clock", s.bytes());
}

}  // namespace causal::test
