// expect: collectives::shift\(mesh\): the mesh algorithm needs a 2-D mesh or torus
//
// The mesh q-shift (row shift, compensation, column shift) needs two dimensions; on a ring
// it is a compile error naming the call. The twin runs it on a 2-D mesh.
#include <collectives/algorithm/shift.hpp>
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
