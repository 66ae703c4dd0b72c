# CollectivesTesting.cmake: helpers used by tests/CMakeLists.txt.
#
#   collectives_add_unit_tests(<family> <source>...)
#   collectives_add_compile_fail_test(<source>)
#   collectives_add_header_check(<target> HEADERS <hdr>... LINK <lib>...)
#   collectives_add_mpi_test(<name> <source> [NPROCS <n>...] [TCP_NPROCS <n>...]
#                            [LIBRARIES <lib>...] [NO_MAIN] [TIMEOUT <seconds>])
#   collectives_add_consumer_test(<name> SOURCE_DIR <dir> [HEADER_ONLY] [FIXTURES_REQUIRED <f>...]
#                                 [CONFIGURE_ARGS <arg>...])
#
# Every target built by these helpers links collectives_warnings
# (-Wall -Wextra -Wpedantic [-Werror]), defined in the root CMakeLists.txt.

include_guard(GLOBAL)

set(_COLLECTIVES_TESTING_DIR "${CMAKE_CURRENT_LIST_DIR}")

# ---------------------------------------------------------------------------
# Unit tests of one family (a collective family, the cost model, the topologies...).
#
# Builds the Catch2 executable test_<family> from <source>..., with the Catch main
# compiled once for all families (collectives_catch_main below),
# and registers each of its TEST_CASEs as a ctest test (labels unit and <family>).
# One executable per family, compiled as one TU, keeps each family's instantiations in
# one place and lets the families compile, link and be discovered in parallel.
# ---------------------------------------------------------------------------
# collectives_catch_main(): the target collectives_catch_main, Catch2's main for every Catch2
# executable of the suite except the MPI ones (tests/support/catch_mpi_main.cpp). Both mains
# link Catch2's implementation, compiled once per build (collectives_catch_impl: the slowest TU
# of all to compile, unoptimised and without debug information, since it needs neither).
function(collectives_catch_main)
  collectives_catch_impl()
  if(NOT TARGET collectives_catch_main)
    add_library(collectives_catch_main OBJECT "${PROJECT_SOURCE_DIR}/tests/main.cpp")
    target_link_libraries(collectives_catch_main PUBLIC collectives_catch_impl PRIVATE Catch2::Catch2)
    target_compile_features(collectives_catch_main PRIVATE cxx_std_20)
  endif()
endfunction()

# collectives_catch_impl(): the static library collectives_catch_impl, Catch2's implementation
# (tests/support/catch_impl.cpp), for both Catch2 mains.
function(collectives_catch_impl)
  if(NOT TARGET collectives_catch_impl)
    add_library(collectives_catch_impl STATIC "${PROJECT_SOURCE_DIR}/tests/support/catch_impl.cpp")
    target_link_libraries(collectives_catch_impl PUBLIC Catch2::Catch2)
    # The tests' standard: Catch's string_view support is compiled in only from C++17 on.
    target_compile_features(collectives_catch_impl PRIVATE cxx_std_20)
    target_compile_options(collectives_catch_impl PRIVATE -O0 -g0)
  endif()
endfunction()

# ---------------------------------------------------------------------------
# collectives_use_test_pch(<target>): <target> reuses the tests' precompiled header
# (tests/support/precompiled.hpp: Catch2, the standard library, the umbrella header; with
# collectives::mpi among <target>'s libraries, tests/support/precompiled_mpi.hpp), built once
# per build tree by the object library collectives_test_pch[_mpi]. Saves 0.3-3 s of each
# test TU (the time it spent parsing them). COLLECTIVES_TEST_PCH=OFF turns it off.
# It also links the library's non-template code compiled once per build tree
# (collectives_test_core[_mpi]: tests/support/linked_core*.cpp, with
# COLLECTIVES_DETAIL_LINKED_CORE, which <target> and the PCH are then compiled with): the
# target's TUs only declare the threads and MPI transports, the executor core, the error
# texts and calibrate's clock, and keep every template, a default call's selection and the
# schedules' visits header-only (detail/config.hpp). Saves their code generation, 2-3 s of
# each test TU at -O0. COLLECTIVES_TEST_LINKED_CORE=OFF compiles it in every TU.
# A target that links the MPI shim's objects (header-only builds of the same code) takes
# neither.
# ---------------------------------------------------------------------------
function(_collectives_test_core mpi out)
  if(NOT TARGET collectives_test_core)
    add_library(collectives_test_core STATIC "${PROJECT_SOURCE_DIR}/tests/support/linked_core.cpp")
    target_compile_definitions(collectives_test_core PUBLIC COLLECTIVES_DETAIL_LINKED_CORE)
    target_link_libraries(collectives_test_core PUBLIC collectives::collectives PRIVATE collectives_warnings)
  endif()
  set(core collectives_test_core)
  if(mpi)
    if(NOT TARGET collectives_test_core_mpi)
      add_library(collectives_test_core_mpi STATIC "${PROJECT_SOURCE_DIR}/tests/support/linked_core_mpi.cpp")
      target_link_libraries(collectives_test_core_mpi PUBLIC collectives_test_core collectives::mpi
                                                      PRIVATE collectives_warnings)
    endif()
    set(core collectives_test_core_mpi)
  endif()
  set(${out} ${core} PARENT_SCOPE)
