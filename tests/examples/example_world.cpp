// The world the documented examples run in, on the real test broker: the topics, records and
// consumer groups that README.md, docs/runbook.md, the man pages and `--help` name.
//
//   example_world create    topics orders (4 partitions), payments, shipments, numbers, events;
//                           records on them (below); fails if orders exists already
//   example_world freeze    (re)writes group billing's committed offsets so that billing is
//                           stuck on a frozen sequence claim whose send is orders/3@1041
//   example_world forget G  deletes group G: an example that starts a new group finds it new
//
// The records:
//   orders/0..2   20 records each, stamped with origin loader-<p>:<n>
//   orders/3      1100 records stamped loader-3:<n>, except offset 1041: the send of sender
//                 cart-19c2 with send number 7 (origin cart-19c2:7)
//   payments/0    one record (origin billing-7f3a:42) whose clock claims cart-19c2's send 7
//                 to orders/3 (a sequence claim) and orders/0@5
//   shipments/0   3 records with no clock
// billing (after freeze) has committed orders/0..2 at their ends, orders/3 at 1100 (past
// 1041) and payments/0 at 0: a node restarted there holds the payment, waiting for a send
// below its baseline. `causal explain --group billing ...` names it; the remedy rewinds
// orders/3 to 1041.
//
// The bootstrap address comes from the CTest fixture (broker_env.hpp). Exit 0, or an
// exception's message and exit 1.
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "broker_env.hpp"
#include "causal/codec.hpp"

namespace t = causal::test;

namespace {

std::string clock_bytes(const causal::Clock& c, const causal::Names& names) {
  auto b = causal::encode(c, names);
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

t::Record stamped(std::string value, int partition, const std::string& sender, causal::SeqNo q) {
  causal::Names names;
  causal::Clock c;
  c.origin = causal::Origin{names.sender(sender), q};
  return t::Record(std::move(value), partition).with_header("causal.clock", clock_bytes(c, names));
}

void create() {
  t::create_topic_named("orders", 4);
  for (const char* topic : {"payments", "shipments", "numbers", "events"}) t::create_topic_named(topic, 1);

  t::Producer producer;
  for (int p = 0; p < 3; ++p) {
    std::vector<t::Record> records;
    for (int n = 1; n <= 20; ++n) {
      records.push_back(stamped("order " + std::to_string(p) + "-" + std::to_string(n), p,
                                "loader-" + std::to_string(p), static_cast<causal::SeqNo>(n)));
    }
    producer.send("orders", records);
  }
  std::vector<t::Record> p3;
  for (int o = 0; o < 1100; ++o) {
    if (o == 1041) {
      p3.push_back(stamped("cart 19c2 checkout", 3, "cart-19c2", 7));
    } else {
      p3.push_back(stamped("order 3-" + std::to_string(o), 3, "loader-3", static_cast<causal::SeqNo>(o + 1)));
    }
  }
  auto offsets = producer.send("orders", p3);
  if (offsets.at(1041) != 1041) throw std::runtime_error("orders/3: the cart-19c2 send is not at offset 1041");

  causal::Names names;
  causal::Clock pay;
  pay.origin = causal::Origin{names.sender("billing-7f3a"), 42};
  pay.claim(names.channel("orders", 0), 5);
  pay.claim_seq(names.channel("orders", 3), names.sender("cart-19c2"), 7);
  producer.send("payments", t::Record("payment for cart 19c2", 0).with_header("causal.clock", clock_bytes(pay, names)));

  producer.send("shipments", {{"shipment 1", 0}, {"shipment 2", 0}, {"shipment 3", 0}});
}

// Deletes `group` (its committed offsets with it), so that an example that starts a new group
// finds it new however often the world has run such examples before. A group that does not
// exist is fine.
void forget(const std::string& group) {
  t::HandlePtr rk = t::make_handle(RD_KAFKA_PRODUCER);
  rd_kafka_queue_t* q = rd_kafka_queue_new(rk.get());
  rd_kafka_DeleteGroup_t* del = rd_kafka_DeleteGroup_new(group.c_str());
  rd_kafka_DeleteGroups(rk.get(), &del, 1, nullptr, q);
  rd_kafka_DeleteGroup_destroy(del);
  rd_kafka_event_t* ev = rd_kafka_queue_poll(q, 30'000);
  std::string err;
  if (!ev) {
    err = "no answer to DeleteGroups within 30 s";
  } else if (rd_kafka_event_error(ev)) {
    err = rd_kafka_event_error_string(ev);
  } else {
    size_t n = 0;
    const rd_kafka_group_result_t** r = rd_kafka_DeleteGroups_result_groups(rd_kafka_event_DeleteGroups_result(ev), &n);
    const rd_kafka_error_t* e = n == 1 ? rd_kafka_group_result_error(r[0]) : nullptr;
    if (e && rd_kafka_error_code(e) != RD_KAFKA_RESP_ERR_GROUP_ID_NOT_FOUND) err = rd_kafka_error_string(e);
  }
  if (ev) rd_kafka_event_destroy(ev);
  rd_kafka_queue_destroy(q);
  if (!err.empty()) throw std::runtime_error("delete group " + group + ": " + err);
}

void freeze() {
  t::commit_offsets("billing", "orders", {{0, 20}, {1, 20}, {2, 20}, {3, 1100}});
  t::commit_offsets("billing", "payments", {{0, 0}});
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string what = argc > 1 ? argv[1] : "";
    if (what == "create") {
      create();
    } else if (what == "freeze") {
      freeze();
    } else if (what == "forget" && argc > 2) {
      forget(argv[2]);
    } else {
      std::fprintf(stderr, "usage: example_world create|freeze|forget GROUP\n");
      return 2;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "example_world: %s\n", e.what());
    return 1;
  }
}
