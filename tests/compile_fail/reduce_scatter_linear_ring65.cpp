// expect: (because|and) 'ranks_within_limit<collectives::reduce_scatter_algorithm::Linear, collectives::Torus<65> ?>' evaluated to false
//
// The linear reduce-scatter has rank 0 hold every rank's p blocks at once and serves at
// most 64 ranks (linear_reduce_scatter_max_ranks): naming it for a Ring<65> communicator
// matches no overload of reduce_scatter, and the diagnostic names the algorithm type and
// the failed requirement (ranks_within_limit). The twin, Ring<64>, compiles.
#include <collectives/collectives.hpp>

#include "fake_endpoint.hpp"

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#ifndef COLLECTIVES_TWIN
using Topo = collectives::Ring<65>;
#else
using Topo = collectives::Ring<64>;
#endif

using FakeEndpoint = collectives::testing::FakeEndpoint<Topo::static_size>;

void reduce_blocks(FakeEndpoint& ep, const std::vector<int>& send, std::vector<int>& recv)
{
  collectives::Communicator<FakeEndpoint, Topo> comm(ep, Topo{});
  collectives::reduce_scatter(comm, send, recv, std::plus<>{}, collectives::reduce_scatter_algorithm::linear);
}
