# Every .cpp in lib/kafka is part of causal_kafka (one idea per file).
file(GLOB CAUSAL_KAFKA_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cpp)
