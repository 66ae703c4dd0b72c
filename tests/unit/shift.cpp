// Circular q-shift: every algorithm proved by the verifier (at compile time on small static
// topologies, at run time on large ones), checked hop by hop against its topology, and run
// on the threads transport against the serial reference.

#include <catch2/catch.hpp>

#include "../support/harness.hpp"
#include "../support/registry.hpp"
#include "../support/sanitizers.hpp"
#include "../support/sweeps.hpp"

#include <collectives/algorithm/shift.hpp>
#include <collectives/schedule/verify.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace collectives;
using collectives::testing::make_value;
using collectives::testing::Particle;
using collectives::testing::failures_on;
using collectives::testing::poison;
using collectives::testing::for_each_fitting;
using collectives::testing::for_each_fitting_and_default;
using collectives::testing::call_with;
using collectives::testing::name_of;
using collectives::testing::algorithm_types_and_default;
using collectives::testing::sweep_topology;
using collectives::testing::runs_on;
constexpr Collective C = Collective::shift;

template <class Alg, class Topo>
constexpr bool verifies(Topo topo, std::ptrdiff_t q)
{
  return verify(Alg::schedule(topo, Problem{.q = q})).ok;
}

/// Every q of the sweep, for p ranks: 0, ±1, p - 1, p, p + 3, -2p - 1, and a middle value.
std::vector<std::ptrdiff_t> shifts_for(std::size_t p)
{
  const auto P = static_cast<std::ptrdiff_t>(p);
  return {0, 1, -1, P - 1, P, P + 3, -2 * P - 1, P / 2 + 1};
}

/// The rank whose block rank r receives: r - q for the rank shift; along the Gray-code
/// ring for hypercube_sf.
template <class Alg>
std::size_t source_of(std::size_t r, std::size_t p, std::ptrdiff_t q)
{
  const std::size_t qq = detail::reduce_shift(q, p);
  if constexpr (std::same_as<Alg, shift_algorithm::HypercubeSf>)
    return embedded_ring_node((embedded_ring_position(r) + p - qq) % p);
  else
    return (r + p - qq) % p;
}

template <class T>
std::vector<T> shift_input(std::size_t r, std::size_t m)
{
  std::vector<T> v(m);
  for (std::size_t i = 0; i < m; ++i) v[i] = make_value<T>(r, i);
  return v;
}

/// One shift on this rank; 0 when recv holds the source's block, else 1.
template <class T, class Comm, class Alg>
int shift_once(Comm& comm, std::size_t m, std::ptrdiff_t q, Alg alg)
{
  const std::size_t p = comm.size(), r = comm.rank();
  const auto send = shift_input<T>(r, m);
  std::vector<T> recv(m, poison<T>());
  call_with(shift, alg, comm, send, recv, q);
  return recv == shift_input<T>(source_of<Alg>(r, p, q), m) ? 0 : 1;
}

/// The same shift with send and receive the same buffer; 0 when it holds the source's block.
template <class T, class Comm, class Alg>
int shift_aliased(Comm& comm, std::size_t m, std::ptrdiff_t q, Alg alg)
{
  const std::size_t p = comm.size(), r = comm.rank();
  auto buf = shift_input<T>(r, m);
  call_with(shift, alg, comm, buf, buf, q);
  return buf == shift_input<T>(source_of<Alg>(r, p, q), m) ? 0 : 1;
}

/// The sweep of q (shifts_for(p) unless given) and m for one algorithm on one topology;
/// `all_types` adds double and Particle to char.
template <class Topo, class Alg>
int sweep(const Topo& topo, Alg alg, bool all_types, std::vector<std::size_t> sizes = {0, 1, 7},
          std::vector<std::ptrdiff_t> qs = {})
{
  if (qs.empty()) qs = shifts_for(topo.size());
  return failures_on(topo, [&](auto& comm) {
    int bad = 0;
    for (const auto q : qs)
      for (const auto m : sizes) {
        bad += shift_once<char>(comm, m, q, alg);
        if (all_types) {
          bad += shift_once<double>(comm, m, q, alg);
          bad += shift_once<Particle>(comm, m, q, alg);
        }
      }
    return bad;
  });
}

} // namespace

