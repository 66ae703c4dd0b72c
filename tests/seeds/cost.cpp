// Costs of the seeds' algorithms (issue 11). estimate() of each schedule equals its closed
// form (closed_forms.hpp) over grids of p, roots, sizes and models (both routings, both
// port models, each of t_s, t_w, t_h, t_r alone and all together) and is never below
// lower_bound(); under the seeds' assumptions (t_h = t_r = 0, one-port) it equals the
// seeds' own formulas exactly; and select() picks them on the examples, where
// they are the cheapest, and not where another algorithm is cheaper.

#include <catch2/catch.hpp>

#include "seeds.hpp"

#include <boost/hana/filter.hpp>
#include <boost/hana/integral_constant.hpp>

#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

using namespace seeds_test;
namespace cf = collectives::closed_form;
using cf::Network;

// At compile time: the seed's SF ring cell, and the default on a mesh under the seed's model.
static_assert(predict(broadcast_algorithm::ring_staggered, Ring<8>{}, seed_sf, Problem{.m = 1000}).time ==
              *cf::seed::table(Collective::broadcast, Network::ring, seed_sf, 8, 1000));
static_assert(select<Collective::scatter>(Mesh<4, 4>{}, seed_sf, Problem{.m = 1000}).name == "dimensional_ring");

namespace {

bool close(double a, double b)
{
  const double d = a > b ? a - b : b - a;
  const double s = (a > 0 ? a : -a) > (b > 0 ? b : -b) ? (a > 0 ? a : -a) : (b > 0 ? b : -b);
  return d <= 1e-12 * s || d <= 1e-300;
}

std::vector<CostModel> models()
{
  struct Params {
    double t_s, t_w, t_h, t_r;
  };
  // Each unit set isolates one term (a mismatch names it); the last mixes them.
  constexpr Params sets[] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}, {2.5, 0.125, 0.75, 0.0625}};
  std::vector<CostModel> out;
  for (Routing routing : {Routing::cut_through, Routing::store_and_forward})
    for (Ports ports : {Ports::one, Ports::all})
      for (const Params& x : sets) out.push_back(CostModel{x.t_s, x.t_w, x.t_h, x.t_r, routing, ports});
  return out;
}

std::string describe(const CostModel& c, const Problem& pr)
{
  std::ostringstream s;
  s << "t_s=" << c.t_s << " t_w=" << c.t_w << " t_h=" << c.t_h << " t_r=" << c.t_r
    << (c.routing == Routing::cut_through ? " CT" : " SF") << (c.ports == Ports::one ? " one-port" : " all-port")
    << " m=" << pr.m << " root=" << pr.root << (pr.commutative ? "" : " not commutative");
  return s.str();
}

/// Collects, for alg on topo from `pr.root`, every model and size where predict() differs
/// from closed(model, m) or falls below the lower bound.
template <class A, class Topo, class Closed>
void check_closed(A alg, const Topo& topo, Problem pr, Closed closed, const std::string& where,
                  std::vector<std::string>& bad)
{
  static const std::vector<CostModel> all = models();
  for (const CostModel& c : all)
    for (double m : {0.0, 37.0}) { // m = 0 isolates t_s and t_h; 37 is no power of two
      pr.m = m;
      const double got = predict(alg, topo, c, pr).time, want = closed(c, m);
      const double bound = lower_bound(A::collective, topo, c, pr);
      if (!close(got, want) || got < bound * (1 - 1e-12)) {
        std::ostringstream o;
        o << collective_name(A::collective) << "(" << A::name << ") on " << where << " " << describe(c, pr)
          << ": estimate " << got << ", closed form " << want << ", lower bound " << bound;
        bad.push_back(o.str());
      }
    }
}

void report(const std::vector<std::string>& bad)
{
  for (std::size_t i = 0; i < bad.size() && i < 10; ++i) FAIL_CHECK(bad[i]);
  CHECK(bad.empty());
}

} // namespace

