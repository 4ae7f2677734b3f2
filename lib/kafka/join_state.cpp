// Following librdkafka's join state through its debug log: see join_state.hpp.
#include "causal/kafka/join_state.hpp"

#include <array>
#include <utility>

namespace causal::kafka {

namespace {

constexpr std::array<std::pair<std::string_view, JoinState::State>, 9> kNames{{
    {"init", JoinState::State::init},
    {"wait-join", JoinState::State::wait_join},
    {"wait-metadata", JoinState::State::wait_metadata},
    {"wait-sync", JoinState::State::wait_sync},
    {"wait-assign-call", JoinState::State::wait_assign_call},
    {"wait-unassign-call", JoinState::State::wait_unassign_call},
    {"wait-unassign-to-complete", JoinState::State::wait_unassign_to_complete},
    {"wait-incr-unassign-to-complete", JoinState::State::wait_incr_unassign_to_complete},
    {"steady", JoinState::State::steady},
}};

}  // namespace

std::string_view JoinState::name(State s) {
  for (const auto& [n, st] : kNames) {
    if (st == s) return n;
  }
  return "unknown";
}

JoinState::State JoinState::parse(std::string_view line) {
  // librdkafka 2.0.2, rdkafka_cgrp.c rd_kafka_cgrp_set_join_state():
  //   Group "<id>" changed join state <from> -> <to> (state <state>)
  // The group id may hold anything, so the text is read from the last " -> ".
  constexpr std::string_view kMarker = " changed join state ";
  if (line.find(kMarker) == std::string_view::npos) return State::unknown;
  const auto arrow = line.rfind(" -> ");
  if (arrow == std::string_view::npos) return State::unknown;
  std::string_view to = line.substr(arrow + 4);
  to = to.substr(0, to.find(' '));
  for (const auto& [n, st] : kNames) {
    if (to == n) return st;
  }
  return State::unknown;
}

bool JoinState::take(std::string_view fac, std::string_view line) {
  if (fac != "CGRPJOINSTATE") return false;
  const State s = parse(line);
  if (s == State::unknown) return false;
  state_.store(s, std::memory_order_release);
  return true;
}

bool JoinState::committable() const {
  switch (state()) {
    case State::init:
    case State::wait_join:
    case State::wait_metadata:
    case State::wait_sync:
      return false;
    default:
      return true;
  }
}

}  // namespace causal::kafka
