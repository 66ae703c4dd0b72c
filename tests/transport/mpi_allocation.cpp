// A loop of collective calls on the MPI transport allocates nothing once warmed up (issue
// 12 §1): every operator new of this process while a round of calls runs is counted, for
// every collective by default, the rooted ones from every root (more different calls than
// a communicator keeps plans and picks for), at three sizes; and a loop over more
// problems than the picks kept, which selects on every call. Registered at several rank
// counts (tests/transport/CMakeLists.txt), in the builds without sanitizers only: they
// bring their own operator new, which a program may not replace.

#include <collectives/transport/mpi.hpp>

#include <collectives/collectives.hpp>

#include "support.hpp"

#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdlib>
#include <functional>
#include <new>
#include <span>
#include <vector>

namespace {

bool counting = false; // MPI_THREAD_FUNNELED: one thread calls the library
std::size_t allocations = 0;

} // namespace

void* operator new(std::size_t n)
{
  if (counting) ++allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

using namespace collectives;

TEST_CASE("mpi: a loop of every collective allocates nothing once warmed up", "[mpi][allocation]")
{
  mpi::Endpoint ep(MPI_COMM_WORLD);
  const std::size_t p = ep.size();
  Communicator comm{ep, Ring<>{p}};
  for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{20000}}) {
    INFO("p = " << p << ", n = " << n);
    std::vector<double> x(n * p, 1.0), y(n * p), z(n);
    std::vector<std::size_t> counts(p, n);
    auto round = [&] { transport_tests::every_collective(comm, x, y, z, counts); };
    std::vector<std::size_t> per_round;
    for (int i = 0; i < 5; ++i) {
      const std::size_t before = allocations;
      counting = true;
      round();
      counting = false;
      per_round.push_back(allocations - before);
    }
    // Rounds 0 and 1 make the plans and picks; then nothing.
    CHECK(per_round[0] > 0); // the counter counts
    CHECK(per_round[2] == 0);
    CHECK(per_round[3] == 0);
    CHECK(per_round[4] == 0);
  }
}

TEST_CASE("mpi: a loop over more problems than picks kept allocates nothing once warmed up", "[mpi][allocation]")
{
  // More sizes in turn than the problems whose picks a communicator keeps: every call
  // selects its default again, and the estimates reuse the process's scratch.
  constexpr std::size_t sizes = SelectionPolicy::capacity + 16;
  mpi::Endpoint ep(MPI_COMM_WORLD);
  const std::size_t p = ep.size();
  Communicator comm{ep, Ring<>{p}};
  std::vector<double> x(sizes, 1.0), y(sizes);
  std::vector<std::size_t> per_round;
  for (int i = 0; i < 4; ++i) {
    const std::size_t before = allocations;
    counting = true;
    for (std::size_t m = 1; m <= sizes; ++m) {
      allreduce(comm, std::span<const double>(x.data(), m), std::span<double>(y.data(), m), std::plus<>{});
      broadcast(comm, std::span<double>(y.data(), m), m % p);
    }
    counting = false;
    per_round.push_back(allocations - before);
  }
  CHECK(per_round[0] > 0);
  CHECK(per_round[2] == 0);
  CHECK(per_round[3] == 0);
}
