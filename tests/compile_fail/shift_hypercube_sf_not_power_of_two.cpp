// expect: collectives::shift\(hypercube_sf\): the topology's size must be a power of two
//
// The Gray-code store-and-forward shift needs p = 2^d; a static size that is not one is a
// compile error (a run-time size throws std::invalid_argument). The twin uses 8 ranks.
#include <collectives/algorithm/shift.hpp>
#include <collectives/transport/threads.hpp>

#include <vector>

#ifndef COLLECTIVES_TWIN
using Topo = collectives::Mesh<2, 3>;
#else
using Topo = collectives::Mesh<2, 4>;
#endif

void shift_on(collectives::threads::Endpoint& ep)
{
  collectives::Communicator<collectives::threads::Endpoint, Topo> comm{ep, Topo{}};
  const std::vector<char> send(3, 'x');
  std::vector<char> recv(3);
  collectives::shift(comm, send, recv, 1, collectives::shift_algorithm::hypercube_sf);
}
