// Hypercube alltoall schedules: the standard exchange (seed 000, 4.5.3) and the all-port
// full-duplex schedule of seed 002, with its schedule table.

#include <catch2/catch.hpp>

#include "../support/harness.hpp"
#include "../support/recording.hpp"
#include "../support/sanitizers.hpp"

#include <collectives/algorithm/alltoall/hypercube.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using namespace collectives;

namespace {

// TSan makes the single-threaded verifier and 64-thread teams ~15x slower; under it the
// biggest sweeps are trimmed (the thread interplay TSan checks is the same).
using testing::under_tsan;

// ---------------------------------------------------------------------------------------
// Static facts of the standard exchange on Q_3 (step i works on dimension i).
// ---------------------------------------------------------------------------------------
constexpr StandardExchangeSchedule se3{8};
static_assert(se3.num_steps() == 3);
static_assert(send_partner(se3, 5, 0) == 4); // 101 -> 100: dimension 0
static_assert(send_partner(se3, 5, 1) == 7); // 101 -> 111: dimension 1
static_assert(send_partner(se3, 5, 2) == 1); // 101 -> 001: dimension 2
static_assert(blocks_sent(se3, 5, 0) == 4 && blocks_sent(se3, 5, 1) == 4 && blocks_sent(se3, 5, 2) == 4);
static_assert(step_ops(se3, 5, 1).sends.size() == 1); // p/2 blocks as one message

// The all-port schedule on Q_3: 4 rounds, one block along each of the 3 dimensions.
constexpr AllPortSchedule ap3{8};
static_assert(ap3.num_steps() == 4);
static_assert(blocks_sent(ap3, 5, 0) == 3 && blocks_sent(ap3, 5, 3) == 3);
static_assert(step_ops(ap3, 5, 2).sends.size() == 3);
static_assert(step_ops(ap3, 5, 2).sends[0].peer == 4 && step_ops(ap3, 5, 2).sends[1].peer == 7 &&
              step_ops(ap3, 5, 2).sends[2].peer == 1);

// Both need p = 2^d, which the topology's type settles for static hypercubes of any d.
static_assert(fits_topology_type<alltoall_algorithm::StandardExchange, Hypercube<0>>);
static_assert(fits_topology_type<alltoall_algorithm::AllPort, Hypercube<1>>);
static_assert(!power_of_two_ranks<alltoall_algorithm::AllPort, Ring<6>>);
static_assert(power_of_two_ranks<alltoall_algorithm::AllPort, Ring<>>); // decided by value

// ---------------------------------------------------------------------------------------
// Seed 002's schedule table: constraints (a)-(c) for n = 1..5, and the printed table for
// Q_4 reproduced entry for entry.
// ---------------------------------------------------------------------------------------
static_assert(check_all_port_table(1));
static_assert(check_all_port_table(2));
static_assert(check_all_port_table(3));
static_assert(check_all_port_table(4));
static_assert(check_all_port_table(5));

constexpr std::size_t seed_table_q4[8][4] = {
  {0b0011, 0b0110, 0b1100, 0b1000}, {0b0001, 0b0111, 0b1110, 0b1010}, {0b0111, 0b0010, 0b1101, 0b1100},
  {0b0101, 0b0011, 0b1111, 0b1110}, {0b1011, 0b1110, 0b0100, 0b1001}, {0b1001, 0b1111, 0b0110, 0b1011},
  {0b1111, 0b1010, 0b0101, 0b1101}, {0b1101, 0b1011, 0b0111, 0b1111},
};
constexpr bool matches_seed_table_q4()
{
  const AllPortTable t(4);
  if (t.rounds() != 8) return false;
  for (std::size_t k = 0; k < 8; ++k)
    for (std::size_t j = 0; j < 4; ++j)
      if (t.entry(k, j) != seed_table_q4[k][j]) return false;
  return true;
}
static_assert(matches_seed_table_q4());

// The checker rejects tables that break each constraint.
constexpr bool rejects_broken_tables()
{
  auto t = all_port_table(3); // 4 rows x 3 columns
  auto zero = t;
  zero[0] = 0;
  auto no_bit = t; // (a): column 0 holds an address without bit 0
  no_bit[0] = 0b110;
  auto row_repeat = t; // (b): row 0 repeats its column-1 entry in column 2 (bit 2 set)
  row_repeat[2] = t[1] | 0b100;
  row_repeat[1] = row_repeat[2];
  auto column_repeat = t; // (c): column 0 holds one address twice
  column_repeat[0 * 3 + 0] = column_repeat[1 * 3 + 0];
  auto short_table = t;
  short_table.pop_back();
  return satisfies_all_port_constraints(3, t) && !satisfies_all_port_constraints(3, zero) &&
         !satisfies_all_port_constraints(3, no_bit) && !satisfies_all_port_constraints(3, row_repeat) &&
         !satisfies_all_port_constraints(3, column_repeat) && !satisfies_all_port_constraints(3, short_table);
}
static_assert(rejects_broken_tables());

// ---------------------------------------------------------------------------------------
// Both schedules proved correct at compile time, on hypercubes and, mapped by rank, on
// other topologies of power-of-two size.
// ---------------------------------------------------------------------------------------
// (Every d = 0..9 at run time, below; the schedules take p alone, so these are every
// topology of 2 and 8 nodes.)
static_assert(verify(StandardExchangeSchedule(2)).ok && verify(StandardExchangeSchedule(8)).ok);
static_assert(verify(AllPortSchedule(2)).ok && verify(AllPortSchedule(8)).ok);

// ---------------------------------------------------------------------------------------
// Results against the serial reference: dynamic hypercubes of every d = 0..6 (the family's
// static twin, Mesh<2, 4>, runs both in alltoall.cpp; the verifier proves every d).
// ---------------------------------------------------------------------------------------
template <class T, class Topo, class Alg>
void check_reference(const Topo& cube, Alg alg)
{
  const std::size_t p = cube.size();
  for (const std::size_t m : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{4096}}) {
    if (m == 4096 && p > 8) continue;
    if (under_tsan && p >= 32 && m != 7) continue;
    INFO(Alg::name << ": p = " << p << ", m = " << m);
    CHECK(testing::alltoall_matches_reference<T>(cube, m, alg));
  }
}