// ---------------------------------------------------------------------------------------
// Proofs
// ---------------------------------------------------------------------------------------

TEST_CASE("shift: every algorithm verifies at compile time on small static topologies", "[shift][verify]")
{
  namespace sa = shift_algorithm;
  // ring and direct on rings, including p = 1 and 2 and q = 0, negative, |q| > p.
  static_assert(verifies<sa::Ring>(collectives::Ring<1>{}, 0) && verifies<sa::Ring>(collectives::Ring<1>{}, -3));
  static_assert(verifies<sa::Ring>(collectives::Ring<2>{}, 1) && verifies<sa::Ring>(collectives::Ring<2>{}, -1));
  static_assert(verifies<sa::Ring>(collectives::Ring<7>{}, 0) && verifies<sa::Ring>(collectives::Ring<7>{}, 3));
  static_assert(verifies<sa::Ring>(collectives::Ring<7>{}, 4) && verifies<sa::Ring>(collectives::Ring<7>{}, -1));
  static_assert(verifies<sa::Ring>(collectives::Ring<7>{}, 17) && verifies<sa::Ring>(collectives::Ring<7>{}, -15));
  static_assert(verifies<sa::Ring>(collectives::Ring<8>{}, 4) && verifies<sa::Ring>(collectives::Ring<8>{}, -4));
  static_assert(verifies<sa::Direct>(collectives::Ring<1>{}, 5) && verifies<sa::Direct>(collectives::Ring<2>{}, 1));
  static_assert(verifies<sa::Direct>(collectives::Ring<7>{}, 0) && verifies<sa::Direct>(collectives::Ring<7>{}, -9));
  static_assert(verifies<sa::Direct>(collectives::Ring<7>{}, 3) && verifies<sa::Direct>(collectives::Ring<7>{}, 22));
  // mesh on the seed's 4x4 example (q = 5), on non-square meshes, single rows/columns, tori.
  static_assert(verifies<sa::Mesh>(collectives::Mesh<4, 4>{}, 5) && verifies<sa::Mesh>(collectives::Mesh<4, 4>{}, 0));
  static_assert(verifies<sa::Mesh>(collectives::Mesh<4, 4>{}, -1) && verifies<sa::Mesh>(collectives::Mesh<4, 4>{}, 15));
  static_assert(verifies<sa::Mesh>(collectives::Mesh<4, 4>{}, 11) && verifies<sa::Mesh>(collectives::Mesh<4, 4>{}, 37));
  static_assert(verifies<sa::Mesh>(collectives::Mesh<3, 5>{}, 7) && verifies<sa::Mesh>(collectives::Mesh<3, 5>{}, -4));
  static_assert(verifies<sa::Mesh>(collectives::Mesh<5, 3>{}, 8) && verifies<sa::Mesh>(collectives::Mesh<5, 3>{}, -16));
  static_assert(verifies<sa::Mesh>(collectives::Mesh<1, 6>{}, 4) && verifies<sa::Mesh>(collectives::Mesh<6, 1>{}, -2));
  static_assert(verifies<sa::Mesh>(collectives::Mesh<2, 2>{}, 3) && verifies<sa::Mesh>(collectives::Mesh<1, 1>{}, 1));
  static_assert(verifies<sa::Mesh>(collectives::Torus<3, 3>{}, 4) && verifies<sa::Mesh>(collectives::Torus<2, 4>{}, -3));
  static_assert(verifies<sa::Ring>(collectives::Mesh<3, 4>{}, 5) && verifies<sa::Direct>(collectives::Mesh<3, 4>{}, 5));
  // hypercube_sf on hypercubes and on other power-of-two topologies.
  static_assert(verifies<sa::HypercubeSf>(Hypercube<0>{}, 0) && verifies<sa::HypercubeSf>(Hypercube<0>{}, -1));
  static_assert(verifies<sa::HypercubeSf>(Hypercube<1>{}, 1) && verifies<sa::HypercubeSf>(Hypercube<1>{}, -3));
  static_assert(verifies<sa::HypercubeSf>(Hypercube<2>{}, 1) && verifies<sa::HypercubeSf>(Hypercube<2>{}, 2));
  static_assert(verifies<sa::HypercubeSf>(Hypercube<2>{}, 3) && verifies<sa::HypercubeSf>(Hypercube<2>{}, -5));
  static_assert(verifies<sa::HypercubeSf>(Hypercube<3>{}, 0) && verifies<sa::HypercubeSf>(Hypercube<3>{}, 5));
  static_assert(verifies<sa::HypercubeSf>(Hypercube<3>{}, 7) && verifies<sa::HypercubeSf>(Hypercube<3>{}, -3));
  static_assert(verifies<sa::HypercubeSf>(Hypercube<3>{}, 6) && verifies<sa::HypercubeSf>(Hypercube<3>{}, 21));
  static_assert(verifies<sa::HypercubeSf>(collectives::Ring<8>{}, 3) && verifies<sa::Direct>(Hypercube<3>{}, 5));
  SUCCEED();
}

