// expect: (because|and) 'power_of_two_ranks<collectives::alltoall_algorithm::StandardExchange, collectives::Torus<6> ?>' evaluated to false
//
// The hypercube standard exchange needs p = 2^n ranks: naming it for a Ring<6>
// communicator matches no overload of alltoall, and the diagnostic names the algorithm
// type and the failed requirement (power_of_two_ranks). The twin, Ring<8>, compiles.
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
