# CheckScheduleVisits.cmake: run as
#   cmake -D NM=<nm> -D OBJECT=<file.o> -D EXPECT=none|some -P CheckScheduleVisits.cmake
#
# Lists the symbols OBJECT defines (nm -C --defined-only) and counts the library schedules'
# visits among them (collectives::detail::visit_thunk<collectives::...>).
# EXPECT=none: the compiled mode, where collectives::compiled holds them: any is an error
#              that names it (a schedule type missing from compiled_schedules.hpp's list).
# EXPECT=some: the header-only twin, which compiles them itself: none is an error (the
#              check would not see a definition).

foreach(var NM OBJECT EXPECT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "CheckScheduleVisits.cmake: -D ${var}=... is required")
  endif()
endforeach()
execute_process(COMMAND "${NM}" -C --defined-only "${OBJECT}" OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "CheckScheduleVisits.cmake: ${NM} failed on ${OBJECT} (${rc})")
endif()
string(REGEX MATCHALL "collectives::detail::visit_thunk<collectives::[^\n]*" visits "${symbols}")
list(LENGTH visits n)
if(EXPECT STREQUAL "none" AND n GREATER 0)
  list(JOIN visits "\n  " text)
  message(FATAL_ERROR "${OBJECT} defines ${n} schedule visits that collectives::compiled should hold "
                      "(add their schedule types to algorithm/compiled_schedules.hpp):\n  ${text}")
elseif(EXPECT STREQUAL "some" AND n EQUAL 0)
  message(FATAL_ERROR "${OBJECT} defines no schedule visit: the header-only twin should define every one")
endif()
message(STATUS "${OBJECT}: ${n} schedule visits defined (expected ${EXPECT})")