endfunction()

function(collectives_use_test_pch target)
  get_target_property(libraries ${target} LINK_LIBRARIES)
  if("collectives_pmpi_static" IN_LIST libraries)
    return()
  endif()
  set(mpi FALSE)
  if("collectives::mpi" IN_LIST libraries OR "MPI::MPI_C" IN_LIST libraries)
    set(mpi TRUE)
  endif()
  set(core)
  if(COLLECTIVES_TEST_LINKED_CORE)
    _collectives_test_core(${mpi} core)
    target_link_libraries(${target} PRIVATE ${core})
  endif()
  if(NOT COLLECTIVES_TEST_PCH)
    return()
  endif()
  if(mpi)
    set(pch collectives_test_pch_mpi)
    set(header precompiled_mpi.hpp)
    set(library collectives::mpi)
  else()
    set(pch collectives_test_pch)
    set(header precompiled.hpp)
    set(library collectives::collectives)
  endif()
  if(NOT TARGET ${pch})
    # The same flags as the test targets (a PCH is used only with the flags it was built with).
    set(stub "${CMAKE_BINARY_DIR}/${pch}.cpp")
    file(CONFIGURE OUTPUT "${stub}" CONTENT "// The precompiled header's own TU.\n" @ONLY)
    add_library(${pch} OBJECT "${stub}")
    target_link_libraries(${pch} PRIVATE ${library} ${core} Catch2::Catch2 collectives_warnings)
    target_precompile_headers(${pch} PRIVATE "${PROJECT_SOURCE_DIR}/tests/support/${header}")
  endif()
  target_precompile_headers(${target} REUSE_FROM ${pch})
endfunction()

# catch_discover_tests with several LABELS: Catch2 2.13 passes PROPERTIES on as separate
# arguments, so a list of labels took the next property's name as its value (the unit tests
# had the label `unit` alone and lost their TIMEOUT and COST). The labels are set by a script
# ctest includes after the discovered tests.
#   collectives_discover_tests(<target> [TEST_PREFIX <prefix>] LABELS <label>... [PROPERTIES <name value>...])
function(collectives_discover_tests target)
  cmake_parse_arguments(arg "" "TEST_PREFIX" "LABELS;PROPERTIES" ${ARGN})
  set(tests_var ${target}_discovered)
  catch_discover_tests(${target} TEST_PREFIX "${arg_TEST_PREFIX}" TEST_LIST ${tests_var} PROPERTIES ${arg_PROPERTIES})
  set(script "${CMAKE_CURRENT_BINARY_DIR}/${target}_labels.cmake")
  file(WRITE "${script}"
    "if(${tests_var})\n  set_tests_properties(\${${tests_var}} PROPERTIES LABELS \"${arg_LABELS}\")\n"
    # An executable that lists no test (a broken discovery, every TEST_CASE compiled out)
    # must not let ctest report success over nothing: a test that fails names it.
    "else()\n  add_test(${target}_NO_TESTS_DISCOVERED ${target}_NO_TESTS_DISCOVERED)\n"
    "  set_tests_properties(${target}_NO_TESTS_DISCOVERED PROPERTIES LABELS \"${arg_LABELS}\")\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${script}")
