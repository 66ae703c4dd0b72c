// expect: (conversion from .+ to non-scalar type .+ requested|no viable conversion from .+ to .+Ring<8>)
//
// Run-time -> static extents is a checked conversion, so it must be spelled out: copy-
// initialising a Ring<8> from a Ring<> does not compile (the converting constructor is
// explicit); direct-initialisation, in the twin, does.
// The messages: g++ 12 "conversion from 'Torus<...>' to non-scalar type 'Torus<...>'
// requested"; clang++ 14 "no viable conversion from 'Ring<(default) dynamic_extent>' to
// 'Ring<8>'".
#include <collectives/topology.hpp>

std::size_t ring_size()
{
#ifndef COLLECTIVES_TWIN
  collectives::Ring<8> r = collectives::Ring<>{8};
#else
  collectives::Ring<8> r{collectives::Ring<>{8}};
#endif
  return r.size();
}
