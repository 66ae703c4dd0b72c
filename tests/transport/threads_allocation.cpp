// The threads transport's exchange() allocates nothing once warmed up (issue 12 §1): every
// operator new made inside exchange() on any rank is counted, after a warm-up of the same
// calls, for eager and single-copy messages and combining receives. And a whole call
// (front end, the default's selection, the executor's plans, the transport) allocates
// nothing once the same loop of calls has run twice: rooted calls from every root, and
// loops of more different calls than a communicator keeps plans and picks for. Built twice:
// header-only (collectives_transport_tests) and in the compiled mode
// (test_separate_allocation), where a default call's pick and schedule come from the
// compiled library.

#include "support.hpp"

// Sanitizers bring their own operator new, which a program may not replace: the test runs
// in the plain builds only.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define COLLECTIVES_OWN_OPERATOR_NEW 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define COLLECTIVES_OWN_OPERATOR_NEW 1
#endif

#ifndef COLLECTIVES_OWN_OPERATOR_NEW

#include "../support/swap_schedule.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <functional>
#include <new>
#include <span>
#include <vector>

namespace {

thread_local bool counting = false;
std::atomic<std::size_t> allocations{0};

} // namespace

// Counts the allocations of threads that are inside exchange(); the rest of the program is
// unaffected.
void* operator new(std::size_t n)
{
  if (counting) allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
// Not inlined: g++ -O2 would see free() on the result of operator new where a delete
// expression is inlined, and warn (-Wmismatched-new-delete), though the pair is this one.
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

using namespace collectives;

/// A threads endpoint that counts allocations while its exchange() runs.
class Counting {
public:
  static constexpr bool combines_on_receive = true;
  explicit Counting(threads::Endpoint& ep) : ep_(&ep) {}
  std::size_t rank() const { return ep_->rank(); }
  std::size_t size() const { return ep_->size(); }
  std::uint64_t begin_call() { return ep_->begin_call(); }
  void exchange(std::span<const SendRequest> s, std::span<const RecvRequest> r, const StepInfo& info)
  {
    counting = true;
    ep_->exchange(s, r, info);
    counting = false;
  }
  void exchange(std::span<const SendRequest> s, std::span<const RecvRequest> r) { ep_->exchange(s, r); }

private:
  threads::Endpoint* ep_;
};

/// The allocations of each of `rounds` rounds on every rank of a team on `topology`: each
/// rank makes its round with make_round(comm) (its buffers are not counted), then runs it
/// `rounds` times between barriers (rank 0 reads the counter while no rank counts).
template <class Topology, class MakeRound>
std::vector<std::size_t> allocations_per_round(Topology topology, int rounds, MakeRound make_round)
{
  threads::Team team(topology.size());
  std::vector<std::size_t> per_round;
  team.run([&](threads::Endpoint& ep) {
    Communicator comm{ep, topology};
    auto round = make_round(comm);
    std::size_t before = 0;
    for (int i = 0; i < rounds; ++i) {
      if (ep.rank() == 0) before = allocations.load();
      barrier(comm);
      counting = true;
      round();
      counting = false;
      barrier(comm);
      if (ep.rank() == 0) per_round.push_back(allocations.load() - before);
    }
  });
  return per_round;
}

} // namespace

TEST_CASE("threads: exchange() allocates nothing once warmed up", "[threads][allocation]")
{
  for (std::size_t p : {2, 3, 4, 8}) {
    for (std::size_t n : {std::size_t{2}, std::size_t{20000}}) {
      INFO("p = " << p << ", n = " << n);
      threads::Team team(p);
      std::size_t during = 0;
      team.run([&](threads::Endpoint& raw) {
        Counting ep(raw);
        Communicator comm{ep, Ring<>{p}};
        std::vector<double> x(n * p, 1.0), y(n * p);
        auto round = [&] {
          allreduce(comm, x, y, std::plus<>{});
          alltoall(comm, x, y);
          broadcast(comm, y, 0);
          reduce_scatter(comm, x, y, std::plus<>{});
          barrier(comm);
        };
        round();
        round();
        barrier(comm);
        const std::size_t before = allocations.load();
        for (int i = 0; i < 5; ++i) round();
        barrier(comm);
        if (raw.rank() == 0) during = allocations.load() - before;
      });
      CHECK(during == 0);
    }
  }
}

