// The verifier on every schedule of the broadcast, scatter, gather, reduce, all-gather,
// reduce-scatter, all-reduce and scan families: a few static_assert(verify(...).ok) per
// family (the proof that it works in constant evaluation); at run time every p = 1..8 with
// roots first, middle and last (and every root where it is cheap), every p to 64 and a few
// up to 512; and the verifier refusing a schedule that reorders a non-commutative
// reduction.

#include <catch2/catch.hpp>

#include "../support/sanitizers.hpp"

#include <collectives/collectives.hpp>

#include <cstddef>
#include <string>
#include <vector>

using namespace collectives;
using Catch::Matchers::Contains;

namespace {

// The single-threaded verifier runs ~10x slower under the sanitizers; there the run-time
// sweep stops earlier (the code it checks is the same).
using collectives::testing::sanitized;

// ---------------------------------------------------------------------------------------
// Loops for constant evaluation: each proves make(...) for a range of p (and roots).
// ---------------------------------------------------------------------------------------

/// verify(make(p)) for p = lo..hi.
template <class Make>
constexpr bool every_p(std::size_t lo, std::size_t hi, Make make)
{
  for (std::size_t p = lo; p <= hi; ++p)
    if (!verify(make(p)).ok) return false;
  return true;
}

/// verify(make(p)) for the powers of two p = 1, 2, 4, ... up to hi.
template <class Make>
constexpr bool every_power_of_two(std::size_t hi, Make make)
{
  for (std::size_t p = 1; p <= hi; p *= 2)
    if (!verify(make(p)).ok) return false;
  return true;
}

/// verify(make(p, root)) for p = lo..hi and roots first, middle and last.
template <class Make>
constexpr bool every_p_and_root(std::size_t lo, std::size_t hi, Make make)
{
  for (std::size_t p = lo; p <= hi; ++p)
    for (std::size_t root : {std::size_t{0}, p / 2, p - 1})
      if (!verify(make(p, root)).ok) return false;
  return true;
}

/// verify(make(root)) for every root of p ranks.
template <class Make>
constexpr bool every_root(std::size_t p, Make make)
{
  for (std::size_t root = 0; root < p; ++root)
    if (!verify(make(root)).ok) return false;
  return true;
}

// A few mesh, torus and hypercube shapes for the per-dimension schedules.
constexpr Torus<dynamic_extent, dynamic_extent> mesh23{2, 3};
constexpr Torus<dynamic_extent, dynamic_extent> mesh32{3, 2};
constexpr Torus<dynamic_extent, dynamic_extent, dynamic_extent> torus222{2, 2, 2};
constexpr Torus<dynamic_extent, dynamic_extent, dynamic_extent> torus131{1, 3, 1};

} // namespace

// ---------------------------------------------------------------------------------------
// Broadcast.
// ---------------------------------------------------------------------------------------

static_assert(verify(BroadcastTreeSchedule(8, topology_shape(Hypercube<3>{}), 5)).ok);
static_assert(verify(BroadcastTreeSchedule(3, topology_shape(torus131), 2)).ok);

// The binomial tree takes ceil(log2 p) steps; the ring floor(p/2).
static_assert(BroadcastTreeSchedule(5, ring_shape(5), 0).num_steps() == 3);
static_assert(BroadcastTreeSchedule(8, bits_shape(8), 0).num_steps() == 3);
static_assert(BroadcastTreeSchedule(6, topology_shape(mesh23), 0).num_steps() == 1 + 2);
static_assert(BroadcastRingSchedule(7, 0).num_steps() == 3);
static_assert(send_partner(BroadcastTreeSchedule(8, ring_shape(8), 0), 0, 0) == 4);
static_assert(send_partner(BroadcastTreeSchedule(8, bits_shape(8), 5), 5, 0) == 1); // highest bit first

// ---------------------------------------------------------------------------------------
// Scatter and gather.
// ---------------------------------------------------------------------------------------

static_assert(verify(ScatterTreeSchedule(8, bits_shape(8), 3)).ok);
static_assert(verify(GatherRingSchedule(5, 2)).ok);

// On a hypercube the scatter's message halves each step: p/2 blocks, then p/4, ...
static_assert(blocks_sent(ScatterTreeSchedule(8, bits_shape(8), 0), 0, 0) == 4);
static_assert(blocks_sent(ScatterTreeSchedule(8, bits_shape(8), 0), 0, 1) == 2);
static_assert(blocks_sent(ScatterTreeSchedule(8, bits_shape(8), 0), 0, 2) == 1);
static_assert(blocks_sent(GatherTreeSchedule(8, bits_shape(8), 0), 4, 2) == 4);