TEST_CASE("shift: the verifier rejects a spec the schedule does not implement", "[shift][verify]")
{
  // The Gray-code schedule checked against the rank shift fails for p > 2: the two
  // operations really differ, and GrayShiftOp is what the algorithm does.
  struct AsRankShift : ShiftHypercubeSfSchedule {
    using ShiftHypercubeSfSchedule::ShiftHypercubeSfSchedule;
    ShiftOp operation() const { return {size(), shift()}; }
  };
  CHECK_FALSE(verify(AsRankShift(8, 1)).ok);
  CHECK(verify(AsRankShift(2, 1)).ok);
  CHECK(verify(AsRankShift(8, 8)).ok); // q = 0 mod p
}

TEST_CASE("shift: every algorithm verifies at run time on large topologies", "[shift][verify]")
{
  // Every algorithm of shift's list that fits, on every R x C mesh of p (ring and direct
  // on each, mesh on each shape); hypercube_sf (not in the list) on the power-of-two p.
  std::size_t verified = 0;
  for (std::size_t p : {1u, 2u, 3u, 16u, 31u, 64u, 97u, 128u, 257u}) {
    CAPTURE(p);
    for (const auto q : shifts_for(p)) {
      CAPTURE(q);
      for (std::size_t rows = 1; rows <= p; ++rows) {
        if (p % rows != 0) continue;
        const collectives::Mesh<> mesh{rows, p / rows};
        const Problem problem{.q = q};
        for_each_fitting<C>(mesh, problem, [&](auto a) {
          INFO("algorithm " << name_of(a) << ", " << rows << " x " << p / rows);
          CHECK(verify(a.schedule(mesh, problem)).ok);
          ++verified;
        });
      }
      if (std::has_single_bit(p)) CHECK(verify(ShiftHypercubeSfSchedule(p, q)).ok);
    }
  }
  CHECK(verified > 0);
  // Every q of small rings and hypercubes, and the extreme integers.
  for (std::size_t p = 1; p <= 32; ++p)
    for (std::ptrdiff_t q = -static_cast<std::ptrdiff_t>(p); q <= static_cast<std::ptrdiff_t>(p); ++q) {
      for_each_fitting<C>(collectives::Ring<>{p}, Problem{.q = q}, [&](auto a) {
        INFO("algorithm " << name_of(a) << ", p = " << p << ", q = " << q);
        CHECK(verify(a.schedule(collectives::Ring<>{p}, Problem{.q = q})).ok);
      });
      if (std::has_single_bit(p)) CHECK(verify(ShiftHypercubeSfSchedule(p, q)).ok);
    }
  for (const auto q : {std::numeric_limits<std::ptrdiff_t>::min(), std::numeric_limits<std::ptrdiff_t>::max()}) {
    const collectives::Mesh<> mesh{3, 4};
    for_each_fitting<C>(mesh, Problem{.q = q}, [&](auto a) {
      INFO("algorithm " << name_of(a) << ", q = " << q);
      CHECK(verify(a.schedule(mesh, Problem{.q = q})).ok);
    });
    CHECK(verify(ShiftRingSchedule(12, q)).ok);
    CHECK(verify(ShiftHypercubeSfSchedule(16, q)).ok);
  }
}