TEST_CASE("threads: a loop of every collective allocates nothing once warmed up", "[threads][allocation]")
{
  for (std::size_t p : {2, 3, 5, 8}) {
    for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{20000}}) {
      INFO("p = " << p << ", n = " << n);
      threads::Team team(p);
      std::vector<std::size_t> per_round;
      team.run([&](threads::Endpoint& ep) {
        Communicator comm{ep, Ring<>{p}};
        std::vector<double> x(n * p, 1.0), y(n * p), z(n);
        std::vector<std::size_t> counts(p, n);
        auto round = [&] { transport_tests::every_collective(comm, x, y, z, counts); };
        std::size_t before = 0; // rank 0's, read while no rank counts
        for (int i = 0; i < 5; ++i) {
          if (ep.rank() == 0) before = allocations.load();
          barrier(comm);
          counting = true;
          round();
          counting = false;
          barrier(comm); // every rank's round is counted
          if (ep.rank() == 0) per_round.push_back(allocations.load() - before);
        }
      });
      // Rounds 0 and 1 make the plans, picks and the transport's channels; then nothing.
      REQUIRE(per_round.size() == 5);
      CHECK(per_round[0] > 0); // the counter counts
      CHECK(per_round[2] == 0);
      CHECK(per_round[3] == 0);
      CHECK(per_round[4] == 0);
    }
  }
}

TEST_CASE("threads: a loop over more calls than plans kept allocates nothing once warmed up",
          "[threads][allocation]")
{
  // All-reduces of 8 elements at 80 places in turn: 80 plans (one problem, one pick), more
  // than the 64 a communicator keeps: many calls make their plan again, in a slot given room
  // for the largest plan when the slots filled (detail::plan_churn_after).
  constexpr std::size_t p = 3, places = 80, m = 8;
  static_assert(places > detail::plan_slots);
  const auto per_round = allocations_per_round(Ring<>{p}, 4, [](auto& comm) {
    return [&comm, x = std::vector<double>(places + m, 1.0), y = std::vector<double>(places + m)]() mutable {
      for (std::size_t at = 0; at < places; ++at)
        allreduce(comm, std::span<const double>(x.data() + at, m), std::span<double>(y.data() + at, m), std::plus<>{});
    };
  });
  REQUIRE(per_round.size() == 4);
  CHECK(per_round[0] > 0);
  CHECK(per_round[2] == 0);
  CHECK(per_round[3] == 0);
}

TEST_CASE("threads: a loop over more problems than picks kept allocates nothing once warmed up",
          "[threads][allocation]")
{
  // More sizes in turn than the problems whose picks a communicator keeps: every call
  // selects its default again (estimating every candidate), and the estimates reuse the
  // rank's scratch. On a ring and on a two-dimensional torus, an all-reduce and a
  // broadcast from a root that moves.
  constexpr std::size_t sizes = SelectionPolicy::capacity + 16;
  auto loop = [&](auto topology) {
    std::size_t p = topology.size(); // not const: a static size would need no capture (clang warns)
    const auto per_round = allocations_per_round(topology, 4, [p](auto& comm) {
      return [&comm, p, x = std::vector<double>(sizes, 1.0), y = std::vector<double>(sizes)]() mutable {
        for (std::size_t m = 1; m <= sizes; ++m) {
          allreduce(comm, std::span<const double>(x.data(), m), std::span<double>(y.data(), m), std::plus<>{});
          broadcast(comm, std::span<double>(y.data(), m), m % p);
        }
      };
    });
    REQUIRE(per_round.size() == 4);
    CHECK(per_round[0] > 0);
    CHECK(per_round[2] == 0);
    CHECK(per_round[3] == 0);
  };
  SECTION("Ring<>{3}") { loop(Ring<>{3}); }
  SECTION("Torus<2, 2>") { loop(Torus<2, 2>{}); }
}

TEST_CASE("threads: a user's schedule run through execute() in a loop allocates nothing once warmed up",
          "[threads][allocation]")
{
  // Between the library's calls, whose plans are kept: a plan that is not kept takes one
  // slot again and again, not a new one each call.
  threads::Team team(2);
  std::vector<std::size_t> per_round;
  std::vector<int> swapped(2);
  team.run([&](threads::Endpoint& ep) {
    Communicator comm{ep, Ring<>{2}};
    std::vector<int> in{static_cast<int>(ep.rank()) + 10}, out(1);
    std::vector<double> x(4, 1.0), y(4);
    std::size_t before = 0;
    for (int i = 0; i < 4; ++i) {
      if (ep.rank() == 0) before = allocations.load();
      barrier(comm);
      counting = true;
      for (int k = 0; k < 10; ++k) { // fewer than the slots: a new slot each call would show
        execute(testing::Swap{}, ep, comm.context(), in.data(), BlockLayout{1}, out.data(), BlockLayout{1},
                BlockLayout{1});
        allreduce(comm, x, y, std::plus<>{});
      }
      counting = false;
      barrier(comm);
      if (ep.rank() == 0) per_round.push_back(allocations.load() - before);
    }
    swapped[ep.rank()] = out[0];
  });
  CHECK(swapped == std::vector<int>{11, 10});
  REQUIRE(per_round.size() == 4);
  CHECK(per_round[0] > 0);
  CHECK(per_round[1] == 0);
  CHECK(per_round[2] == 0);
  CHECK(per_round[3] == 0);
}

#endif // COLLECTIVES_OWN_OPERATOR_NEW
