// The schedules of the seeds' algorithms (issue 11), proved by the verifier for many p,
// roots and shapes (rings, non-square meshes, 3-D and 4-D tori, hypercubes, p = 1), with
// commutative and non-commutative operators; and the property the one-port costs rest on:
// no rank sends twice, or receives twice, in one step.

#include <catch2/catch.hpp>

#include "seeds.hpp"

#include <boost/hana/for_each.hpp>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

using namespace seeds_test;

// At compile time, on small static topologies.
static_assert(verify(broadcast_algorithm::RingStaggered::schedule(Ring<8>{}, Problem{.root = 3})).ok);
static_assert(verify(broadcast_algorithm::RingStaggered::schedule(Ring<7>{}, Problem{.root = 6})).ok);
static_assert(verify(broadcast_algorithm::DimensionalRing::schedule(Mesh<2, 3>{}, Problem{.root = 4})).ok);
static_assert(verify(broadcast_algorithm::ScatterAllgatherHypercube::schedule(Hypercube<3>{}, Problem{.root = 5})).ok);
static_assert(verify(reduce_algorithm::RingStaggered::schedule(Ring<7>{}, Problem{.root = 2, .commutative = false})).ok);
static_assert(verify(reduce_algorithm::DimensionalRing::schedule(Torus<2, 2, 3>{}, Problem{.root = 7})).ok);
static_assert(verify(reduce_algorithm::ReduceScatterGatherHypercube::schedule(
                       Hypercube<3>{}, Problem{.root = 6, .commutative = false}))
                .ok);
static_assert(verify(scatter_algorithm::DimensionalRing::schedule(Mesh<3, 2>{}, Problem{.root = 4})).ok);
static_assert(verify(gather_algorithm::DimensionalRing::schedule(Mesh<3, 2>{}, Problem{.root = 4})).ok);

namespace {

/// Verifies every added algorithm that fits `topo`, from every root of `roots`, with
/// commutative and non-commutative operators; returns the failures.
template <class Topo>
std::vector<std::string> verify_added(const Topo& topo, const std::vector<std::size_t>& roots, const std::string& where)
{
  std::vector<std::string> bad;
  boost::hana::for_each(added, [&](auto alg) {
    using A = decltype(alg);
    if constexpr (fits_topology_type<A, Topo>) {
      for (std::size_t root : roots)
        for (bool commutative : {true, false}) {
          const Problem pr{.m = 1, .root = root, .commutative = commutative};
          if (!fits(alg, topo, pr)) continue;
          const VerifyResult v = verify(A::schedule(topo, pr));
          if (!v.ok)
            bad.push_back(std::string(collective_name(A::collective)) + "(" + A::name + ") on " + where + ", root " +
                          std::to_string(root) + (commutative ? "" : ", not commutative") + ": " + v.what +
                          " (rank " + std::to_string(v.rank) + ", step " + std::to_string(v.step) + ")");
        }
    }
  });
  return bad;
}

void report(const std::vector<std::string>& bad)
{
  for (std::size_t i = 0; i < bad.size() && i < 10; ++i) FAIL_CHECK(bad[i]);
  CHECK(bad.empty());
}

/// How many added algorithms fit `topo` (so a sweep that verifies nothing fails).
template <class Topo>
std::size_t fitting(const Topo& topo)
{
  std::size_t n = 0;
  boost::hana::for_each(added, [&](auto alg) {
    if constexpr (fits_topology_type<decltype(alg), Topo>) n += fits(alg, topo, Problem{}) ? 1 : 0;
  });
  return n;
}

} // namespace

TEST_CASE("seed schedules verify on rings, p = 1..40, every root up to p = 16", "[seeds][verify]")
{
  std::vector<std::string> bad;
  for (std::size_t p = 1; p <= 40; ++p) {
    const auto more = verify_added(Ring<>{p}, roots_for(p), "Ring<>{" + std::to_string(p) + "}");
    bad.insert(bad.end(), more.begin(), more.end());
  }
  report(bad);
  // Six on any ring (it is a product of one ring), eight when p is a power of two.
  CHECK(fitting(Ring<>{5}) == 6);
  CHECK(fitting(Ring<>{8}) == 8);
}

