// The Catch2 main of collectives_seeds_tests; the test cases live in tests/seeds/*.cpp.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
