// Selection by cost (cost/select.hpp): at compile time on static topologies, at run time
// on dynamic ones, always the argmin of the candidates' estimates; crossovers from the
// closed forms against estimate(); bad input; with_selected() running the pick.

#include <catch2/catch.hpp>

#include "../support/harness.hpp"

#include <collectives/cost/closed_forms.hpp>
#include <collectives/cost/select.hpp>

#include <boost/hana/tuple.hpp>

#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

using namespace collectives;
namespace cf = collectives::closed_form;
namespace hana = boost::hana;

namespace {

constexpr CostModel latency{.t_s = 1, .t_w = 1e-3};
constexpr CostModel bandwidth{.t_s = 0, .t_w = 1};

// Compile time. Ring<6> is not a power of two: the hypercube algorithms are skipped by
// type (fits_topology_type: they are never instantiated), Bruck's ceil(log 6) = 3
// start-ups win for short blocks.
static_assert(select<Collective::alltoall>(Ring<6>{}, latency, Problem{1}).name == "bruck");
// Long blocks on a hypercube: the congestion-free pairwise exchange moves the least, and
// with partners rank XOR k (not rank + k, which ties on words) crosses the fewest hops.
static_assert(select<Collective::alltoall>(Hypercube<3>{}, CostModel{.t_w = 1, .t_h = 0.5}, Problem{64}).name ==
              "pairwise_xor");
// All-gather on a ring: the ring algorithm (the hypercube one meets congestion, Figure 3.14).
static_assert(select<Collective::allgather>(Ring<8>{}, bandwidth, Problem{64}).name == "ring");
// Short all-gather on a hypercube: log p start-ups.
static_assert(select<Collective::allgather>(Hypercube<3>{}, latency, Problem{1}).name == "recursive_doubling");
// Every algorithm that fits is estimated: on Ring<6> pairwise, ring, ring_two_way and
// bruck, not the power-of-two ones nor the dimensional one (two dimensions).
constexpr auto fit_ring6 = fitting_algorithms<Collective::alltoall>(Ring<6>{});
static_assert(select<Collective::alltoall>(Ring<6>{}, latency, Problem{1}).candidates == fit_ring6.size());
static_assert(fit_ring6.contains("pairwise") && fit_ring6.contains("ring") && fit_ring6.contains("ring_two_way") &&
              fit_ring6.contains("bruck"));
static_assert(!fit_ring6.contains("pairwise_xor") && !fit_ring6.contains("standard_exchange") &&
              !fit_ring6.contains("all_port") && !fit_ring6.contains("dimensional"));

/// select<C> on a static topology and on the same one with run-time extents: the same
/// pick and estimate, for every collective of all_collectives.
template <class S, class D, std::size_t... I>
void check_static_dynamic(const S& fixed, const D& dynamic, const CostModel& model, const Problem& problem,
                          std::index_sequence<I...>)
{
  const auto one = [&](auto c) {
    constexpr Collective C = decltype(c)::value;
    const Selection s = select<C>(fixed, model, problem);
    const Selection d = select<C>(dynamic, model, problem);
    INFO(collective_name(C) << " p = " << fixed.size() << " m = " << problem.m << ": " << s.name << " / " << d.name);
    CHECK(s.index == d.index);
    CHECK(s.name == d.name);
    CHECK(s.time == d.time);
    CHECK(s.candidates == d.candidates);
  };
  (one(std::integral_constant<Collective, all_collectives[I]>{}), ...);
}

} // namespace

TEST_CASE("select: static and dynamic topologies agree", "[cost][select]")
{
  for (double m : {1.0, 1e4})
    for (bool commutative : {true, false}) {
      const CostModel model{1e-6, 1e-9, 5e-8};
      const Problem problem{m, 5, 3, commutative};
      const auto every = std::make_index_sequence<all_collectives.size()>{};
      check_static_dynamic(Hypercube<3>{}, Hypercube<>::of_dims(3), model, problem, every);
      check_static_dynamic(Mesh<4, 4>{}, Mesh<>{4, 4}, model, problem, every);
      check_static_dynamic(Ring<6>{}, Ring<>{6}, model, problem, every);
    }
  for (double m : {1.0, 1e4}) {
    const CostModel model{1e-6, 1e-9, 5e-8};
    const Selection s = select<Collective::alltoall>(Hypercube<3>{}, model, Problem{m});
    const Selection d = select<Collective::alltoall>(Hypercube<>::of_dims(3), model, Problem{m});
    CHECK(s.index == d.index);
    CHECK(s.time == d.time);
    const Selection rs = select<Collective::broadcast>(Mesh<4, 4>{}, model, Problem{m, 5});
    const Selection rd = select<Collective::broadcast>(Mesh<>{4, 4}, model, Problem{m, 5});
    CHECK(rs.index == rd.index);
    CHECK(rs.time == rd.time);
  }
  // A non-commutative reduction never selects the ring reduce-scatter (it would reorder).
  const Selection ns = select<Collective::reduce_scatter>(Ring<>{8}, bandwidth, Problem{1e4, 0, 1, false});
  CHECK(ns.name != "ring");
  CHECK(ns.name != "dimensional");
}

