set(CAUSAL_SIM_SOURCES ${CMAKE_CURRENT_LIST_DIR}/world_placeholder.cpp)