// ---------------------------------------------------------------------------------------
// Reduce: commutative or not, roots first, middle and last.
// ---------------------------------------------------------------------------------------

static_assert(verify(ReduceTreeSchedule(6, topology_shape(mesh32), 4, true)).ok);

// The linear reduce combines in rank order at any root, out of place and in place (where
// the contributions start in the outputs and the other ranks' stay as they are).
static_assert(verify(ReduceLinearSchedule(5, 2, false)).ok);
static_assert(verify(ReduceLinearSchedule(5, 4, false, true)).ok);

// A non-commutative reduce to a root other than 0 folds at rank 0 and takes one step more.
static_assert(ReduceTreeSchedule(8, ring_shape(8), 3, false).num_steps() == 1 + 3 + 1);
static_assert(ReduceTreeSchedule(8, ring_shape(8), 3, true).num_steps() == 1 + 3);

// ---------------------------------------------------------------------------------------
// All-gather (also the dissemination barrier: Bruck with empty blocks).
// ---------------------------------------------------------------------------------------

static_assert(verify(AllgatherDimensionalSchedule(rings_of(Hypercube<3>{}))).ok);
static_assert(verify(AllgatherRecursiveDoublingSchedule(8)).ok);

// ---------------------------------------------------------------------------------------
// Reduce-scatter.
// ---------------------------------------------------------------------------------------

static_assert(verify(ReduceScatterHalvingSchedule(8)).ok);

// ---------------------------------------------------------------------------------------
// All-reduce (in place and not; folded onto a power of two for any p).
// ---------------------------------------------------------------------------------------

static_assert(verify(allreduce_rabenseifner_schedule(6, true, false)).ok);

// ---------------------------------------------------------------------------------------
// Scan and exscan.
// ---------------------------------------------------------------------------------------

static_assert(verify(ScanHypercubeSchedule(8, true)).ok);

// ---------------------------------------------------------------------------------------
// The small-p sweeps: every p = 1..8 with roots first, middle and last (every root where it
// is cheap). They were static_asserts; in constant evaluation they took most of this file's
// build time, at run time they take milliseconds. The static_asserts above keep the proof
// that verify() works in constant evaluation for every family.
// ---------------------------------------------------------------------------------------

TEST_CASE("schedules: broadcast, every small p and root", "[verifier][schedules]")
{
  CHECK(every_p_and_root(1, 8, [](std::size_t p, std::size_t root) {
    return BroadcastTreeSchedule(p, ring_shape(p), root, 2);
  }));
  CHECK(every_power_of_two(8, [](std::size_t p) { return BroadcastTreeSchedule(p, bits_shape(p), p - 1); }));
  CHECK(every_root(8, [](std::size_t root) { return BroadcastTreeSchedule(8, bits_shape(8), root); }));
  CHECK(every_root(6, [](std::size_t root) { return BroadcastTreeSchedule(6, topology_shape(mesh23), root); }));
  CHECK(every_root(6, [](std::size_t root) { return BroadcastTreeSchedule(6, topology_shape(mesh32), root); }));
  CHECK(every_root(8, [](std::size_t root) { return BroadcastTreeSchedule(8, topology_shape(torus222), root); }));
  CHECK(every_p_and_root(1, 8, [](std::size_t p, std::size_t root) { return BroadcastRingSchedule(p, root, 3); }));
  CHECK(every_p_and_root(1, 8, [](std::size_t p, std::size_t root) {
    return broadcast_scatter_allgather_schedule(p, root);
  }));
}

TEST_CASE("schedules: scatter and gather, every small p and root", "[verifier][schedules]")
{
  CHECK(every_p_and_root(1, 8, [](std::size_t p, std::size_t root) {
    return ScatterTreeSchedule(p, ring_shape(p), root);
  }));
  CHECK(every_root(8, [](std::size_t root) { return ScatterTreeSchedule(8, bits_shape(8), root); }));
  CHECK(every_root(6, [](std::size_t root) { return ScatterTreeSchedule(6, topology_shape(mesh23), root); }));
  CHECK(every_root(8, [](std::size_t root) { return ScatterTreeSchedule(8, topology_shape(torus222), root); }));
  CHECK(every_p_and_root(1, 8, [](std::size_t p, std::size_t root) { return ScatterRingSchedule(p, root); }));
  CHECK(every_p_and_root(1, 8, [](std::size_t p, std::size_t root) {
    return GatherTreeSchedule(p, ring_shape(p), root);
  }));
  CHECK(every_root(8, [](std::size_t root) { return GatherTreeSchedule(8, bits_shape(8), root); }));
  CHECK(every_root(6, [](std::size_t root) { return GatherTreeSchedule(6, topology_shape(mesh32), root); }));
  CHECK(every_root(8, [](std::size_t root) { return GatherTreeSchedule(8, topology_shape(torus222), root); }));
  CHECK(every_p_and_root(1, 8, [](std::size_t p, std::size_t root) { return GatherRingSchedule(p, root); }));
}

