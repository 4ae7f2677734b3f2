# Helpers that add a CTest test with its name written once.
#
#   causal_test(NAME <name> COMMAND <command> [<arg>...]
#               [LABELS <label>...] [TIMEOUT <seconds>] [FIXTURES <fixture>...]
#               [RESOURCE_LOCK <lock>...] [SETUP <fixture>] [CLEANUP <fixture>])
#
# adds the test <name> running <command>, with its labels, timeout, the fixtures it requires
# (FIXTURES_REQUIRED), the resources it takes alone (RESOURCE_LOCK), and the fixture it sets
# up (FIXTURES_SETUP) or cleans up (FIXTURES_CLEANUP).
#
#   causal_shell_test(NAME <name> SCRIPT <file> [ARGS <arg>...] [LABELS ...] [TIMEOUT ...]
#                     [FIXTURES ...] [RESOURCE_LOCK ...] [SETUP ...] [CLEANUP ...])
#
# is causal_test with the command `bash <file> <arg>...`, <file> relative to the calling
# directory's sources. The scripts source tests/lib.sh for what they share.
#
# A command word with a semicolon in it (an awk program, say) keeps it.

# The properties both set, from the caller's parsed arguments (arg_*).
macro(_causal_test_properties)
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "causal test '${arg_NAME}': unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(arg_LABELS)
    set_property(TEST "${arg_NAME}" PROPERTY LABELS ${arg_LABELS})
  endif()
  if(arg_TIMEOUT)
    set_property(TEST "${arg_NAME}" PROPERTY TIMEOUT ${arg_TIMEOUT})
  endif()
  if(arg_FIXTURES)
    set_property(TEST "${arg_NAME}" PROPERTY FIXTURES_REQUIRED ${arg_FIXTURES})
  endif()
  if(arg_RESOURCE_LOCK)
    set_property(TEST "${arg_NAME}" PROPERTY RESOURCE_LOCK ${arg_RESOURCE_LOCK})
  endif()
  if(arg_SETUP)
    set_property(TEST "${arg_NAME}" PROPERTY FIXTURES_SETUP ${arg_SETUP})
  endif()
  if(arg_CLEANUP)
    set_property(TEST "${arg_NAME}" PROPERTY FIXTURES_CLEANUP ${arg_CLEANUP})
  endif()
endmacro()

# A name may hold a semicolon, so neither function passes it on as a list element.
function(causal_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;TIMEOUT;SETUP;CLEANUP" "COMMAND;LABELS;FIXTURES;RESOURCE_LOCK")
  if(NOT arg_NAME OR NOT arg_COMMAND)
    message(FATAL_ERROR "causal_test: NAME and COMMAND are required")
  endif()
  add_test(NAME "${arg_NAME}" COMMAND ${arg_COMMAND})
  _causal_test_properties()
endfunction()

function(causal_shell_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;SCRIPT;TIMEOUT;SETUP;CLEANUP" "ARGS;LABELS;FIXTURES;RESOURCE_LOCK")
  if(NOT arg_NAME OR NOT arg_SCRIPT)
    message(FATAL_ERROR "causal_shell_test: NAME and SCRIPT are required")
  endif()
  add_test(NAME "${arg_NAME}" COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/${arg_SCRIPT} ${arg_ARGS})
  _causal_test_properties()
endfunction()
