// expect: (because|and) 'ranks_within_limit<collectives::alltoall_algorithm::Linear, collectives::Torus<65> ?>' evaluated to false
//
// The linear alltoall posts p - 1 messages per rank in one step and serves at most 64 ranks
// (linear_alltoall_max_ranks): naming it for a Ring<65> communicator matches no overload of
// alltoall, and the diagnostic names the algorithm type and the failed requirement
// (ranks_within_limit). The twin, Ring<64>, compiles (so does the check in
// tests/unit/registry.cpp).
#include <collectives/collectives.hpp>

#include "fake_endpoint.hpp"

#include <cstddef>
#include <span>
#include <vector>

#ifndef COLLECTIVES_TWIN
using Topo = collectives::Ring<65>;
#else
using Topo = collectives::Ring<64>;
#endif

using FakeEndpoint = collectives::testing::FakeEndpoint<Topo::static_size>;

void exchange(FakeEndpoint& ep, const std::vector<int>& send, std::vector<int>& recv)
{
  collectives::Communicator<FakeEndpoint, Topo> comm(ep, Topo{});
  collectives::alltoall(comm, send, recv, collectives::alltoall_algorithm::linear);
}