TEST_CASE("schedules: reduce, every small p and root", "[verifier][schedules]")
{
  CHECK(every_p_and_root(1, 8, [](std::size_t p, std::size_t root) {
    return ReduceTreeSchedule(p, ring_shape(p), root, false, 2);
  }));
  CHECK(every_p_and_root(1, 8, [](std::size_t p, std::size_t root) {
    return ReduceTreeSchedule(p, ring_shape(p), root, true, 2);
  }));
  CHECK(every_p_and_root(1, 8, [](std::size_t p, std::size_t root) {
    return ReduceTreeSchedule(p, ring_shape(p), root, false, 1, Partials::output);
  }));
  // Folding the contribution in late (reduce out of place).
  for (bool commutative : {false, true}) {
    CHECK(every_p_and_root(1, 9, [=](std::size_t p, std::size_t root) {
      return ReduceTreeSchedule(p, ring_shape(p), root, commutative, 2, Partials::scratch, true);
    }));
    CHECK(every_root(8, [=](std::size_t root) {
      return ReduceTreeSchedule(8, bits_shape(8), root, commutative, 1, Partials::scratch, true);
    }));
    CHECK(every_root(6, [=](std::size_t root) {
      return ReduceTreeSchedule(6, topology_shape(mesh23), root, commutative, 1, Partials::scratch, true);
    }));
    CHECK(every_root(8, [=](std::size_t root) {
      return ReduceTreeSchedule(8, topology_shape(torus222), root, commutative, 1, Partials::scratch, true);
    }));
  }
  CHECK(every_root(8, [](std::size_t root) { return ReduceTreeSchedule(8, bits_shape(8), root, false); }));
  CHECK(every_root(8, [](std::size_t root) { return ReduceTreeSchedule(8, bits_shape(8), root, true); }));
  CHECK(every_root(6, [](std::size_t root) { return ReduceTreeSchedule(6, topology_shape(mesh23), root, false); }));
  CHECK(every_root(6, [](std::size_t root) { return ReduceTreeSchedule(6, topology_shape(mesh32), root, true); }));
  CHECK(every_root(8, [](std::size_t root) { return ReduceTreeSchedule(8, topology_shape(torus222), root, false); }));
  for (bool commutative : {false, true})
    for (bool in_place : {false, true})
      for (std::size_t p = 1; p <= 8; ++p)
        CHECK(every_root(p, [=](std::size_t root) { return ReduceLinearSchedule(p, root, commutative, in_place, 2); }));
  CHECK(every_p_and_root(1, 8, [](std::size_t p, std::size_t root) { return ReduceRingSchedule(p, root, false); }));
  CHECK(every_p_and_root(1, 8, [](std::size_t p, std::size_t root) { return ReduceRingSchedule(p, root, true, 2); }));
  CHECK(every_power_of_two(8, [](std::size_t p) { return reduce_scatter_gather_halving(p, p / 2, false); }));
  CHECK(every_power_of_two(8, [](std::size_t p) { return reduce_scatter_gather_halving(p, p - 1, true); }));
  CHECK(every_p_and_root(1, 7, [](std::size_t p, std::size_t root) {
    return reduce_scatter_gather_pairwise(p, root, false);
  }));
  CHECK(every_p_and_root(8, 8, [](std::size_t p, std::size_t root) {
    return reduce_scatter_gather_pairwise(p, root, true);
  }));
}