TEST_CASE("seed costs: estimate equals the closed form on rings", "[seeds][cost]")
{
  std::vector<std::string> bad;
  for (std::size_t p : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 16, 17, 31, 32, 33}) {
    const Ring<> ring{p};
    const std::string where = "Ring<>{" + std::to_string(p) + "}";
    for (std::size_t root : {std::size_t{0}, p / 2, p - 1}) {
      const Problem pr{.root = root};
      check_closed(broadcast_algorithm::ring_staggered, ring, pr,
                   [p](const CostModel& c, double m) { return cf::broadcast_ring_staggered_ring(c, p, m); }, where, bad);
      for (bool commutative : {true, false})
        check_closed(reduce_algorithm::ring_staggered, ring, Problem{.root = root, .commutative = commutative},
                     [=](const CostModel& c, double m) { return cf::reduce_ring_staggered_ring(c, p, m, root, commutative); },
                     where, bad);
      // On a ring, one phase per dimension is the same schedule.
      check_closed(broadcast_algorithm::dimensional_ring, ring, pr,
                   [p](const CostModel& c, double m) { return cf::broadcast_ring_staggered_ring(c, p, m); }, where, bad);
      check_closed(scatter_algorithm::dimensional_ring, ring, pr,
                   [&](const CostModel& c, double m) { return cf::scatter_dimensional_ring(c, ring, m); }, where, bad);
    }
  }
  report(bad);
}

TEST_CASE("seed costs: estimate equals the closed form on meshes and tori", "[seeds][cost]")
{
  std::vector<std::string> bad;
  auto shapes = torus_shapes();
  shapes.push_back({8, 8});
  shapes.push_back({3, 4, 5});
  for (const auto& e : shapes)
    with_torus(e, [&](const auto& topo) {
      const std::size_t p = topo.size();
      for (std::size_t root : {std::size_t{0}, p / 2, p - 1}) {
        const Problem pr{.root = root};
        const std::string where = shape_name(e);
        check_closed(broadcast_algorithm::dimensional_ring, topo, pr,
                     [&](const CostModel& c, double m) { return cf::broadcast_dimensional_ring(c, topo, m); }, where, bad);
        for (bool commutative : {true, false})
          check_closed(reduce_algorithm::dimensional_ring, topo, Problem{.root = root, .commutative = commutative},
                       [&](const CostModel& c, double m) {
                         return cf::reduce_dimensional_ring(c, topo, m, root, commutative);
                       },
                       where, bad);
        check_closed(scatter_algorithm::dimensional_ring, topo, pr,
                     [&](const CostModel& c, double m) { return cf::scatter_dimensional_ring(c, topo, m); }, where, bad);
        check_closed(gather_algorithm::dimensional_ring, topo, pr,
                     [&](const CostModel& c, double m) { return cf::scatter_dimensional_ring(c, topo, m); }, where, bad);
      }
    });
  report(bad);
}

TEST_CASE("seed costs: estimate equals the closed form on hypercubes", "[seeds][cost]")
{
  std::vector<std::string> bad;
  for (std::size_t d = 0; d <= 6; ++d) {
    const auto cube = Hypercube<>::of_dims(d);
    const std::size_t p = cube.size();
    const std::string where = "hypercube of " + std::to_string(d);
    for (std::size_t root : {std::size_t{0}, p / 2 + (p > 2 ? 1 : 0), p - 1}) {
      const Problem pr{.root = root};
      check_closed(broadcast_algorithm::scatter_allgather_hypercube, cube, pr,
                   [p](const CostModel& c, double m) { return cf::broadcast_scatter_allgather_hypercube_hypercube(c, p, m); },
                   where, bad);
      for (bool commutative : {true, false})
        check_closed(reduce_algorithm::reduce_scatter_gather_hypercube, cube, Problem{.root = root, .commutative = commutative},
                     [p](const CostModel& c, double m) { return cf::reduce_scatter_gather_hypercube_hypercube(c, p, m); },
                     where, bad);
      // A hypercube is d rings of two: one phase per dimension.
      check_closed(broadcast_algorithm::dimensional_ring, cube, pr,
                   [&](const CostModel& c, double m) { return cf::broadcast_dimensional_ring(c, cube, m); }, where, bad);
      check_closed(scatter_algorithm::dimensional_ring, cube, pr,
                   [&](const CostModel& c, double m) { return cf::scatter_dimensional_ring(c, cube, m); }, where, bad);
    }
  }
  report(bad);
}

