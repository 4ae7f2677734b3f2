// Which librdkafka the program runs with, for `causal --version` and bug reports (as
// `kcat -V` prints it): the loaded library's version and its builtin.features, which say
// whether SASL mechanisms, SSL and compression codecs are available.
#pragma once

#include <string>

namespace causal::kafka {

// "librdkafka 2.0.2 (builtin.features: gzip,snappy,ssl,sasl,...)"
std::string librdkafka_version_text();

}  // namespace causal::kafka