namespace {
/// Per rank of a reduce tree: whether it folds in a child, has a local op, and sends from
/// its input.
struct TreeRoles {
  std::vector<bool> combines, locals, sends_input, sends;
  explicit TreeRoles(std::size_t p) : combines(p), locals(p), sends_input(p), sends(p) {}
};
template <class S>
TreeRoles tree_roles(const S& s)
{
  TreeRoles t(s.size());
  for (std::size_t r = 0; r < s.size(); ++r)
    for (std::size_t k = 0; k < s.num_steps(); ++k) {
      StepOps ops;
      s.visit(r, k, ops);
      for (const auto& op : ops.recvs) t.combines[r] = t.combines[r] || op.combine != Combine::copy;
      for (const auto& op : ops.locals) t.combines[r] = t.combines[r] || op.combine != Combine::copy;
      t.locals[r] = t.locals[r] || !ops.locals.empty();
      for (const auto& op : ops.sends) {
        t.sends[r] = true;
        t.sends_input[r] = t.sends_input[r] || op.blocks.buffer == Buffer::input;
      }
    }
  return t;
}
} // namespace

TEST_CASE("schedules: a reduce tree's leaves send their contribution without copying it", "[verifier][schedules]")
{
  // Only a rank that folds in a child copies its contribution into a partial first; a
  // leaf sends straight from its input. The tree's root copies even alone (p = 1).
  const auto check = [](const auto& s, std::size_t tree_root) {
    const TreeRoles t = tree_roles(s);
    std::size_t leaves = 0;
    for (std::size_t r = 0; r < s.size(); ++r) {
      CAPTURE(s.size(), r, tree_root);
      if (r == tree_root) {
        CHECK(t.locals[r]);
        continue;
      }
      CHECK(t.locals[r] == t.combines[r]);
      CHECK(t.sends_input[r] == !t.combines[r]);
      leaves += t.combines[r] ? 0 : 1;
    }
    return leaves;
  };
  for (std::size_t p = 1; p <= 33; ++p)
    for (std::size_t root : {std::size_t{0}, p / 2, p - 1})
      for (bool late : {false, true}) {
        const auto tree = ReduceTreeSchedule(p, ring_shape(p), root, true, 1, Partials::scratch, late);
        check(tree, root);
        check(ReduceTreeSchedule(p, ring_shape(p), root, false, 1, Partials::scratch, late), 0);
        CHECK(verify(tree).ok);
        // Folding late: nobody copies the contribution into a partial; a node with
        // children takes the nearest one as it is in step 1 and folds its own in on the left.
        if (!late || p == 1) continue;
        for (std::size_t r = 0; r < p; ++r) {
          StepOps step0, step1;
          tree.visit(r, 0, step0);
          tree.visit(r, 1, step1);
          CHECK(step0.locals.empty());
          CHECK(step1.locals.size() == step1.recvs.size());
          for (const auto& l : step1.locals) CHECK((l.combine == Combine::left && l.from.buffer == Buffer::input));
          for (const auto& rv : step1.recvs) CHECK(rv.combine == Combine::copy);
        }
      }
  // A binomial tree on 2^d ranks has 2^(d-1) leaves.
  for (std::size_t d = 1; d <= 6; ++d) {
    const std::size_t p = std::size_t{1} << d;
    CHECK(check(ReduceTreeSchedule(p, bits_shape(p), 3 % p, true), 3 % p) == p / 2);
    CHECK(check(ReduceTreeSchedule(p, ring_shape(p), 1, true), 1) == p / 2);
  }
  for (std::size_t root = 0; root < 6; ++root) {
    check(ReduceTreeSchedule(6, topology_shape(mesh23), root, true), root);
    check(ReduceTreeSchedule(6, topology_shape(mesh32), root, true), root);
  }
  check(ReduceTreeSchedule(8, topology_shape(torus222), 5, true), 5);
  check(ReduceTreeSchedule(15, topology_shape(Mesh<3, 5>{}), 7, true), 7);
  check(ReduceTreeSchedule(24, topology_shape(Torus<2, 3, 4>{}), 13, true), 13);
  // In place (allreduce's reduce phase) the partial is the contribution: nobody copies,
  // and every rank sends from the output it reduces in.
  for (std::size_t p = 1; p <= 9; ++p) {
    const TreeRoles t = tree_roles(ReduceTreeSchedule(p, ring_shape(p), 0, true, 1, Partials::in_place));
    for (std::size_t r = 0; r < p; ++r) {
      CHECK_FALSE(t.locals[r]);
      CHECK_FALSE(t.sends_input[r]);
      CHECK(t.sends[r] == (r != 0));
    }
  }
}

