// expect: collectives::alltoall.standard_exchange.: the topology.s size must be a power of two
//
// The hypercube standard exchange needs p = 2^n ranks: naming it for a Ring<6>
// communicator is a compile error that names the call. The twin, Ring<8>, compiles.
#include <collectives/collectives.hpp>

#include <vector>

#ifndef COLLECTIVES_TWIN
using Topo = collectives::Ring<6>;
#else
using Topo = collectives::Ring<8>;
#endif

void exchange(collectives::Communicator<collectives::threads::Endpoint, Topo>& comm, const std::vector<int>& send,
              std::vector<int>& recv)
{
  collectives::alltoall(comm, send, recv, collectives::alltoall_algorithm::standard_exchange);
}