endfunction()

function(collectives_add_unit_tests family)
  set(sources ${ARGN})
  collectives_catch_main()
  set(exe test_${family})
  add_executable(${exe} ${sources})
  target_link_libraries(${exe} PRIVATE
    collectives_catch_main collectives::collectives Catch2::Catch2 collectives_warnings)
  collectives_use_test_pch(${exe})
  # One TU per family (a unity build): the family's files instantiate the same collectives,
  # schedules and estimates, which one TU compiles once (gcc preset, clean builds: 190-214
  # -> 140-142 s of CPU for the six families of several files). So the names at namespace scope of a family's
  # files must differ from file to file.
  set_target_properties(${exe} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 0)
  collectives_discover_tests(${exe} LABELS unit ${family} PROPERTIES TIMEOUT 600)
endfunction()

# ---------------------------------------------------------------------------
# Compile-fail tests.
#
# <source>'s first line is "// expect: <regex>" (a CMake regular expression).
# Two tests are registered:
#   compile_fail.<name>       compiling <source> must FAIL and the compiler output
#                             must match <regex>;
#   compile_fail.<name>.twin  compiling <source> with -DCOLLECTIVES_TWIN must
#                             SUCCEED (proves the failure comes from the construct
#                             under test, not from a typo or a missing include).
# Each source is an EXCLUDE_FROM_ALL object library (and its twin) of the main
# build tree, so CMake writes its exact compile command, the library's flags
# included, to compile_commands.json. cmake/CompileFailTest.cmake runs that
# command with -fsyntax-only (diagnostics only, no code): no ninja in the build
# tree, so the cases need no lock and ctest -j runs them in parallel.
# ---------------------------------------------------------------------------
function(collectives_add_compile_fail_test source)
  get_filename_component(source "${source}" ABSOLUTE)
  get_filename_component(name "${source}" NAME_WE)

  file(STRINGS "${source}" first_line LIMIT_COUNT 1)
  if(NOT first_line MATCHES "^// expect: .+")
    message(WARNING "${source}: first line must be '// expect: <regex>'; "
                    "compile_fail.${name} will fail until it is.")
  endif()

  set(target compile_fail_${name})
  add_library(${target} OBJECT EXCLUDE_FROM_ALL "${source}")
  add_library(${target}_twin OBJECT EXCLUDE_FROM_ALL "${source}")
  target_compile_definitions(${target}_twin PRIVATE COLLECTIVES_TWIN)
  foreach(t IN ITEMS ${target} ${target}_twin)
    target_link_libraries(${t} PRIVATE collectives::collectives collectives_warnings)
    set_target_properties(${t} PROPERTIES EXPORT_COMPILE_COMMANDS ON)
  endforeach()

  foreach(mode IN ITEMS fail pass)
    set(test_name compile_fail.${name})
    if(mode STREQUAL "pass")
      string(APPEND test_name .twin)
    endif()
    add_test(NAME ${test_name}
      COMMAND ${CMAKE_COMMAND}
        -D COMPILE_COMMANDS=${CMAKE_BINARY_DIR}/compile_commands.json
        -D SOURCE=${source}
        -D MODE=${mode}
        -D COMPILER_ID=${CMAKE_CXX_COMPILER_ID}
        -P ${_COLLECTIVES_TESTING_DIR}/CompileFailTest.cmake)
    set_tests_properties(${test_name} PROPERTIES LABELS compile_fail TIMEOUT 600)
  endforeach()
endfunction()

