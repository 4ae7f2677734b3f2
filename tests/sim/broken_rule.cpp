// The one file of the sweep driver that reads the seam (causal/rules.hpp), so that it is the
// only one of them the mutant builds compile once per rule (tests/sim/CMakeLists.txt).
#include "broken_rule.hpp"

#include "causal/rules.hpp"

bool mutant_build() { return causal::rules::broken != causal::rules::Rule::none; }
