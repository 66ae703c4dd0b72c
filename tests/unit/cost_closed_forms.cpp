// The closed forms of cost/closed_forms.hpp against the schedule-derived estimate: for
// every algorithm/network pair with a closed form, estimate(schedule) equals the closed
// form (relative error <= 1e-12) over grids of p, m and model parameters, both routings
// and both port models, and is never below lower_bound(). Then the seeds' own formulas:
// where they agree with our schedules, and where they do not, which is right and why.

#include "../support/sanitizers.hpp"

#include <catch2/catch.hpp>

#include <collectives/algorithm/allgather.hpp>
#include <collectives/algorithm/allreduce.hpp>
#include <collectives/algorithm/alltoall.hpp>
#include <collectives/algorithm/alltoallv.hpp>
#include <collectives/algorithm/barrier.hpp>
#include <collectives/algorithm/broadcast.hpp>
#include <collectives/algorithm/gather.hpp>
#include <collectives/algorithm/reduce.hpp>
#include <collectives/algorithm/reduce_scatter.hpp>
#include <collectives/algorithm/scan.hpp>
#include <collectives/algorithm/scatter.hpp>
#include <collectives/algorithm/shift.hpp>
#include <collectives/cost/closed_forms.hpp>
#include <collectives/cost/schedule_cost.hpp>
#include <collectives/cost/select.hpp>
#include <collectives/detail/bits.hpp>
#include <collectives/schedule/rings.hpp>
#include <collectives/topology.hpp>

#include <boost/hana/for_each.hpp>

#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

using namespace collectives;
namespace cf = collectives::closed_form;

namespace {

constexpr bool close(double a, double b, double rel = 1e-12)
{
  const double d = a > b ? a - b : b - a;
  const double s = (a > 0 ? a : -a) > (b > 0 ? b : -b) ? (a > 0 ? a : -a) : (b > 0 ? b : -b);
  return d <= rel * s || d <= 1e-300;
}

// Parameter sets: each unit set isolates one term (a mismatch then names the term), the
// last two mix them at unrelated scales.
struct Params {
  double t_s, t_w, t_h, t_r;
};
constexpr Params param_sets[] = {
  {1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}, {2.5, 0.125, 0.75, 0.0625}, {1e-6, 1e-9, 3e-8, 1e-10},
};
constexpr double block_sizes[] = {0, 1, 37};

std::vector<CostModel> models()
{
  std::vector<CostModel> out;
  for (Routing routing : {Routing::cut_through, Routing::store_and_forward})
    for (Ports ports : {Ports::one, Ports::all})
      for (const Params& x : param_sets) out.push_back(CostModel{x.t_s, x.t_w, x.t_h, x.t_r, routing, ports});
  return out;
}

std::string describe(const CostModel& c, double m)
{
  std::ostringstream s;
  s << "t_s=" << c.t_s << " t_w=" << c.t_w << " t_h=" << c.t_h << " t_r=" << c.t_r
    << (c.routing == Routing::cut_through ? " CT" : " SF") << (c.ports == Ports::one ? " one-port" : " all-port")
    << " m=" << m;
  return s.str();
}

// Checks estimate(s, topo) == closed(model, m) over the grids, and >= the lower bound.
// `pieces`: the schedule's blocks per message of the problem (a chunked schedule moves
// m / pieces words per block).
template <class S, class T, class Closed>
void check(const std::string& name, const S& s, const T& topo, Collective op, Problem problem, double pieces,
           Closed closed)
{
  static const std::vector<CostModel> all = models();
  std::size_t failures = 0;
  std::string first;
  for (const CostModel& c : all) {
    for (double m : block_sizes) {
      const double want = closed(c, m);
      const CostReport got = estimate(s, topo, c, m / pieces);
      problem.m = m;
      const double bound = lower_bound(op, topo, c, problem);
      const bool ok = close(got.time, want) && got.time >= bound * (1 - 1e-12);
      if (!ok && failures++ == 0) {
        std::ostringstream o;
        o << name << " p=" << topo.size() << " " << describe(c, m) << ": estimate " << got.time << ", closed form "
          << want << ", lower bound " << bound;
        first = o.str();
      }
    }
  }
  INFO(first);
  CHECK(failures == 0);
}

constexpr std::size_t ring_sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 11, 16};
constexpr std::size_t cube_dims[] = {0, 1, 2, 3, 4, 5};
constexpr std::size_t full_sizes[] = {1, 2, 3, 5, 6, 8, 13};

bool pow2(std::size_t p) { return p != 0 && (p & (p - 1)) == 0; }

} // namespace

TEST_CASE("closed forms: alltoall", "[cost][closed_form]")
{
  const Problem pr{};
  for (std::size_t p : ring_sizes) {
    const Ring<> ring{p};
    check("pairwise/ring", PairwiseSchedule(p), ring, Collective::alltoall, pr, 1,
          [p](const CostModel& c, double m) { return cf::alltoall_pairwise_ring(c, p, m); });
    check("ring/ring", RingSchedule(p), ring, Collective::alltoall, pr, 1,
          [p](const CostModel& c, double m) { return cf::alltoall_ring_ring(c, p, m); });
    check("ring_two_way/ring", RingTwoWaySchedule(p), ring, Collective::alltoall, pr, 1,
          [p](const CostModel& c, double m) { return cf::alltoall_ring_two_way_ring(c, p, m); });
    if (pow2(p))
      check("standard_exchange/ring", StandardExchangeSchedule(p), ring, Collective::alltoall, pr, 1,
            [p](const CostModel& c, double m) { return cf::alltoall_standard_exchange_ring(c, p, m); });
  }
  for (std::size_t d : cube_dims) {
    const Hypercube<> cube = Hypercube<>::of_dims(d);
    const std::size_t p = cube.size();
    check("pairwise_xor/hypercube", PairwiseXorSchedule(p), cube, Collective::alltoall, pr, 1,
          [p](const CostModel& c, double m) { return cf::alltoall_pairwise_xor_hypercube(c, p, m); });
    check("standard_exchange/hypercube", StandardExchangeSchedule(p), cube, Collective::alltoall, pr,
          1, [p](const CostModel& c, double m) { return cf::alltoall_standard_exchange_hypercube(c, p, m); });
    check("all_port/hypercube", AllPortSchedule(p), cube, Collective::alltoall, pr, 1,
          [p](const CostModel& c, double m) { return cf::alltoall_all_port_hypercube(c, p, m); });
    if (d >= 2)
      check("dimensional/hypercube", DimensionalSchedule(rings_of(cube)), cube, Collective::alltoall, pr, 1,
            [cube](const CostModel& c, double m) { return cf::alltoall_dimensional(c, cube, m); });
  }
  for (auto [r, col] : {std::pair{1, 1}, {2, 2}, {3, 3}, {4, 4}, {2, 4}, {3, 5}, {4, 2}, {1, 4}}) {
    const Mesh<> mesh{static_cast<std::size_t>(r), static_cast<std::size_t>(col)};
    check("dimensional/mesh", DimensionalSchedule(rings_of(mesh)), mesh, Collective::alltoall, pr, 1,
          [mesh](const CostModel& c, double m) { return cf::alltoall_dimensional(c, mesh, m); });
  }
  {
    using Torus3 = Torus<dynamic_extent, dynamic_extent, dynamic_extent>;
    const Torus3 torus{2, 3, 4};
    check("dimensional/torus", DimensionalSchedule(rings_of(torus)), torus, Collective::alltoall, pr, 1,
          [torus](const CostModel& c, double m) { return cf::alltoall_dimensional(c, torus, m); });
  }
  for (std::size_t p : full_sizes) {
    const FullyConnected<> full{p};
    check("pairwise/fully_connected", PairwiseSchedule(p), full, Collective::alltoall, pr, 1,
          [p](const CostModel& c, double m) { return cf::alltoall_pairwise_fully_connected(c, p, m); });
    check("bruck/fully_connected", BruckSchedule(p), full, Collective::alltoall, pr, 1,
          [p](const CostModel& c, double m) { return cf::alltoall_bruck_fully_connected(c, p, m); });
    if (pow2(p))
      check("pairwise_xor/fully_connected", PairwiseXorSchedule(p), full, Collective::alltoall,
            pr, 1, [p](const CostModel& c, double m) { return cf::alltoall_pairwise_fully_connected(c, p, m); });
    check("linear/fully_connected", AlltoallLinearSchedule(p), full, Collective::alltoall, pr, 1,
          [p](const CostModel& c, double m) { return cf::alltoall_linear_fully_connected(c, p, m); });
  }
}