namespace {

/// The seeds' models: t_h = t_r = 0, one-port, this routing; t_s and t_w alone and mixed.
std::vector<CostModel> seed_models(Routing routing)
{
  return {CostModel{.t_s = 1, .routing = routing}, CostModel{.t_w = 1, .routing = routing},
          CostModel{.t_s = 64, .t_w = 0.5, .routing = routing}, CostModel{.t_s = 3e-6, .t_w = 2.5e-9, .routing = routing}};
}

} // namespace

TEST_CASE("seed costs: the seeds' formulas exactly, under the seeds' models", "[seeds][cost]")
{
  const double sizes[] = {0, 1, 1000, 4096};
  SECTION("SF ring broadcast and reduction: (t_s + t_w m) ceil(p/2), every p")
  {
    for (const CostModel& c : seed_models(Routing::store_and_forward))
      for (std::size_t p = 2; p <= 40; ++p)
        for (double m : sizes) {
          INFO("p = " << p << ", " << describe(c, Problem{.m = m}));
          const Ring<> ring{p};
          const double seed = *cf::seed::table(Collective::broadcast, Network::ring, c, p, m);
          CHECK(close(predict(broadcast_algorithm::ring_staggered, ring, c, Problem{.m = m, .root = p / 3}).time, seed));
          CHECK(close(predict(reduce_algorithm::ring_staggered, ring, c, Problem{.m = m, .root = p / 3}).time,
                      *cf::seed::table(Collective::reduce, Network::ring, c, p, m)));
        }
  }
  SECTION("SF mesh broadcast and reduction: 2(t_s + t_w m) ceil(sqrt(p)/2); 3-D: 3(t_s + t_w m) ceil(p^(1/3)/2)")
  {
    for (const CostModel& c : seed_models(Routing::store_and_forward))
      for (std::size_t z = 2; z <= 9; ++z)
        for (double m : sizes) {
          INFO("side " << z << ", " << describe(c, Problem{.m = m}));
          const Mesh<> mesh{z, z};
          const Problem pr{.m = m, .root = z + 1};
          const double seed = *cf::seed::table(Collective::broadcast, Network::mesh, c, z * z, m);
          CHECK(close(predict(broadcast_algorithm::dimensional_ring, mesh, c, pr).time, seed));
          CHECK(close(predict(reduce_algorithm::dimensional_ring, mesh, c, pr).time,
                      *cf::seed::table(Collective::reduce, Network::mesh, c, z * z, m)));
          CHECK(close(cf::seed::mesh_broadcast_sf(c, 2, z, m), seed));
          if (z <= 5) {
            const Torus<dynamic_extent, dynamic_extent, dynamic_extent> cube{z, z, z};
            const double seed3 = cf::seed::mesh_broadcast_sf(c, 3, z, m);
            CHECK(close(predict(broadcast_algorithm::dimensional_ring, cube, c, pr).time, seed3));
            CHECK(close(predict(reduce_algorithm::dimensional_ring, cube, c, pr).time, seed3));
          }
        }
  }
  SECTION("split hypercube broadcast and its reduction: 2(t_s log p + t_w m (p - 1)/p), SF and CT")
  {
    for (Routing routing : {Routing::store_and_forward, Routing::cut_through})
      for (const CostModel& c : seed_models(routing))
        for (std::size_t d = 1; d <= 7; ++d)
          for (double m : sizes) {
            const auto cube = Hypercube<>::of_dims(d);
            const std::size_t p = cube.size();
            INFO("p = " << p << ", " << describe(c, Problem{.m = m}));
            const double seed = cf::seed::split_broadcast(c, p, m);
            for (std::size_t root : {std::size_t{0}, p - 1}) {
              const Problem pr{.m = m, .root = root, .commutative = false};
              CHECK(close(predict(broadcast_algorithm::scatter_allgather_hypercube, cube, c, pr).time, seed));
              CHECK(close(predict(reduce_algorithm::reduce_scatter_gather_hypercube, cube, c, pr).time, seed));
            }
          }
  }
  SECTION("mesh scatter and gather: 2 t_s (sqrt(p) - 1) + t_w m (p - 1), SF and CT")
  {
    for (Routing routing : {Routing::store_and_forward, Routing::cut_through})
      for (const CostModel& c : seed_models(routing))
        for (std::size_t z = 1; z <= 9; ++z)
          for (double m : sizes) {
            INFO("side " << z << ", " << describe(c, Problem{.m = m}));
            const Mesh<> mesh{z, z};
            const Problem pr{.m = m, .root = z * z - 1};
            CHECK(close(predict(scatter_algorithm::dimensional_ring, mesh, c, pr).time,
                        *cf::seed::table(Collective::scatter, Network::mesh, c, z * z, m)));
            CHECK(close(predict(gather_algorithm::dimensional_ring, mesh, c, pr).time,
                        *cf::seed::table(Collective::gather, Network::mesh, c, z * z, m)));
          }
  }
}

