// MPI consumer smoke test of the find_package consumer project: links collectives::mpi
// (header-only) or collectives::compiled_mpi (the transports' non-template code compiled
// once) as a user's project would, and runs under mpiexec. Exit status 0 when every rank's
// results match a serial reference.
#include <collectives/collectives.hpp>
#include <collectives/transport/mpi.hpp>

#include <mpi.h>

#include <cstddef>
#include <cstdio>
#include <functional>
#include <vector>

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int ok = collectives::mpi::abort_on_exception([] {
    using namespace collectives;
    mpi::Endpoint ep; // the library's own duplicate of MPI_COMM_WORLD
    Communicator comm{ep}; // a ring of ep.size() ranks
    const std::size_t p = comm.size(), r = comm.rank(), m = 3;

    // The default all-reduce, in place: every rank holds 1 + 2 + ... + p.
    std::vector<long> v(5, static_cast<long>(r + 1));
    allreduce(comm, v, std::plus<>{});
    bool good = v == std::vector<long>(5, static_cast<long>(p * (p + 1) / 2));

    // A named all-to-all: block j of rank r holds r * 100 + j * m + e.
    std::vector<int> send(p * m), recv(p * m, -1);
    for (std::size_t i = 0; i < send.size(); ++i) send[i] = static_cast<int>(r * 100 + i);
    alltoall(comm, send, recv, alltoall_algorithm::pairwise);
    for (std::size_t j = 0; j < p; ++j)
      for (std::size_t e = 0; e < m; ++e) good = good && recv[j * m + e] == static_cast<int>(j * 100 + r * m + e);

    // A broadcast from the last rank.
    std::vector<double> b(4, r + 1 == p ? 2.5 : 0.0);
    broadcast(comm, b, p - 1);
    good = good && b == std::vector<double>(4, 2.5);
    return good ? 1 : 0;
  });
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) std::printf("consumer_mpi: %s\n", all_ok ? "right" : "WRONG");
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
