# CompileFailTest.cmake: run as
#   cmake -D COMPILE_COMMANDS=<build>/compile_commands.json -D SOURCE=<file.cpp> -D MODE=fail|pass
#         -P CompileFailTest.cmake
#
# Runs SOURCE's compile command from COMPILE_COMMANDS (the entry with -DCOLLECTIVES_TWIN for
# MODE=pass, the one without for MODE=fail) with -fsyntax-only: every diagnostic, no code.
# MODE=fail: the compile must fail, and its output must match the CMake regular expression
#            on SOURCE's first line "// expect: <regex>" (with -D COMPILER_ID=GNU, the one
#            on a second line "// expect-gcc: <regex>" if there is one).
# MODE=pass: the compile (the -DCOLLECTIVES_TWIN twin) must succeed.

foreach(var COMPILE_COMMANDS SOURCE MODE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "CompileFailTest.cmake: -D ${var}=... is required")
  endif()
endforeach()
if(NOT MODE MATCHES "^(fail|pass)$")
  message(FATAL_ERROR "CompileFailTest.cmake: MODE must be 'fail' or 'pass', not '${MODE}'")
endif()

file(STRINGS "${SOURCE}" first_lines LIMIT_COUNT 2)
list(GET first_lines 0 first_line)
if(NOT first_line MATCHES "^// expect: (.+)$")
  message(FATAL_ERROR
    "${SOURCE}: the first line must be '// expect: <regex>', found: '${first_line}'")
endif()
string(STRIP "${CMAKE_MATCH_1}" expect)
# g++ words its diagnostics differently: a second line "// expect-gcc: <regex>" is what
# g++ must say (COMPILER_ID=GNU, from the test's registration).
list(LENGTH first_lines nlines)
if(DEFINED COMPILER_ID AND COMPILER_ID STREQUAL "GNU" AND nlines GREATER 1)
  list(GET first_lines 1 second_line)
  if(second_line MATCHES "^// expect-gcc: (.+)$")
    string(STRIP "${CMAKE_MATCH_1}" expect)
  endif()
endif()

# The entry of SOURCE for this mode.
file(READ "${COMPILE_COMMANDS}" json)
string(JSON count LENGTH "${json}")
math(EXPR last "${count} - 1")
set(command)
foreach(i RANGE ${last})
  string(JSON file GET "${json}" ${i} file)
  if(NOT file STREQUAL SOURCE)
    continue()
  endif()
  string(JSON candidate GET "${json}" ${i} command)
  string(FIND "${candidate}" "-DCOLLECTIVES_TWIN" twin_at)
  if(twin_at GREATER_EQUAL 0)
    set(entry_mode pass)
  else()
    set(entry_mode fail)
  endif()
  if(entry_mode STREQUAL MODE)
    string(JSON directory GET "${json}" ${i} directory)
    set(command "${candidate}")
    break()
  endif()
endforeach()
if(NOT command)
  message(FATAL_ERROR "CompileFailTest.cmake: no ${MODE} entry for ${SOURCE} in ${COMPILE_COMMANDS}")
endif()

separate_arguments(argv UNIX_COMMAND "${command}")
execute_process(
  COMMAND ${argv} -fsyntax-only
  WORKING_DIRECTORY "${directory}"
  RESULT_VARIABLE result
  OUTPUT_VARIABLE output
  ERROR_VARIABLE output)

if(MODE STREQUAL "pass")
  if(NOT result EQUAL 0)
    message("${output}")
    message(FATAL_ERROR "${SOURCE} with -DCOLLECTIVES_TWIN must compile, but the compiler failed (${result}).")
  endif()
  message(STATUS "OK: ${SOURCE} compiles with -DCOLLECTIVES_TWIN")
else()
  if(result EQUAL 0)
    message(FATAL_ERROR "${SOURCE} compiled, but it must fail to compile with an error matching: ${expect}")
  endif()
  if(NOT output MATCHES "${expect}")
    message("${output}")
    message(FATAL_ERROR "${SOURCE} failed to compile, but not with an error matching: ${expect}")
  endif()
  message(STATUS "OK: ${SOURCE} fails to compile as expected (${expect})")
endif()