TEST_CASE("closed forms: allgather and reduce_scatter", "[cost][closed_form]")
{
  const Problem pr{};
  for (std::size_t p : ring_sizes) {
    const Ring<> ring{p};
    for (bool in_place : {false, true}) {
      check("allgather ring/ring", AllgatherRingSchedule(p, in_place), ring, Collective::allgather, pr, 1,
            [p, in_place](const CostModel& c, double m) { return cf::allgather_ring_ring(c, p, m, in_place); });
      check("allgather bruck/ring", AllgatherBruckSchedule(p, in_place), ring, Collective::allgather, pr, 1,
            [p, in_place](const CostModel& c, double m) { return cf::allgather_bruck_ring(c, p, m, in_place); });
    }
    if (pow2(p))
      check("allgather recursive_doubling/ring", AllgatherRecursiveDoublingSchedule(p), ring,
            Collective::allgather, pr, 1,
            [p](const CostModel& c, double m) { return cf::allgather_recursive_doubling_ring(c, p, m); });
    for (bool in_place : {false, true})
      check("reduce_scatter ring/ring", ReduceScatterRingSchedule(p, ResultSlot::first, in_place), ring,
            Collective::reduce_scatter, pr, 1,
            [p, in_place](const CostModel& c, double m) { return cf::reduce_scatter_ring_ring(c, p, m, in_place); });
    for (bool in_place : {false, true})
      check("reduce_scatter pairwise/ring", ReduceScatterPairwiseSchedule(p, false, ResultSlot::first, in_place),
            ring, Collective::reduce_scatter, pr, 1,
            [p, in_place](const CostModel& c, double m) { return cf::reduce_scatter_pairwise_ring(c, p, m, in_place); });
  }
  for (std::size_t d : cube_dims) {
    const Hypercube<> cube = Hypercube<>::of_dims(d);
    const std::size_t p = cube.size();
    check("allgather recursive_doubling/hypercube", AllgatherRecursiveDoublingSchedule(p), cube,
          Collective::allgather, pr, 1,
          [p](const CostModel& c, double m) { return cf::allgather_recursive_doubling_hypercube(c, p, m); });
    check("allgather dimensional/hypercube", AllgatherDimensionalSchedule(rings_of(cube)), cube,
          Collective::allgather, pr, 1,
          [cube](const CostModel& c, double m) { return cf::allgather_dimensional(c, cube, m); });
    for (bool in_place : {false, true})
      check("reduce_scatter halving/hypercube", ReduceScatterHalvingSchedule(p, false, ResultSlot::first, in_place),
            cube, Collective::reduce_scatter, pr, 1, [p, in_place](const CostModel& c, double m) {
              return cf::reduce_scatter_recursive_halving_hypercube(c, p, m, in_place);
            });
    for (bool in_place : {false, true})
      check("reduce_scatter dimensional/hypercube",
            ReduceScatterDimensionalSchedule(rings_of(cube), ResultSlot::first, in_place), cube,
            Collective::reduce_scatter, pr, 1, [cube, in_place](const CostModel& c, double m) {
              return cf::reduce_scatter_dimensional(c, cube, m, in_place);
            });
  }
  for (auto [r, col] : {std::pair{1, 1}, {2, 2}, {3, 3}, {4, 4}, {2, 4}, {3, 5}}) {
    const Mesh<> mesh{static_cast<std::size_t>(r), static_cast<std::size_t>(col)};
    check("allgather dimensional/mesh", AllgatherDimensionalSchedule(rings_of(mesh)), mesh, Collective::allgather, pr,
          1, [mesh](const CostModel& c, double m) { return cf::allgather_dimensional(c, mesh, m); });
    for (bool in_place : {false, true})
      check("reduce_scatter dimensional/mesh", ReduceScatterDimensionalSchedule(rings_of(mesh), ResultSlot::first, in_place),
            mesh, Collective::reduce_scatter, pr, 1, [mesh, in_place](const CostModel& c, double m) {
              return cf::reduce_scatter_dimensional(c, mesh, m, in_place);
            });
  }
  for (std::size_t p : full_sizes) {
    const FullyConnected<> full{p};
    check("allgather bruck/fully_connected", AllgatherBruckSchedule(p), full,
          Collective::allgather, pr, 1,
          [p](const CostModel& c, double m) { return cf::allgather_bruck_fully_connected(c, p, m); });
    check("allgather ring/fully_connected", AllgatherRingSchedule(p), full,
          Collective::allgather, pr, 1, [p](const CostModel& c, double m) { return cf::allgather_ring_ring(c, p, m); });
    for (bool in_place : {false, true})
      check("allgather linear/fully_connected", AllgatherLinearSchedule(p, in_place), full, Collective::allgather, pr,
            1, [p, in_place](const CostModel& c, double m) { return cf::allgather_linear_fully_connected(c, p, m, in_place); });
    for (bool commutative : {false, true})
      check("reduce_scatter linear/fully_connected", ReduceScatterLinearSchedule(p, commutative), full,
            Collective::reduce_scatter, pr, 1,
            [p](const CostModel& c, double m) { return cf::reduce_scatter_linear_fully_connected(c, p, m); });
    for (bool in_place : {false, true})
      check("reduce_scatter pairwise/fully_connected", ReduceScatterPairwiseSchedule(p, false, ResultSlot::first, in_place),
            full, Collective::reduce_scatter, pr, 1, [p, in_place](const CostModel& c, double m) {
              return cf::reduce_scatter_pairwise_fully_connected(c, p, m, in_place);
            });
  }
}

