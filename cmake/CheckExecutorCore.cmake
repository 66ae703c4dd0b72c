# CheckExecutorCore.cmake: run as
#   cmake -D NM=<nm> -D OBJECT=<file.o> -P CheckExecutorCore.cmake
#
# Issue 12: the executor's byte-moving core is not instantiated per element type and
# operator. Lists the functions OBJECT defines (nm -C --defined-only; tests/separate/
# executor_core_once.cpp, header-only calls over five element types and four operators) and
# requires:
#  - the core, collectives::detail::run_steps<...>, make_plan<...> and run_plan<...>,
#    defined exactly once each (their own lambdas, which nm lists as "...::{lambda", are
#    not definitions of the core);
#  - the typed pieces, collectives::detail::execute_ref<...> (a call's entry) and
#    combine_kernel<...>, defined at least four times each: the object did instantiate the
#    calls per type and operator, so one core is a finding, not an empty object.

include(${CMAKE_CURRENT_LIST_DIR}/DefinedSymbols.cmake)
collectives_defined_symbols(CheckExecutorCore.cmake symbols)
# One element a line. A ";" inside square brackets does not split a CMake list, so the
# brackets some symbols hold ("[abi:cxx11]", "operator[]") become parentheses first.
string(REPLACE "[" "(" symbols "${symbols}")
string(REPLACE "]" ")" symbols "${symbols}")
string(REPLACE "\n" ";" lines "${symbols}")
# The definitions of the function template collectives::detail::<name>: lines
# "... void collectives::detail::<name><...>(...)", not its lambdas ("...::{lambda").
function(definitions_of name out)
  set(found "")
  foreach(line IN LISTS lines)
    if(line MATCHES " void collectives::detail::${name}<" AND NOT line MATCHES "::\\{lambda")
      list(APPEND found "${line}")
    endif()
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()
set(failed "")
foreach(core run_steps make_plan run_plan)
  definitions_of(${core} found)
  list(LENGTH found n)
  if(NOT n EQUAL 1)
    list(JOIN found "\n  " text)
    string(APPEND failed "collectives::detail::${core} is defined ${n} times (expected once):\n  ${text}\n")
  endif()
endforeach()
foreach(typed execute_ref combine_kernel)
  definitions_of(${typed} found)
  list(LENGTH found n)
  if(n LESS 4)
    string(APPEND failed "collectives::detail::${typed} is defined ${n} times: the object should instantiate it "
                         "per element type and operator (at least 4)\n")
  endif()
endforeach()
if(failed)
  message(FATAL_ERROR "${OBJECT}:\n${failed}")
endif()
message(STATUS "${OBJECT}: the executor core defined once, its typed entry points and kernels per type and operator")