TEST_CASE("select: at run time a candidate's walk stops once it is dearer than the best so far", "[cost][select]")
{
  // What select() at run time does to every candidate but the one of fewest steps
  // (cost_select_sweep.cpp checks that the pick stays the argmin of the full estimates).
  const CostModel model{1e-6, 1e-9, 5e-8};
  const Hypercube<> cube = Hypercube<>::of_dims(6);
  const PairwiseXorSchedule s(64);
  const CostReport full = estimate_every_rank(s, cube, model, 16);
  REQUIRE(full.steps == 63);
  const CostReport cut = detail::walk_every_rank(s, cube, model, 16, full.time / 4);
  CHECK(cut.time > full.time / 4);
  CHECK(cut.time < full.time / 2);
  CHECK(cut.steps < 32);
  CHECK(detail::walk_every_rank(s, cube, model, 16, full.time).time == full.time); // not beyond: all of it
  CHECK(detail::time_unless_beyond(s, cube, model, 16, full.time) == full.time);
  CHECK(detail::time_unless_beyond(s, cube, model, 16, std::numeric_limits<double>::infinity()) == full.time);
  // A 4096-node hypercube: the seed (standard exchange, 12 steps) bounds every p - 1 step
  // candidate within an eighth of its steps (334 of 4095 here); the pick and its time are
  // the full estimate's.
  const Hypercube<> big = Hypercube<>::of_dims(12);
  const Selection pick = select<Collective::alltoall>(big, model, Problem{16});
  CHECK(pick.name == "standard_exchange");
  CHECK(pick.time == predict(alltoall_algorithm::standard_exchange, big, model, Problem{16}).time);
  CHECK(detail::walk_every_rank(PairwiseXorSchedule(4096), big, model, 16, pick.time).steps < 4095 / 8);
}

TEST_CASE("crossovers: closed forms against estimate()", "[cost][select][crossover]")
{
  const CostModel model{2e-6, 1e-9, 0, 0};
  auto check_crossing = [&](const std::string& what, auto predict_a, auto predict_b, std::optional<double> m) {
    INFO(what);
    REQUIRE(m.has_value());
    const double below = *m * (1 - 1e-6), above = *m * (1 + 1e-6);
    // The two estimates change order at the crossover, and are equal there.
    CHECK((predict_a(below) < predict_b(below)) != (predict_a(above) < predict_b(above)));
    const double a = predict_a(*m), b = predict_b(*m);
    CHECK(std::abs(a - b) <= 1e-9 * std::max(a, b));
  };
  for (std::size_t d : {2, 3, 5}) {
    const Hypercube<> cube = Hypercube<>::of_dims(d);
    const std::size_t p = cube.size();
    // Standard exchange (log p start-ups, (p/2) log p blocks) against pairwise XOR
    // (p - 1 start-ups and blocks): the seeds' short/long-message pair on a hypercube.
    const auto m = crossover([&](double x) { return cf::alltoall_standard_exchange_hypercube(model, p, x); },
                             [&](double x) { return cf::alltoall_pairwise_xor_hypercube(model, p, x); });
    auto se = [&](double x) { return predict(alltoall_algorithm::standard_exchange, cube, model, Problem{x}).time; };
    auto px = [&](double x) { return predict(alltoall_algorithm::pairwise_xor, cube, model, Problem{x}).time; };
    check_crossing("standard exchange / pairwise xor, p = " + std::to_string(p), se, px, m);
    // The bisection on the estimates finds the same point.
    const auto b = crossover(alltoall_algorithm::standard_exchange, alltoall_algorithm::pairwise_xor,
                                                   cube, model, Problem{}, 1e-3, 1e9);
    REQUIRE(b.has_value());
    CHECK(std::abs(*b - *m) <= 1e-9 * *m);
  }
  for (std::size_t p : {5, 8, 12}) {
    const FullyConnected<> full{p};
    const auto m = crossover([&](double x) { return cf::allreduce_recursive_doubling_fully_connected(model, p, x); },
                             [&](double x) { return cf::allreduce_rabenseifner_fully_connected(model, p, x); });
    check_crossing("allreduce recursive doubling / Rabenseifner, p = " + std::to_string(p),
                   [&](double x) { return predict(allreduce_algorithm::recursive_doubling, full, model, Problem{x}).time; },
                   [&](double x) { return predict(allreduce_algorithm::rabenseifner, full, model, Problem{x}).time; },
                   m);
    const auto mb = crossover([&](double x) { return cf::alltoall_bruck_fully_connected(model, p, x); },
                              [&](double x) { return cf::alltoall_pairwise_fully_connected(model, p, x); });
    check_crossing("alltoall Bruck / pairwise, p = " + std::to_string(p),
                   [&](double x) { return predict(alltoall_algorithm::bruck, full, model, Problem{x}).time; },
                   [&](double x) { return predict(alltoall_algorithm::pairwise, full, model, Problem{x}).time; },
                   mb);
    const auto mt = crossover([&](double x) { return cf::broadcast_binomial_fully_connected(model, p, x); },
                              [&](double x) { return cf::broadcast_scatter_allgather_fully_connected(model, p, x); });
    check_crossing("broadcast binomial / scatter+allgather, p = " + std::to_string(p),
                   [&](double x) { return predict(broadcast_algorithm::binomial, full, model, Problem{x}).time; },
                   [&](double x) { return predict(broadcast_algorithm::scatter_allgather, full, model, Problem{x}).time; },
                   mt);
  }
  // Parallel costs never cross.
  CHECK_FALSE(affine_crossover(1, 2, 3, 2).has_value());
  CHECK_FALSE(affine_crossover(3, 2, 1, 1).has_value()); // would cross at m = -2
}