TEST_CASE("closed forms: allreduce", "[cost][closed_form]")
{
  const Problem pr{};
  for (std::size_t p : full_sizes) {
    const FullyConnected<> full{p};
    const double q = static_cast<double>(detail::pow2_floor(p));
    for (bool in_place : {false, true}) {
      check("allreduce doubling/fully_connected", allreduce_doubling_schedule(p, in_place, true), full,
            Collective::allreduce, pr, 1, [p, in_place](const CostModel& c, double m) {
              return cf::allreduce_recursive_doubling_fully_connected(c, p, m, in_place);
            });
      check("allreduce rabenseifner/fully_connected", allreduce_rabenseifner_schedule(p, in_place, true), full,
            Collective::allreduce, pr, q, [p, in_place](const CostModel& c, double m) {
              return cf::allreduce_rabenseifner_fully_connected(c, p, m, in_place);
            });
      check("allreduce reduce_broadcast/fully_connected", allreduce_reduce_broadcast_schedule(p, in_place, true), full,
            Collective::allreduce, pr, 1, [p, in_place](const CostModel& c, double m) {
              return cf::allreduce_reduce_broadcast_fully_connected(c, p, m, in_place);
            });
      for (bool commutative : {true, false})
        check("allreduce linear/fully_connected", allreduce_linear_schedule(p, in_place, commutative), full,
              Collective::allreduce, pr, 1, [p, in_place](const CostModel& c, double m) {
                return cf::allreduce_linear_fully_connected(c, p, m, in_place);
              });
    }
  }
  for (std::size_t d : cube_dims) {
    const Hypercube<> cube = Hypercube<>::of_dims(d);
    const std::size_t p = cube.size();
    check("allreduce doubling/hypercube", allreduce_doubling_schedule(p, false, false), cube, Collective::allreduce,
          pr, 1, [p](const CostModel& c, double m) { return cf::allreduce_recursive_doubling_fully_connected(c, p, m); });
    check("allreduce rabenseifner/hypercube", allreduce_rabenseifner_schedule(p, false, false), cube,
          Collective::allreduce, pr, static_cast<double>(p),
          [p](const CostModel& c, double m) { return cf::allreduce_rabenseifner_fully_connected(c, p, m); });
    check("allreduce reduce_broadcast/hypercube", allreduce_reduce_broadcast_schedule(p, false, false), cube,
          Collective::allreduce, pr, 1,
          [p](const CostModel& c, double m) { return cf::allreduce_reduce_broadcast_fully_connected(c, p, m); });
  }
  for (std::size_t p : ring_sizes) {
    const Ring<> ring{p};
    check("allreduce ring/ring", allreduce_ring_schedule(p), ring, Collective::allreduce, pr,
          static_cast<double>(p), [p](const CostModel& c, double m) { return cf::allreduce_ring_ring(c, p, m); });
    check("allreduce reduce_broadcast/ring", allreduce_reduce_broadcast_schedule(p, false, true), ring,
          Collective::allreduce, pr, 1,
          [p](const CostModel& c, double m) { return cf::allreduce_reduce_broadcast_ring(c, p, m); });
  }
}

