// Bruck's alltoall (any p) and the dimension-by-dimension alltoall (meshes, tori,
// hypercubes): proved by the verifier (at compile time on small static topologies, at
// run time up to p = 512), run on the threads transport against the serial reference,
// and their recorded messages compared with what the schedules promise.

#include "../support/harness.hpp"
#include "../support/recording.hpp"
#include "../support/sweeps.hpp"

#include <catch2/catch.hpp>

#include <collectives/collectives.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace collectives;
using testing::Particle;
using testing::alltoall_matches_reference;

constexpr std::size_t dyn = dynamic_extent;

constexpr bool bruck_ok(std::size_t p)
{
  return verify(BruckSchedule(p)).ok;
}
template <class Topo>
constexpr bool dimensional_ok(Topo t = Topo{})
{
  return verify(DimensionalSchedule(rings_of(t))).ok;
}

// Proofs at compile time (Bruck's schedule depends on p alone).
static_assert(bruck_ok(1) && bruck_ok(2) && bruck_ok(3));
static_assert(bruck_ok(4) && bruck_ok(5) && bruck_ok(6));
static_assert(bruck_ok(7) && bruck_ok(8) && bruck_ok(9));
static_assert(bruck_ok(12));
static_assert(dimensional_ok<Mesh<2, 3>>());
static_assert(dimensional_ok<Mesh<3, 3>>());
static_assert(dimensional_ok<Torus<2, 3, 2>>());
static_assert(dimensional_ok<Hypercube<3>>());

// Step counts and message sizes.
static_assert(BruckSchedule(9).num_steps() == 4);
static_assert(blocks_sent(BruckSchedule(9), 4, 3) == 1); // only j = 8 has bit 3
static_assert(DimensionalSchedule(rings_of(Mesh<3, 4>{})).num_steps() == 2 + 3);
static_assert(DimensionalSchedule(rings_of(Hypercube<3>{})).num_steps() == 3);
static_assert(blocks_sent(DimensionalSchedule(rings_of(Mesh<3, 3>{})), 4, 0) == 2 * 3); // m√p(√p − 1)
static_assert(blocks_sent(DimensionalSchedule(rings_of(Mesh<3, 3>{})), 4, 1) == 1 * 3); // m√p(√p − 2)

// Fit: Bruck takes any topology; the dimensional algorithm only products of two or more
// dimensions (rings are a compile error, see tests/compile_fail/alltoall_dimensional_on_ring.cpp).
struct Clique {
  std::size_t p = 1;
  constexpr std::size_t size() const { return p; }
  constexpr std::size_t next_hop(std::size_t, std::size_t b) const { return b; }
  constexpr std::size_t distance(std::size_t a, std::size_t b) const { return a == b ? 0 : 1; }
};
static_assert(topology<Clique> && !product_topology<Clique>);
static_assert(algorithm_for<alltoall_algorithm::Bruck, Collective::alltoall, Clique>);
static_assert(!algorithm_for<alltoall_algorithm::Dimensional, Collective::alltoall, Clique>);
static_assert(!product_of_rings<alltoall_algorithm::Dimensional, Clique>); // the broken requirement
static_assert(algorithm_for<alltoall_algorithm::Dimensional, Collective::alltoall, Mesh<>>);
static_assert(algorithm_for<alltoall_algorithm::Dimensional, Collective::alltoall, Hypercube<>>);
static_assert(!two_or_more_dimensions<alltoall_algorithm::Dimensional, Ring<8>>);

template <class S>
std::string verdict(const S& s)
{
  const auto res = verify(s);
  if (res.ok) return "ok";
  return std::string(res.what) + " (p = " + std::to_string(s.size()) + ", rank " + std::to_string(res.rank) +
         ", step " + std::to_string(res.step) + ")";
}