TEST_CASE("schedules: all-gather, every small p and root", "[verifier][schedules]")
{
  CHECK(every_p(1, 8, [](std::size_t p) { return AllgatherRingSchedule(p); }));
  CHECK(every_p(1, 8, [](std::size_t p) { return AllgatherRingSchedule(p, true); }));
  CHECK(every_power_of_two(8, [](std::size_t p) { return AllgatherRecursiveDoublingSchedule(p); }));
  CHECK(every_power_of_two(8, [](std::size_t p) { return AllgatherRecursiveDoublingSchedule(p, true); }));
  CHECK(every_p(1, 8, [](std::size_t p) { return AllgatherBruckSchedule(p); }));
  CHECK(every_p(1, 8, [](std::size_t p) { return AllgatherBruckSchedule(p, true); }));
  CHECK(every_p(1, 8, [](std::size_t p) { return AllgatherDimensionalSchedule(rings_of(Ring<>{p})); }));
  CHECK(verify(AllgatherDimensionalSchedule(rings_of(mesh23))).ok);
  CHECK(verify(AllgatherDimensionalSchedule(rings_of(mesh32), true)).ok);
  CHECK(verify(AllgatherDimensionalSchedule(rings_of(torus222))).ok);
  CHECK(verify(AllgatherDimensionalSchedule(rings_of(torus131), true)).ok);
  CHECK(verify(AllgatherBruckSchedule(6, true)).ok);
  CHECK(every_p(1, 9, [](std::size_t p) { return AllgatherLinearSchedule(p); }));
  CHECK(every_p(1, 9, [](std::size_t p) { return AllgatherLinearSchedule(p, true); }));
}

TEST_CASE("schedules: reduce-scatter, every small p and root", "[verifier][schedules]")
{
  CHECK(every_power_of_two(8, [](std::size_t p) { return ReduceScatterHalvingSchedule(p); }));
  CHECK(every_power_of_two(8, [](std::size_t p) { return ReduceScatterHalvingSchedule(p, true); }));
  CHECK(every_p(1, 8, [](std::size_t p) { return ReduceScatterRingSchedule(p); }));
  CHECK(every_p(1, 8, [](std::size_t p) { return ReduceScatterRingSchedule(p, ResultSlot::first, true); }));
  CHECK(every_p(1, 8, [](std::size_t p) { return ReduceScatterPairwiseSchedule(p); }));
  CHECK(every_p(1, 8, [](std::size_t p) { return ReduceScatterDimensionalSchedule(rings_of(Ring<>{p})); }));
  CHECK(verify(ReduceScatterDimensionalSchedule(rings_of(mesh23))).ok);
  CHECK(verify(ReduceScatterDimensionalSchedule(rings_of(mesh32))).ok);
  CHECK(verify(ReduceScatterDimensionalSchedule(rings_of(torus222))).ok);
  CHECK(verify(ReduceScatterDimensionalSchedule(rings_of(torus131))).ok);
  CHECK(verify(ReduceScatterDimensionalSchedule(rings_of(Hypercube<3>{}))).ok);
  CHECK(verify(ReduceScatterPairwiseSchedule(6)).ok);
  for (bool commutative : {false, true})
    CHECK(every_p(1, 9, [=](std::size_t p) { return ReduceScatterLinearSchedule(p, commutative); }));
}

TEST_CASE("schedules: all-reduce, every small p and root", "[verifier][schedules]")
{
  CHECK(every_p(1, 8, [](std::size_t p) { return allreduce_doubling_schedule(p, false, false); }));
  CHECK(every_p(1, 8, [](std::size_t p) { return allreduce_doubling_schedule(p, true, false); }));
  CHECK(every_p(1, 8, [](std::size_t p) { return allreduce_doubling_schedule(p, false, true); }));
  CHECK(every_p(1, 8, [](std::size_t p) { return allreduce_rabenseifner_schedule(p, false, false); }));
  CHECK(every_p(1, 8, [](std::size_t p) { return allreduce_rabenseifner_schedule(p, true, false); }));
  CHECK(every_p(1, 8, [](std::size_t p) { return allreduce_ring_schedule(p); }));
  CHECK(every_p(1, 8, [](std::size_t p) { return allreduce_reduce_broadcast_schedule(p, false, false); }));
  CHECK(every_p(1, 8, [](std::size_t p) { return allreduce_reduce_broadcast_schedule(p, true, false); }));
  CHECK(every_p(1, 8, [](std::size_t p) { return allreduce_reduce_broadcast_schedule(p, true, true); }));
  for (bool in_place : {false, true})
    for (bool commutative : {false, true})
      CHECK(every_p(1, 8, [=](std::size_t p) { return allreduce_linear_schedule(p, in_place, commutative); }));
}