TEST_CASE("closed forms: broadcast and reduce", "[cost][closed_form]")
{
  for (std::size_t p : ring_sizes) {
    const Ring<> ring{p};
    for (std::size_t root : {std::size_t{0}, p / 2, p - 1}) {
      const Problem pr{0, root};
      check("broadcast binomial/ring", BroadcastTreeSchedule(p, ring_shape(p), root), ring, Collective::broadcast, pr,
            1, [p](const CostModel& c, double m) { return cf::broadcast_binomial_ring(c, p, m); });
      check("broadcast ring/ring", BroadcastRingSchedule(p, root), ring, Collective::broadcast, pr, 1,
            [p](const CostModel& c, double m) { return cf::broadcast_ring_ring(c, p, m); });
      check("broadcast scatter_allgather/ring", broadcast_scatter_allgather_schedule(p, root), ring,
            Collective::broadcast, pr, static_cast<double>(p),
            [p](const CostModel& c, double m) { return cf::broadcast_scatter_allgather_ring(c, p, m); });
      for (bool commutative : {true, false}) {
        // The tree schedule as the reduce runs it, in place and not (it folds the
        // contribution in late out of place: one pass over m less).
        for (bool in_place : {false, true}) {
          const Problem tree{.root = root, .commutative = commutative, .in_place = in_place};
          check(in_place ? "reduce binomial/ring, in place" : "reduce binomial/ring",
                reduce_algorithm::binomial.schedule(ring, tree), ring, Collective::reduce, tree, 1,
                [=](const CostModel& c, double m) {
                  return cf::reduce_binomial_ring(c, p, m, root, commutative, in_place);
                });
        }
        check("reduce ring/ring", ReduceRingSchedule(p, root, commutative), ring, Collective::reduce, pr, 1,
              [=](const CostModel& c, double m) { return cf::reduce_ring_ring(c, p, m, root, commutative); });
      }
    }
  }
  for (std::size_t d : cube_dims) {
    const Hypercube<> cube = Hypercube<>::of_dims(d);
    const std::size_t p = cube.size();
    for (std::size_t root : {std::size_t{0}, p / 2, p - 1}) {
      const Problem pr{0, root};
      check("broadcast hypercube/hypercube", BroadcastTreeSchedule(p, bits_shape(p), root), cube,
            Collective::broadcast, pr, 1,
            [p](const CostModel& c, double m) { return cf::broadcast_hypercube_hypercube(c, p, m); });
      check("broadcast dimensional/hypercube", BroadcastTreeSchedule(p, topology_shape(cube), root), cube,
            Collective::broadcast, pr, 1,
            [cube](const CostModel& c, double m) { return cf::broadcast_dimensional(c, cube, m); });
      for (bool commutative : {true, false})
        for (bool in_place : {false, true}) {
          const Problem tree{.root = root, .commutative = commutative, .in_place = in_place};
          check(in_place ? "reduce hypercube/hypercube, in place" : "reduce hypercube/hypercube",
                reduce_algorithm::hypercube.schedule(cube, tree), cube, Collective::reduce, tree, 1,
                [=](const CostModel& c, double m) {
                  return cf::reduce_hypercube_hypercube(c, p, m, root, commutative, in_place);
                });
          check(in_place ? "reduce dimensional/hypercube, in place" : "reduce dimensional/hypercube",
                reduce_algorithm::dimensional.schedule(cube, tree), cube, Collective::reduce, tree, 1,
                [=](const CostModel& c, double m) {
                  return cf::reduce_dimensional(c, cube, m, root, commutative, in_place);
                });
        }
    }
    // Rooted at 0 the binomial tree is the hypercube's (child v + 2^j = v XOR 2^j).
    check("broadcast binomial/hypercube", BroadcastTreeSchedule(p, ring_shape(p), 0), cube, Collective::broadcast,
          Problem{}, 1, [p](const CostModel& c, double m) { return cf::broadcast_binomial_fully_connected(c, p, m); });
    check("reduce reduce_scatter_gather/hypercube", reduce_scatter_gather_halving(p, 0, false), cube,
          Collective::reduce, Problem{}, static_cast<double>(p),
          [p](const CostModel& c, double m) { return cf::reduce_scatter_gather_hypercube(c, p, m); });
  }
  for (auto [r, col] : {std::pair{1, 1}, {2, 2}, {3, 3}, {4, 4}, {2, 4}, {3, 5}, {5, 3}}) {
    const Mesh<> mesh{static_cast<std::size_t>(r), static_cast<std::size_t>(col)};
    const std::size_t p = mesh.size();
    for (std::size_t root : {std::size_t{0}, p / 2, p - 1}) {
      const Problem pr{0, root};
      check("broadcast dimensional/mesh", BroadcastTreeSchedule(p, topology_shape(mesh), root), mesh,
            Collective::broadcast, pr, 1,
            [mesh](const CostModel& c, double m) { return cf::broadcast_dimensional(c, mesh, m); });
      for (bool in_place : {false, true}) {
        const Problem tree{.root = root, .commutative = false, .in_place = in_place};
        check(in_place ? "reduce dimensional/mesh, in place" : "reduce dimensional/mesh",
              reduce_algorithm::dimensional.schedule(mesh, tree), mesh, Collective::reduce, tree, 1,
              [=](const CostModel& c, double m) { return cf::reduce_dimensional(c, mesh, m, root, false, in_place); });
      }
    }
  }
  for (std::size_t p : full_sizes) {
    const FullyConnected<> full{p};
    for (std::size_t root : {std::size_t{0}, p - 1}) {
      const Problem pr{0, root};
      check("broadcast binomial/fully_connected", BroadcastTreeSchedule(p, ring_shape(p), root), full,
            Collective::broadcast, pr, 1,
            [p](const CostModel& c, double m) { return cf::broadcast_binomial_fully_connected(c, p, m); });
      check("broadcast linear/fully_connected", BroadcastLinearSchedule(p, root), full, Collective::broadcast, pr, 1,
            [p](const CostModel& c, double m) { return cf::broadcast_linear_fully_connected(c, p, m); });
      check("broadcast scatter_allgather/fully_connected", broadcast_scatter_allgather_schedule(p, root), full,
            Collective::broadcast, pr, static_cast<double>(p),
            [p](const CostModel& c, double m) { return cf::broadcast_scatter_allgather_fully_connected(c, p, m); });
      check("reduce reduce_scatter_gather_pairwise/fully_connected", reduce_scatter_gather_pairwise(p, root, true),
            full, Collective::reduce, pr, static_cast<double>(p),
            [p](const CostModel& c, double m) { return cf::reduce_scatter_gather_pairwise_fully_connected(c, p, m); });
      for (bool commutative : {true, false})
        for (bool in_place : {false, true})
          check("reduce linear/fully_connected", ReduceLinearSchedule(p, root, commutative, in_place), full,
                Collective::reduce, pr, 1,
                [=](const CostModel& c, double m) { return cf::reduce_linear_fully_connected(c, p, m, in_place); });
    }
  }
}

TEST_CASE("closed forms: scatter, gather and scan", "[cost][closed_form]")
{
  for (std::size_t p : ring_sizes) {
    const Ring<> ring{p};
    for (std::size_t root : {std::size_t{0}, p / 2, p - 1}) {
      const Problem pr{0, root};
      check("scatter binomial/ring", ScatterTreeSchedule(p, ring_shape(p), root), ring, Collective::scatter, pr, 1,
            [p](const CostModel& c, double m) { return cf::scatter_binomial_ring(c, p, m); });
      check("gather binomial/ring", GatherTreeSchedule(p, ring_shape(p), root), ring, Collective::gather, pr, 1,
            [p](const CostModel& c, double m) { return cf::scatter_binomial_ring(c, p, m); });
      check("scatter ring/ring", ScatterRingSchedule(p, root), ring, Collective::scatter, pr, 1,
            [p](const CostModel& c, double m) { return cf::scatter_ring_ring(c, p, m); });
      check("gather ring/ring", GatherRingSchedule(p, root), ring, Collective::gather, pr, 1,
            [p](const CostModel& c, double m) { return cf::scatter_ring_ring(c, p, m); });
    }
    for (bool exclusive : {false, true}) {
      check("scan ring/ring", ScanRingSchedule(p, exclusive), ring, Collective::scan, Problem{}, 1,
            [=](const CostModel& c, double m) { return cf::scan_ring_ring(c, p, m, exclusive); });
      check("scan recursive_doubling/ring", ScanDoublingSchedule(p, exclusive), ring, Collective::scan,
            Problem{}, 1,
            [=](const CostModel& c, double m) { return cf::scan_recursive_doubling_ring(c, p, m, exclusive); });
    }
  }
  for (std::size_t d : cube_dims) {
    const Hypercube<> cube = Hypercube<>::of_dims(d);
    const std::size_t p = cube.size();
    for (std::size_t root : {std::size_t{0}, p - 1}) {
      const Problem pr{0, root};
      check("scatter hypercube/hypercube", ScatterTreeSchedule(p, bits_shape(p), root), cube, Collective::scatter, pr,
            1, [p](const CostModel& c, double m) { return cf::scatter_hypercube_hypercube(c, p, m); });
      check("gather hypercube/hypercube", GatherTreeSchedule(p, bits_shape(p), root), cube, Collective::gather, pr, 1,
            [p](const CostModel& c, double m) { return cf::scatter_hypercube_hypercube(c, p, m); });
      check("scatter dimensional/hypercube", ScatterTreeSchedule(p, topology_shape(cube), root), cube,
            Collective::scatter, pr, 1,
            [cube](const CostModel& c, double m) { return cf::scatter_dimensional(c, cube, m); });
    }
    for (bool exclusive : {false, true})
      check("scan hypercube/hypercube", ScanHypercubeSchedule(p, exclusive), cube, Collective::scan,
            Problem{}, 1, [=](const CostModel& c, double m) { return cf::scan_hypercube_hypercube(c, p, m, exclusive); });
  }
  for (auto [r, col] : {std::pair{1, 1}, {2, 2}, {3, 3}, {4, 4}, {2, 4}, {3, 5}}) {
    const Mesh<> mesh{static_cast<std::size_t>(r), static_cast<std::size_t>(col)};
    const std::size_t p = mesh.size();
    for (std::size_t root : {std::size_t{0}, p - 1}) {
      check("scatter dimensional/mesh", ScatterTreeSchedule(p, topology_shape(mesh), root), mesh, Collective::scatter,
            Problem{0, root}, 1, [mesh](const CostModel& c, double m) { return cf::scatter_dimensional(c, mesh, m); });
      check("gather dimensional/mesh", GatherTreeSchedule(p, topology_shape(mesh), root), mesh, Collective::gather,
            Problem{0, root}, 1, [mesh](const CostModel& c, double m) { return cf::scatter_dimensional(c, mesh, m); });
    }
  }
  for (std::size_t p : full_sizes) {
    const FullyConnected<> full{p};
    check("scatter binomial/fully_connected", ScatterTreeSchedule(p, ring_shape(p), p / 2), full, Collective::scatter,
          Problem{0, p / 2}, 1, [p](const CostModel& c, double m) { return cf::scatter_binomial_fully_connected(c, p, m); });
    for (std::size_t root : {std::size_t{0}, p / 2, p - 1}) {
      check("scatter linear/fully_connected", ScatterLinearSchedule(p, root), full, Collective::scatter,
            Problem{0, root}, 1, [p](const CostModel& c, double m) { return cf::scatter_linear_fully_connected(c, p, m); });
      check("gather linear/fully_connected", GatherLinearSchedule(p, root), full, Collective::gather,
            Problem{0, root}, 1, [p](const CostModel& c, double m) { return cf::scatter_linear_fully_connected(c, p, m); });
    }
    for (bool exclusive : {false, true})
      check("scan linear/fully_connected", ScanLinearSchedule(p, exclusive), full, Collective::scan, Problem{}, 1,
            [=](const CostModel& c, double m) { return cf::scan_linear_fully_connected(c, p, m, exclusive); });
    for (bool exclusive : {false, true})
      check("scan recursive_doubling/fully_connected", ScanDoublingSchedule(p, exclusive), full,
            Collective::scan, Problem{}, 1, [=](const CostModel& c, double m) {
              return cf::scan_recursive_doubling_fully_connected(c, p, m, exclusive);
            });
  }
}

