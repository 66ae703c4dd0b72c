// expect: (because|and) 'power_of_two_ranks<collectives::shift_algorithm::HypercubeSf, collectives::Torus<2, 3> ?>' evaluated to false
//
// The Gray-code store-and-forward shift needs p = 2^d; a static size that is not one
// matches no overload of shift, and the diagnostic names the algorithm type and the failed
// requirement, power_of_two_ranks (a run-time size throws std::invalid_argument). hypercube_sf
// is not in shift's list of algorithms but can still be named. The twin uses 8 ranks.
#include <collectives/collective/shift.hpp>
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
