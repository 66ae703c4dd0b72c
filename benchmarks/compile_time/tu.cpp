// The translation unit benchmarks/compile_time/run.sh compiles (issue 12: the compile-time
// budget); not built by CMake. Its variants, by macro:
//   HEADERS 0: only the standard headers below; 1: three collectives' headers and the
//           threads transport's; 2: the whole library (<collectives/collectives.hpp>);
//           3: one collective's header (allreduce's) alone.
//   CALLS   0: none (main sorts and prints a vector); 1: allreduce on Ring<4> over
//           threads; 3: alltoall, allreduce and broadcast.
//   NAMED   1: each call names its algorithm; 0: the default (selected by cost).
//   MPI     1: the calls run on the MPI transport (mpi::Endpoint on MPI_COMM_WORLD) instead.
#if HEADERS == 1
#include <collectives/collective/allreduce.hpp>
#include <collectives/collective/alltoall.hpp>
#include <collectives/collective/broadcast.hpp>
#include <collectives/transport/threads.hpp>
#elif HEADERS == 2
#include <collectives/collectives.hpp>
#elif HEADERS == 3
#include <collectives/collective/allreduce.hpp>
#endif
#if MPI
#include <collectives/transport/mpi.hpp>
#endif
#include <algorithm>
#include <functional>
#include <iostream>
#include <thread>
#include <vector>

#if CALLS == 0
int main()
{
  std::vector<int> v(4, 1);
  std::sort(v.begin(), v.end());
  std::cout << v[0] << '\n';
}
#else
using namespace collectives;
#if MPI
int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  {
    mpi::Endpoint ep{MPI_COMM_WORLD};
    Communicator<mpi::Endpoint, Ring<4>> comm(ep);
#else
int main()
{
  threads::Team team(4);
  team.run([](threads::Endpoint& ep) {
    Communicator<threads::Endpoint, Ring<4>> comm(ep);
#endif
    std::vector<double> a(16, 1.0), b(16);
#if NAMED
    allreduce(comm, a, b, std::plus<>{}, allreduce_algorithm::ring);
#else
    allreduce(comm, a, b, std::plus<>{});
#endif
#if CALLS == 3
#if NAMED
    alltoall(comm, a, b, alltoall_algorithm::pairwise);
    broadcast(comm, a, 0, broadcast_algorithm::binomial);
#else
    alltoall(comm, a, b);
    broadcast(comm, a, 0);
#endif
#endif
    if (ep.rank() == 0) std::cout << b[0] << '\n';
#if MPI
  }
  MPI_Finalize();
}
#else
  });
}
#endif
#endif
