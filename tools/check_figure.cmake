# ctest helper: draws one figure with collectives-draw and fails when it differs from the
# committed one.  cmake -DTOOL=... -DFIGURE=docs/figures/x.svg -DARGS="..." -DOUT=... -P check_figure.cmake
separate_arguments(args UNIX_COMMAND "${ARGS}")
execute_process(COMMAND ${TOOL} ${args} --svg ${OUT} RESULT_VARIABLE status OUTPUT_QUIET)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "collectives-draw ${ARGS} failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${FIGURE} ${OUT} RESULT_VARIABLE differs)
if(differs)
  message(FATAL_ERROR "${FIGURE} is not what collectives-draw draws now: run bash scripts/figures")
endif()