/// Runs alltoall with `alg` on topo over a recording transport; checks the result and that
/// every rank's log is exactly the schedule's messages (one per send/receive op, of
/// blocks * m * sizeof(T) bytes), step by step.
template <class T, class Topo, class Alg>
void check_recorded(const Topo& topo, std::size_t m, Alg alg)
{
  const auto s = Alg::schedule(topo, Problem{});
  const std::size_t p = topo.size();
  std::vector<std::vector<T>> got(p);
  const auto recorded = testing::record_on(topo, [&](auto& comm) {
    const auto send = testing::alltoall_input<T>(p, m, comm.rank());
    std::vector<T> recv(p * m, testing::poison<T>());
    alltoall(comm, send, recv, alg);
    got[comm.rank()] = recv;
  });
  for (std::size_t r = 0; r < p; ++r) {
    INFO("rank " << r << " of " << p);
    CHECK(got[r] == testing::alltoall_reference<T>(p, m, r));
    CHECK(recorded[r].log == testing::expected_log(s, r, testing::Uniform{{m}}, sizeof(T)));
    // Each step's sends carry the blocks the schedule's cost counts.
    for (std::size_t k = 0; k < s.num_steps(); ++k) {
      const auto ops = step_ops(s, r, k);
      if (ops.sends.empty() && ops.recvs.empty()) continue;
      std::size_t out_blocks = 0;
      for (const auto& o : ops.sends) out_blocks += o.blocks.count;
      CHECK(out_blocks == blocks_sent(s, r, k));
    }
  }
}

} // namespace

TEST_CASE("bruck alltoall: verified up to p = 512, primes included", "[alltoall][bruck]")
{
  for (std::size_t p : {1, 2, 3, 4, 5, 7, 11, 12, 16, 17, 31, 32, 33, 64, 97, 127, 128, 257, 512}) {
    const BruckSchedule s(p);
    INFO("p = " << p);
    CHECK(verdict(s) == "ok");
    CHECK(s.num_steps() == (p == 1 ? 1 : detail::ceil_log2(p)));
    // Step k sends the blocks whose rotated index has bit k set, to rank + 2^k.
    for (std::size_t k = 0; k < detail::ceil_log2(p); ++k)
      for (std::size_t r : {std::size_t{0}, p / 2, p - 1}) {
        CHECK(blocks_sent(s, r, k) == count_with_bit(p, k));
        CHECK(send_partner(s, r, k) == (r + (std::size_t{1} << k)) % p);
      }
  }
}

// Bruck against the serial reference for every p of the sweep: alltoall.cpp's sweep runs
// every algorithm of alltoall's list, Bruck's included.

TEST_CASE("bruck alltoall: element types, empty and long blocks, other topologies", "[alltoall][bruck]")
{
  for (std::size_t p : {1, 2, 3, 6, 13, 29, 47, 64}) {
    INFO("p = " << p);
    CHECK(alltoall_matches_reference<char>(Ring<>{p}, 3, alltoall_algorithm::bruck));
    CHECK(alltoall_matches_reference<Particle>(Ring<>{p}, 2, alltoall_algorithm::bruck));
  }
  for (std::size_t p : {1, 2, 5, 16}) {
    INFO("p = " << p << ", m = 0");
    CHECK(alltoall_matches_reference<double>(Ring<>{p}, 0, alltoall_algorithm::bruck));
  }
  for (std::size_t p : {2, 3, 5, 8}) {
    INFO("p = " << p << ", m = 4096");
    CHECK(alltoall_matches_reference<double>(Ring<>{p}, 4096, alltoall_algorithm::bruck));
    CHECK(alltoall_matches_reference<char>(Ring<>{p}, 4096, alltoall_algorithm::bruck));
  }
  // On any topology (ranks in rank order), static and dynamic twins alike.
  CHECK(alltoall_matches_reference<double>(Mesh<2, 4>{}, 5, alltoall_algorithm::bruck));
  CHECK(alltoall_matches_reference<double>(Mesh<>{3, 4}, 5, alltoall_algorithm::bruck));
  CHECK(alltoall_matches_reference<Particle>(Ring<>{7}, 3, alltoall_algorithm::bruck));
  CHECK(alltoall_matches_reference<double>(Hypercube<>::of_dims(4), 2, alltoall_algorithm::bruck));
}

TEST_CASE("bruck alltoall: recorded messages are the schedule's", "[alltoall][bruck]")
{
  for (std::size_t p : {2, 3, 7, 12, 33}) {
    check_recorded<double>(Ring<>{p}, 3, alltoall_algorithm::bruck);
    check_recorded<Particle>(Ring<>{p}, 2, alltoall_algorithm::bruck);
  }
  check_recorded<char>(Ring<>{9}, 5, alltoall_algorithm::bruck);
  check_recorded<double>(Ring<>{5}, 0, alltoall_algorithm::bruck);
}

