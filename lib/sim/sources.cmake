# The simulator and its oracle (docs/verification.md). One idea per file. Listed rather than
# globbed: the mutant builds in tests/sim recompile exactly this list with one rule broken.
set(CAUSAL_SIM_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/log.cpp
  ${CMAKE_CURRENT_LIST_DIR}/oracle.cpp
  ${CMAKE_CURRENT_LIST_DIR}/config.cpp
  ${CMAKE_CURRENT_LIST_DIR}/counters.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sender.cpp
  ${CMAKE_CURRENT_LIST_DIR}/node.cpp
  ${CMAKE_CURRENT_LIST_DIR}/transitions.cpp
  ${CMAKE_CURRENT_LIST_DIR}/budget.cpp
  ${CMAKE_CURRENT_LIST_DIR}/world.cpp
  ${CMAKE_CURRENT_LIST_DIR}/attribution.cpp
  ${CMAKE_CURRENT_LIST_DIR}/scenarios.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sweep.cpp
  ${CMAKE_CURRENT_LIST_DIR}/state_hash.cpp
  ${CMAKE_CURRENT_LIST_DIR}/explore.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reduction.cpp
)