TEST_CASE("select: bad input", "[cost][select]")
{
  const Ring<> ring{6};
  CHECK_THROWS_AS(select<Collective::alltoall>(ring, CostModel{.t_s = -1}, Problem{1}), std::invalid_argument);
  CHECK_THROWS_AS(select<Collective::alltoall>(ring, CostModel{.t_w = std::numeric_limits<double>::infinity()}, Problem{1}),
                  std::invalid_argument);
  CHECK_THROWS_AS(select<Collective::alltoall>(ring, latency, Problem{-1}), std::invalid_argument);
  CHECK_THROWS_AS(select<Collective::alltoall>(ring, latency, Problem{std::numeric_limits<double>::quiet_NaN()}),
                  std::invalid_argument);
  CHECK_THROWS_AS(select<Collective::alltoall>(ring, latency, Problem{1e300}), std::invalid_argument);
  CHECK_THROWS_AS(select<Collective::broadcast>(ring, latency, Problem{1, 6}), std::invalid_argument);
  // Only power-of-two candidates on a ring of 6: none fits (at run time: dynamic size).
  CHECK_THROWS_AS(select(hana::make_tuple(alltoall_algorithm::pairwise_xor), ring, latency, Problem{1}),
                  std::invalid_argument);
  CHECK_THROWS_AS(predict(alltoall_algorithm::standard_exchange, ring, latency, Problem{1}),
                  std::invalid_argument);
  CHECK_THROWS_AS(predict(allreduce_algorithm::ring, ring, latency, Problem{1, 0, 1, false}),
                  std::invalid_argument);
  CHECK_THROWS_AS(estimate(PairwiseSchedule(ring.size()), ring, latency, -1.0), std::invalid_argument);
  CHECK_THROWS_AS(estimate(PairwiseSchedule(ring.size()), Ring<>{5}, latency, 1.0), std::invalid_argument);
  CHECK_THROWS_AS(lower_bound(Collective::alltoall, ring, CostModel{.t_h = -1}, Problem{1}), std::invalid_argument);
  CHECK_THROWS_AS(cf::alltoall_pairwise_xor_hypercube(latency, 6, 1), std::invalid_argument);
}

