// expect: (because|and) 'power_of_two_ranks<collectives::alltoall_algorithm::PairwiseXor, collectives::Torus<6> ?>' evaluated to false
// expect-gcc: required for the satisfaction of [^ ]*power_of_two_ranks<A, T>[^ ]* \[with A = collectives::alltoall_algorithm::PairwiseXor; T = collectives::Torus<6>\]
//
// Pairwise XOR exchange pairs rank r with r XOR k, which needs p = 2^n ranks: naming it for
// a Ring<6> communicator matches no overload of alltoall, and the diagnostic names the
// algorithm type and the failed requirement (power_of_two_ranks; the type Ring<6> is
// Torus<6>). The twin, Ring<8>, compiles (so does the check in tests/unit/registry.cpp).
#include <collectives/collectives.hpp>

#include "fake_endpoint.hpp"

#include <cstddef>
#include <span>
#include <vector>

#ifndef COLLECTIVES_TWIN
using Topo = collectives::Ring<6>;
#else
using Topo = collectives::Ring<8>;
#endif

using FakeEndpoint = collectives::testing::FakeEndpoint<Topo::static_size>;

void exchange(FakeEndpoint& ep, const std::vector<int>& send, std::vector<int>& recv)
{
  collectives::Communicator<FakeEndpoint, Topo> comm(ep, Topo{});
  collectives::alltoall(comm, send, recv, collectives::alltoall_algorithm::pairwise_xor);
}
