// expect: D must be at most 63
//
// 2^64 nodes do not fit in std::size_t: Hypercube<64> is rejected by its static_assert.
// The twin uses Hypercube<63>, the largest valid one.
#include <collectives/topology.hpp>

#ifndef COLLECTIVES_TWIN
collectives::Hypercube<64> cube;
#else
collectives::Hypercube<63> cube;
#endif

std::size_t cube_size() { return cube.size(); }
