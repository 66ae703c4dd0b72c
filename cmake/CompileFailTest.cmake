# CompileFailTest.cmake: run as
#   cmake -D BUILD_DIR=<tree> -D TARGET=<target> -D SOURCE=<file.cpp> -D MODE=fail|pass -P CompileFailTest.cmake
#
# MODE=fail: building TARGET must fail, and the build output must match the
#            CMake regular expression on SOURCE's first line "// expect: <regex>".
# MODE=pass: building TARGET (the -DCOLLECTIVES_TWIN twin) must succeed.

foreach(var BUILD_DIR TARGET SOURCE MODE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "CompileFailTest.cmake: -D ${var}=... is required")
  endif()
endforeach()

file(STRINGS "${SOURCE}" first_line LIMIT_COUNT 1)
if(NOT first_line MATCHES "^// expect: (.+)$")
  message(FATAL_ERROR
    "${SOURCE}: the first line must be '// expect: <regex>', found: '${first_line}'")
endif()
string(STRIP "${CMAKE_MATCH_1}" expect)

execute_process(
  COMMAND "${CMAKE_COMMAND}" --build "${BUILD_DIR}" --target "${TARGET}"
  RESULT_VARIABLE result
  OUTPUT_VARIABLE output
  ERROR_VARIABLE output)

if(MODE STREQUAL "pass")
  if(NOT result EQUAL 0)
    message("${output}")
    message(FATAL_ERROR "${SOURCE} with -DCOLLECTIVES_TWIN must compile, but the build failed (${result}).")
  endif()
  message(STATUS "OK: ${SOURCE} compiles with -DCOLLECTIVES_TWIN")
elseif(MODE STREQUAL "fail")
  if(result EQUAL 0)
    message(FATAL_ERROR "${SOURCE} compiled, but it must fail to compile with an error matching: ${expect}")
  endif()
  if(NOT output MATCHES "${expect}")
    message("${output}")
    message(FATAL_ERROR "${SOURCE} failed to compile, but not with an error matching: ${expect}")
  endif()
  message(STATUS "OK: ${SOURCE} fails to compile as expected (${expect})")
else()
  message(FATAL_ERROR "CompileFailTest.cmake: MODE must be 'fail' or 'pass', not '${MODE}'")
endif()
