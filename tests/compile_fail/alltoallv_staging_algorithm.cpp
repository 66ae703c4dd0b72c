// expect: (because|and) 'algorithm_of<collectives::alltoall_algorithm::Ring, .*' evaluated to false
//
// alltoallv sends each block as one message and has its own list of algorithms
// (alltoallv_algorithm::pairwise, pairwise_xor); the ring alltoall stages blocks in
// uniform scratch space and cannot carry blocks of different sizes. Naming it (an
// algorithm of alltoall, not of alltoallv) matches no overload of alltoallv: the
// diagnostic names the algorithm type and the failed requirement (algorithm_of). The twin
// names alltoallv_algorithm::pairwise.
#include <collectives/collectives.hpp>

#include <vector>

void exchange_on(collectives::threads::Endpoint& ep)
{
  collectives::Communicator comm{ep};
  const std::vector<std::size_t> counts(ep.size(), 1), displs(ep.size(), 0);
  const std::vector<int> send(ep.size(), 1);
  std::vector<int> recv(ep.size());
#ifndef COLLECTIVES_TWIN
  collectives::alltoallv(comm, send, counts, recv, counts, collectives::alltoall_algorithm::ring);
#else
  collectives::alltoallv(comm, send, counts, recv, counts, collectives::alltoallv_algorithm::pairwise);
#endif
  (void)displs;
}