TEST_CASE("closed forms: shift", "[cost][closed_form]")
{
  for (std::size_t p : ring_sizes) {
    const Ring<> ring{p};
    for (std::ptrdiff_t q : {0, 1, 2, -1, -3, 7}) {
      const std::ptrdiff_t qp = q + static_cast<std::ptrdiff_t>(p / 2);
      for (std::ptrdiff_t s : {q, qp}) {
        const Problem pr{0, 0, s};
        check("shift ring/ring", ShiftRingSchedule(p, s), ring, Collective::shift, pr, 1,
              [=](const CostModel& c, double m) { return cf::shift_ring_ring(c, p, m, s); });
        check("shift direct/ring", ShiftDirectSchedule(p, s), ring, Collective::shift, pr, 1,
              [=](const CostModel& c, double m) { return cf::shift_direct_ring(c, p, m, s); });
      }
    }
  }
  for (std::size_t d : cube_dims) {
    const Hypercube<> cube = Hypercube<>::of_dims(d);
    const std::size_t p = cube.size();
    for (std::size_t q = 0; q < p + 2; ++q) {
      const auto s = static_cast<std::ptrdiff_t>(q);
      const Problem pr{0, 0, s};
      check("shift direct/hypercube", ShiftDirectSchedule(p, s), cube, Collective::shift, pr, 1,
            [=](const CostModel& c, double m) { return cf::shift_direct_hypercube(c, p, m, s); });
      check("shift hypercube_sf/hypercube", ShiftHypercubeSfSchedule(p, s), cube, Collective::shift,
            pr, 1, [=](const CostModel& c, double m) { return cf::shift_hypercube_sf_hypercube(c, p, m, s); });
    }
  }
  for (auto [r, col] : {std::pair{1, 1}, {2, 2}, {3, 3}, {4, 4}, {2, 4}, {3, 5}}) {
    const Mesh<> mesh{static_cast<std::size_t>(r), static_cast<std::size_t>(col)};
    const std::size_t p = mesh.size();
    for (std::size_t q = 0; q < p + 1; ++q) {
      const auto s = static_cast<std::ptrdiff_t>(q);
      check("shift mesh/mesh", ShiftMeshSchedule(mesh.extent(0), mesh.extent(1), s), mesh, Collective::shift, Problem{0, 0, s}, 1,
            [=](const CostModel& c, double m) { return cf::shift_mesh_mesh(c, mesh.extent(0), mesh.extent(1), m, s); });
    }
  }
}

// ---------------------------------------------------------------------------------------
// Every algorithm of the registry (algorithms<C> of every collective in all_collectives,
// so a new one is covered without touching this file): the estimate of the schedule it
// runs (predict) is never below lower_bound(), on every topology it fits, for every
// model, size, root, shift, operator and in-place use.
// ---------------------------------------------------------------------------------------
namespace {

/// The first estimate below its lower bound, described (not in the template below:
/// formatting and Catch2's macros in a lambda instantiated per algorithm and topology were
/// a large part of this TU's code).
std::string lower_bound_failure(Collective c, std::string_view algorithm, const std::string& label,
                                const Problem& problem, const CostModel& model, double got, double bound)
{
  std::ostringstream o;
  o << collective_name(c) << "(" << algorithm << ") on " << label << " root " << problem.root << " q " << problem.q
    << (problem.commutative ? " commutative" : "") << (problem.in_place ? " in place" : "") << " "
    << describe(model, problem.m) << ": estimate " << got << " < lower bound " << bound;
  return o.str();
}

void check_no_failures(std::size_t failures, const std::string& first)
{
  INFO(first);
  CHECK(failures == 0);
}

template <Collective C, class T>
std::size_t check_registry_lower_bound(const T& topo, const std::string& label)
{
  // Under a sanitizer (8x slower here, and the code is the same) the four routing x ports
  // combinations of one mixed parameter set.
  static const std::vector<CostModel> all = [] {
    std::vector<CostModel> out = models();
    if (testing::sanitized)
      std::erase_if(out, [](const CostModel& c) { return c.t_s != param_sets[4].t_s || c.t_w != param_sets[4].t_w; });
    return out;
  }();
  const std::size_t p = topo.size();
  std::size_t checked = 0;
  boost::hana::for_each(algorithms<C>, [&](auto a) {
    using A = decltype(a);
    if constexpr (fits_topology_type<A, T>) {
      std::size_t failures = 0;
      std::string first;
      for (std::size_t root : {std::size_t{0}, p - 1})
        for (std::ptrdiff_t q : {std::ptrdiff_t{1}, static_cast<std::ptrdiff_t>(p / 2) + 1})
          for (bool commutative : {true, false})
            for (bool in_place : {false, true}) {
              const Problem base{0, root, q, commutative, in_place};
              if (!fits(a, topo, base)) continue;
              ++checked;
              for (const CostModel& c : all)
                for (double m : block_sizes) {
                  Problem problem = base;
                  problem.m = m;
                  const double got = predict(a, topo, c, problem).time;
                  const double bound = lower_bound(C, topo, c, problem);
                  if (!(got >= bound * (1 - 1e-12)) && failures++ == 0)
                    first = lower_bound_failure(C, A::name, label, problem, c, got, bound);
                }
            }
      check_no_failures(failures, first);
    }
  });
  return checked;
}

template <class T, std::size_t... I>
void check_registry_lower_bound(const T& topo, const std::string& label, std::index_sequence<I...>)
{
  const std::size_t checked[] = {check_registry_lower_bound<all_collectives[I]>(topo, label)...};
  // Every collective has an algorithm that runs on any topology (the check is not empty).
  for (std::size_t i = 0; i < sizeof...(I); ++i) {
    INFO(collective_name(all_collectives[i]) << " on " << label);
    CHECK(checked[i] >= 1);
  }
}

template <class T>
void check_registry_lower_bound(const T& topo, const std::string& label)
{
  check_registry_lower_bound(topo, label, std::make_index_sequence<all_collectives.size()>{});
}

} // namespace