TEST_CASE("seed schedules verify on meshes and tori, square or not, 2-D to 4-D", "[seeds][verify]")
{
  std::vector<std::string> bad;
  for (const auto& e : torus_shapes())
    with_torus(e, [&](const auto& topo) {
      const auto more = verify_added(topo, roots_for(topo.size()), shape_name(e));
      bad.insert(bad.end(), more.begin(), more.end());
      CHECK(fitting(topo) >= 6);
    });
  // Larger ones from a few roots.
  for (const std::vector<std::size_t>& e : {std::vector<std::size_t>{8, 8}, {7, 9}, {4, 4, 4}, {3, 5, 2}})
    with_torus(e, [&](const auto& topo) {
      const auto more = verify_added(topo, roots_for(topo.size()), shape_name(e));
      bad.insert(bad.end(), more.begin(), more.end());
    });
  report(bad);
}

TEST_CASE("seed schedules verify on hypercubes, d = 0..7, every root up to d = 4", "[seeds][verify]")
{
  std::vector<std::string> bad;
  for (std::size_t d = 0; d <= 7; ++d) {
    const auto cube = Hypercube<>::of_dims(d);
    const auto more = verify_added(cube, roots_for(cube.size()), "Hypercube of " + std::to_string(d));
    bad.insert(bad.end(), more.begin(), more.end());
    CHECK(fitting(cube) == 8);
  }
  report(bad);
}

namespace {

/// The most messages one rank sends, or receives, in one step of s.
template <class S>
std::size_t most_per_step(const S& s)
{
  std::size_t most = 0;
  for (std::size_t k = 0; k < s.num_steps(); ++k)
    for (std::size_t r = 0; r < s.size(); ++r) {
      const StepOps ops = step_ops(s, r, k);
      most = std::max({most, ops.sends.size(), ops.recvs.size()});
    }
  return most;
}

} // namespace

TEST_CASE("seed ring and pipeline schedules: one message in and one out per rank and step", "[seeds][verify]")
{
  // What makes ceil(p/2) steps cost ceil(p/2) messages one-port; the old ring broadcast
  // has its root send twice in step 0.
  for (std::size_t p = 3; p <= 20; ++p) {
    INFO("p = " << p);
    const Ring<> ring{p};
    for (std::size_t root : {std::size_t{0}, p / 2, p - 1}) {
      const Problem pr{.root = root, .commutative = false};
      CHECK(most_per_step(broadcast_algorithm::RingStaggered::schedule(ring, pr)) == 1);
      CHECK(most_per_step(reduce_algorithm::RingStaggered::schedule(ring, pr)) == 1);
      CHECK(most_per_step(broadcast_algorithm::Ring::schedule(ring, pr)) == 2);
      // ceil(p/2) exchange steps (the reduce also loads its contribution first, and for a
      // root other than 0 sends the result on).
      CHECK(broadcast_algorithm::RingStaggered::schedule(ring, pr).num_steps() == (p + 1) / 2);
      CHECK(reduce_algorithm::RingStaggered::schedule(ring, pr).num_steps() == 1 + (p + 1) / 2 + (root != 0 ? 1 : 0));
    }
  }
  for (const auto& e : torus_shapes())
    with_torus(e, [&](const auto& topo) {
      INFO(shape_name(e));
      const Problem pr{.root = topo.size() / 2, .commutative = false};
      CHECK(most_per_step(broadcast_algorithm::DimensionalRing::schedule(topo, pr)) <= 1);
      CHECK(most_per_step(reduce_algorithm::DimensionalRing::schedule(topo, pr)) <= 1);
      CHECK(most_per_step(scatter_algorithm::DimensionalRing::schedule(topo, pr)) <= 1);
      CHECK(most_per_step(gather_algorithm::DimensionalRing::schedule(topo, pr)) <= 1);
    });
}
