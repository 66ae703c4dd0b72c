// expect: (because|and) 'in_place_if_supported<collectives::allreduce_algorithm::Ring, true>' evaluated to false
//
// The ring all-reduce cannot run in place (Needs::out_of_place): allreduce(comm, buf, op,
// allreduce_algorithm::ring) matches no overload of allreduce, even with a commutative
// operator, and the diagnostic names the algorithm type and the failed requirement
// (in_place_if_supported). The twin makes the same call with separate send and receive
// buffers (also checked in tests/unit/registry.cpp).
#include <collectives/algorithm/operators.hpp>
#include <collectives/collective/allreduce.hpp>
#include <collectives/topology.hpp>
#include <collectives/transport/concepts.hpp>

#include "fake_endpoint.hpp"

#include <cstddef>
#include <span>
#include <vector>

using Topo = collectives::Ring<4>;

using FakeEndpoint = collectives::testing::FakeEndpoint<Topo::static_size>;

void allreduce_ring(FakeEndpoint& ep, std::vector<double>& buf)
{
  collectives::Communicator<FakeEndpoint, Topo> comm(ep, Topo{});
  const auto add = collectives::commutative([](const double& a, const double& b) { return a + b; });
#ifndef COLLECTIVES_TWIN
  collectives::allreduce(comm, buf, add, collectives::allreduce_algorithm::ring);
#else
  const std::vector<double> send = buf;
  collectives::allreduce(comm, send, buf, add, collectives::allreduce_algorithm::ring);
#endif
}
