// expect: collectives example: N must be positive
//
// Example of a compile-fail test (see tests/CMakeLists.txt):
//  - the first line is "// expect: <CMake regex>"; compile_fail.<file> passes only if this
//    file FAILS to compile with an error matching it;
//  - compile_fail.<file>.twin compiles it again with -DCOLLECTIVES_TWIN defined and must
//    SUCCEED, proving that the failure comes from the construct under test alone.
#include <collectives/collectives.hpp>

namespace {

template <int N>
struct Positive {
    static_assert(N > 0, "collectives example: N must be positive");
    static constexpr int value = N;
};

}  // namespace

#ifndef COLLECTIVES_TWIN
int value = Positive<0>::value;
#else
int value = Positive<1>::value;
#endif
