// What the sweep driver's build breaks: defined in broken_rule.cpp, compiled per mutant.
#pragma once

// True in a mutant build (-DCAUSAL_BROKEN_RULE=<rule>), false against the production core.
bool mutant_build();
