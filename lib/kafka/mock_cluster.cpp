// librdkafka's mock cluster behind MockCluster (causal/kafka/mock_cluster.hpp).
#include "causal/kafka/mock_cluster.hpp"

#include <fmt/core.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include "causal/kafka/handles.hpp"

namespace causal::kafka {

namespace {
void quiet_log(const rd_kafka_t*, int, const char*, const char*) {}
}  // namespace

// The mock cluster lives as long as the handle that made it: a handle only to own it.
// Members are destroyed in reverse order: the cluster before its owner.
struct MockCluster::Impl {
  HandlePtr owner;
  detail::Owned<rd_kafka_mock_cluster_t, rd_kafka_mock_cluster_destroy> mock;
};

MockCluster::MockCluster(std::unique_ptr<Impl> impl, std::string bootstrap)
    : impl_(std::move(impl)), bootstrap_(std::move(bootstrap)) {}

MockCluster::~MockCluster() = default;

std::expected<std::unique_ptr<MockCluster>, Error> MockCluster::start(std::string_view topic,
                                                                     std::int32_t partitions) {
  auto impl = std::make_unique<Impl>();
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set_log_cb(conf, quiet_log);
  char err[512];
  impl->owner.reset(rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err));
  if (!impl->owner) {
    rd_kafka_conf_destroy(conf);
    return std::unexpected(runtime_error(fmt::format("cannot create the mock cluster's handle: {}", err)));
  }
  impl->mock.reset(rd_kafka_mock_cluster_new(impl->owner.get(), 1));
  if (!impl->mock) return std::unexpected(runtime_error("cannot start librdkafka's mock cluster"));
  std::string name(topic);
  if (auto e = rd_kafka_mock_topic_create(impl->mock.get(), name.c_str(), partitions, 1); e) {
    return std::unexpected(
        runtime_error(fmt::format("mock cluster: cannot create topic '{}': {}", name, rd_kafka_err2str(e))));
  }
  std::string bootstrap = rd_kafka_mock_cluster_bootstraps(impl->mock.get());
  return std::unique_ptr<MockCluster>(new MockCluster(std::move(impl), std::move(bootstrap)));
}

}  // namespace causal::kafka
