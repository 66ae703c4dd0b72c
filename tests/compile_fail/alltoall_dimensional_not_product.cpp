// expect: (because|and) 'product_of_rings<collectives::alltoall_algorithm::Dimensional, collectives::FullyConnected<8> ?>' evaluated to false
//
// The dimension-by-dimension alltoall runs along the rings of a product topology (mesh,
// torus, hypercube); a fully connected network has none. Naming it for a
// Communicator over FullyConnected<8> matches no overload of alltoall, and the diagnostic
// names the algorithm type and the failed requirement (product_of_rings). The twin runs
// it on Mesh<2, 4>, the same eight ranks as a 2-D mesh.
#include <collectives/collective/alltoall.hpp>
#include <collectives/cost/fully_connected.hpp>
#include <collectives/topology.hpp>
#include <collectives/transport/concepts.hpp>

#include "fake_endpoint.hpp"

#include <cstddef>
#include <span>
#include <vector>

#ifndef COLLECTIVES_TWIN
using Topo = collectives::FullyConnected<8>;
#else
using Topo = collectives::Mesh<2, 4>;
#endif

using FakeEndpoint = collectives::testing::FakeEndpoint<8>;

void exchange(FakeEndpoint& ep, const std::vector<int>& send, std::vector<int>& recv)
{
  collectives::Communicator<FakeEndpoint, Topo> comm(ep, Topo{});
  collectives::alltoall(comm, send, recv, collectives::alltoall_algorithm::dimensional);
}