TEST_CASE("every algorithm's estimate is at least the lower bound", "[cost][closed_form][registry]")
{
  for (std::size_t p : ring_sizes) check_registry_lower_bound(Ring<>{p}, "Ring " + std::to_string(p));
  for (std::size_t d : {0, 1, 2, 3, 4})
    check_registry_lower_bound(Hypercube<>::of_dims(d), "Hypercube " + std::to_string(d));
  for (auto [r, col] : {std::pair{2, 3}, {3, 3}, {2, 4}, {1, 4}})
    check_registry_lower_bound(Mesh<>{static_cast<std::size_t>(r), static_cast<std::size_t>(col)},
                               "Mesh " + std::to_string(r) + "x" + std::to_string(col));
  for (std::size_t p : {3, 5, 8}) check_registry_lower_bound(FullyConnected<>{p}, "FullyConnected " + std::to_string(p));
}

// ---------------------------------------------------------------------------------------
// In constant evaluation: the same estimate on static topologies (kept small: g++ 12 and
// clang++ 14 evaluate it step by step).
// ---------------------------------------------------------------------------------------
namespace {
constexpr CostModel ct_model{.t_s = 3, .t_w = 0.5, .t_h = 0.25, .t_r = 0.125};
constexpr CostModel sf_model{.t_s = 3, .t_w = 0.5, .t_h = 0.25, .t_r = 0.125, .routing = Routing::store_and_forward};
static_assert(close(estimate(PairwiseXorSchedule(8), Hypercube<3>{}, ct_model, 2).time,
                    cf::alltoall_pairwise_xor_hypercube(ct_model, 8, 2)));
static_assert(close(estimate(StandardExchangeSchedule(8), Hypercube<3>{}, sf_model, 2).time,
                    cf::alltoall_standard_exchange_hypercube(sf_model, 8, 2)));
static_assert(close(estimate(DimensionalSchedule(rings_of(Mesh<3, 3>{})), Mesh<3, 3>{}, ct_model, 2).time,
                    cf::alltoall_dimensional(ct_model, Mesh<3, 3>{}, 2)));
static_assert(close(estimate(AllgatherRecursiveDoublingSchedule(8), Ring<8>{}, sf_model, 2).time,
                    cf::allgather_recursive_doubling_ring(sf_model, 8, 2)));
static_assert(close(estimate(BroadcastTreeSchedule(8, ring_shape(8), 3), Ring<8>{}, ct_model, 2).time,
                    cf::broadcast_binomial_ring(ct_model, 8, 2)));
static_assert(close(estimate(ShiftDirectSchedule(8, 6), Hypercube<3>{}, ct_model, 2).time,
                    cf::shift_direct_hypercube(ct_model, 8, 2, 6)));
static_assert(estimate(PairwiseXorSchedule(8), Hypercube<3>{}, ct_model, 2).time >=
              lower_bound(Collective::alltoall, Hypercube<3>{}, ct_model, Problem{2}));
} // namespace

// ---------------------------------------------------------------------------------------
// The seeds' formulas. Seed 001's table assumes p = 2^d, a square mesh and t_h only where
// it is written; our closed forms charge t_h on every hop and t_r on local copies, so the
// comparisons set those to 0 except where the seed itself carries t_h.
// ---------------------------------------------------------------------------------------
namespace {
CostModel plain(double t_s, double t_w, double t_h = 0, Routing routing = Routing::cut_through, Ports ports = Ports::one)
{
  return CostModel{t_s, t_w, t_h, 0, routing, ports};
}
double seed_cell(Collective op, cf::Network net, const CostModel& c, std::size_t p, double m, std::ptrdiff_t q = 1)
{
  const auto v = cf::seed::table(op, net, c, p, m, q);
  REQUIRE(v.has_value());
  return *v;
}
} // namespace