# ---------------------------------------------------------------------------
# Header self-containment: one generated TU per header, including only that
# header (twice, to exercise its include guard / #pragma once), all compiled
# into the object library <target>, which is part of ALL.
# ---------------------------------------------------------------------------
function(collectives_add_header_check target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "BASE_DIR" "HEADERS;LINK")
  set(sources)
  foreach(header IN LISTS arg_HEADERS)
    file(RELATIVE_PATH rel "${arg_BASE_DIR}" "${header}")
    set(tu "${CMAKE_CURRENT_BINARY_DIR}/header_check/${rel}.cpp")
    # file(CONFIGURE) rewrites the file only when its content changes.
    file(CONFIGURE OUTPUT "${tu}" CONTENT
"// Generated by collectives_add_header_check: ${rel} must be self-contained.
#include <${rel}>
#include <${rel}>
" @ONLY)
    list(APPEND sources "${tu}")
  endforeach()
  if(NOT sources)
    return()
  endif()
  add_library(${target} OBJECT ${sources})
  target_link_libraries(${target} PRIVATE ${arg_LINK} collectives_warnings)
endfunction()

# ---------------------------------------------------------------------------
# MPI tests.
#
# Builds <source> into the executable mpi_<name> (linking collectives::mpi,
# Catch2 and, unless NO_MAIN, tests/support/catch_mpi_main.cpp which wraps
# Catch in MPI_Init_thread/MPI_Finalize and makes every rank fail if any does),
# and registers
#   mpi.<name>.np<N>      mpiexec --oversubscribe -n N mpi_<name>, for each N in NPROCS
#                         (default 1 3 4): Open MPI's default transports (shared memory)
#   mpi.<name>.np<N>.tcp  the same with --mca btl self,tcp, for each N in TCP_NPROCS
#                         (default 2 8; Open MPI only)
# ---------------------------------------------------------------------------
function(collectives_add_mpi_test name source)
  cmake_parse_arguments(PARSE_ARGV 2 arg "NO_MAIN;NO_PCH" "TIMEOUT" "NPROCS;TCP_NPROCS;LIBRARIES")
  if(NOT TARGET collectives::mpi)
    message(STATUS "collectives: MPI not found, skipping MPI test ${name}")
    return()
  endif()
  if(NOT DEFINED arg_NPROCS AND NOT "NPROCS" IN_LIST arg_KEYWORDS_MISSING_VALUES)
    set(arg_NPROCS 1 3 4)
  endif()
  if(NOT DEFINED arg_TCP_NPROCS AND NOT "TCP_NPROCS" IN_LIST arg_KEYWORDS_MISSING_VALUES)
    set(arg_TCP_NPROCS 2 8)
  endif()
  if(NOT arg_TIMEOUT)
    # 300 s: the longest run (reductions, 8 ranks over TCP on 2 cores) takes about 10 s on
    # a quiet machine and 210 s beside two busy loops (ranks that poll for a message get a
    # core only between the loops' time slices); a hang still ends, at the watchdog or here.
    set(arg_TIMEOUT 300)
  endif()
  # No TCP counts (the sanitizers' presets): one run over shared memory, at the test's
  # largest count.
  if(COLLECTIVES_TEST_MPI_TCP_NPROCS STREQUAL "" AND arg_NPROCS)
    list(GET arg_NPROCS -1 arg_NPROCS)
    set(arg_TCP_NPROCS)
  endif()

  _collectives_detect_open_mpi(is_open_mpi)

  set(exe mpi_${name})
  add_executable(${exe} "${source}")
  target_link_libraries(${exe} PRIVATE collectives::mpi Catch2::Catch2 collectives_warnings ${arg_LIBRARIES})
  if(NOT arg_NO_MAIN)
    if(NOT TARGET collectives_catch_mpi_main)
      collectives_catch_impl()
      add_library(collectives_catch_mpi_main OBJECT
        "${PROJECT_SOURCE_DIR}/tests/support/catch_mpi_main.cpp")
      target_link_libraries(collectives_catch_mpi_main PUBLIC collectives_catch_impl PRIVATE
        collectives::mpi Catch2::Catch2 collectives_warnings)
    endif()
    target_link_libraries(${exe} PRIVATE collectives_catch_mpi_main)
  endif()
  if(NOT arg_NO_PCH) # (NO_PCH: other compile definitions than the shared PCH's)
    collectives_use_test_pch(${exe})
  endif()

  set(extra_flags)
  set(exe_args)
  if(is_open_mpi)
    # --tag-output prefixes every output line with [job,rank]<stream>.
    set(extra_flags --oversubscribe --tag-output)
  else()
    set(arg_TCP_NPROCS) # --mca btl self,tcp is Open MPI's
  endif()
  if(NOT arg_NO_MAIN)
    set(exe_args --use-colour no)
  endif()

  set(runs)
  foreach(np IN LISTS arg_NPROCS)
    list(APPEND runs "${np}:default")
  endforeach()
  foreach(np IN LISTS arg_TCP_NPROCS)
    list(APPEND runs "${np}:tcp")
  endforeach()
  foreach(run IN LISTS runs)
    string(REPLACE ":" ";" run "${run}")
    list(GET run 0 np)
    list(GET run 1 variant)
    set(test_name mpi.${name}.np${np})
    set(variant_flags)
    if(variant STREQUAL "tcp")
      string(APPEND test_name .tcp)
      set(variant_flags --mca btl self,tcp)
    endif()
    add_test(NAME ${test_name}
      COMMAND ${MPIEXEC_EXECUTABLE} ${extra_flags} ${variant_flags}
              ${MPIEXEC_NUMPROC_FLAG} ${np} ${MPIEXEC_PREFLAGS}
              $<TARGET_FILE:${exe}> ${MPIEXEC_POSTFLAGS} ${exe_args})
    # PROCESSORS keeps ctest -jN from piling several multi-rank jobs onto
    # the same cores (it is clamped to the -j level).
    collectives_mpi_test_environment(${test_name})
    set_tests_properties(${test_name} PROPERTIES
      LABELS mpi
      PROCESSORS ${np}
      TIMEOUT ${arg_TIMEOUT})
  endforeach()
endfunction()

function(_collectives_detect_open_mpi out)
  if(NOT DEFINED CACHE{COLLECTIVES_MPIEXEC_IS_OPEN_MPI})
    set(is_open_mpi OFF)
    if(MPIEXEC_EXECUTABLE)
      execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version
        OUTPUT_VARIABLE version_out ERROR_VARIABLE version_out
        RESULT_VARIABLE version_rc TIMEOUT 30)
      if(version_out MATCHES "Open MPI|OpenRTE")
        set(is_open_mpi ON)
      endif()
    endif()
    set(COLLECTIVES_MPIEXEC_IS_OPEN_MPI ${is_open_mpi} CACHE INTERNAL "mpiexec is Open MPI's")
  endif()
  set(${out} ${COLLECTIVES_MPIEXEC_IS_OPEN_MPI} PARENT_SCOPE)
