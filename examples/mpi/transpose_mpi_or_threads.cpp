// One program, two transports: a distributed matrix transpose as ONE alltoall, run over
// MPI when launched by mpirun/mpiexec and over a team of threads otherwise. The
// collective code (transpose_rows) is the same template for both: only the endpoint
// differs.
//
//   ./transpose_mpi_or_threads [ranks] [rows-per-rank]     # threads (default 4 ranks, 3 rows)
//   mpirun -n 4 ./transpose_mpi_or_threads [rows-per-rank]  # MPI (ranks = mpirun's -n)
//
// The n x n matrix A (n = p * b, A(i, j) = i * n + j) is distributed by rows, b rows per
// rank. Each rank transposes its p blocks of b x b locally while packing them, one
// alltoall exchanges the blocks, and each rank places what it received as its b rows of
// the transpose. Every rank checks its rows against a serial transpose of A.
//
// Failures: under MPI a rank that throws calls MPI_Abort (mpi::abort_on_exception), so
// mpirun ends every rank instead of leaving them waiting; the threads transport releases
// the other ranks itself and Team::run rethrows. Exit status: 0 when the transpose is
// right on every rank, 1 otherwise.
//
// Needs MPI to build (links collectives::mpi), though it runs without mpirun.

#include <collectives/collectives.hpp>
#include <collectives/transport/mpi.hpp>

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

namespace {

using namespace collectives;

/// A(i, j) of the n x n matrix.
double element(std::size_t i, std::size_t j, std::size_t n) { return static_cast<double>(i * n + j); }

/// Transposes the row-distributed matrix on endpoint `ep` (any transport) with one
/// alltoall; returns true when this rank's rows of the result match a serial transpose.
/// collective: every rank must call it with the same b.
template <endpoint E>
bool transpose_rows(E& ep, std::size_t b)
{
  const std::size_t p = ep.size(), r = ep.rank(), n = p * b;
  // This rank's rows of A: rows r*b .. r*b + b - 1, row-major.
  std::vector<double> mine(b * n);
  for (std::size_t i = 0; i < b; ++i)
    for (std::size_t j = 0; j < n; ++j) mine[i * n + j] = element(r * b + i, j, n);

  // Block s (for rank s) is the b x b square of columns s*b .., transposed while packing:
  // send[s][jj][ii] = A(r*b + ii, s*b + jj).
  std::vector<double> send(p * b * b), recv(p * b * b);
  for (std::size_t s = 0; s < p; ++s)
    for (std::size_t jj = 0; jj < b; ++jj)
      for (std::size_t ii = 0; ii < b; ++ii) send[(s * b + jj) * b + ii] = mine[ii * n + s * b + jj];

  Communicator comm{ep}; // a ring of ep.size() ranks; the default algorithm
  alltoall(comm, send, recv);

  // The block from rank q holds columns q*b .. of this rank's rows of the transpose.
  std::vector<double> rows_of_t(b * n);
  for (std::size_t q = 0; q < p; ++q)
    for (std::size_t jj = 0; jj < b; ++jj)
      for (std::size_t ii = 0; ii < b; ++ii) rows_of_t[jj * n + q * b + ii] = recv[(q * b + jj) * b + ii];

  // Serial reference: transpose the whole matrix, compare this rank's rows.
  std::vector<double> a(n * n), t(n * n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) a[i * n + j] = element(i, j, n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) t[j * n + i] = a[i * n + j];
  for (std::size_t i = 0; i < b; ++i)
    for (std::size_t j = 0; j < n; ++j)
      if (rows_of_t[i * n + j] != t[(r * b + i) * n + j]) return false;
  return true;
}

std::size_t arg(int argc, char** argv, int i, std::size_t fallback)
{
  if (argc <= i) return fallback;
  const long v = std::strtol(argv[i], nullptr, 10);
  return v > 0 ? static_cast<std::size_t>(v) : fallback;
}

/// True when this process was started by an MPI launcher (Open MPI, MPICH/Hydra, PMIx).
bool launched_by_mpirun()
{
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(var) != nullptr) return true;
  return false;
}

int run_mpi(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  const std::size_t b = arg(argc, argv, 1, 3);
  int ok = mpi::abort_on_exception([&] {
    mpi::Endpoint ep; // the library's own duplicate of MPI_COMM_WORLD
    return transpose_rows(ep, b) ? 1 : 0;
  });
  int all_ok = 0, rank = 0, size = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0)
    std::printf("transpose of a %zu x %zu matrix on %d MPI ranks: %s\n", b * static_cast<std::size_t>(size),
                b * static_cast<std::size_t>(size), size, all_ok ? "right" : "WRONG");
  MPI_Finalize();
  return all_ok ? 0 : 1;
}

int run_threads(int argc, char** argv)
{
  const std::size_t p = arg(argc, argv, 1, 4), b = arg(argc, argv, 2, 3);
  std::atomic<bool> all_ok{true};
  try {
    threads::Team team{p};
    team.run([&](threads::Endpoint& ep) {
      if (!transpose_rows(ep, b)) all_ok = false;
    });
  } catch (const std::exception& e) {
    std::fprintf(stderr, "transpose_mpi_or_threads: %s\n", e.what());
    return 1;
  }
  std::printf("transpose of a %zu x %zu matrix on %zu threads: %s\n", p * b, p * b, p, all_ok ? "right" : "WRONG");
  return all_ok ? 0 : 1;
}

} // namespace

int main(int argc, char** argv)
{
  return launched_by_mpirun() ? run_mpi(argc, argv) : run_threads(argc, argv);
}
