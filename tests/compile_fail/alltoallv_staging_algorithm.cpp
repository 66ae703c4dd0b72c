// expect: collectives::alltoallv: the algorithm must be alltoall_algorithm::pairwise, pairwise_xor or automatic
//
// alltoallv sends each block as one message; the ring alltoall stages blocks in uniform
// scratch space and cannot carry blocks of different sizes, so naming it is a compile
// error. The twin names pairwise.
#include <collectives/algorithm/alltoallv.hpp>
#include <collectives/transport/threads.hpp>

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
  collectives::alltoallv(comm, send, counts, recv, counts, collectives::alltoall_algorithm::pairwise);
#endif
  (void)displs;
}
