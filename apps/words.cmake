# The tool's words for what the core gives as fields and values: remedies as commands,
# fields as options, the diagnosis's text and JSON forms. They need only the core, so they
# are a library of their own, built with or without Kafka, which tests/cli_unit tests and
# the causal binary links. (The simulator's commands, simulate_commands.cpp, are compiled
# into each sweep binary instead: the mutant builds link no library.)
set(CAUSAL_APP_WORDS_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/causal/option_words.cpp
  ${CMAKE_CURRENT_LIST_DIR}/causal/shell_word.cpp
  ${CMAKE_CURRENT_LIST_DIR}/causal/remedy_command.cpp
  ${CMAKE_CURRENT_LIST_DIR}/causal/explain_summary.cpp
  ${CMAKE_CURRENT_LIST_DIR}/causal/explain_json.cpp
  ${CMAKE_CURRENT_LIST_DIR}/causal/explain_text.cpp)
add_library(causal_app_words STATIC ${CAUSAL_APP_WORDS_SOURCES})
target_include_directories(causal_app_words PUBLIC ${CMAKE_CURRENT_LIST_DIR}/causal)
target_link_libraries(causal_app_words PUBLIC causal_core PRIVATE causal_warnings)