template <class T, class Alg>
void check_reference_all(Alg alg)
{
  for (std::size_t d = 0; d <= 6; ++d) check_reference<T>(Hypercube<>::of_dims(d), alg);
}

/// Runs the schedule of `alg` on a recording transport and checks every rank's log
/// against what the schedule says, message by message (peer and bytes, per step).
template <class Topo, class Alg>
void check_recorded(const Topo& topo, Alg alg, std::size_t m)
{
  using T = double;
  const std::size_t p = topo.size();
  const auto s = Alg::schedule(topo, Problem{});
  std::vector<char> right(p, 0);
  const auto got = testing::record_on(topo, [&](auto& comm) {
    const auto send = testing::alltoall_input<T>(p, m, comm.rank());
    std::vector<T> recv(p * m, testing::poison<T>());
    alltoall(comm, send, recv, alg);
    right[comm.rank()] = recv == testing::alltoall_reference<T>(p, m, comm.rank()) ? 1 : 0;
  });
  for (std::size_t r = 0; r < p; ++r) {
    INFO(Alg::name << ": p = " << p << ", rank " << r);
    CHECK(right[r] == 1);
    CHECK(got[r].log == testing::expected_log(s, r, testing::Uniform{{m}}, sizeof(T)));
  }
}

} // namespace

TEST_CASE("alltoall_hypercube: the all-port table holds (a)-(c) at run time", "[alltoall][hypercube]")
{
  for (std::size_t n = 0; n <= 14; ++n) {
    INFO("n = " << n);
    CHECK(check_all_port_table(n));
  }
  CHECK(rejects_broken_tables());
}

TEST_CASE("alltoall_hypercube: crossings_before counts the crossings round_of places before round k", "[alltoall][hypercube]")
{
  // Every relative address and round up to n = 10 (p = 1024, what compile-time select
  // visits), against the definition.
  for (std::size_t n = 0; n <= (testing::sanitized ? 8 : 10); ++n) {
    const AllPortTable t(n);
    std::size_t wrong = 0;
    for (std::size_t r = 0; r < (std::size_t{1} << n); ++r)
      for (std::size_t k = 0; k <= t.rounds(); ++k) {
        std::size_t want = 0;
        for (std::size_t d = 0; d < n; ++d) want += ((r >> d) & 1u) != 0 && t.round_of(r, d) < k ? 1 : 0;
        wrong += t.crossings_before(r, k) == want ? 0 : 1;
      }
    INFO("n = " << n);
    CHECK(wrong == 0);
  }
  static_assert(AllPortTable(4).crossings_before(0b1011, 0) == 0);
  static_assert(AllPortTable(4).crossings_before(0b1011, 8) == 3);
}