TEST_CASE("shift: q is reduced mod p for any integer", "[shift]")
{
  STATIC_REQUIRE(detail::reduce_shift(0, 5) == 0);
  STATIC_REQUIRE(detail::reduce_shift(-1, 5) == 4);
  STATIC_REQUIRE(detail::reduce_shift(-5, 5) == 0);
  STATIC_REQUIRE(detail::reduce_shift(-11, 5) == 4);
  STATIC_REQUIRE(detail::reduce_shift(13, 5) == 3);
  STATIC_REQUIRE(detail::reduce_shift(std::numeric_limits<std::ptrdiff_t>::min(), 3) ==
                 3 - (static_cast<std::size_t>(std::numeric_limits<std::ptrdiff_t>::max()) + 1) % 3 % 3);
  STATIC_REQUIRE(detail::reduce_shift(-7, 1) == 0);
}

// ---------------------------------------------------------------------------------------
// Shape of the schedules: hops, steps, one message in and out
// ---------------------------------------------------------------------------------------

namespace {
/// True when every step sends along single links of `topo` and each rank sends at most
/// one message and receives at most one.
template <class S, class Topo>
bool one_hop_permutation_steps(const S& s, const Topo& topo)
{
  const std::size_t p = s.size();
  for (std::size_t k = 0; k < s.num_steps(); ++k) {
    std::vector<int> in(p, 0);
    for (std::size_t r = 0; r < p; ++r) {
      const auto ops = step_ops(s, r, k);
      if (ops.sends.size() > 1 || ops.recvs.size() > 1) return false;
      for (const auto& snd : ops.sends) {
        if (topo.distance(r, snd.peer) != 1) return false;
        if (++in[snd.peer] > 1) return false;
      }
    }
  }
  return true;
}
} // namespace

TEST_CASE("shift: ring takes min(q, p - q) one-hop steps the shorter way", "[shift]")
{
  for (std::size_t p = 1; p <= 20; ++p)
    for (std::size_t q = 0; q < p; ++q) {
      const collectives::Ring<> ring{p};
      const ShiftRingSchedule s(p, static_cast<std::ptrdiff_t>(q));
      CHECK(s.num_steps() == std::max<std::size_t>(1, std::min(q, p - q)));
      CHECK(one_hop_permutation_steps(s, ring));
      if (q != 0) CHECK(send_partner(s, 0, 0) == (q <= p - q ? 1 % p : p - 1));
    }
}

TEST_CASE("shift: mesh stages follow the seed (row, compensation, column)", "[shift]")
{
  // The seed's Figure 3.22: a 5-shift on a 4x4 mesh is a 1-hop row shift, a compensation
  // step for column 0 only, and a 1-hop column shift.
  const ShiftMeshSchedule s(4, 4, 5);
  REQUIRE(s.num_steps() == 3);
  CHECK(s.row_hops() == 1);
  CHECK(s.compensation_steps() == 1);
  CHECK(s.column_hops() == 1);
  for (std::size_t r = 0; r < 16; ++r) {
    CHECK(send_partner(s, r, 0) == (r / 4) * 4 + (r % 4 + 1) % 4);
    CHECK(send_partner(s, r, 1) == (r % 4 == 0 ? (r + 4) % 16 : r)); // only column 0 moves
    CHECK(send_partner(s, r, 2) == (r + 4) % 16);
  }
  // At most floor(C/2) + 1 + floor(R/2) steps, each one hop on the mesh.
  for (std::size_t rows = 1; rows <= 8; ++rows)
    for (std::size_t cols = 1; cols <= 8; ++cols) {
      const collectives::Mesh<> mesh{rows, cols};
      for (std::size_t q = 0; q < rows * cols; ++q) {
        const ShiftMeshSchedule m(rows, cols, static_cast<std::ptrdiff_t>(q));
        CHECK(m.num_steps() <= std::max<std::size_t>(1, cols / 2 + 1 + rows / 2));
        CHECK(one_hop_permutation_steps(m, mesh));
      }
    }
}

