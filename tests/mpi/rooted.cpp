// broadcast, scatter and gather over the MPI transport give what Open MPI's MPI_Bcast,
// MPI_Scatter and MPI_Gather give on the same input, for every algorithm of each
// collective's list (and the default) on every topology it fits at this rank count (a
// ring, a mesh, a hypercube, a torus), every root kind (first, middle, last),
// sizes 0, 1, 7, 300 and 10000 (300: steps whose own-block copies the endpoint runs while it
// waits, StepWork), elements double and long. Receive buffers start poisoned, so a
// block that never arrives shows; ranks that must not be written are checked untouched.

#include <catch2/catch.hpp>

#include "../support/sweeps.hpp"
#include "support.hpp"

#include <cstddef>
#include <string>
#include <vector>

using namespace collectives;
using collectives::mpi_testing::call_with;
using collectives::mpi_testing::Failures;
using collectives::mpi_testing::for_each_algorithm_and_topology;
using collectives::mpi_testing::name_of;
using collectives::mpi_testing::mpi_datatype;
using collectives::mpi_testing::or_abort;
using collectives::testing::gathered;
using collectives::testing::roots_of;
using collectives::mpi_testing::world_size;
using collectives::testing::values;

namespace {

constexpr std::size_t sizes[] = {0, 1, 7, 300, 10000};

template <class T, class Topo, class Alg>
bool broadcast_matches_mpi(mpi::Endpoint& ep, const Topo& topo, std::size_t n, std::size_t root, Alg alg)
{
  const bool at_root = ep.rank() == root;
  // Non-roots start poisoned so that a rank the data never reaches shows.
  auto got = at_root ? values<T>(root, n) : std::vector<T>(n, testing::poison<T>());
  auto want = got;
  or_abort([&] {
    Communicator<mpi::Endpoint, Topo> comm{ep, topo};
    call_with(broadcast, alg, comm, got, root);
  });
  MPI_Bcast(want.data(), static_cast<int>(n), mpi_datatype<T>(), static_cast<int>(root), MPI_COMM_WORLD);
  return got == want && want == values<T>(root, n);
}

template <class T, class Topo, class Alg>
bool scatter_matches_mpi(mpi::Endpoint& ep, const Topo& topo, std::size_t m, std::size_t root, Alg alg)
{
  const std::size_t p = ep.size(), me = ep.rank();
  // Only the root has something to send; the others pass an empty range, as allowed.
  const auto send = me == root ? values<T>(root, p * m) : std::vector<T>{};
  std::vector<T> got(m, testing::poison<T>()), want(m, testing::poison<T>());
  or_abort([&] {
    Communicator<mpi::Endpoint, Topo> comm{ep, topo};
    call_with(scatter, alg, comm, send, got, root);
  });
  const MPI_Datatype type = mpi_datatype<T>();
  const int count = static_cast<int>(m);
  MPI_Scatter(send.data(), count, type, want.data(), count, type, static_cast<int>(root), MPI_COMM_WORLD);
  const auto all = values<T>(root, p * m);
  return got == want && want == std::vector<T>(all.begin() + static_cast<std::ptrdiff_t>(me * m),
                                               all.begin() + static_cast<std::ptrdiff_t>((me + 1) * m));
}

template <class T, class Topo, class Alg>
bool gather_matches_mpi(mpi::Endpoint& ep, const Topo& topo, std::size_t m, std::size_t root, Alg alg)
{
  const std::size_t p = ep.size(), me = ep.rank();
  const auto send = values<T>(me, m);
  // Only the root receives; the others pass an empty range, as allowed.
  const std::size_t room = me == root ? p * m : 0;
  std::vector<T> got(room, testing::poison<T>()), want(room, testing::poison<T>());
  or_abort([&] {
    Communicator<mpi::Endpoint, Topo> comm{ep, topo};
    call_with(gather, alg, comm, send, got, root);
  });
  const MPI_Datatype type = mpi_datatype<T>();
  const int count = static_cast<int>(m);
  MPI_Gather(send.data(), count, type, want.data(), count, type, static_cast<int>(root), MPI_COMM_WORLD);
  return got == want && want == (me == root ? gathered<T>(p, m) : std::vector<T>{});
}

/// Runs check(topology, algorithm, n, root) for every algorithm of collective C (read
/// from the registry) and the default on every topology it fits, every size and root,
/// each size and root as its own Catch2 check.
template <Collective C, class T, class Check>
void check_every_algorithm(const char* collective, Check&& check)
{
  const std::size_t p = world_size();
  mpi::Endpoint ep = or_abort([] { return mpi::Endpoint(MPI_COMM_WORLD); });
  for (std::size_t n : sizes) {
    for (std::size_t root : roots_of(p)) {
      INFO(collective << " of " << n << " elements of " << sizeof(T) << " bytes from root " << root << ", p = " << p);
      Failures failures;
      std::size_t ran = 0;
      for_each_algorithm_and_topology<C>(p, [&](const auto& topo, auto alg, const std::string& where) {
        failures.expect(check(ep, topo, n, root, alg), name_of(alg) + " on " + where);
        ++ran;
      });
      CHECK(ran > 2);
      CAPTURE(failures.names());
      CHECK(failures.names().empty());
    }
  }
}

} // namespace

TEMPLATE_TEST_CASE("every broadcast algorithm over MPI equals MPI_Bcast", "[mpi][broadcast]", double, long)
{
  check_every_algorithm<Collective::broadcast, TestType>(
    "broadcast", [](mpi::Endpoint& ep, const auto& topo, std::size_t n, std::size_t root, auto alg) {
      return broadcast_matches_mpi<TestType>(ep, topo, n, root, alg);
    });
}

TEMPLATE_TEST_CASE("every scatter algorithm over MPI equals MPI_Scatter", "[mpi][scatter]", double, long)
{
  check_every_algorithm<Collective::scatter, TestType>("scatter", [](mpi::Endpoint& ep, const auto& topo, std::size_t m, std::size_t root,
                                                auto alg) { return scatter_matches_mpi<TestType>(ep, topo, m, root, alg); });
}

TEMPLATE_TEST_CASE("every gather algorithm over MPI equals MPI_Gather", "[mpi][gather]", double, long)
{
  check_every_algorithm<Collective::gather, TestType>("gather", [](mpi::Endpoint& ep, const auto& topo, std::size_t m, std::size_t root,
                                               auto alg) { return gather_matches_mpi<TestType>(ep, topo, m, root, alg); });
}

TEST_CASE("a root known at compile time gives the same as MPI_Bcast", "[mpi][broadcast]")
{
  mpi::Endpoint ep = or_abort([] { return mpi::Endpoint(MPI_COMM_WORLD); });
  const std::size_t n = 7;
  auto got = ep.rank() == 0 ? values<double>(0, n) : std::vector<double>(n, testing::poison<double>());
  auto want = got;
  or_abort([&] {
    Communicator comm{ep};
    broadcast(comm, got, root_c<0>);
  });
  MPI_Bcast(want.data(), static_cast<int>(n), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  CHECK(mpi_testing::all_ranks(got == want));
}
