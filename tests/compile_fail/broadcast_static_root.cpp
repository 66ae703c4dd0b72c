// expect: the root is not a rank
//
// A static root outside a static communicator is a compile error: root_c<8> on Ring<8>
// names rank 8 of ranks 0..7. The twin broadcasts from root_c<7>, the last rank.
#include <collectives/collective/broadcast.hpp>
#include <collectives/transport/threads.hpp>

#include <vector>

void broadcast_from_static_root(collectives::threads::Endpoint& ep)
{
  collectives::Communicator<collectives::threads::Endpoint, collectives::Ring<8>> comm{ep, collectives::Ring<8>{}};
  std::vector<double> buf(3, 1.0);
#ifndef COLLECTIVES_TWIN
  collectives::broadcast(comm, buf, collectives::root_c<8>);
#else
  collectives::broadcast(comm, buf, collectives::root_c<7>);
#endif
}
