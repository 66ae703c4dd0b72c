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
#include "../support/registry.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

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
using collectives::testing::mesh_shape;

} // namespace collectives::mpi_testing

// ---------------------------------------------------------------------------------------
// Shared by the tests that run every algorithm of a collective against the native MPI one
// (rooted.cpp, reductions.cpp, allgather_barrier.cpp).
// ---------------------------------------------------------------------------------------

namespace collectives::mpi_testing {

/// MPI's predefined datatype for T (int, long, double).
template <class T>
MPI_Datatype mpi_datatype()
{
  if constexpr (std::is_same_v<T, int>) return MPI_INT;
  else if constexpr (std::is_same_v<T, long>) return MPI_LONG;
  else {
    static_assert(std::is_same_v<T, double>, "mpi_datatype: int, long or double");
    return MPI_DOUBLE;
  }
}

/// log2 p when p is a power of two, else nullopt.
inline std::optional<std::size_t> hypercube_dimension(std::size_t p)
{
  if (p == 0 || (p & (p - 1)) != 0) return std::nullopt;
  std::size_t d = 0;
  while ((std::size_t{1} << d) < p) ++d;
  return d;
}

/// Calls f(topology, where) for the product topologies of p nodes (those the dimensional
/// algorithms take): the mesh of mesh_shape(p), a hypercube when p is a power of two of
/// at least 4, and the 2x2x2 torus when p = 8.
template <class F>
void for_each_product_topology(std::size_t p, F&& f)
{
  const auto [rows, cols] = mesh_shape(p);
  f(Mesh<>{rows, cols}, "a " + std::to_string(rows) + "x" + std::to_string(cols) + " mesh");
  if (const auto d = hypercube_dimension(p); d && *d >= 2) f(Hypercube<>::of_dims(*d), std::string("a hypercube"));
  if (p == 8)
    f(Torus<dynamic_extent, dynamic_extent, dynamic_extent>{2, 2, 2}, std::string("a 2x2x2 torus"));
}

/// Stands for no algorithm argument: the collective's own choice, whatever it is.
using DefaultAlgorithm = Automatic;
inline constexpr DefaultAlgorithm default_algorithm{};

/// collective(args..., alg), or collective(args...) for default_algorithm.
using collectives::testing::call_with;
using collectives::testing::name_of;

/// True when Alg (or the default) may be called in place (needs.out_of_place is false).
template <class Alg>
inline constexpr bool runs_in_place = [] {
  if constexpr (testing::is_default<Alg>) return true;
  else return !Alg::needs.out_of_place;
}();

/// Calls run(topology, algorithm, where) for every algorithm of collective C that fits p
/// ranks -- read from the registry, so a new algorithm is covered without touching the
/// tests -- and then the default, on a ring and on each product topology of
/// for_each_product_topology (the operator commutative or not: Commutative). Returns how
/// many (topology, algorithm) pairs ran, the defaults included.
template <Collective C, bool Commutative = true, class Run>
std::size_t for_each_algorithm_and_topology(std::size_t p, Run&& run)
{
  std::size_t ran = 0;
  const auto on = [&](const auto& topo, const std::string& where) {
    testing::for_each_fitting_and_default<C, Commutative>(topo, Problem{}, [&](auto alg) {
      run(topo, alg, where);
      ++ran;
    });
  };
  on(Ring<>{p}, std::string("a ring"));
  for_each_product_topology(p, on);
  return ran;
}

/// The checks that failed, by name; every rank holds the same list.
class Failures {
public:
  /// Records `what` as failed unless ok on every rank. collective.
  void expect(bool ok, std::string what)
  {
    if (!all_ranks(ok)) names_.push_back(std::move(what));
  }
  const std::vector<std::string>& names() const { return names_; }

private:
  std::vector<std::string> names_;
};

} // namespace collectives::mpi_testing