TEST_CASE("shift: hypercube_sf is congestion-free single hops, at most 2 log p - 1 steps", "[shift]")
{
  for (std::size_t d = 0; d <= 7; ++d) {
    const Hypercube<> cube = Hypercube<>::of_dims(d);
    const std::size_t p = cube.size();
    for (std::size_t q = 0; q < p; ++q) {
      const ShiftHypercubeSfSchedule s(p, static_cast<std::ptrdiff_t>(q));
      CAPTURE(d, q);
      CHECK(s.num_steps() <= std::max<std::size_t>(1, 2 * d - (d > 0 ? 1 : 0)));
      CHECK(one_hop_permutation_steps(s, cube));
      // One phase per set bit of the shorter of q and p - q: 2 steps each, 1 for bit 0.
      const std::size_t x = s.amount();
      CHECK((x == q || x == p - q));
      CHECK(s.total_steps() == 2 * static_cast<std::size_t>(std::popcount(x)) - (x & 1u));
    }
  }
  // The seed's Figure 3.23: a 5-shift on 8 nodes is a 4-shift (2 steps) and a 1-shift.
  const ShiftHypercubeSfSchedule s(8, 5);
  CHECK(s.num_steps() == 3);
  CHECK(s.forward());
}

TEST_CASE("shift: the Gray-code ring embedding", "[shift]")
{
  STATIC_REQUIRE(embedded_ring_node(0) == 0);
  STATIC_REQUIRE(embedded_ring_node(1) == 1);
  STATIC_REQUIRE(embedded_ring_node(2) == 3);
  STATIC_REQUIRE(embedded_ring_node(3) == 2);
  STATIC_REQUIRE(embedded_ring_node(7) == 4);
  for (std::size_t i = 0; i < 4096; ++i) {
    CHECK(embedded_ring_position(embedded_ring_node(i)) == i);
    CHECK(std::popcount(embedded_ring_node(i) ^ embedded_ring_node((i + 1) % 4096)) == 1);
  }
  const std::size_t big = std::size_t{1} << 62;
  CHECK(embedded_ring_position(embedded_ring_node(big + 12345)) == big + 12345);
  // The operation: node G(i)'s block goes to node G(i + q).
  const GrayShiftOp op{8, 1};
  CHECK(op.expected(embedded_ring_node(4), 0) == Symbol{static_cast<std::int64_t>(embedded_ring_node(3))});
}

// ---------------------------------------------------------------------------------------
// Execution against the serial reference
// ---------------------------------------------------------------------------------------

// Every algorithm of shift's list (and the default), each its own test cases, on a ring of
// p (the mesh of mesh_shape(p) for the mesh algorithm): every q of shifts_for(p) with char;
// double and Particle, and m = 0 and 1, on a subset. Above 17 ranks the middle q (about
// p/2 ring steps, the costly case for 64 threads under TSan) runs on a sample of p.
COLLECTIVES_ALGORITHM_SWEEP_TEST_CASES("shift: every algorithm matches the reference", "[shift][threads]",
                                       algorithm_types_and_default<Collective::shift>, [](std::size_t p) {
                                         const TestType alg{};
                                         const auto topo = sweep_topology<TestType>(p);
                                         if (!runs_on(alg, topo)) return;
                                         INFO("algorithm " << name_of(alg));
                                         const bool all_types = p <= 8 || p == 16 || p == 17;
                                         const bool middle = p <= 17 || p == 32 || p == 64;
                                         const std::vector<std::size_t> sizes =
                                           p <= 16 || all_types ? std::vector<std::size_t>{0, 1, 7}
                                                                : std::vector<std::size_t>{7};
                                         auto qs = shifts_for(p);
                                         if (!middle) qs.pop_back();
                                         CHECK(sweep(topo, alg, all_types, sizes, qs) == 0);
                                       })

