# DefinedSymbols.cmake: what the nm checks (CheckScheduleVisits.cmake, CheckExecutorCore.cmake)
# share. Included by a script run with cmake -P.
#
# collectives_defined_symbols(<script> <out> <var>...): fails, naming <script>, unless each
# <var> was given with -D; then sets <out> to the symbols ${OBJECT} defines, demangled, one
# a line ("${NM} -C --defined-only ${OBJECT}": "<address> <type> <name>").
function(collectives_defined_symbols script out)
  foreach(var NM OBJECT ${ARGN})
    if(NOT DEFINED ${var})
      message(FATAL_ERROR "${script}: -D ${var}=... is required")
    endif()
  endforeach()
  execute_process(COMMAND "${NM}" -C --defined-only "${OBJECT}" OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${script}: ${NM} failed on ${OBJECT} (${rc})")
  endif()
  set(${out} "${symbols}" PARENT_SCOPE)
endfunction()