TEST_CASE("schedules: scan and exscan, every small p and root", "[verifier][schedules]")
{
  CHECK(every_power_of_two(8, [](std::size_t p) { return ScanHypercubeSchedule(p, false); }));
  CHECK(every_power_of_two(8, [](std::size_t p) { return ScanHypercubeSchedule(p, true, true); }));
  CHECK(every_p(1, 8, [](std::size_t p) { return ScanRingSchedule(p, false); }));
  CHECK(every_p(1, 8, [](std::size_t p) { return ScanRingSchedule(p, true); }));
  CHECK(every_p(1, 8, [](std::size_t p) { return ScanDoublingSchedule(p, false); }));
  CHECK(every_p(1, 8, [](std::size_t p) { return ScanDoublingSchedule(p, true); }));
  CHECK(every_p(1, 8, [](std::size_t p) { return ScanDoublingSchedule(p, true, true); }));
  for (bool exclusive : {false, true})
    for (bool commutative : {false, true})
      CHECK(every_p(1, 9, [=](std::size_t p) { return ScanLinearSchedule(p, exclusive, commutative); }));
}

// ---------------------------------------------------------------------------------------
// Run time: the same schedules for every p to 64 and a few up to 512.
// ---------------------------------------------------------------------------------------

namespace {

/// The p of the run-time sweep.
std::vector<std::size_t> run_time_sizes()
{
  std::vector<std::size_t> ps;
  for (std::size_t p = 1; p <= (sanitized ? 24 : 64); ++p) ps.push_back(p);
  for (std::size_t p : {100, 127, 128, 255, 256}) ps.push_back(p);
  if (!sanitized) {
    ps.push_back(511);
    ps.push_back(512);
  }
  return ps;
}

/// CHECKs verify(s), saying which law failed where.
template <class S>
void check_verified(const char* name, const S& s)
{
  const VerifyResult res = verify(s);
  INFO(name << ", p = " << s.size() << ": " << res.what << " (rank " << res.rank << ", step " << res.step << ")");
  CHECK(res.ok);
}

} // namespace

TEST_CASE("schedules: the rooted schedules verify for p up to 512", "[verifier][schedules]")
{
  for (std::size_t p : run_time_sizes()) {
    const bool big = p > 64;
    for (std::size_t root : {std::size_t{0}, p / 2, p - 1}) {
      check_verified("BroadcastTreeSchedule(ring_shape)", BroadcastTreeSchedule(p, ring_shape(p), root));
      check_verified("ScatterTreeSchedule(ring_shape)", ScatterTreeSchedule(p, ring_shape(p), root));
      check_verified("GatherTreeSchedule(ring_shape)", GatherTreeSchedule(p, ring_shape(p), root));
      check_verified("ReduceTreeSchedule(ring_shape), not commutative", ReduceTreeSchedule(p, ring_shape(p), root, false));
      check_verified("ReduceTreeSchedule(ring_shape), commutative", ReduceTreeSchedule(p, ring_shape(p), root, true));
      check_verified("ReduceLinearSchedule", ReduceLinearSchedule(p, root, false));
      check_verified("ReduceLinearSchedule, in place", ReduceLinearSchedule(p, root, false, true));
      if (detail::is_power_of_two(p)) {
        check_verified("BroadcastTreeSchedule(bits_shape)", BroadcastTreeSchedule(p, bits_shape(p), root));
        check_verified("ScatterTreeSchedule(bits_shape)", ScatterTreeSchedule(p, bits_shape(p), root));
        check_verified("GatherTreeSchedule(bits_shape)", GatherTreeSchedule(p, bits_shape(p), root));
        check_verified("ReduceTreeSchedule(bits_shape)", ReduceTreeSchedule(p, bits_shape(p), root, false));
      }
      if (big) continue; // the O(p)-step and O(p^2)-block schedules stop at 64
      check_verified("BroadcastRingSchedule", BroadcastRingSchedule(p, root));
      check_verified("broadcast_scatter_allgather_schedule", broadcast_scatter_allgather_schedule(p, root));
      check_verified("ScatterRingSchedule", ScatterRingSchedule(p, root));
      check_verified("GatherRingSchedule", GatherRingSchedule(p, root));
      check_verified("ReduceRingSchedule, not commutative", ReduceRingSchedule(p, root, false));
      check_verified("ReduceRingSchedule, commutative", ReduceRingSchedule(p, root, true));
      if (detail::is_power_of_two(p))
        check_verified("reduce_scatter_gather_halving", reduce_scatter_gather_halving(p, root, false));
      else
        check_verified("reduce_scatter_gather_pairwise", reduce_scatter_gather_pairwise(p, root, false));
    }
  }
}