TEST_CASE("shift: every algorithm matches the reference on many R x C shapes", "[shift][threads]")
{
  // Every shape of p <= 16, and square and oblong shapes of larger p: each algorithm of
  // the list that fits the mesh (the mesh algorithm on every shape). Under a sanitizer,
  // p <= 12 and three larger shapes (a row count that divides p, a square of a prime,
  // an oblong of 64): the same code paths, a third of the threads.
  using collectives::testing::sanitized;
  std::size_t ran = 0;
  const auto on_mesh = [&](const collectives::Mesh<>& mesh, bool all_types, std::vector<std::size_t> sizes) {
    for_each_fitting<C>(mesh, Problem{}, [&](auto a) {
      INFO("algorithm " << name_of(a));
      CHECK(sweep(mesh, a, all_types, sizes) == 0);
      ++ran;
    });
  };
  for (std::size_t p = 1; p <= (sanitized ? 12 : 16); ++p)
    for (std::size_t rows = 1; rows <= p; ++rows) {
      if (p % rows != 0) continue;
      CAPTURE(rows, p / rows);
      on_mesh(collectives::Mesh<>{rows, p / rows}, p <= (sanitized ? 6 : 9), {0, 1, 7});
    }
  const std::vector<std::array<std::size_t, 2>> shapes =
    sanitized ? std::vector<std::array<std::size_t, 2>>{{4, 6}, {7, 7}, {4, 16}}
              : std::vector<std::array<std::size_t, 2>>{{4, 6}, {6, 4}, {3, 8}, {2, 12}, {6, 6},
                                                        {4, 9}, {7, 7}, {8, 8}, {4, 16}, {16, 4}};
  for (const auto& shape : shapes) {
    CAPTURE(shape[0], shape[1]);
    on_mesh(collectives::Mesh<>{shape[0], shape[1]}, false, {7});
  }
  CHECK(ran >= 3 * shapes.size());
}

TEST_CASE("shift: hypercube_sf matches the Gray-code reference for p = 1..64", "[shift][threads]")
{
  // hypercube_sf is not in shift's list (it shifts Gray-ring positions): named here; the
  // list's algorithms that fit a hypercube run beside it.
  for (std::size_t d = 0; d <= 6; ++d) {
    CAPTURE(d);
    const auto cube = Hypercube<>::of_dims(d);
    CHECK(sweep(cube, shift_algorithm::hypercube_sf, d <= 4) == 0);
    for_each_fitting<C>(cube, Problem{}, [&](auto a) {
      INFO("algorithm " << name_of(a));
      CHECK(sweep(cube, a, d <= 3) == 0);
    });
  }
  // On a power-of-two ring too: the algorithm needs p = 2^d, not the hypercube type.
  CHECK(sweep(collectives::Ring<>{16}, shift_algorithm::hypercube_sf, false) == 0);
}

TEST_CASE("shift: long messages", "[shift][threads]")
{
  const std::vector<std::size_t> big{4096};
  for_each_fitting_and_default<C>(collectives::Ring<>{5}, Problem{}, [&](auto a) {
    INFO("algorithm " << name_of(a));
    CHECK(sweep(collectives::Ring<>{5}, a, true, big) == 0);
  });
  for_each_fitting<C>(collectives::Mesh<>{2, 3}, Problem{}, [&](auto a) {
    INFO("algorithm " << name_of(a));
    CHECK(sweep(collectives::Mesh<>{2, 3}, a, true, big) == 0);
  });
  CHECK(sweep(Hypercube<>::of_dims(3), shift_algorithm::hypercube_sf, true, big) == 0);
}

