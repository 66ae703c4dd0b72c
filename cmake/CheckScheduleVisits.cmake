# CheckScheduleVisits.cmake: run as
#   cmake -D NM=<nm> -D OBJECT=<file.o> -D EXPECT=none|some -P CheckScheduleVisits.cmake
#
# Lists the symbols OBJECT defines (nm -C --defined-only) and counts among them the library
# schedules' visits (collectives::detail::visit_thunk<collectives::...>) and the run-time
# estimate's walks and evaluations by classes (collectives::detail::walk_every_rank_at_run_time<
# collectives::...>, collectives::detail::estimate_by_classes_at_run_time<collectives::...>),
# and the combine kernels (collectives::detail::combine_kernel<...>, combine3_kernel<...>).
# EXPECT=none: the compiled mode, where collectives::compiled holds them: any is an error
#              that names it (a type missing from cost/compiled_once.hpp's lists).
# EXPECT=some: the header-only twin, which compiles them itself: none is an error (the
#              check would not see a definition).

include(${CMAKE_CURRENT_LIST_DIR}/DefinedSymbols.cmake)
collectives_defined_symbols(CheckScheduleVisits.cmake symbols EXPECT)
string(REGEX MATCHALL "collectives::detail::(visit_thunk|walk_every_rank_at_run_time|estimate_by_classes_at_run_time)<collectives::[^\n]*" visits
       "${symbols}")
# The common combine kernels (COLLECTIVES_LIBRARY_KERNELS), which make_reducer takes.
string(REGEX MATCHALL "collectives::detail::combine3?_kernel<[^\n]*" kernels "${symbols}")
list(APPEND visits ${kernels})
list(LENGTH visits n)
if(EXPECT STREQUAL "none" AND n GREATER 0)
  list(JOIN visits "\n  " text)
  message(FATAL_ERROR "${OBJECT} defines ${n} visits, walks or kernels that collectives::compiled should hold "
                      "(add their types to cost/compiled_once.hpp's lists or COLLECTIVES_LIBRARY_KERNELS):\n  ${text}")
elseif(EXPECT STREQUAL "some" AND n EQUAL 0)
  message(FATAL_ERROR "${OBJECT} defines no visit or walk: the header-only twin should define every one")
endif()
message(STATUS "${OBJECT}: ${n} visits and walks defined (expected ${EXPECT})")
