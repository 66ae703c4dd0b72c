# Runs a command and checks its exit status and output (stdout and stderr together):
#
#   cmake [-D EXIT=zero|nonzero] [-D "MATCH=re1;re2"] [-D "NO_MATCH=re1;re2"]
#         [-D TIMEOUT=seconds] -P run.cmake -- <command> <args>...
#
# Every MATCH regex must match somewhere in the output, no NO_MATCH regex may; EXIT says
# what the exit status must be (default zero). In add_test, write ';' in a list as
# $<SEMICOLON>. Used by the MPI shim's tests to check the shim's report.

set(command)
set(seen FALSE)
foreach(i RANGE ${CMAKE_ARGC})
  if(i EQUAL CMAKE_ARGC)
    break()
  endif()
  if(seen)
    list(APPEND command "${CMAKE_ARGV${i}}")
  elseif(CMAKE_ARGV${i} STREQUAL "--")
    set(seen TRUE)
  endif()
endforeach()
if(NOT command)
  message(FATAL_ERROR "run.cmake: no command after --")
endif()
if(NOT DEFINED EXIT)
  set(EXIT zero)
endif()
if(NOT DEFINED TIMEOUT)
  set(TIMEOUT 300)
endif()

# stdout and stderr apart, then one after the other: captured into one variable, mpirun's
# two streams interleave at its read boundaries, inside lines (the shim's report is on
# stderr, the program's own lines on stdout).
execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT ${TIMEOUT})
string(APPEND out "\n${err}")
message("${out}")
# Two ranks' stderr interleave the same way: a line of one rank can land inside a line of
# the other ("...half_du" "collectives-pmpi: communicator #6: ...\n" "plex, ..."). The
# regexes are also tried on the output with such inserted whole lines taken out.
string(REGEX REPLACE "([^\n])collectives-pmpi: [^\n]*\n" "\\1" mended "${out}")

set(failed)
if(EXIT STREQUAL "zero" AND NOT rc STREQUAL "0")
  list(APPEND failed "exit status ${rc}, expected 0")
elseif(EXIT STREQUAL "nonzero" AND rc STREQUAL "0")
  list(APPEND failed "exit status 0, expected an error")
endif()
foreach(re IN LISTS MATCH)
  if(NOT out MATCHES "${re}" AND NOT mended MATCHES "${re}")
    list(APPEND failed "no line matches: ${re}")
  endif()
endforeach()
foreach(re IN LISTS NO_MATCH)
  if(out MATCHES "${re}" OR mended MATCHES "${re}")
    list(APPEND failed "a line matches what must not appear: ${re}")
  endif()
endforeach()
if(failed)
  list(JOIN failed "\n  " text)
  message(FATAL_ERROR "run.cmake: ${command}:\n  ${text}")
endif()
