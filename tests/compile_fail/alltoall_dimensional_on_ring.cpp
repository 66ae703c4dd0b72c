// expect: (because|and) 'two_or_more_dimensions<collectives::alltoall_algorithm::Dimensional, collectives::Torus<8> ?>' evaluated to false
//
// The dimension-by-dimension alltoall needs a product topology of two or more dimensions;
// on Ring<8> (ndims() fixed at 1 by the type) the call matches no overload of alltoall, and
// the diagnostic names the algorithm type and the failed requirement
// (two_or_more_dimensions). The twin runs it on Mesh<2, 4>, the same eight ranks as a 2-D
// mesh.
#include <collectives/collectives.hpp>

#include <vector>

#ifndef COLLECTIVES_TWIN
using Topo = collectives::Ring<8>;
#else
using Topo = collectives::Mesh<2, 4>;
#endif

void exchange(collectives::Communicator<collectives::threads::Endpoint, Topo>& comm, const std::vector<double>& send,
              std::vector<double>& recv)
{
  collectives::alltoall(comm, send, recv, collectives::alltoall_algorithm::dimensional);
}
