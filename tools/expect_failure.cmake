# ctest helper: passes only if COMMAND (a ;-list) exits non-zero and prints EXPECT (a
# regular expression): a bad command line must fail, and say why.
#   cmake "-DCOMMAND=tool;--flag;value" "-DEXPECT=regex" -P expect_failure.cmake
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
message(STATUS "exit: ${rc}\n${out}${err}")
if(rc EQUAL 0 OR NOT rc MATCHES "^[0-9]+$")
  message(FATAL_ERROR "the command did not fail (exit '${rc}')")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECT}")
  message(FATAL_ERROR "the command's output does not match '${EXPECT}'")
endif()
