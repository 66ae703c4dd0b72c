// The Catch2 main of collectives_tool_tests (tests/tools/*_test.cpp).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