TEST_CASE("closed forms equal seed 001's table where our schedule is the seed's", "[cost][closed_form][seed]")
{
  using cf::Network;
  const double m = 7;
  for (std::size_t side : {2, 4, 8}) {
    const std::size_t p = side * side;
    const Mesh<> mesh{side, side};
    const CostModel c = plain(1.5, 0.25, 0.5);
    const CostModel c0 = plain(1.5, 0.25);
    // One-to-all broadcast on a mesh, CT: binomial per dimension, t_h 2(sqrt p - 1).
    CHECK(close(cf::broadcast_dimensional(c, mesh, m), seed_cell(Collective::broadcast, Network::mesh, c, p, m)));
    CHECK(close(cf::allgather_dimensional(c0, mesh, m, true), seed_cell(Collective::allgather, Network::mesh, c0, p, m)));
    CHECK(close(cf::reduce_scatter_dimensional(c0, mesh, m), seed_cell(Collective::reduce_scatter, Network::mesh, c0, p, m)));
    CHECK(close(cf::alltoall_dimensional(c0, mesh, m), seed_cell(Collective::alltoall, Network::mesh, c0, p, m)));
    // Circular q-shift on a mesh: the seed's cell is the worst q.
    double worst = 0;
    for (std::size_t q = 0; q < p; ++q)
      worst = std::max(worst, cf::shift_mesh_mesh(c0, side, side, m, static_cast<std::ptrdiff_t>(q)));
    CHECK(close(worst, seed_cell(Collective::shift, Network::mesh, c0, p, m)));
    // Scatter on a mesh: the seed pipelines along each dimension, 2 t_s (sqrt p - 1); our
    // dimensional tree needs only t_s log p start-ups: equal for a 2x2 mesh, cheaper above.
    const double ours = cf::scatter_dimensional(c0, mesh, m) - c0.t_r * m;
    if (side == 2) CHECK(close(ours, seed_cell(Collective::scatter, Network::mesh, c0, p, m)));
    else CHECK(ours < seed_cell(Collective::scatter, Network::mesh, c0, p, m));
  }
  for (std::size_t p : {2, 4, 8, 16, 32, 64}) {
    const CostModel c = plain(1.5, 0.25, 0.5);
    const CostModel c0 = plain(1.5, 0.25);
    const CostModel sf0 = plain(1.5, 0.25, 0, Routing::store_and_forward);
    // Ring.
    CHECK(close(cf::broadcast_binomial_ring(c, p, m), seed_cell(Collective::broadcast, Network::ring, c, p, m)));
    CHECK(close(cf::allgather_ring_ring(c0, p, m, true), seed_cell(Collective::allgather, Network::ring, c0, p, m)));
    CHECK(close(cf::reduce_scatter_ring_ring(c0, p, m), seed_cell(Collective::reduce_scatter, Network::ring, c0, p, m)));
    CHECK(close(cf::scatter_ring_ring(c0, p, m) - c0.t_r * m, seed_cell(Collective::scatter, Network::ring, c0, p, m)));
    CHECK(close(cf::alltoall_ring_ring(c0, p, m), seed_cell(Collective::alltoall, Network::ring, c0, p, m)));
    CHECK(close(cf::shift_ring_ring(c0, p, m, static_cast<std::ptrdiff_t>(p / 2)),
                seed_cell(Collective::shift, Network::ring, c0, p, m)));
    // Hypercube, CT.
    CHECK(close(cf::broadcast_hypercube_hypercube(c0, p, m), seed_cell(Collective::broadcast, Network::hypercube, c0, p, m)));
    CHECK(close(cf::reduce_hypercube_hypercube(c0, p, m), seed_cell(Collective::reduce, Network::hypercube, c0, p, m)));
    CHECK(close(cf::allgather_recursive_doubling_hypercube(c0, p, m, true),
                seed_cell(Collective::allgather, Network::hypercube, c0, p, m)));
    CHECK(close(cf::reduce_scatter_recursive_halving_hypercube(c0, p, m),
                seed_cell(Collective::reduce_scatter, Network::hypercube, c0, p, m)));
    CHECK(close(cf::scatter_hypercube_hypercube(c0, p, m), seed_cell(Collective::scatter, Network::hypercube, c0, p, m)));
    CHECK(close(cf::allreduce_recursive_doubling_fully_connected(c0, p, m, true),
                seed_cell(Collective::allreduce, Network::hypercube, c0, p, m)));
    CHECK(close(cf::scan_hypercube_hypercube(c0, p, m), seed_cell(Collective::scan, Network::hypercube, c0, p, m)));
    // The seed's optimal hypercube alltoall carries its t_h term: (t_h/2) p log p.
    CHECK(close(cf::alltoall_pairwise_xor_hypercube(c, p, m), seed_cell(Collective::alltoall, Network::hypercube, c, p, m)));
    for (std::size_t q = 1; q < p; ++q) {
      const auto s = static_cast<std::ptrdiff_t>(q);
      CHECK(close(cf::shift_direct_hypercube(c, p, m, s), seed_cell(Collective::shift, Network::hypercube, c, p, m, s)));
    }
    // Hypercube, SF: the standard exchange.
    CHECK(close(cf::alltoall_standard_exchange_hypercube(sf0, p, m),
                seed_cell(Collective::alltoall, Network::hypercube, sf0, p, m)));
  }
}

TEST_CASE("store-and-forward hypercube shift: better than the seed's worst case", "[cost][closed_form][seed]")
{
  // The seed's SF cell (t_s + t_w m)(2 log p - 1) is the worst q for shifting one way
  // round the Gray-code ring: two steps per set bit of q, one for bit 0, so q = p - 1
  // takes 2 log p - 1. ShiftHypercubeSfSchedule shifts by q or by p - q backwards,
  // whichever takes fewer steps, so its worst q is cheaper (p >= 4): the seed's figure is
  // a correct upper bound for our schedule, not its cost.
  const CostModel sf = plain(1.5, 0.25, 0, Routing::store_and_forward);
  const double m = 7;
  for (std::size_t p : {2, 4, 8, 16, 32, 64}) {
    const double message = sf.t_s + sf.t_w * m;
    double worst = 0, one_way = 0;
    for (std::size_t q = 1; q < p; ++q) {
      worst = std::max(worst, cf::shift_hypercube_sf_hypercube(sf, p, m, static_cast<std::ptrdiff_t>(q)));
      one_way = std::max(one_way, message * static_cast<double>(2 * std::popcount(q) - (q & 1)));
    }
    const double seed = seed_cell(Collective::shift, cf::Network::hypercube, sf, p, m);
    CHECK(close(one_way, seed));
    if (p >= 4) CHECK(worst < seed);
    else CHECK(close(worst, seed));
  }
}

