// The library's non-template code (its impl/*.ipp files: the threads transport, the error
// texts, calibrate()'s clock and fitting, the executor core), compiled once per build tree
// for the test executables that define COLLECTIVES_DETAIL_LINKED_CORE
// (collectives_use_test_pch, cmake/CollectivesTesting.cmake): the first part of
// separate_compilation.hpp, without the compiled mode's selections and visits. Those
// executables' translation units only declare this code, as in the compiled mode, but keep
// every template, a default call's selection and the schedules' visits header-only, so the
// unit tests still run the header-only library's front ends: each test TU saves the core's
// code generation (2-3 s at -O0).

#if !defined(COLLECTIVES_DETAIL_LINKED_CORE) || defined(COLLECTIVES_SEPARATE_COMPILATION)
#error "tests/support/linked_core.cpp: built with COLLECTIVES_DETAIL_LINKED_CORE only"
#endif

#include <collectives/separate_compilation.hpp>