TEST_CASE("schedules: the all-to-all schedules verify for p up to 512", "[verifier][schedules]")
{
  for (std::size_t p : run_time_sizes()) {
    const Ring<> ring{p};
    const bool big = p > 64;
    check_verified("AllgatherBruckSchedule", AllgatherBruckSchedule(ring.size()));
    check_verified("allreduce_doubling_schedule", allreduce_doubling_schedule(ring.size(), false, false));
    check_verified("allreduce_reduce_broadcast_schedule", allreduce_reduce_broadcast_schedule(p, true, false));
    check_verified("ScanDoublingSchedule, exclusive", ScanDoublingSchedule(ring.size(), true));
    if (detail::is_power_of_two(p)) {
      check_verified("AllgatherRecursiveDoublingSchedule", AllgatherRecursiveDoublingSchedule(ring.size()));
      check_verified("ReduceScatterHalvingSchedule", ReduceScatterHalvingSchedule(ring.size()));
      check_verified("ScanHypercubeSchedule, exclusive", ScanHypercubeSchedule(ring.size(), true));
    }
    if (big && p != 100 && p != 128) continue;
    check_verified("allreduce_rabenseifner_schedule", allreduce_rabenseifner_schedule(ring.size(), true, false));
    if (big) continue;
    check_verified("AllgatherRingSchedule", AllgatherRingSchedule(ring.size(), true));
    check_verified("ReduceScatterRingSchedule", ReduceScatterRingSchedule(ring.size()));
    check_verified("ReduceScatterPairwiseSchedule", ReduceScatterPairwiseSchedule(ring.size()));
    check_verified("allreduce_ring_schedule", allreduce_ring_schedule(ring.size()));
    check_verified("ScanRingSchedule", ScanRingSchedule(ring.size(), false));
  }
}

TEST_CASE("schedules: the per-dimension schedules verify on meshes, tori and hypercubes", "[verifier][schedules]")
{
  const std::vector<Torus<dynamic_extent, dynamic_extent>> meshes{
    Torus<dynamic_extent, dynamic_extent>{1, 1}, Torus<dynamic_extent, dynamic_extent>{1, 7},
    Torus<dynamic_extent, dynamic_extent>{7, 1}, Torus<dynamic_extent, dynamic_extent>{3, 4},
    Torus<dynamic_extent, dynamic_extent>{4, 4}, Torus<dynamic_extent, dynamic_extent>{5, 3},
    Torus<dynamic_extent, dynamic_extent>{8, 8}};
  for (const auto& t : meshes) {
    const std::size_t p = t.size();
    for (std::size_t root : {std::size_t{0}, p / 2, p - 1}) {
      check_verified("BroadcastTreeSchedule(mesh)", BroadcastTreeSchedule(p, topology_shape(t), root));
      check_verified("ScatterTreeSchedule(mesh)", ScatterTreeSchedule(p, topology_shape(t), root));
      check_verified("GatherTreeSchedule(mesh)", GatherTreeSchedule(p, topology_shape(t), root));
      check_verified("ReduceTreeSchedule(mesh), not commutative", ReduceTreeSchedule(p, topology_shape(t), root, false));
      check_verified("ReduceTreeSchedule(mesh), commutative", ReduceTreeSchedule(p, topology_shape(t), root, true));
    }
    check_verified("AllgatherDimensionalSchedule(rings_of(mesh))", AllgatherDimensionalSchedule(rings_of(t)));
    check_verified("ReduceScatterDimensionalSchedule(rings_of(mesh))", ReduceScatterDimensionalSchedule(rings_of(t)));
  }
  const Torus<dynamic_extent, dynamic_extent, dynamic_extent> t3{3, 2, 4};
  check_verified("AllgatherDimensionalSchedule(rings_of(3-D torus))", AllgatherDimensionalSchedule(rings_of(t3), true));
  check_verified("ReduceScatterDimensionalSchedule(rings_of(3-D torus))", ReduceScatterDimensionalSchedule(rings_of(t3)));
  check_verified("ReduceTreeSchedule(3-D torus)", ReduceTreeSchedule(24, topology_shape(t3), 13, false));
  for (std::size_t d = 0; d <= 6; ++d) {
    const Hypercube<> h = Hypercube<>::of_dims(d);
    check_verified("AllgatherDimensionalSchedule(rings_of(hypercube))", AllgatherDimensionalSchedule(rings_of(h)));
    check_verified("ReduceScatterDimensionalSchedule(rings_of(hypercube))", ReduceScatterDimensionalSchedule(rings_of(h)));
    check_verified("ScatterTreeSchedule(hypercube)", ScatterTreeSchedule(h.size(), topology_shape(h), h.size() / 3));
  }
}