TEST_CASE("closed forms where the seeds and our schedules differ", "[cost][closed_form][seed]")
{
  using cf::Network;
  const double m = 5;
  SECTION("store-and-forward ring broadcast: floor(p/2) steps, ceil(p/2) one-port")
  {
    // The seed writes (t_s + t_w m) ceil(p/2) (one-port, SF). BroadcastRingSchedule sends
    // both ways from the root in its first step, so it takes floor(p/2) steps. Both are
    // right, for different port models: with the root driving both links at once
    // (all-port) floor(p/2) is reached and is optimal (the farthest node is floor(p/2)
    // hops away). One-port, the root's two first messages serialise, costing
    // floor(p/2) + 1 message times: the seed's ceil(p/2) for odd p, one more than it for
    // even p. ceil(p/2) is the one-port optimum (the root reaches one node per step), met
    // by starting the second direction one step later; for even p that staggered schedule
    // would also keep floor(p/2) all-port (for odd p no one schedule is optimal in both).
    for (std::size_t p = 2; p <= 17; ++p) {
      const CostModel one = plain(1.5, 0.25, 0, Routing::store_and_forward, Ports::one);
      const CostModel all = plain(1.5, 0.25, 0, Routing::store_and_forward, Ports::all);
      const double seed = seed_cell(Collective::broadcast, Network::ring, one, p, m);
      const double message = 1.5 + 0.25 * m;
      CHECK(close(cf::broadcast_ring_ring(all, p, m), message * static_cast<double>(p / 2)));
      if (p % 2 == 1 || p == 2) CHECK(close(cf::broadcast_ring_ring(one, p, m), seed));
      else CHECK(close(cf::broadcast_ring_ring(one, p, m), seed + message));
      CHECK(close(estimate(BroadcastRingSchedule(p, 0), Ring<>{p}, one, m).time, cf::broadcast_ring_ring(one, p, m)));
    }
  }
  SECTION("a local-only step: no start-up, only t_r")
  {
    // AllgatherDimensionalSchedule (ALL_TO_ALL_BC_MESH) spends its step 0 placing the own
    // block, with no message: the seed's 2 t_s (sqrt p - 1) counts message steps only,
    // and so does the estimate (CostReport::steps); the local step costs t_r m alone.
    for (std::size_t side : {2, 3, 4}) {
      const Mesh<> mesh{side, side};
      const AllgatherDimensionalSchedule s(rings_of(mesh));
      CHECK(s.num_steps() == 2 * (side - 1) + 1);
      const CostReport r = estimate(s, mesh, plain(1.5, 0.25), m);
      CHECK(r.steps == 2 * (side - 1));
      CHECK(close(r.time, seed_cell(Collective::allgather, Network::mesh, plain(1.5, 0.25), side * side, m)));
      CHECK(close(estimate(s, mesh, CostModel{.t_r = 1}, m).time, m));
    }
  }
  SECTION("nearest-neighbour hops: the seeds drop t_h, the model charges it")
  {
    // E.g. the hypercube broadcast: seed (t_s + t_w m) log p; every message is one hop,
    // and under the model's t_s + t_h l + t_w m each pays t_h: + t_h log p.
    const CostModel c = plain(1.5, 0.25, 0.5);
    for (std::size_t p : {2, 4, 8, 16})
      CHECK(close(cf::broadcast_hypercube_hypercube(c, p, m),
                  seed_cell(Collective::broadcast, Network::hypercube, c, p, m) +
                    0.5 * static_cast<double>(std::countr_zero(p))));
  }
  SECTION("scatter then all-gather broadcast: ring all-gather, not the seed's hypercube one")
  {
    // Seed 001: 2 (t_s log p + t_w m) = scatter (t_s log p + t_w m (p-1)/p) + recursive-
    // doubling all-gather (the same). broadcast_scatter_allgather_schedule (MPICH's long-
    // message broadcast) all-gathers round the ring: the same words, p - 1 start-ups.
    const CostModel c = plain(1.5, 0.25);
    for (std::size_t p : {2, 4, 8, 16}) {
      const double P = static_cast<double>(p), L = std::log2(P);
      const double seed_exact = 2 * 1.5 * L + 2 * 0.25 * m * (P - 1) / P;
      CHECK(close(cf::broadcast_scatter_allgather_fully_connected(c, p, m), seed_exact - 1.5 * L + 1.5 * (P - 1)));
    }
  }
  SECTION("seed 002's figures")
  {
    for (std::size_t p : {2, 4, 8, 16, 32}) {
      const double n = static_cast<double>(std::countr_zero(p));
      // SEX: n (t_s + t_w m 2^(n-1)) exactly (one hop per message, t_h = 0).
      const CostModel sf = plain(1.5, 0.25, 0, Routing::store_and_forward);
      CHECK(close(cf::alltoall_standard_exchange_hypercube(sf, p, m), cf::seed::standard_exchange(sf, p, m)));
      // DEX: the seed's (2^n - 1)(t_s + n t_h/2 + t_w m) takes n/2 as the mean distance
      // over the 2^n - 1 partners; the distances sum to n 2^(n-1), so the exact cost
      // (ours, and the seed 001 cell) is larger by n t_h / 2.
      const CostModel wh = plain(1.5, 0.25, 0.5);
      CHECK(close(cf::alltoall_pairwise_xor_hypercube(wh, p, m), cf::seed::direct_exchange(wh, p, m) + n * 0.5 / 2));
    }
    for (std::size_t z : {3, 5, 7, 9, 11}) {
      // All-port cycle, z odd: t_s (z-1)/2 + t_w m z^2/8 rounds sum_{i=1}^{(z-1)/2} i =
      // (z^2 - 1)/8 up: the exact cost is t_w m / 8 less.
      const CostModel all = plain(1.5, 0.25, 0, Routing::store_and_forward, Ports::all);
      CHECK(close(cf::alltoall_ring_two_way_ring(all, z, m), cf::seed::cycle_all_port(all, z, m) - 0.25 * m / 8));
      CHECK(close(estimate(RingTwoWaySchedule(z), Ring<>{z}, all, m).time,
                  cf::seed::cycle_all_port(all, z, m) - 0.25 * m / 8));
      // One-port cycle and T(z, z) exactly.
      const CostModel one = plain(1.5, 0.25);
      CHECK(close(cf::alltoall_ring_ring(one, z, m), cf::seed::cycle_one_port(one, z, m)));
      CHECK(close(cf::alltoall_dimensional(one, Mesh<>{z, z}, m), cf::seed::torus_square(one, z, m)));
    }
  }
  SECTION("lower bounds: the seeds' and ours")
  {
    // Seed 001's ring bound t_w m (p-1) p/2 counts one direction only (its ring algorithm
    // sends one way). With full-duplex links and both directions (ring_two_way, all-port)
    // the t_w term is about a quarter of it; our bound (cut of 2 links each way:
    // t_w m floor(p/2) ceil(p/2) / 2, seed 002's T(z) bound) stays below.
    const CostModel all = plain(0, 1, 0, Routing::cut_through, Ports::all);
    for (std::size_t p : {5, 8, 9, 16}) {
      const Ring<> ring{p};
      const double P = static_cast<double>(p);
      const double two_way = estimate(RingTwoWaySchedule(p), ring, all, m).time;
      CHECK(two_way < m * (P - 1) * P / 2);
      CHECK(two_way >= lower_bound(Collective::alltoall, ring, all, Problem{m}));
      CHECK(close(lower_bound(Collective::alltoall, ring, all, Problem{m}), cf::seed::torus_alltoall_bound(all, ring, m)));
    }
    // Seed 002's hypercube work bound t_w m (2^n - 1)/2 uses n/2 as the mean distance;
    // the exact total word-hops give t_w m p/2, which the all-port schedule meets.
    for (std::size_t d = 1; d <= 5; ++d) {
      const Hypercube<> cube = Hypercube<>::of_dims(d);
      const double bound = lower_bound(Collective::alltoall, cube, all, Problem{m});
      CHECK(bound >= cf::seed::hypercube_alltoall_work_bound(all, cube.size(), m));
      CHECK(close(bound, m * static_cast<double>(cube.size()) / 2));
      CHECK(close(estimate(AllPortSchedule(cube.size()), cube, all, m).time, bound));
    }
  }
}
