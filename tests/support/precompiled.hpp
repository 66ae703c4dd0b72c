// The test executables' precompiled header (COLLECTIVES_TEST_PCH, collectives_use_test_pch in
// cmake/CollectivesTesting.cmake): Catch2, the standard library and the library itself, parsed
// once per build instead of once per test TU (measured: 0.3-3 s saved per test TU at -O0,
// more with clang++ than with g++, whose larger precompiled headers take longer to load).
// A build tool only: every test TU still includes what it uses, and the header check
// (clang preset) compiles every library header on its own.
#pragma once

#include <catch2/catch.hpp>

#include <collectives/collectives.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>
