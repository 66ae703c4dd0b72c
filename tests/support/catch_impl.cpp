// Catch2's implementation, compiled once per build for both mains (tests/main.cpp and
// tests/support/catch_mpi_main.cpp): with CATCH_CONFIG_RUNNER it has no main of its own, and
// Catch::Session is declared only here, so the mains call it through catch_run().
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "catch_run.hpp"

int collectives_testing_catch_run(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }
