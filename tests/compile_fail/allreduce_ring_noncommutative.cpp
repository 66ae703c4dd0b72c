// expect: (because|and) 'commutative_operator_if_needed<collectives::allreduce_algorithm::Ring, false>' evaluated to false
// expect-gcc: required for the satisfaction of [^ ]*commutative_operator_if_needed<A, Commutative>[^ ]* \[with A = collectives::allreduce_algorithm::Ring;
//
// The ring all-reduce combines each block in a rotated rank order, so it needs an operator
// known to be commutative; a plain lambda is not: the call matches no overload of
// allreduce, and the diagnostic names the failed requirement
// (commutative_operator_if_needed). The twin declares it so with collectives::commutative.
#include <collectives/collective/allreduce.hpp>
#include <collectives/transport/threads.hpp>

#include <vector>

void allreduce_ring(collectives::threads::Endpoint& ep)
{
  collectives::Communicator<collectives::threads::Endpoint, collectives::Ring<>> comm{ep, collectives::Ring<>{ep.size()}};
  const std::vector<long> send(3, 1);
  std::vector<long> recv(3);
  const auto add = [](const long& a, const long& b) { return a + b; };
#ifndef COLLECTIVES_TWIN
  collectives::allreduce(comm, send, recv, add, collectives::allreduce_algorithm::ring);
#else
  collectives::allreduce(comm, send, recv, collectives::commutative(add), collectives::allreduce_algorithm::ring);
#endif
}
