// expect: is not a node of a topology of
//
// A static topology's neighbour of a node it does not have is a compile error in constant
// evaluation (Ring<5> has nodes 0..4; neighbor(7, 0) used to answer 8). The twin asks for
// node 4's.
#include <collectives/topology.hpp>

#ifndef COLLECTIVES_TWIN
static_assert(collectives::Ring<5>{}.neighbor(7, 0) == 8);
#else
static_assert(collectives::Ring<5>{}.neighbor(4, 0) == 0);
#endif

int main() {}