// ---------------------------------------------------------------------------------------
// Negative checks: the verifier must refuse a reordered non-commutative reduction.
// ---------------------------------------------------------------------------------------

namespace {

/// Schedule S with its operation declared NOT commutative: the verifier must then hold it
/// to strict rank order.
template <class S>
class NotCommutative {
public:
  constexpr explicit NotCommutative(S s) : s_(s) {}
  constexpr std::size_t size() const { return s_.size(); }
  constexpr std::size_t num_steps() const { return s_.num_steps(); }
  constexpr std::size_t scratch_blocks() const { return s_.scratch_blocks(); }
  constexpr auto operation() const
  {
    auto op = s_.operation();
    op.commutative = false;
    return op;
  }
  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    s_.visit(r, step, v);
  }

private:
  S s_;
};

} // namespace

// The ring reduce-scatter wraps each partial round the ring: fine when commutative ...
static_assert(verify(ReduceScatterRingSchedule(5)).ok);
// ... but out of rank order otherwise.
static_assert(!verify(NotCommutative(ReduceScatterRingSchedule(5))).ok);

TEST_CASE("schedules: a non-commutative spec on a reordering schedule fails verification", "[verifier][schedules]")
{
  for (std::size_t p = 3; p <= 9; ++p) {
    INFO("p = " << p);
    const auto res = verify(NotCommutative(ReduceScatterRingSchedule(p)));
    CHECK_FALSE(res.ok);
    CHECK_THAT(std::string(res.what), Contains("breaks rank order"));
    const auto tree = verify(NotCommutative(ReduceTreeSchedule(p, ring_shape(p), p - 1, true)));
    CHECK_FALSE(tree.ok);
    CHECK_THAT(std::string(tree.what), Contains("breaks rank order"));
  }
  // p = 2: rank 0's block still combines x1 then x0.
  const auto two = verify(NotCommutative(ReduceScatterRingSchedule(2)));
  CHECK_FALSE(two.ok);
  // A 3x3 torus reduce-scatter wraps along both dimensions.
  const auto dim = verify(NotCommutative(ReduceScatterDimensionalSchedule(rings_of(Torus<dynamic_extent, dynamic_extent>{3, 3}))));
  CHECK_FALSE(dim.ok);
  CHECK_THAT(std::string(dim.what), Contains("breaks rank order"));
  // The small cases (static_asserts once).
  CHECK_FALSE(verify(NotCommutative(ReduceScatterDimensionalSchedule(rings_of(mesh23)))).ok);
  CHECK_FALSE(verify(NotCommutative(allreduce_ring_schedule(4))).ok);
  // A commutative reduce tree rooted at 3 combines round the ring from rank 3.
  CHECK_FALSE(verify(NotCommutative(ReduceTreeSchedule(8, ring_shape(8), 3, true))).ok);
  CHECK_FALSE(verify(NotCommutative(ReduceRingSchedule(6, 2, true))).ok);
}

// Either (a union and a flag, not std::variant): which alternative it holds, what it
// forwards, and equality by alternative and value, at compile time.
namespace {
constexpr bool either_laws()
{
  const auto halving = reduce_scatter_gather_schedule(8, 3, true);  // p a power of two
  const auto pairwise = reduce_scatter_gather_schedule(6, 3, true); // not
  const auto pairwise_root = reduce_scatter_gather_schedule(6, 2, true);
  return halving.first() && !pairwise.first() && halving.size() == 8 && pairwise.size() == 6 &&
         halving.num_steps() == reduce_scatter_gather_halving(8, 3, true).num_steps() &&
         pairwise.num_steps() == reduce_scatter_gather_pairwise(6, 3, true).num_steps() &&
         halving == reduce_scatter_gather_schedule(8, 3, true) && pairwise == reduce_scatter_gather_schedule(6, 3, true) &&
         !(pairwise == pairwise_root) && !(halving == reduce_scatter_gather_schedule(8, 3, false));
}
static_assert(either_laws());
} // namespace

TEST_CASE("schedules: Either holds one alternative, forwards to it and compares by it", "[schedule]")
{
  CHECK(either_laws());
  // Verified as the reduce it states, for both alternatives.
  for (std::size_t p : {4, 5, 8}) CHECK(verify(reduce_scatter_gather_schedule(p, 1, true)).ok);
}
