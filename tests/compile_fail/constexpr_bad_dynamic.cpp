// expect: require.*"collectives::Torus: every extent must be at least 1"
//
// A run-time extent of 0 throws std::invalid_argument; in a constant expression the throw
// is a compile error, and both compilers show the failing check's message in the trace of
// the constant evaluation: g++ 12 "in 'constexpr' expansion of
// 'collectives::detail::require(..., ...("collectives::Torus: every extent must be at
// least 1"))'", clang++ 14 "in call to 'require(false, {51, &"collectives::Torus: every
// extent must be at least 1"[0]})'". The twin builds Ring<>{1} in a constant expression.
#include <collectives/topology.hpp>

#ifndef COLLECTIVES_TWIN
constexpr collectives::Ring<> ring{0};
#else
constexpr collectives::Ring<> ring{1};
#endif

static_assert(ring.size() == 1);