TEST_CASE("dimensional alltoall: verified on meshes up to 16x16, tori and hypercubes",
          "[alltoall][dimensional]")
{
  for (std::size_t a : {1, 2, 3, 5, 8, 13, 16})
    for (std::size_t b : {1, 2, 4, 9, 16}) {
      INFO(a << " x " << b);
      CHECK(verdict(DimensionalSchedule(rings_of(Mesh<>{a, b}))) == "ok");
    }
  using Torus3 = Torus<dyn, dyn, dyn>;
  for (const auto& t : {Torus3{2, 2, 2}, Torus3{2, 3, 4}, Torus3{4, 3, 2}, Torus3{3, 3, 3}, Torus3{5, 1, 3},
                        Torus3{4, 4, 4}, Torus3{3, 5, 7}, Torus3{6, 6, 6}}) {
    INFO(t.extent(0) << " x " << t.extent(1) << " x " << t.extent(2));
    CHECK(verdict(DimensionalSchedule(rings_of(t))) == "ok");
  }
  CHECK(verdict(DimensionalSchedule(rings_of(Torus<dyn, dyn, dyn, dyn>{2, 3, 4, 3}))) == "ok");
  for (std::size_t d = 2; d <= 8; ++d) {
    INFO("hypercube of dimension " << d);
    CHECK(verdict(DimensionalSchedule(rings_of(Hypercube<>::of_dims(d)))) == "ok");
  }
}

TEST_CASE("dimensional alltoall: steps and message sizes follow the seed", "[alltoall][dimensional]")
{
  // √p×√p mesh: exchange e of either phase carries √p(√p − e) blocks.
  const DimensionalSchedule mesh(rings_of(Mesh<>{8, 8}));
  REQUIRE(mesh.num_steps() == 2 * 7);
  for (std::size_t step = 0; step < mesh.num_steps(); ++step) {
    const std::size_t e = step % 7 + 1;
    for (std::size_t r : {0, 9, 63}) CHECK(blocks_sent(mesh, r, step) == 8 * (8 - e));
  }
  // Phase along dimension i: z_i - 1 exchanges of (z_i - e) p / z_i blocks, so a rank sends
  // p (z_i - 1) / 2 blocks in all in that phase.
  const Torus<dyn, dyn, dyn> t{2, 3, 4};
  const DimensionalSchedule s(rings_of(t));
  REQUIRE(s.num_steps() == 1 + 2 + 3);
  REQUIRE(s.num_phases() == 3);
  std::size_t total = 0;
  for (std::size_t step = 0; step < s.num_steps(); ++step) total += blocks_sent(s, 5, step);
  CHECK(total == 24 * (1 + 2 + 3) / 2);
  // Hypercube: log p exchanges of p/2 blocks with the neighbour across one dimension.
  const Hypercube<> h5 = Hypercube<>::of_dims(5);
  const DimensionalSchedule cube(rings_of(h5));
  REQUIRE(cube.num_steps() == 5);
  for (std::size_t step = 0; step < 5; ++step) {
    CHECK(blocks_sent(cube, 6, step) == 16);
    CHECK(hops(h5, 6, send_partner(cube, 6, step)) == 1);
  }
  // Partners are neighbours on a torus too.
  for (std::size_t step = 0; step < s.num_steps(); ++step)
    for (std::size_t r = 0; r < t.size(); ++r) CHECK(hops(t, r, send_partner(s, r, step)) == 1);
}

