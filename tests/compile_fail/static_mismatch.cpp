// expect: static extents differ
//
// Converting between tori whose static extents differ can never succeed, so it is a compile
// error even when spelled explicitly. The twin converts between equal static extents.
#include <collectives/topology.hpp>

std::size_t ring_size()
{
#ifndef COLLECTIVES_TWIN
  collectives::Ring<8> r{collectives::Ring<7>{}};
#else
  collectives::Ring<8> r{collectives::Ring<8>{}};
#endif
  return r.size();
}