TEST_CASE("alltoall_hypercube: both schedules verify for p = 2^d up to 512 (256 under the sanitizers)", "[alltoall][hypercube]")
{
  // (To 256 under the sanitizers: the verifier is single-threaded arithmetic, and the gcc
  // preset proves p = 512.)
  for (std::size_t d = 0; d <= (testing::sanitized ? 8 : 9); ++d) {
    const Hypercube<> cube = Hypercube<>::of_dims(d);
    const auto se = verify(StandardExchangeSchedule(cube.size()));
    const auto ap = verify(AllPortSchedule(cube.size()));
    INFO("d = " << d << ": " << se.what << " / " << ap.what);
    CHECK(se.ok);
    CHECK(ap.ok);
    // The message shapes the seeds promise.
    const StandardExchangeSchedule s(cube.size());
    const AllPortSchedule a(cube.size());
    if (d > 0) {
      CHECK(s.num_steps() == d);
      CHECK(a.num_steps() == (std::size_t{1} << (d - 1)));
      const std::size_t r = cube.size() - 1;
      for (std::size_t i = 0; i < d; ++i) {
        CHECK(send_partner(s, r, i) == (r ^ (std::size_t{1} << i)));
        CHECK(blocks_sent(s, r, i) == cube.size() / 2);
      }
      CHECK(blocks_sent(a, r, a.num_steps() - 1) == d);
    }
  }
}

TEMPLATE_TEST_CASE("alltoall_hypercube: standard_exchange matches the serial reference", "[alltoall][hypercube]", char,
                   double, testing::Particle)
{
  check_reference_all<TestType>(alltoall_algorithm::standard_exchange);
}

TEMPLATE_TEST_CASE("alltoall_hypercube: all_port matches the serial reference", "[alltoall][hypercube]", char, double,
                   testing::Particle)
{
  check_reference_all<TestType>(alltoall_algorithm::all_port);
}

TEST_CASE("alltoall_hypercube: hypercube schedules on rings and meshes of power-of-two size", "[alltoall][hypercube]")
{
  CHECK(testing::alltoall_matches_reference<double>(Ring<>{8}, 5, alltoall_algorithm::standard_exchange));
  CHECK(testing::alltoall_matches_reference<double>(Ring<>{8}, 5, alltoall_algorithm::all_port));
  CHECK(testing::alltoall_matches_reference<double>(Mesh<>{2, 4}, 5, alltoall_algorithm::standard_exchange));
  CHECK(testing::alltoall_matches_reference<double>(Mesh<>{2, 4}, 5, alltoall_algorithm::all_port));
}

TEST_CASE("alltoall_hypercube: the messages sent are the schedule's", "[alltoall][hypercube]")
{
  check_recorded(Hypercube<>::of_dims(3), alltoall_algorithm::standard_exchange, 3);
  check_recorded(Hypercube<>::of_dims(4), alltoall_algorithm::standard_exchange, 2);
  check_recorded(Hypercube<>::of_dims(3), alltoall_algorithm::all_port, 3);
  check_recorded(Hypercube<>::of_dims(4), alltoall_algorithm::all_port, 2);

  // The counts the seeds give: one message of mp/2 words per step; n messages of m words
  // per round.
  const Hypercube<> cube = Hypercube<>::of_dims(3);
  const std::size_t m = 3;
  const auto se = alltoall_algorithm::standard_exchange.schedule(cube, Problem{});
  const auto ap = alltoall_algorithm::all_port.schedule(cube, Problem{});
  for (std::size_t k = 0; k < se.num_steps(); ++k) {
    CHECK(step_ops(se, 2, k).sends.size() == 1);
    CHECK(blocks_sent(se, 2, k) * m == m * cube.size() / 2);
  }
  for (std::size_t k = 0; k < ap.num_steps(); ++k) {
    CHECK(step_ops(ap, 2, k).sends.size() == 3);
    CHECK(step_ops(ap, 2, k).recvs.size() == 3);
    CHECK(blocks_sent(ap, 2, k) == 3);
  }
}

TEST_CASE("alltoall_hypercube: a size that is not a power of two is rejected, naming the call", "[alltoall][hypercube]")
{
  CHECK_THROWS_AS(StandardExchangeSchedule(6), std::invalid_argument);
  CHECK_THROWS_WITH(StandardExchangeSchedule(6),
                    Catch::Contains("collectives::alltoall(standard_exchange)") && Catch::Contains("6"));
  CHECK_THROWS_AS(AllPortSchedule(6), std::invalid_argument);
  CHECK_THROWS_WITH(AllPortSchedule(6), Catch::Contains("collectives::alltoall(all_port)"));

  // Through the collective: every rank throws before sending anything.
  const Ring<> ring6{6};
  auto call = [&](auto alg) {
    testing::run_on(ring6, [&](auto& comm) {
      const auto send = testing::alltoall_input<int>(6, 2, comm.rank());
      std::vector<int> recv(12);
      alltoall(comm, send, recv, alg);
      return 0;
    });
  };
  CHECK_THROWS_WITH(call(alltoall_algorithm::standard_exchange),
                    Catch::Contains("collectives::alltoall(standard_exchange): needs a power-of-two number of ranks "
                                    "(p = 6)"));
  CHECK_THROWS_AS(call(alltoall_algorithm::all_port), std::invalid_argument);
}