TEST_CASE("shift: send and receive the same buffer", "[shift][threads][alias]")
{
  // Every algorithm that fits (and the default), as if send had been copied first.
  const auto aliased = [](const auto& topo, auto a) {
    INFO("algorithm " << name_of(a) << ", p = " << topo.size());
    CHECK(failures_on(topo, [&](auto& comm) {
            int bad = 0;
            for (const auto q : shifts_for(topo.size()))
              for (const std::size_t m : {1u, 7u}) {
                bad += shift_aliased<char>(comm, m, q, a);
                bad += shift_aliased<Particle>(comm, m, q, a);
              }
            return bad;
          }) == 0);
  };
  std::size_t ran = 0;
  for (std::size_t p : {1u, 2u, 5u, 8u}) {
    const auto [rows, cols] = collectives::testing::mesh_shape(p);
    const collectives::Mesh<> mesh{rows, cols};
    for_each_fitting_and_default<C>(mesh, Problem{}, [&](auto a) {
      aliased(mesh, a);
      ++ran;
    });
    for_each_fitting_and_default<C>(collectives::Ring<>{p}, Problem{}, [&](auto a) { aliased(collectives::Ring<>{p}, a); });
  }
  CHECK(ran == 4 * (std::tuple_size_v<algorithm_types<C>> + 1));
  aliased(Hypercube<>::of_dims(3), shift_algorithm::hypercube_sf);
}

TEST_CASE("shift: static and dynamic topologies give the same results", "[shift][threads]")
{
  CHECK(sweep(collectives::Ring<8>{}, shift_algorithm::ring, true) == 0);
  CHECK(sweep(collectives::Ring<>{8}, shift_algorithm::ring, true) == 0);
  CHECK(sweep(collectives::Ring<7>{}, shift_algorithm::direct, true) == 0);
  CHECK(sweep(collectives::Ring<>{7}, shift_algorithm::direct, true) == 0);
  CHECK(sweep(collectives::Mesh<3, 4>{}, shift_algorithm::mesh, true) == 0);
  CHECK(sweep(collectives::Mesh<>{3, 4}, shift_algorithm::mesh, true) == 0);
  CHECK(sweep(collectives::Mesh<3, collectives::dynamic_extent>{4}, shift_algorithm::mesh, true) == 0);
  CHECK(sweep(Hypercube<3>{}, shift_algorithm::hypercube_sf, true) == 0);
  CHECK(sweep(Hypercube<>::of_dims(3), shift_algorithm::hypercube_sf, true) == 0);
}

TEST_CASE("shift: the default takes any buffer type", "[shift][threads]")
{
  const int bad = failures_on(collectives::Ring<6>{}, [](auto& comm) {
    const std::size_t r = comm.rank();
    std::array<int, 3> send{int(r), int(r) + 10, int(r) + 20};
    std::array<int, 3> recv{-1, -1, -1};
    shift(comm, send, recv, -2);
    const int from = static_cast<int>((r + 2) % 6);
    int wrong = recv == std::array<int, 3>{from, from + 10, from + 20} ? 0 : 1;
    // A span over part of a vector, and a q of another integer type.
    std::vector<double> out(5, -1.0);
    const std::vector<double> in{double(r), 1.5, 2.5, 3.5, 4.5};
    shift(comm, std::span<const double>(in).first(2), std::span<double>(out).subspan(3), std::size_t{7},
          shift_algorithm::ring);
    const double src = static_cast<double>((r + 5) % 6);
    wrong += out == std::vector<double>{-1.0, -1.0, -1.0, src, 1.5} ? 0 : 1;
    return wrong;
  });
  CHECK(bad == 0);
}

