// expect: (because|and) 'commutative_operator_if_needed<collectives::reduce_scatter_algorithm::Ring, false>' evaluated to false
//
// The ring reduce-scatter combines each block in a rotated rank order, so it needs an
// operator known to be commutative (Needs::commutative); a plain lambda is not. Naming it
// with one matches no overload of reduce_scatter, and the diagnostic names the algorithm
// type and the failed requirement (commutative_operator_if_needed). The twin declares the
// operator commutative with collectives::commutative (also checked in
// tests/unit/registry.cpp).
#include <collectives/algorithm/operators.hpp>
#include <collectives/collective/reduce_scatter.hpp>
#include <collectives/topology.hpp>
#include <collectives/transport/concepts.hpp>

#include "fake_endpoint.hpp"

#include <cstddef>
#include <span>
#include <vector>

using Topo = collectives::Ring<4>;

using FakeEndpoint = collectives::testing::FakeEndpoint<Topo::static_size>;

void reduce_scatter_ring(FakeEndpoint& ep, const std::vector<long>& send, std::vector<long>& recv)
{
  collectives::Communicator<FakeEndpoint, Topo> comm(ep, Topo{});
  const auto add = [](const long& a, const long& b) { return a + b; };
#ifndef COLLECTIVES_TWIN
  collectives::reduce_scatter(comm, send, recv, add, collectives::reduce_scatter_algorithm::ring);
#else
  collectives::reduce_scatter(comm, send, recv, collectives::commutative(add),
                              collectives::reduce_scatter_algorithm::ring);
#endif
}
