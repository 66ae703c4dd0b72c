// allgather over the MPI transport gives what Open MPI's MPI_Allgather gives on the same
// input, out of place and in place (MPI_IN_PLACE), for every algorithm (and the default) on
// every topology it fits at this rank count, blocks of 0, 1, 7, 300 and 10000 elements of double
// and int; and every barrier algorithm synchronises: no rank leaves before the last one,
// held back on purpose, has entered.

#include <catch2/catch.hpp>

#include "../support/sweeps.hpp"
#include "support.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

using namespace collectives;
using collectives::mpi_testing::call_with;
using collectives::mpi_testing::Failures;
using collectives::mpi_testing::for_each_algorithm_and_topology;
using collectives::mpi_testing::name_of;
using collectives::mpi_testing::hypercube_dimension;
using collectives::mpi_testing::mpi_datatype;
using collectives::mpi_testing::or_abort;
using collectives::mpi_testing::world_size;
using collectives::testing::gathered;
using collectives::testing::values;

namespace {

template <class Topo>
using Comm = Communicator<mpi::Endpoint, Topo>;

template <class T, class Topo, class Alg>
bool allgather_matches_mpi(mpi::Endpoint& ep, const Topo& topo, std::size_t m, Alg alg)
{
  const std::size_t p = ep.size(), me = ep.rank();
  const auto send = values<T>(me, m);
  std::vector<T> got(p * m, testing::poison<T>()), want(p * m, testing::poison<T>());
  // In place: this rank's block already in place, the others poisoned.
  auto in_place = got;
  std::copy(send.begin(), send.end(), in_place.begin() + static_cast<std::ptrdiff_t>(me * m));
  auto in_place_want = in_place;
  or_abort([&] {
    Comm<Topo> comm{ep, topo};
    call_with(allgather, alg, comm, send, got);
    if constexpr (mpi_testing::runs_in_place<Alg>) call_with(allgather, alg, comm, in_place);
    else in_place = gathered<T>(p, m); // an algorithm that cannot run in place is not called so
  });
  const MPI_Datatype type = mpi_datatype<T>();
  const int count = static_cast<int>(m);
  MPI_Allgather(send.data(), count, type, want.data(), count, type, MPI_COMM_WORLD);
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, in_place_want.data(), count, type, MPI_COMM_WORLD);
  return got == want && want == gathered<T>(p, m) && in_place == in_place_want && in_place == want;
}


/// Nanoseconds on the node's monotonic clock, which all processes of a node share.
std::int64_t now_ns()
{
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
    .count();
}

/// Rank `late` enters the barrier 20 ms after the others; true on every rank iff no rank
/// left it before `late` entered. Times come from one node's clock: `node` holds the
/// ranks of one node only. collective.
template <class Topo, class Alg>
bool barrier_waits_for_the_last(mpi::Endpoint& ep, MPI_Comm node, const Topo& topo, std::size_t late, Alg alg)
{
  if (ep.rank() == late) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::int64_t times[2] = {now_ns(), 0};
  or_abort([&] {
    Comm<Topo> comm{ep, topo};
    call_with(barrier, alg, comm);
  });
  times[1] = now_ns();
  std::vector<std::int64_t> all(2 * ep.size());
  MPI_Allgather(times, 2, MPI_INT64_T, all.data(), 2, MPI_INT64_T, node);
  std::int64_t last_entry = all[0], first_exit = all[1];
  for (std::size_t r = 0; r < ep.size(); ++r) {
    last_entry = std::max(last_entry, all[2 * r]);
    first_exit = std::min(first_exit, all[2 * r + 1]);
  }
  return first_exit >= last_entry;
}

} // namespace

TEMPLATE_TEST_CASE("every allgather algorithm over MPI equals MPI_Allgather", "[mpi][allgather]", double, int)
{
  const std::size_t p = world_size();
  mpi::Endpoint ep = or_abort([] { return mpi::Endpoint(MPI_COMM_WORLD); });
  for (std::size_t m : {0, 1, 7, 300, 10000}) {
    INFO("allgather of blocks of " << m << " elements of " << sizeof(TestType) << " bytes, p = " << p);
    Failures failures;
    const std::size_t ran = for_each_algorithm_and_topology<Collective::allgather>(
      p, [&](const auto& topo, auto alg, const std::string& where) {
        failures.expect(allgather_matches_mpi<TestType>(ep, topo, m, alg), name_of(alg) + " on " + where);
      });
    failures.expect(ran >= 3, "only " + std::to_string(ran) + " (topology, algorithm) pairs ran");
    CAPTURE(failures.names());
    CHECK(failures.names().empty());
  }
}

TEST_CASE("every barrier algorithm waits for the last rank to enter", "[mpi][barrier]")
{
  // On the ranks of one node (all of them under ctest), whose clocks agree.
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  {
    mpi::Endpoint ep = or_abort([&] { return mpi::Endpoint(node); });
    const std::size_t p = ep.size();
    Failures failures;
    std::size_t round = 0;
    // Each run holds back another rank: the first, the last and those between in turn.
    auto run = [&](const auto& topo, auto alg, const std::string& where) {
      const std::size_t late = (round++ * (p / 2 + 1) + p - 1) % p;
      failures.expect(barrier_waits_for_the_last(ep, node, topo, late, alg),
                      name_of(alg) + " on " + where + ", rank " + std::to_string(late) + " late");
    };
    // Every algorithm of barrier's list that fits, and the default.
    auto each_algorithm = [&](const auto& topo, const std::string& where) {
      testing::for_each_fitting_and_default<Collective::barrier>(topo, Problem{},
                                                                 [&](auto alg) { run(topo, alg, where); });
    };
    each_algorithm(Ring<>{p}, "a ring");
    if (const auto d = hypercube_dimension(p)) each_algorithm(Hypercube<>::of_dims(*d), "a hypercube");
    const auto [rows, cols] = mpi_testing::mesh_shape(p);
    each_algorithm(Mesh<>{rows, cols}, "a mesh");
    CAPTURE(failures.names());
    CHECK(failures.names().empty());
  }
  MPI_Comm_free(&node);
}