namespace {

/// The cheapest of collective C's algorithms other than the ones issue 11 added: what the
/// default picked before.
template <Collective C, class Topo>
Selection before(const Topo& topo, const CostModel& model, const Problem& pr)
{
  constexpr auto old = boost::hana::filter(algorithms<C>, [](auto a) { return boost::hana::bool_c<!is_added<decltype(a)>()>; });
  return select(old, topo, model, pr);
}

} // namespace

TEST_CASE("seed costs: the issue's examples, before and after, and what the default picks", "[seeds][cost][select]")
{
  SECTION("SF ring broadcast, one-port, Ring<64>: 18612 -> 18048")
  {
    const Ring<> ring{64};
    const Problem pr{.m = 1000};
    CHECK(predict(broadcast_algorithm::ring, ring, seed_sf, pr).time == 18612);
    CHECK(predict(broadcast_algorithm::ring_staggered, ring, seed_sf, pr).time == 18048);
    CHECK(predict(reduce_algorithm::ring, ring, seed_sf, pr).time == 18612);
    CHECK(predict(reduce_algorithm::ring_staggered, ring, seed_sf, pr).time == 18048);
    // At m = 1000 the split broadcast (scatter + ring all-gather) beats the seeds' cell, and
    // stays the default; from m ~ 110 to ~ 490 the staggered ring is the cheapest.
    const Selection at1000 = select<Collective::broadcast>(ring, seed_sf, pr);
    CHECK(at1000.name == "scatter_allgather");
    CHECK(at1000.time < 18048);
    const Problem mid{.m = 300};
    CHECK(before<Collective::broadcast>(ring, seed_sf, mid).time == 7062); // ring
    CHECK(select<Collective::broadcast>(ring, seed_sf, mid).name == "ring_staggered");
    CHECK(select<Collective::broadcast>(ring, seed_sf, mid).time == 6848);
    // The reduction has no such split on a ring: the staggered one is the default.
    CHECK(before<Collective::reduce>(ring, seed_sf, pr).time == 18612);
    CHECK(select<Collective::reduce>(ring, seed_sf, pr).name == "ring_staggered");
    // All-port with p odd the old ring keeps its one step less, and stays the default.
    const Ring<> odd{63};
    const CostModel all_port{.t_s = 64, .t_w = 0.5, .routing = Routing::store_and_forward, .ports = Ports::all};
    CHECK(predict(broadcast_algorithm::ring, odd, all_port, mid).time == 31 * 214);
    CHECK(predict(broadcast_algorithm::ring_staggered, odd, all_port, mid).time == 32 * 214);
    CHECK(select<Collective::broadcast>(odd, all_port, mid).name == "ring");
  }
  SECTION("SF mesh broadcast, Mesh<8,8>: 6877 -> 4512")
  {
    const Mesh<> mesh{8, 8};
    const Problem pr{.m = 1000};
    const Selection old = before<Collective::broadcast>(mesh, seed_sf, pr);
    CHECK(old.name == "scatter_allgather");
    CHECK(old.time == Approx(6876.94).epsilon(1e-6));
    const Selection now = select<Collective::broadcast>(mesh, seed_sf, pr);
    CHECK(now.name == "dimensional_ring");
    CHECK(now.time == 4512);
    CHECK(now.time == *cf::seed::table(Collective::broadcast, Network::mesh, seed_sf, 64, 1000));
    // The reduction: on Mesh<6,6> (no power-of-two split) the per-dimension ring wins.
    const Mesh<> six{6, 6};
    const Problem r9{.m = 1000, .root = 9};
    CHECK(before<Collective::reduce>(six, seed_sf, r9).time == 5384);
    CHECK(select<Collective::reduce>(six, seed_sf, r9).name == "dimensional_ring");
    CHECK(select<Collective::reduce>(six, seed_sf, r9).time == 3384);
  }
  SECTION("long-message hypercube broadcast, Hypercube<6>, m = 1024: 3456 -> 1776")
  {
    const auto cube = Hypercube<>::of_dims(6);
    for (const CostModel& c : {seed_sf, seed_ct}) {
      const Problem pr{.m = 1024, .root = 5};
      CHECK(before<Collective::broadcast>(cube, c, pr).time == 3456);
      const Selection now = select<Collective::broadcast>(cube, c, pr);
      CHECK(now.name == "scatter_allgather_hypercube");
      CHECK(now.time == 1776); // 2(t_s log p + t_w m (p - 1)/p); the 1792 rounds (p - 1)/p to 1
      CHECK(now.time == cf::seed::split_broadcast(c, 64, 1024));
    }
    // The reduction: from a root other than 0 under SF the hypercube gather crosses one
    // link per message, the binomial one of reduce_scatter_gather does not.
    const Problem r5{.m = 1024, .root = 5};
    CHECK(before<Collective::reduce>(cube, seed_sf, r5).time == 1912);
    CHECK(select<Collective::reduce>(cube, seed_sf, r5).name == "reduce_scatter_gather_hypercube");
    CHECK(select<Collective::reduce>(cube, seed_sf, r5).time == 1776);
  }
  SECTION("SF mesh scatter and gather, Mesh<8,8>: 63532 -> 32396")
  {
    const Mesh<> mesh{8, 8};
    const Problem pr{.m = 1000};
    CHECK(before<Collective::scatter>(mesh, seed_sf, pr).time == 63532);
    CHECK(before<Collective::gather>(mesh, seed_sf, pr).time == 63532);
    for (const Selection& now : {select<Collective::scatter>(mesh, seed_sf, pr), select<Collective::gather>(mesh, seed_sf, pr)}) {
      CHECK(now.name == "dimensional_ring");
      CHECK(now.time == 32396);
      CHECK(now.time == *cf::seed::table(Collective::scatter, Network::mesh, seed_sf, 64, 1000));
    }
    // Under cut-through the binomial trees' fewer start-ups win: 6 t_s instead of 14.
    const Selection ct = select<Collective::scatter>(mesh, seed_ct, pr);
    CHECK(ct.name != std::string_view("dimensional_ring"));
    CHECK(ct.time == 32396 - 8 * 64);
  }
}
