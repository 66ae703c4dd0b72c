// Every alltoall algorithm over the MPI transport gives what Open MPI's own MPI_Alltoall
// gives on the same input, for several block sizes and element types (char, double, a
// struct sent as MPI_BYTE), on every topology it fits at this rank count; and so does every
// algorithm over an endpoint that cuts messages into tiny chunks (the splitting of
// messages beyond INT_MAX bytes, exercised at a small scale).

#include <catch2/catch.hpp>

#include "support.hpp"

#include <climits>
#include <cstddef>
#include <string>
#include <vector>

using namespace collectives;
using collectives::mpi_testing::all_ranks;
using collectives::mpi_testing::or_abort;
using collectives::mpi_testing::world_rank;
using collectives::mpi_testing::world_size;
using collectives::testing::Particle;

namespace {

/// How MPI_Alltoall sends m elements of T: (datatype, count).
template <class T>
std::pair<MPI_Datatype, int> mpi_layout(std::size_t m)
{
  if constexpr (std::is_same_v<T, char>) return {MPI_CHAR, static_cast<int>(m)};
  else if constexpr (std::is_same_v<T, double>) return {MPI_DOUBLE, static_cast<int>(m)};
  else return {MPI_BYTE, static_cast<int>(m * sizeof(T))};
}

/// Runs alltoall(alg) on `topo` over `ep` and MPI_Alltoall on the same input; true on
/// every rank iff both agree everywhere (and with the serial reference). collective.
template <class T, class Topo, class Alg>
bool matches_mpi_alltoall(mpi::Endpoint& ep, const Topo& topo, std::size_t m, Alg alg)
{
  const std::size_t p = ep.size(), me = ep.rank();
  const auto send = testing::alltoall_input<T>(p, m, me);
  std::vector<T> got(p * m, testing::poison<T>()), want(p * m, testing::poison<T>());
  or_abort([&] {
    Communicator<mpi::Endpoint, Topo> comm{ep, topo};
    mpi_testing::call_with(alltoall, alg, comm, send, got);
  });
  const auto [type, count] = mpi_layout<T>(m);
  MPI_Alltoall(send.data(), count, type, want.data(), count, type, MPI_COMM_WORLD);
  return all_ranks(got == want && want == testing::alltoall_reference<T>(p, m, me));
}

/// Every algorithm of alltoall's list (read from the registry) that fits p, and the
/// default, on a ring and on the product topologies of p (mesh, hypercube, torus).
/// `check(topo, alg)` returns true on success; the failures' names are returned.
template <class Check>
std::vector<std::string> for_each_algorithm(std::size_t p, Check&& check)
{
  std::vector<std::string> failed;
  std::size_t ran = 0;
  mpi_testing::for_each_algorithm_and_topology<Collective::alltoall>(
    p, [&](const auto& topo, auto alg, const std::string& where) {
      ++ran;
      if (!check(topo, alg)) failed.push_back(mpi_testing::name_of(alg) + " on " + where);
    });
  if (ran < 4) failed.push_back("only " + std::to_string(ran) + " algorithms ran");
  return failed;
}

template <class T>
void check_all_algorithms(const mpi::Options& options)
{
  const std::size_t p = world_size();
  mpi::Endpoint ep = or_abort([&] { return mpi::Endpoint(MPI_COMM_WORLD, options); });
  for (std::size_t m : {0, 1, 7, 1000}) {
    INFO("m = " << m << ", element of " << sizeof(T) << " bytes, p = " << p);
    const auto failed =
      for_each_algorithm(p, [&](const auto& topo, auto alg) { return matches_mpi_alltoall<T>(ep, topo, m, alg); });
    CAPTURE(failed);
    CHECK(failed.empty());
  }
}

} // namespace

TEMPLATE_TEST_CASE("every alltoall algorithm over MPI equals MPI_Alltoall", "[mpi][alltoall]", char, double, Particle)
{
  check_all_algorithms<TestType>({});
}

TEST_CASE("every alltoall algorithm equals MPI_Alltoall when messages are cut into tiny chunks", "[mpi][alltoall]")
{
  // 61-byte chunks (a prime, so chunk boundaries fall inside elements and pieces), with
  // multi-piece chunks through hindexed datatypes, then packed.
  const std::size_t p = world_size();
  for (const mpi::Options& options : {mpi::Options{61, 0, 0}, mpi::Options{61, SIZE_MAX, 0}}) {
    mpi::Endpoint ep = or_abort([&] { return mpi::Endpoint(MPI_COMM_WORLD, options); });
    for (std::size_t m : {1, 7, 100}) {
      INFO("m = " << m << ", pack_bytes = " << options.pack_bytes << ", p = " << p);
      const auto failed = for_each_algorithm(
        p, [&](const auto& topo, auto alg) { return matches_mpi_alltoall<double>(ep, topo, m, alg); });
      CAPTURE(failed);
      CHECK(failed.empty());
    }
  }
}

TEST_CASE("alltoall over MPI fits in place of MPI_Alltoall on a sub-communicator", "[mpi][alltoall]")
{
  // Even and odd ranks form two communicators; each runs its own alltoall.
  const std::size_t me = world_rank();
  MPI_Comm half = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, static_cast<int>(me % 2), static_cast<int>(me), &half);
  bool ok = true;
  or_abort([&] {
    mpi::Endpoint ep(half);
    Communicator comm{ep};
    const std::size_t p = ep.size(), r = ep.rank(), m = 5;
    const auto send = testing::alltoall_input<double>(p, m, r);
    std::vector<double> got(p * m), want(p * m);
    alltoall(comm, send, got);
    MPI_Alltoall(send.data(), static_cast<int>(m), MPI_DOUBLE, want.data(), static_cast<int>(m), MPI_DOUBLE, half);
    ok = got == want;
  });
  MPI_Comm_free(&half);
  CHECK(all_ranks(ok));
}
