// The MPI watchdog (issue 13 §2), run by tests/transport/expect_watchdog.cmake with
// COLLECTIVES_MPI_TIMEOUT=1: rank 0 waits in a broadcast that rank 1 never joins; the
// watchdog must report where rank 0 is stuck and end the job with exit code 124. If it
// does not, rank 1 gives up after 20 s and the job exits 0, which the script reports.
// With the argument "send", rank 0 is the root and waits to send 1 MiB (beyond Open
// MPI's eager limits, 4 KiB over shared memory and 64 KiB over TCP, so the send cannot
// complete without rank 1): a step with only sends left waits with MPI_Wait when there
// is no watchdog, and must still be watched when there is one (with MPI_Wait, the job
// would hang until the script's 60-second limit).

#include <collectives/transport/mpi.hpp>

#include <collectives/collectives.hpp>

#include <chrono>
#include <cstdio>
#include <string_view>
#include <thread>
#include <vector>

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const bool send = argc > 1 && std::string_view(argv[1]) == "send";
  {
    collectives::mpi::Endpoint ep(MPI_COMM_WORLD);
    collectives::Communicator comm{ep, collectives::Ring<>{static_cast<std::size_t>(size)}};
    std::vector<double> b(send ? 131072 : 1000, 1.0);
    if (rank != 1) {
      collectives::broadcast(comm, b, send ? 0 : 1, collectives::broadcast_algorithm::binomial);
    } else {
      std::this_thread::sleep_for(std::chrono::seconds(20));
      std::puts("watchdog test: rank 1 gave up waiting for the watchdog");
    }
  }
  MPI_Finalize();
  return 0;
}
