#include "causal/version.hpp"

namespace causal {

std::string_view library_version() noexcept { return CAUSAL_VERSION_STRING; }

}  // namespace causal
