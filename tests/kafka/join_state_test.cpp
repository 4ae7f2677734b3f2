// JoinState: following librdkafka's join state from its debug lines, and which states let a
// member's commit go out (join_state.hpp). The lines are librdkafka 2.0.2's own wording.
#include <catch2/catch.hpp>

#include "causal/kafka/join_state.hpp"

using causal::kafka::JoinState;
using State = JoinState::State;

TEST_CASE("join state: the transition lines librdkafka logs are read to their new state") {
  CHECK(JoinState::parse(R"(Group "g" changed join state init -> wait-join (state up))") == State::wait_join);
  CHECK(JoinState::parse(R"(Group "g" changed join state wait-sync -> wait-assign-call (state up))") ==
        State::wait_assign_call);
  CHECK(JoinState::parse(R"(Group "g" changed join state wait-unassign-call -> wait-incr-unassign-to-complete (state up))") ==
        State::wait_incr_unassign_to_complete);
  CHECK(JoinState::parse(R"(Group "g" changed join state wait-assign-call -> steady (state up))") == State::steady);
  // A group id holding the words librdkafka uses is read from the last arrow.
  CHECK(JoinState::parse(R"(Group "a -> steady (x" changed join state steady -> init (state up))") == State::init);
  // Not a transition, or a state this code does not know: nothing.
  CHECK(JoinState::parse(R"(Group "g" received op OFFSET_COMMIT in state up (join-state steady))") == State::unknown);
  CHECK(JoinState::parse(R"(Group "g" changed join state steady -> wait-something-new (state up))") == State::unknown);
  CHECK(JoinState::name(State::wait_sync) == "wait-sync");
}

TEST_CASE("join state: commits go out except while this member's join or sync is at the coordinator") {
  JoinState js;
  // Before any line (the log does not come): commits are not held back.
  CHECK(js.state() == State::unknown);
  CHECK(js.committable());
  // Only the facility librdkafka gives the transition line is read.
  CHECK_FALSE(js.take("CGRP", R"(Group "g" changed join state init -> wait-join (state up))"));
  CHECK(js.committable());
  struct Step {
    const char* text;
    bool committable;
  };
  const Step steps[] = {
      {R"(Group "g" changed join state steady -> init (state up))", false},
      {R"(Group "g" changed join state init -> wait-join (state up))", false},
      {R"(Group "g" changed join state wait-join -> wait-metadata (state up))", false},
      {R"(Group "g" changed join state wait-metadata -> wait-sync (state up))", false},
      {R"(Group "g" changed join state wait-sync -> wait-unassign-call (state up))", true},
      {R"(Group "g" changed join state wait-unassign-call -> wait-incr-unassign-to-complete (state up))", true},
      {R"(Group "g" changed join state wait-incr-unassign-to-complete -> wait-assign-call (state up))", true},
      {R"(Group "g" changed join state wait-assign-call -> steady (state up))", true},
  };
  for (const auto& s : steps) {
    INFO(s.text);
    CHECK(js.take("CGRPJOINSTATE", s.text));
    CHECK(js.committable() == s.committable);
  }
}
