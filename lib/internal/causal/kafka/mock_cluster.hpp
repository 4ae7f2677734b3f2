// librdkafka's in-process mock cluster, for `causal demo` only.
//
// The mock writes no transaction markers and reports LSO = high watermark: it shows the
// gate's holds and releases, never Kafka's behaviour, and no test claims a Kafka fact on it.
//
// Thread-safety: one owner; the cluster runs on librdkafka's own threads until destroyed.
#pragma once

#include <cstdint>
#include <expected>
#include <memory>
#include <string>
#include <string_view>

#include "causal/error.hpp"

namespace causal::kafka {

class MockCluster {
 public:
  // Starts a one-broker mock cluster with `topic` of `partitions` partitions (replication 1).
  static std::expected<std::unique_ptr<MockCluster>, Error> start(std::string_view topic, std::int32_t partitions);
  ~MockCluster();
  MockCluster(const MockCluster&) = delete;
  MockCluster& operator=(const MockCluster&) = delete;

  // The bootstrap servers to connect to (host:port).
  const std::string& bootstrap() const { return bootstrap_; }

 private:
  struct Impl;
  explicit MockCluster(std::unique_ptr<Impl> impl, std::string bootstrap);
  std::unique_ptr<Impl> impl_;
  std::string bootstrap_;
};

}  // namespace causal::kafka
