// The Catch2 main of the test executables (Catch2's implementation: tests/support/catch_impl.cpp);
// the test cases live in tests/unit, tests/seeds, tests/transport, tests/hardening and tests/tools.
#include "support/catch_run.hpp"

int main(int argc, char* argv[]) { return collectives_testing_catch_run(argc, argv); }
