#pragma once
// Support for the MPI tests (tests/mpi/*.cpp, run under mpiexec by ctest at several rank
// counts, with Catch2 and tests/support/catch_mpi_main.cpp).
//
// Two rules keep a failure from hanging the job:
//  - every rank must reach the same verdict, so each check is first agreed on with
//    MPI_Allreduce (all_ranks) and only then asserted: all ranks take the same path
//    through the test cases and their collectives keep matching;
//  - an unexpected exception on one rank would leave the others waiting in MPI, so every
//    collective runs inside or_abort(), which reports it and calls MPI_Abort (mpiexec then
//    ends every rank and exits non-zero, which ctest sees).

#include <collectives/transport/mpi.hpp>

#include <collectives/collectives.hpp>

#include "../support/harness.hpp"

#include <cstddef>
#include <string>
#include <utility>

namespace collectives::mpi_testing {

/// This process's rank and the job's size in MPI_COMM_WORLD.
inline std::size_t world_rank()
{
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return static_cast<std::size_t>(r);
}
inline std::size_t world_size()
{
  int p = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return static_cast<std::size_t>(p);
}

/// True on every rank iff `ok` on every rank. collective.
inline bool all_ranks(bool ok)
{
  int mine = ok ? 1 : 0;
  int all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return all != 0;
}

/// Runs f(); an exception aborts the whole job (see the top of this header).
template <class F>
decltype(auto) or_abort(F&& f)
{
  return mpi::abort_on_exception(std::forward<F>(f), MPI_COMM_WORLD, 3);
}

/// Ranks (a, b) of a 2-D mesh of p nodes, as square as p allows (a <= b, a * b == p).
inline std::pair<std::size_t, std::size_t> mesh_shape(std::size_t p)
{
  std::size_t a = 1;
  for (std::size_t d = 1; d * d <= p; ++d)
    if (p % d == 0) a = d;
  return {a, p / a};
}

} // namespace collectives::mpi_testing
