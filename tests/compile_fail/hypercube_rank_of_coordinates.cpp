// expect: needs one coordinate per dimension
//
// Hypercube<3>::rank_of takes three coordinates: five (or one) used to be cut or padded
// silently. The twin passes three.
#include <collectives/topology.hpp>

#include <array>

#ifndef COLLECTIVES_TWIN
static_assert(collectives::Hypercube<3>{}.rank_of(std::array<std::size_t, 5>{1, 1, 1, 1, 1}) == 7);
#else
static_assert(collectives::Hypercube<3>{}.rank_of(std::array<std::size_t, 3>{1, 1, 1}) == 7);
#endif

int main() {}