endfunction()

# ---------------------------------------------------------------------------
# collectives_mpi_test_environment(<test>...): the environment of every test that runs
# mpiexec (the MPI tests, the watchdog's, the shim's and the examples'), set on <test>...
# ---------------------------------------------------------------------------
function(collectives_mpi_test_environment)
  set(env
    OMPI_ALLOW_RUN_AS_ROOT=1
    OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    # Containers often forbid the cross-memory-attach syscalls of vader.
    OMPI_MCA_btl_vader_single_copy_mechanism=none
    # Open MPI's own messaging layer (ob1: shared memory, TCP), which it picks anyway on a
    # machine without a high-speed network; without this every MPI_Init first lets the
    # `cm` layer probe the PSM network libraries (Debian's Open MPI 4.1 configuration
    # already leaves UCX and OFI out), 0.2 s of each job's 0.3 s start, and the suite
    # starts some 150 jobs one after the other.
    OMPI_MCA_pml=ob1
    # Open MPI/PMIx/libevent are not instrumented: without
    # ignore_noninstrumented_modules TSan reports their internal races and can
    # deadlock symbolizing one while MPI_Finalize dlclose()s a plugin. Its lock-order
    # (deadlock) detector trips an internal CHECK on Open MPI's uninstrumented mutexes in
    # MPI_Finalize over TCP and the job hangs, so it is off here (races are still caught;
    # the unit tests keep it).
    "TSAN_OPTIONS=suppressions=${_COLLECTIVES_TESTING_DIR}/sanitizers/tsan.supp:ignore_noninstrumented_modules=1:halt_on_error=1:detect_deadlocks=0")
  # Open MPI keeps allocations past MPI_Finalize in plugins it has dlclose()d,
  # which LeakSanitizer can neither name nor suppress: no leak checking under
  # mpiexec (AddressSanitizer's other checks stay on; the unit tests keep it).
  set_tests_properties(${ARGN} PROPERTIES
    ENVIRONMENT "${env}"
    ENVIRONMENT_MODIFICATION "ASAN_OPTIONS=string_append::detect_leaks=0")
