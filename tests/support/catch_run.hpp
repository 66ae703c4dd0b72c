#pragma once
// Runs the Catch2 session on the command line (tests/support/catch_impl.cpp): what both mains
// of the suite call (tests/main.cpp, tests/support/catch_mpi_main.cpp).
int collectives_testing_catch_run(int argc, char* argv[]);
