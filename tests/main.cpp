// The Catch2 main of collectives_tests; the test cases live in tests/unit/*.cpp.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