TEST_CASE("with_selected runs the selected algorithm", "[cost][select]")
{
  for (std::size_t p : {3, 4, 8}) {
    const Ring<> ring{p};
    for (double words : {1.0, 4096.0}) {
      const std::size_t m = static_cast<std::size_t>(words);
      const CostModel model{1e-6, 1e-9};
      const Selection expected = select<Collective::alltoall>(ring, model, Problem{words});
      std::vector<std::string> ran(p);
      auto got = testing::run_on(ring, [&](auto& comm) {
        auto send = testing::alltoall_input<int>(p, m, comm.rank());
        std::vector<int> recv(p * m, -1);
        with_selected<Collective::alltoall>(comm.topology(), model, Problem{words}, [&](auto alg) {
          ran[comm.rank()] = decltype(alg)::name;
          alltoall(comm, send, recv, alg);
        });
        return recv;
      });
      for (std::size_t r = 0; r < p; ++r) {
        CHECK(got[r] == testing::alltoall_reference<int>(p, m, r));
        CHECK(ran[r] == expected.name);
      }
    }
  }
}

// A schedule's promise of a message of b blocks in every step (blocks_every_step(),
// schedule.hpp) is what lets select() pass over a ring pipeline without visiting its steps:
// checked step by step for every algorithm that makes it, and the bound it gives against
// the estimate under every kind of model.
namespace {
struct LargestMessage {
  std::size_t rank = 0;
  std::size_t blocks = 0;
  constexpr void send(const SendOp& op)
  {
    if (op.peer != rank) blocks = std::max(blocks, op.blocks.count);
  }
  constexpr void recv(const RecvOp&) {}
  constexpr void local(const LocalOp&) {}
};

template <Collective C, class Topo>
void check_blocks_every_step(const Topo& topo, std::size_t& checked)
{
  hana::for_each(detail::candidates_for<C, Topo>(), [&](auto tag) {
    using Tag = decltype(tag);
    for (std::size_t root : {std::size_t{0}, topo.size() - 1})
      for (bool commutative : {true, false}) {
        const Problem pr{.m = 3, .root = root, .commutative = commutative};
        if (!fits(tag, topo, pr)) continue;
        const auto s = Tag::schedule(topo, pr);
        if constexpr (requires { s.blocks_every_step(); }) {
          const std::size_t b = s.blocks_every_step();
          CAPTURE(Tag::name, topo.size(), root, b);
          if (b == 0) continue;
          ++checked;
          std::size_t first = 0;
          if constexpr (requires { s.first_message_step(); }) first = s.first_message_step();
          for (std::size_t k = first; k < s.num_steps(); ++k) {
            std::size_t most = 0;
            for (std::size_t r = 0; r < s.size(); ++r) {
              LargestMessage v{r};
              s.visit(r, k, v);
              most = std::max(most, v.blocks);
            }
            CAPTURE(k);
            CHECK(most >= b);
          }
          // The bound: promised steps x (t_s + t_h + t_w b m + t_sync) is no more than the
          // estimate.
          for (const CostModel& model :
               {CostModel{.t_s = 1, .t_w = 1, .t_h = 0.5}, CostModel{.t_s = 1, .t_w = 2, .routing = Routing::store_and_forward},
                CostModel{.t_s = 1, .t_w = 1, .ports = Ports::all, .half_duplex = true, .lanes = 2, .t_sync = 3,
                          .crossbar = true, .t_fresh = 1},
                CostModel{.t_s = 1, .t_w = 1, .t_h = 0.5, .lanes = 2, .t_sync = 3},
                CostModel{.t_s = 1, .t_w = 1, .t_h = 0.5, .ports = Ports::all}}) {
            const double t = estimate(s, topo, model, pr.m).time;
            const double bound = static_cast<double>(s.num_steps() - first) *
                                 (model.t_s + model.t_h + model.t_w * static_cast<double>(b) * pr.m + model.t_sync);
            CHECK(bound <= t * (1 + 1e-12));
            // The promise with its ends' own bounds (a pipeline's root sending both ways in
            // the first step, receiving from both sides in the last) bounds the steps from
            // every step on.
            const detail::StepPromise promise = detail::step_promise(s, topo, model, pr.m);
            CHECK(promise.rest(0) >= bound * (1 - 1e-12));
            detail::MessageStep<Topo> walker(topo, model, pr.m);
            double after = 0; // steps k .. n - 1, walked
            for (std::size_t k = s.num_steps(); k-- > 0;) {
              after += detail::walk_step(s, k, walker).time;
              CAPTURE(k);
              CHECK(promise.rest(k) <= after * (1 + 1e-12));
            }
            // Passed over just below its time, worked out just above it.
            CHECK(!estimate_unless_at_least(s, topo, model, pr.m, 0.999 * bound).has_value());
            CHECK(estimate_unless_at_least(s, topo, model, pr.m, 1.001 * t).has_value());
          }
        }
      }
  });
}
} // namespace