TEST_CASE("dimensional alltoall: matches the serial reference", "[alltoall][dimensional]")
{
  // Meshes of many shapes with p <= 64, including 1 x C and R x 1.
  for (std::size_t a : {1, 2, 3, 4, 5, 6, 8})
    for (std::size_t b : {1, 2, 3, 4, 5, 7, 8}) {
      INFO(a << " x " << b);
      CHECK(alltoall_matches_reference<double>(Mesh<>{a, b}, 3, alltoall_algorithm::dimensional));
    }
  for (std::size_t a : {2, 3, 5}) {
    for (std::size_t b : {2, 4, 7}) {
      INFO(a << " x " << b);
      CHECK(alltoall_matches_reference<char>(Mesh<>{a, b}, 5, alltoall_algorithm::dimensional));
      CHECK(alltoall_matches_reference<Particle>(Mesh<>{a, b}, 2, alltoall_algorithm::dimensional));
    }
  }
  // The family's static twin, Mesh<2, 4>, and its dynamic twin.
  CHECK(alltoall_matches_reference<double>(Mesh<2, 4>{}, 7, alltoall_algorithm::dimensional));
  CHECK(alltoall_matches_reference<double>(Mesh<>{2, 4}, 7, alltoall_algorithm::dimensional));
  CHECK(alltoall_matches_reference<Particle>(Mesh<2, 4>{}, 1, alltoall_algorithm::dimensional));
  CHECK(alltoall_matches_reference<Particle>(Mesh<>{2, 4}, 1, alltoall_algorithm::dimensional));
  CHECK(alltoall_matches_reference<double>(Hypercube<>::of_dims(3), 2, alltoall_algorithm::dimensional));
  CHECK(alltoall_matches_reference<double>(Torus<dyn, dyn, dyn>{2, 3, 2}, 2, alltoall_algorithm::dimensional));
  // Tori and hypercubes.
  using Torus3 = Torus<dyn, dyn, dyn>;
  for (const auto& t : {Torus3{2, 2, 2}, Torus3{2, 3, 4}, Torus3{3, 3, 3}, Torus3{4, 1, 4}, Torus3{4, 4, 4}}) {
    INFO(t.extent(0) << " x " << t.extent(1) << " x " << t.extent(2));
    CHECK(alltoall_matches_reference<double>(t, 2, alltoall_algorithm::dimensional));
    CHECK(alltoall_matches_reference<char>(t, 3, alltoall_algorithm::dimensional));
  }
  for (std::size_t d = 2; d <= 6; ++d) {
    INFO("hypercube of dimension " << d);
    CHECK(alltoall_matches_reference<double>(Hypercube<>::of_dims(d), 1, alltoall_algorithm::dimensional));
    CHECK(alltoall_matches_reference<Particle>(Hypercube<>::of_dims(d), 2, alltoall_algorithm::dimensional));
  }
  // Empty and long blocks.
  CHECK(alltoall_matches_reference<double>(Mesh<>{3, 5}, 0, alltoall_algorithm::dimensional));
  CHECK(alltoall_matches_reference<double>(Mesh<>{1, 1}, 0, alltoall_algorithm::dimensional));
  CHECK(alltoall_matches_reference<double>(Mesh<>{1, 1}, 4, alltoall_algorithm::dimensional));
  CHECK(alltoall_matches_reference<double>(Mesh<>{2, 3}, 4096, alltoall_algorithm::dimensional));
  CHECK(alltoall_matches_reference<char>(Hypercube<>::of_dims(2), 4096, alltoall_algorithm::dimensional));
}

TEST_CASE("dimensional alltoall: recorded messages are the schedule's", "[alltoall][dimensional]")
{
  check_recorded<double>(Mesh<2, 4>{}, 3, alltoall_algorithm::dimensional);
  check_recorded<double>(Mesh<>{3, 4}, 3, alltoall_algorithm::dimensional);
  check_recorded<Particle>(Mesh<>{4, 4}, 2, alltoall_algorithm::dimensional);
  check_recorded<char>(Torus<dyn, dyn, dyn>{2, 3, 2}, 5, alltoall_algorithm::dimensional);
  check_recorded<double>(Hypercube<>::of_dims(4), 1, alltoall_algorithm::dimensional);
  check_recorded<double>(Mesh<>{2, 5}, 0, alltoall_algorithm::dimensional);
}

TEST_CASE("dimensional alltoall: rejects topologies of fewer than two dimensions at run time",
          "[alltoall][dimensional]")
{
  CHECK_THROWS_AS(alltoall_algorithm::dimensional.schedule(Hypercube<>::of_dims(1), Problem{}), std::invalid_argument);
  CHECK_THROWS_AS(alltoall_algorithm::dimensional.schedule(Hypercube<>::of_dims(0), Problem{}), std::invalid_argument);
  CHECK_THROWS_WITH(alltoall_algorithm::dimensional.schedule(Hypercube<>::of_dims(1), Problem{}),
                    Catch::Contains("two-phase algorithm on a ring"));
  CHECK_NOTHROW(alltoall_algorithm::dimensional.schedule(Hypercube<>::of_dims(2), Problem{}));
  // Through the collective: every rank throws before anything is sent, and fits() says why.
  CHECK_THROWS_WITH(alltoall_matches_reference<double>(Hypercube<>::of_dims(1), 2, alltoall_algorithm::dimensional),
                    Catch::Contains("collectives::alltoall(dimensional): needs a topology of at least two dimensions"));
  CHECK(unfit_reason(alltoall_algorithm::dimensional, Hypercube<>::of_dims(1)) ==
        "needs a topology of at least two dimensions");
  CHECK(fits(alltoall_algorithm::dimensional, Hypercube<>::of_dims(2)));
}