TEST_CASE("shift: the recording transport sees the schedule's messages", "[shift][threads]")
{
  using Rec = RecordingEndpoint<threads::Endpoint>;
  SECTION("ring: 3 hops towards rank + 1")
  {
    const std::size_t p = 10, m = 5;
    std::vector<std::vector<MessageRecord>> logs(p);
    threads::Team team{p};
    team.run([&](threads::Endpoint& ep) {
      Rec rec{ep};
      Communicator<Rec, collectives::Ring<>> comm{rec, collectives::Ring<>{p}};
      const auto send = shift_input<double>(ep.rank(), m);
      std::vector<double> recv(m);
      shift(comm, send, recv, 13, shift_algorithm::ring); // 13 = 3 mod 10
      logs[ep.rank()] = rec.log();
    });
    for (std::size_t r = 0; r < p; ++r) {
      std::vector<MessageRecord> want;
      for (std::size_t k = 0; k < 3; ++k) {
        want.push_back({r, k, (r + 1) % p, m * sizeof(double), true});
        want.push_back({r, k, (r + p - 1) % p, m * sizeof(double), false});
      }
      CHECK(logs[r] == want);
    }
  }
  SECTION("mesh: only the wrapped column takes part in the compensation step")
  {
    const std::size_t p = 16;
    std::vector<std::size_t> exchanges(p);
    std::vector<std::size_t> bytes(p);
    threads::Team team{p};
    team.run([&](threads::Endpoint& ep) {
      Rec rec{ep};
      Communicator<Rec, collectives::Mesh<4, 4>> comm{rec, collectives::Mesh<4, 4>{}};
      const auto send = shift_input<char>(ep.rank(), 3);
      std::vector<char> recv(3);
      shift(comm, send, recv, 5, shift_algorithm::mesh);
      exchanges[ep.rank()] = rec.steps();
      for (const auto& msg : rec.log()) bytes[ep.rank()] += msg.bytes;
    });
    for (std::size_t r = 0; r < p; ++r) {
      CHECK(exchanges[r] == (r % 4 == 0 ? 3u : 2u));
      CHECK(bytes[r] == exchanges[r] * 2 * 3);
    }
  }
  SECTION("direct: one message each way")
  {
    const std::size_t p = 8;
    std::vector<std::vector<MessageRecord>> logs(p);
    threads::Team team{p};
    team.run([&](threads::Endpoint& ep) {
      Rec rec{ep};
      Communicator<Rec, Hypercube<3>> comm{rec, Hypercube<3>{}};
      const auto send = shift_input<Particle>(ep.rank(), 2);
      std::vector<Particle> recv(2);
      shift(comm, send, recv, -3, shift_algorithm::direct);
      logs[ep.rank()] = rec.log();
    });
    for (std::size_t r = 0; r < p; ++r)
      CHECK(logs[r] == std::vector<MessageRecord>{{r, 0, (r + 5) % p, 2 * sizeof(Particle), true},
                                                  {r, 0, (r + 3) % p, 2 * sizeof(Particle), false}});
  }
}

// ---------------------------------------------------------------------------------------
// Bad input
// ---------------------------------------------------------------------------------------

TEST_CASE("shift: bad input throws before anything is written", "[shift][errors]")
{
  const std::size_t p = 4;
  std::vector<std::vector<double>> recvs(p, std::vector<double>(3, -1.0));
  threads::Team team{p};
  SECTION("send and receive sizes differ")
  {
    try {
      team.run([&](threads::Endpoint& ep) {
        Communicator<threads::Endpoint, collectives::Ring<>> comm{ep, collectives::Ring<>{p}};
        const std::vector<double> send(4, 1.0);
        shift(comm, send, recvs[ep.rank()], 1, shift_algorithm::ring);
      });
      FAIL("no exception");
    } catch (const std::invalid_argument& e) {
      CHECK(std::string(e.what()).find("collectives::shift") != std::string::npos);
      CHECK(std::string(e.what()).find("4 elements") != std::string::npos);
    }
  }
  SECTION("hypercube_sf on a run-time size that is not a power of two")
  {
    threads::Team six{6};
    recvs.assign(6, std::vector<double>(3, -1.0));
    try {
      six.run([&](threads::Endpoint& ep) {
        Communicator<threads::Endpoint, collectives::Ring<>> comm{ep, collectives::Ring<>{6}};
        const std::vector<double> send(3, 1.0);
        shift(comm, send, recvs[ep.rank()], 1, shift_algorithm::hypercube_sf);
      });
      FAIL("no exception");
    } catch (const std::invalid_argument& e) {
      CHECK(std::string(e.what()).find("hypercube_sf") != std::string::npos);
      CHECK(std::string(e.what()).find("power-of-two") != std::string::npos);
    }
  }
  for (const auto& recv : recvs) CHECK(recv == std::vector<double>(recv.size(), -1.0));
  CHECK_THROWS_AS(ShiftHypercubeSfSchedule(12, 1), std::invalid_argument);
  CHECK_NOTHROW(ShiftHypercubeSfSchedule(16, 1));
}