// A schedule's promise that its steps from k0 on are alike (steps_alike_from(),
// schedule.hpp) is what passes a candidate over once the steps left, each as dear as the
// last, cannot win: checked against the walk step by step for every algorithm that makes
// it, under several models, and the pass-over it gives.
namespace {
template <Collective C, class Topo>
void check_steps_alike(const Topo& topo, std::size_t& checked)
{
  hana::for_each(detail::candidates_for<C, Topo>(), [&](auto tag) {
    using Tag = decltype(tag);
    const Problem pr{.m = 3};
    if (!fits(tag, topo, pr)) return;
    const auto s = Tag::schedule(topo, pr);
    if constexpr (requires { s.steps_alike_from(); }) {
      const std::size_t k0 = s.steps_alike_from();
      CAPTURE(Tag::name, topo.size(), k0);
      if (k0 + 1 >= s.num_steps()) return;
      ++checked;
      for (const CostModel& model :
           {CostModel{.t_s = 1, .t_w = 1, .t_h = 0.5}, CostModel{.t_s = 1, .t_w = 2, .routing = Routing::store_and_forward},
            CostModel{.t_s = 1, .t_w = 1, .ports = Ports::all, .half_duplex = true, .lanes = 2, .t_sync = 3,
                      .crossbar = true, .t_fresh = 1}}) {
        // (t_fresh prices where a message is read from, which the promise leaves open.)
        detail::MessageStep<Topo> walker(topo, model, pr.m);
        const detail::StepTally first = detail::walk_step(s, k0, walker);
        for (std::size_t k = k0 + 1; k < s.num_steps() && model.t_fresh == 0; ++k) {
          CAPTURE(k);
          CHECK(detail::walk_step(s, k, walker) == first);
        }
        // Passed over just below its time, worked out just above it.
        const double t = estimate(s, topo, model, pr.m).time;
        CHECK(!estimate_unless_at_least(s, topo, model, pr.m, 0.999 * t).has_value());
        CHECK(estimate_unless_at_least(s, topo, model, pr.m, 1.001 * t).has_value());
      }
    }
  });
}
} // namespace

TEST_CASE("select: a schedule's alike steps are alike, and bound its time", "[cost][select]")
{
  std::size_t checked = 0;
  check_steps_alike<Collective::alltoall>(Ring<>{8}, checked);
  check_steps_alike<Collective::alltoall>(Ring<>{16}, checked);
  check_steps_alike<Collective::alltoall>(Mesh<2, 4>{}, checked);
  check_steps_alike<Collective::alltoall>(Mesh<4, 4>{}, checked);
  check_steps_alike<Collective::alltoall>(Hypercube<4>{}, checked);
  CHECK(checked >= 5); // the all-port all-to-all on each
  // (In constant evaluation on Ring<1024>: tests/unit/cost_select_static.cpp.)
}

TEST_CASE("select: a schedule's message in every step is there, and bounds its time", "[cost][select]")
{
  std::size_t checked = 0;
  auto every_collective = [&](const auto& topo) {
    check_blocks_every_step<Collective::scatter>(topo, checked);
    check_blocks_every_step<Collective::gather>(topo, checked);
    check_blocks_every_step<Collective::broadcast>(topo, checked);
    check_blocks_every_step<Collective::reduce>(topo, checked);
  };
  for (std::size_t p : {2, 3, 5, 8}) every_collective(Ring<>{p});
  every_collective(Mesh<3, 4>{});
  every_collective(Mesh<1, 5>{});
  every_collective(Torus<2, 3, 2>{});
  every_collective(Hypercube<3>{});
  // The ring scatter, gather, broadcast and reduce at each p, topology and root, and the
  // pipelines along a product's rings.
  CHECK(checked >= 60);
  // p = 1: no message, no promise.
  STATIC_REQUIRE(ScatterRingSchedule(1, 0).blocks_every_step() == 0);
  STATIC_REQUIRE(BroadcastRingSchedule(1, 0).blocks_every_step() == 0);
  STATIC_REQUIRE(ReduceRingSchedule(1, 0, true).blocks_every_step() == 0);
  // In constant evaluation, on the topology where it matters: the ring scatter's 1023 steps
  // are passed over at once (select_limits.sh: clang's steps for scatter on Mesh<32,32>
  // went from 1.03M to 0.55M of its default 1.05M).
  static_assert(select<Collective::scatter>(Mesh<32, 32>{}, CostModel{1e-6, 1e-9, 5e-8, 1e-10},
                                            Problem{1024, 0, 3, true, false})
                  .name != "ring");
}