endfunction()

# ---------------------------------------------------------------------------
# Consumer projects: configure, build and run the CMake project in SOURCE_DIR
# as a separate build (same generator, compiler and flags), as three tests chained
# by fixtures:  consumer.<name>.configure -> .build -> .run (and .run_compiled, the
# project's consumer_compiled on collectives::compiled, unless HEADER_ONLY; with MPI, when
# this build found MPI, .run_mpi and .run_mpi_compiled: the project's consumer_mpi and
# consumer_mpi_compiled under mpiexec -n 2, configured with -DCOLLECTIVES_CONSUMER_MPI=ON)
# ---------------------------------------------------------------------------
function(collectives_add_consumer_test name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "HEADER_ONLY;MPI" "SOURCE_DIR" "FIXTURES_REQUIRED;CONFIGURE_ARGS")
  if(arg_MPI AND NOT TARGET collectives::mpi)
    set(arg_MPI OFF) # this build found no MPI: the project builds without it
  endif()
  if(arg_MPI)
    list(APPEND arg_CONFIGURE_ARGS -DCOLLECTIVES_CONSUMER_MPI=ON)
  endif()
  set(bin "${CMAKE_BINARY_DIR}/consumers/${name}")
  set(prefix consumer.${name})

  set(config_type "${CMAKE_BUILD_TYPE}")
  if(NOT config_type)
    set(config_type Release)
  endif()
  string(TOUPPER "${config_type}" config_upper)

  add_test(NAME ${prefix}.configure
    COMMAND ${CMAKE_COMMAND} --fresh
      -S "${arg_SOURCE_DIR}" -B "${bin}"
      -G "${CMAKE_GENERATOR}"
      "-DCMAKE_MAKE_PROGRAM=${CMAKE_MAKE_PROGRAM}"
      "-DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}"
      "-DCMAKE_BUILD_TYPE=${config_type}"
      # This build's flags too (the gcc preset's -O0 -g0: with CMake's Debug default, -g,
      # the consumers' main.cpp took 4.9-5.1 s to compile instead of 4.1-4.3 s).
      "-DCMAKE_CXX_FLAGS=${CMAKE_CXX_FLAGS}"
      "-DCMAKE_CXX_FLAGS_${config_upper}=${CMAKE_CXX_FLAGS_${config_upper}}"
      -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON
      ${arg_CONFIGURE_ARGS})
  set_tests_properties(${prefix}.configure PROPERTIES
    FIXTURES_REQUIRED "${arg_FIXTURES_REQUIRED}"
    FIXTURES_SETUP ${prefix}.configured)

  add_test(NAME ${prefix}.build
    COMMAND ${CMAKE_COMMAND} --build "${bin}")
  set_tests_properties(${prefix}.build PROPERTIES
    FIXTURES_REQUIRED "${arg_FIXTURES_REQUIRED};${prefix}.configured"
    FIXTURES_SETUP ${prefix}.built)

  set(runs ${prefix}.run)
  add_test(NAME ${prefix}.run COMMAND "${bin}/consumer")
  if(NOT arg_HEADER_ONLY)
    add_test(NAME ${prefix}.run_compiled COMMAND "${bin}/consumer_compiled") # collectives::compiled
    list(APPEND runs ${prefix}.run_compiled)
  endif()
  if(arg_MPI) # consumer_mpi (collectives::mpi) and consumer_mpi_compiled (collectives::compiled_mpi)
    foreach(variant mpi mpi_compiled)
      add_test(NAME ${prefix}.run_${variant}
        COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${MPIEXEC_PREFLAGS}
                "${bin}/consumer_${variant}" ${MPIEXEC_POSTFLAGS})
      collectives_mpi_test_environment(${prefix}.run_${variant})
      list(APPEND runs ${prefix}.run_${variant})
    endforeach()
  endif()
  set_tests_properties(${runs} PROPERTIES
    FIXTURES_REQUIRED "${arg_FIXTURES_REQUIRED};${prefix}.built")

  set_tests_properties(${prefix}.configure ${prefix}.build ${runs} PROPERTIES
    LABELS consumer
    TIMEOUT 600)
endfunction()
