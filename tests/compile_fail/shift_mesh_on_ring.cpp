// expect: (because|and) 'two_dimensional_mesh<collectives::shift_algorithm::Mesh, collectives::Torus<8> ?>' evaluated to false
// expect-gcc: required for the satisfaction of [^ ]*two_dimensional_mesh<A, T>[^ ]* \[with A = collectives::shift_algorithm::Mesh; T = collectives::Torus<8>\]
//
// The mesh q-shift (row shift, compensation, column shift) needs a topology whose type
// fixes two dimensions; on a ring the call matches no overload of shift, and the diagnostic
// names the algorithm type and the failed requirement (two_dimensional_mesh). The twin
// runs it on a 2-D mesh.
#include <collectives/collective/shift.hpp>
#include <collectives/transport/threads.hpp>

#include <vector>

void shift_on(collectives::threads::Endpoint& ep)
{
#ifndef COLLECTIVES_TWIN
  collectives::Communicator<collectives::threads::Endpoint, collectives::Ring<8>> comm{ep, collectives::Ring<8>{}};
#else
  collectives::Communicator<collectives::threads::Endpoint, collectives::Mesh<2, 4>> comm{ep, collectives::Mesh<2, 4>{}};
#endif
  const std::vector<double> send(3, 1.0);
  std::vector<double> recv(3);
  collectives::shift(comm, send, recv, 5, collectives::shift_algorithm::mesh);
}
