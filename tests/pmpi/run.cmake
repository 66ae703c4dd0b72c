# Runs a command and checks its exit status and output (stdout and stderr together):
#
#   cmake [-D EXIT=zero|nonzero] [-D "MATCH=re1;re2"] [-D "NO_MATCH=re1;re2"]
#         [-D TIMEOUT=seconds] [-D RANK_OUTPUT=dir] -P run.cmake -- <command> <args>...
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
# RANK_OUTPUT: the directory of mpiexec's --output-filename, emptied first; each rank's
# files are read after the run (see below).
if(DEFINED RANK_OUTPUT)
  file(REMOVE_RECURSE "${RANK_OUTPUT}")
endif()
execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT ${TIMEOUT})
string(APPEND out "\n${err}")
message("${out}")
# Two ranks' stderr interleave the same way: a line of one rank can land inside a line of
# the other ("...half_du" "collectives-pmpi: communicator #6: ...\n" "plex, ..."). The
# regexes are also tried on the output with such inserted whole lines taken out.
string(REGEX REPLACE "([^\n])collectives-pmpi: [^\n]*\n" "\\1" mended "${out}")
# Not every insertion is a whole line (mpirun reads each rank's pipe in pieces that may end
# inside a line: "...half_du" "nicator #6: ...\n"), so with RANK_OUTPUT the regexes are
# also tried on each rank's own files, one after the other, where no line is cut.
if(DEFINED RANK_OUTPUT)
  file(GLOB_RECURSE rank_files LIST_DIRECTORIES false "${RANK_OUTPUT}/*")
  list(SORT rank_files)
  foreach(f IN LISTS rank_files)
    file(READ "${f}" text)
    string(APPEND mended "\n${text}")
  endforeach()
endif()

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
