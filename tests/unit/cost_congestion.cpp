// Congestion as estimate() reports it (CostReport::congestion): the most messages sharing
// one directed link in one step, per algorithm and network.

#include <catch2/catch.hpp>

#include <collectives/algorithm/allgather/dimensional.hpp>
#include <collectives/algorithm/allgather/recursive_doubling.hpp>
#include <collectives/algorithm/allgather/ring.hpp>
#include <collectives/algorithm/allreduce/recursive_doubling.hpp>
#include <collectives/algorithm/allreduce/ring.hpp>
#include <collectives/algorithm/alltoall/bruck.hpp>
#include <collectives/algorithm/alltoall/dimensional.hpp>
#include <collectives/algorithm/alltoall/hypercube.hpp>
#include <collectives/algorithm/alltoall/linear.hpp>
#include <collectives/algorithm/alltoall/pairwise.hpp>
#include <collectives/algorithm/broadcast/linear.hpp>
#include <collectives/algorithm/broadcast/tree.hpp>
#include <collectives/algorithm/gather/linear.hpp>
#include <collectives/algorithm/scatter/linear.hpp>
#include <collectives/cost/closed_forms.hpp>
#include <collectives/algorithm/shift/direct.hpp>
#include <collectives/schedule/rings.hpp>
#include <collectives/cost/fully_connected.hpp>
#include <collectives/cost/schedule_cost.hpp>
#include <collectives/cost/select.hpp>
#include <collectives/topology.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <map>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

using namespace collectives;

namespace {

constexpr CostModel one_port{.t_s = 1, .t_w = 1};
constexpr CostModel all_port{.t_s = 1, .t_w = 1, .ports = Ports::all};

/// Step k of schedule s alone (the others do nothing), to look at one step's congestion.
template <schedule S>
class OneStep {
public:
  constexpr OneStep(S s, std::size_t k) : s_(s), k_(k) {}
  constexpr std::size_t size() const { return s_.size(); }
  constexpr std::size_t num_steps() const { return 1; }
  constexpr std::size_t scratch_blocks() const { return s_.scratch_blocks(); }
  constexpr auto operation() const { return s_.operation(); }
  template <class V>
  constexpr void visit(std::size_t r, std::size_t, V& v) const { s_.visit(r, k_, v); }

private:
  S s_;
  std::size_t k_;
};

template <class S, class T>
constexpr std::size_t congestion(const S& s, const T& topo, const CostModel& model = one_port)
{
  return estimate(s, topo, model, 1).congestion;
}

// Seed 001: pairwise exchange with partner rank XOR j under E-cube routing is
// congestion-free on the hypercube (and so is every q-shift, Figure 3.24).
static_assert(congestion(PairwiseXorSchedule(8), Hypercube<3>{}) == 1);
static_assert(congestion(ShiftDirectSchedule(8, 3), Hypercube<3>{}) == 1);
// Seed 001 Figure 3.14: the hypercube all-to-all broadcast mapped onto a ring: the
// step of Figure 3.12(c) (partners 2 apart) puts two messages on a channel.
static_assert(congestion(OneStep(AllgatherRecursiveDoublingSchedule(8), 1), Ring<8>{}) == 2);

} // namespace

TEST_CASE("congestion: hypercube algorithms on the hypercube are congestion-free", "[cost][congestion]")
{
  for (std::size_t d = 1; d <= 6; ++d) {
    const Hypercube<> cube = Hypercube<>::of_dims(d);
    for (const CostModel& model : {one_port, all_port}) {
      CHECK(congestion(PairwiseXorSchedule(cube.size()), cube, model) == 1);
      CHECK(congestion(StandardExchangeSchedule(cube.size()), cube, model) == 1);
      CHECK(congestion(AllPortSchedule(cube.size()), cube, model) == 1);
      CHECK(congestion(AllgatherRecursiveDoublingSchedule(cube.size()), cube, model) == 1);
      CHECK(congestion(BroadcastTreeSchedule(cube.size(), bits_shape(cube.size()), cube.size() - 1), cube, model) == 1);
      for (std::size_t q = 1; q < cube.size(); ++q)
        CHECK(congestion(ShiftDirectSchedule(cube.size(), static_cast<std::ptrdiff_t>(q)), cube, model) == 1);
    }
  }
}

TEST_CASE("congestion: hypercube algorithms mapped onto a ring", "[cost][congestion]")
{
  // Seed 001 Figure 3.14 ("all-to-all: mapping HC algo to ring is not strictly better
  // because of congestion"): step i's partners are 2^i apart on the ring, and with every
  // rank sending, each link in the direction of travel carries 2^i messages.
  for (std::size_t p : {4, 8, 16, 32}) {
    const Ring<> ring{p};
    const AllgatherRecursiveDoublingSchedule s(p);
    for (std::size_t i = 0; i < s.num_steps(); ++i)
      CHECK(congestion(OneStep(s, i), ring) == (std::size_t{1} << i));
    CHECK(congestion(s, ring) == p / 2);
    CHECK(congestion(StandardExchangeSchedule(ring.size()), ring) == p / 2);
    // The ring's own algorithm passes to the neighbour only.
    CHECK(congestion(AllgatherRingSchedule(ring.size()), ring) == 1);
  }
}

TEST_CASE("congestion: direct exchanges on a ring", "[cost][congestion]")
{
  // Every rank sends k ahead in step k: min(k, p - k) messages on each link.
  for (std::size_t p = 2; p <= 12; ++p) {
    const Ring<> ring{p};
    CHECK(congestion(PairwiseSchedule(ring.size()), ring) == p / 2);
    for (std::size_t q = 1; q < p; ++q)
      CHECK(congestion(ShiftDirectSchedule(ring.size(), static_cast<std::ptrdiff_t>(q)), ring) ==
            (q < p - q ? q : p - q));
    CHECK(congestion(BruckSchedule(p), FullyConnected<>{p}) == 1);
  }
}

TEST_CASE("congestion: meshes", "[cost][congestion]")
{
  // The dimension-by-dimension algorithms use nearest neighbours only.
  for (auto [r, c] : {std::pair{2, 4}, {3, 3}, {4, 4}, {3, 5}}) {
    const Mesh<> mesh{static_cast<std::size_t>(r), static_cast<std::size_t>(c)};
    CHECK(congestion(DimensionalSchedule(rings_of(mesh)), mesh) == 1);
    CHECK(congestion(AllgatherDimensionalSchedule(rings_of(mesh)), mesh) == 1);
  }
  // Seed 002: the hypercube's direct exchange simulated on a mesh with XY routing meets
  // link congestion (up to max(z1, z2)/2 on the open mesh M(z1, z2)). With wraparound
  // (our Mesh is a torus) the XOR partners of an 8 x 8 torus still share links.
  const Mesh<> mesh{8, 8};
  CHECK(congestion(PairwiseXorSchedule(mesh.size()), mesh) > 1);
  CHECK(congestion(PairwiseXorSchedule(mesh.size()), mesh) <= 4);
}

TEST_CASE("congestion: one-port counts each sending rank once per link", "[cost][congestion]")
{
  // The all-port hypercube schedule on a ring of 4: rank 0 sends to 1 and to 2 (both via
  // link 0->1) and rank 3 sends to 1 (via 3->0->1). All-port, the three messages share
  // link 0->1 at once; one-port rank 0's two go one after the other, so two ranks share it.
  const Ring<> ring{4};
  CHECK(congestion(AllPortSchedule(ring.size()), ring, all_port) == 3);
  CHECK(congestion(AllPortSchedule(ring.size()), ring, one_port) == 2);
}

namespace {

/// A step's routes as MessageStep gives them to its link loads: from, to and the number of
/// the source (a source's routes together).
struct Route {
  std::size_t from, to, seq;
};

/// The loads of `routes` on `torus` counted link by link and by arcs (ArcLinkLoad's two
/// ways), and by a plain count over RouteWalker's links (each route, or under one-port each
/// source, once per link): the same most() and the same worst link of every route.
template <class T>
std::string compare_link_loads(const T& torus, const std::vector<Route>& routes, bool one_port_sources)
{
  using Load = detail::ArcLinkLoad<T>;
  Load links(torus, one_port_sources, Load::Mode::links), arcs(torus, one_port_sources, Load::Mode::arcs);
  const detail::RouteWalker<T> walker(torus);
  std::map<std::size_t, std::set<std::size_t>> on_link; // link -> the routes (or sources) on it
  for (int step = 0; step < 2; ++step) { // twice: what one step leaves must not count in the next
    links.next_step();
    arcs.next_step();
    on_link.clear();
    for (std::size_t i = 0; i < routes.size(); ++i) {
      const Route& r = routes[i];
      const std::size_t a = links.add_route(r.from, r.to, r.seq), b = arcs.add_route(r.from, r.to, r.seq);
      const std::size_t hops = walker.walk(r.from, r.to, [&](std::size_t id) { on_link[id].insert(one_port_sources ? r.seq : i); });
      if (a != hops || b != hops) return "hops of route " + std::to_string(i);
    }
    links.seal(routes);
    arcs.seal(routes);
    std::size_t most = 0;
    for (const auto& [id, on] : on_link) most = std::max(most, on.size());
    if (links.most() != most || arcs.most() != most)
      return "most " + std::to_string(links.most()) + ", " + std::to_string(arcs.most()) + " (want " + std::to_string(most) + ")";
    if (most <= 1) continue; // (worst is asked only then)
    for (std::size_t i = 0; i < routes.size(); ++i) {
      std::size_t want = 1;
      walker.walk(routes[i].from, routes[i].to, [&](std::size_t id) { want = std::max(want, on_link[id].size()); });
      const std::size_t a = links.worst(i, routes[i].from, routes[i].to), b = arcs.worst(i, routes[i].from, routes[i].to);
      if (a != want || b != want)
        return "worst of route " + std::to_string(i) + ": " + std::to_string(a) + ", " + std::to_string(b) + " (want " +
               std::to_string(want) + ")";
    }
  }
  return {};
}

} // namespace

TEST_CASE("link loads on tori: counted by arcs as link by link", "[cost][congestion]")
{
  // A linear broadcast's routes (every route from one root: long and nested), on rings.
  for (std::size_t p : {2, 3, 4, 7, 8, 33, 256}) {
    std::vector<Route> routes;
    for (std::size_t to = 0; to < p; ++to) routes.push_back({p / 3, to, 0});
    for (bool one : {false, true}) {
      INFO("ring of " << p << ", one-port " << one);
      CHECK(compare_link_loads(Ring<>{p}, routes, one).empty());
    }
  }
  // Random routes on rings and 2-D and 3-D tori (extents 1, 2 and odd ones included),
  // several per source, some to the source itself.
  std::mt19937_64 random(12345);
  for (int round = 0; round < 600; ++round) {
    const std::size_t dims = 1 + round % 3;
    std::array<std::size_t, 3> z{};
    std::size_t p = 1;
    for (std::size_t d = 0; d < dims; ++d) p *= z[d] = 1 + random() % (dims == 1 ? 40 : 7);
    std::vector<Route> routes;
    for (std::size_t seq = 0, sources = 1 + random() % p; seq < sources; ++seq) {
      const std::size_t from = random() % p;
      for (std::size_t k = 1 + random() % 6; k > 0; --k) routes.push_back({from, static_cast<std::size_t>(random() % p), seq});
    }
    for (bool one : {false, true}) {
      INFO("round " << round << ", " << dims << "-D torus of " << p << ", one-port " << one);
      std::string failure;
      if (dims == 1) failure = compare_link_loads(Ring<>{z[0]}, routes, one);
      else if (dims == 2) failure = compare_link_loads(Mesh<>{z[0], z[1]}, routes, one);
      else failure = compare_link_loads(Torus<dynamic_extent, dynamic_extent, dynamic_extent>{z[0], z[1], z[2]}, routes, one);
      CHECK(failure == "");
    }
  }
}

// All-port, a linear broadcast on a ring is walked with its links counted by arcs (its
// routes average p / 4 hops): the congestion the root's p - 1 routes put on its two links.
static_assert(congestion(BroadcastLinearSchedule(64, 0), Ring<64>{}, all_port) == 32);

TEST_CASE("machine terms: half-duplex ranks copy both directions, lanes time-share the cores", "[cost][congestion]")
{
  constexpr double m = 100;
  // Pairwise alltoall on a fully connected network: every step, every rank sends one
  // block and receives one, so each rank is busy t_s + t_w m per direction.
  for (std::size_t p = 2; p <= 9; ++p) {
    const FullyConnected<> net{p};
    const PairwiseSchedule s(p);
    const double steps = static_cast<double>(p - 1);
    CAPTURE(p);
    CHECK(estimate(s, net, one_port, m).time == steps * (1 + m));
    // Half-duplex: the words of both directions add up, the start-ups overlap.
    CostModel half = one_port;
    half.half_duplex = true;
    CHECK(estimate(s, net, half, m).time == steps * (1 + 2 * m));
    // ... added up, never as a start-up worked out by subtraction: a word time beyond the
    // doubles is an infinite time, not NaN.
    CostModel huge = half;
    huge.t_w = 1e300;
    CHECK(std::isinf(estimate(s, net, huge, 1e15).time));
    // Lanes: p ranks busy 1 + m each on `lanes` cores take p / lanes times as long; as
    // many lanes as ranks (or more, or 0) change nothing.
    for (std::size_t lanes : {std::size_t{1}, std::size_t{2}, std::size_t{3}, p, p + 1, std::size_t{0}}) {
      CostModel shared = one_port;
      shared.lanes = lanes;
      const double factor = lanes != 0 && lanes < p ? static_cast<double>(p) / static_cast<double>(lanes) : 1.0;
      CHECK(estimate(s, net, shared, m).time == Approx(steps * (1 + m) * factor));
    }
  }
  // A binomial broadcast from 0 on 8 ranks: step k has 2^k senders and as many receivers
  // (each busy 1 + m), so with 2 lanes its steps take 1, 2 and 4 times (1 + m): the
  // first step's one message is not shortened by cores nobody uses.
  const FullyConnected<> net{8};
  const BroadcastTreeSchedule tree(8, ring_shape(8), 0);
  CostModel two_lanes = one_port;
  two_lanes.lanes = 2;
  CHECK(estimate(tree, net, one_port, m).time == 3 * (1 + m));
  CHECK(estimate(tree, net, two_lanes, m).time == Approx((1 + 2 + 4) * (1 + m)));
  // Both terms are off in the default model and in the seeds' models.
  STATIC_REQUIRE(!default_cost_model.half_duplex);
  STATIC_REQUIRE(default_cost_model.lanes == 0);
  // ... and the estimate stays a constant expression with them on.
  constexpr CostModel both{.t_s = 1, .t_w = 1, .half_duplex = true, .lanes = 2};
  STATIC_REQUIRE(estimate(PairwiseSchedule(4), FullyConnected<4>{}, both, 1).time == 3 * (1 + 2) * 2);
}

TEST_CASE("machine terms: a crossbar routes every message in one hop on a path of its own", "[cost][congestion]")
{
  // On a crossbar model every topology costs what FullyConnected costs without it, for any
  // schedule, routing and port model: the topology only numbers the ranks.
  const auto same_as_fully_connected = [](const auto& s, const auto& topo) {
    const FullyConnected<> full{topo.size()};
    for (Routing routing : {Routing::cut_through, Routing::store_and_forward})
      for (Ports ports : {Ports::one, Ports::all})
        for (bool half : {false, true}) {
          const CostModel plain{.t_s = 3, .t_w = 0.25, .t_h = 0.5, .t_r = 0.125, .routing = routing, .ports = ports,
                                .half_duplex = half};
          CostModel cross = plain;
          cross.crossbar = true;
          CAPTURE(static_cast<int>(routing), static_cast<int>(ports), half);
          const CostReport on_topo = estimate(s, topo, cross, 7), on_full = estimate(s, full, plain, 7);
          CHECK(on_topo == on_full);
        }
  };
  same_as_fully_connected(PairwiseSchedule(8), Ring<8>{});
  same_as_fully_connected(AlltoallLinearSchedule(8), Ring<8>{});
  same_as_fully_connected(GatherLinearSchedule(6, 2), Ring<>{6});
  same_as_fully_connected(ScatterLinearSchedule(6, 5), Mesh<2, 3>{});
  same_as_fully_connected(BroadcastTreeSchedule(9, ring_shape(9), 4), Mesh<3, 3>{});
  same_as_fully_connected(AllPortSchedule(8), Ring<8>{});
  // The linear gather on a ring shares the links into the root; on a crossbar it does not.
  CHECK(congestion(GatherLinearSchedule(8, 0), Ring<8>{}) == 4);
  CostModel cross = one_port;
  cross.crossbar = true;
  CHECK(congestion(GatherLinearSchedule(8, 0), Ring<8>{}, cross) == 1);
  // The lower bound follows: no cut of the ring limits a crossbar.
  for (Collective op : {Collective::alltoall, Collective::gather, Collective::allgather, Collective::broadcast}) {
    CAPTURE(static_cast<int>(op));
    CHECK(lower_bound(op, Ring<8>{}, cross, Problem{5}) == lower_bound(op, FullyConnected<8>{}, one_port, Problem{5}));
  }
  CHECK(estimate(AlltoallLinearSchedule(8), Ring<8>{}, cross, 5).time >=
        lower_bound(Collective::alltoall, Ring<8>{}, cross, Problem{5}));
  STATIC_REQUIRE(!default_cost_model.crossbar);
  constexpr CostModel static_cross{.t_s = 1, .t_w = 1, .crossbar = true};
  STATIC_REQUIRE(estimate(GatherLinearSchedule(4, 0), Ring<4>{}, static_cross, 1).time == 3 * (1 + 1));
}

TEST_CASE("machine terms: t_sync is paid once per step by each rank with a message and once by a step on lanes",
          "[cost][congestion]")
{
  constexpr double m = 10, sync = 1000;
  CostModel with = one_port;
  with.t_sync = sync;
  for (std::size_t p = 2; p <= 9; ++p) {
    const FullyConnected<> net{p};
    CAPTURE(p);
    // Every rank has a message in each of the pairwise exchange's p - 1 steps, and in the
    // linear exchange's one step: the same messages, p - 2 fewer waits.
    const double steps = static_cast<double>(p - 1);
    CHECK(estimate(PairwiseSchedule(p), net, with, m).time == estimate(PairwiseSchedule(p), net, one_port, m).time +
                                                                  steps * sync);
    CHECK(estimate(AlltoallLinearSchedule(p), net, with, m).time ==
          estimate(AlltoallLinearSchedule(p), net, one_port, m).time + sync);
    // A rank's messages to itself are no message: at p = 1 nothing waits.
    CHECK(estimate(AlltoallLinearSchedule(1), FullyConnected<>{1}, with, m).time == 0);
  }
  // With lanes the ranks' work shares the cores and their waits overlap: a step of the
  // pairwise exchange on 8 ranks (each rank busy 1 + m, one-port) takes one wait plus
  // 8 (1 + m) / 2, not 8 (1 + m + sync) / 2; the linear scatter's root alone is busy
  // 7 (1 + m) + sync, more than sync + 14 (1 + m) / 2 on 2 lanes, and that is its step.
  CostModel shared = with;
  shared.lanes = 2;
  CHECK(estimate(PairwiseSchedule(8), FullyConnected<8>{}, shared, m).time ==
        Approx(7 * (sync + 8 * (1 + m) / 2)));
  shared.lanes = 3;
  CHECK(estimate(ScatterLinearSchedule(8, 3), FullyConnected<8>{}, shared, m).time == Approx(7 * (1 + m) + sync));
  // It is a term beyond the seeds: off by default, and a bad value is rejected by name.
  STATIC_REQUIRE(default_cost_model.t_sync == 0);
  CostModel bad = one_port;
  for (double x : {-1.0, std::nan(""), HUGE_VAL}) {
    bad.t_sync = x;
    CHECK_THROWS_WITH(bad.validated(), "collectives::CostModel: t_sync must be finite and non-negative");
  }
}

TEST_CASE("machine terms: t_fresh prices words the sender wrote during the collective", "[cost][congestion]")
{
  constexpr double m = 10, fresh = 100;
  constexpr CostModel with{.t_s = 1, .t_w = 1, .t_fresh = fresh};
  const FullyConnected<2> two{};
  // The ring all-reduce's second step sends what its first combined (the output), one
  // fresh message each way; its first sends inputs.
  CHECK(estimate(allreduce_ring_schedule(2), two, with, m).time ==
        estimate(allreduce_ring_schedule(2), two, one_port, m).time + fresh * m);
  // Half-duplex, a rank's send and receive of it both count.
  CostModel hd = with, hd0 = one_port;
  hd.half_duplex = hd0.half_duplex = true;
  CHECK(estimate(allreduce_ring_schedule(2), two, hd, m).time ==
        estimate(allreduce_ring_schedule(2), two, hd0, m).time + 2 * fresh * m);
  // Recursive doubling out of place exchanges the inputs: nothing fresh. In place its
  // vector is in the output, which it sends.
  CHECK(estimate(allreduce_doubling_schedule(2, false, true), two, with, m) ==
        estimate(allreduce_doubling_schedule(2, false, true), two, one_port, m));
  CHECK(estimate(allreduce_doubling_schedule(2, true, true), two, with, m).time ==
        estimate(allreduce_doubling_schedule(2, true, true), two, one_port, m).time + fresh * m);
  // The ring all-gather sends its own block from the input, then forwards what it received:
  // p - 2 fresh steps.
  for (std::size_t p = 2; p <= 7; ++p) {
    CAPTURE(p);
    const FullyConnected<> net{p};
    CHECK(estimate(AllgatherRingSchedule(p), net, with, m).time ==
          estimate(AllgatherRingSchedule(p), net, one_port, m).time + static_cast<double>(p - 2) * fresh * m);
    // A lower bound without the term is still a lower bound.
    CHECK(lower_bound(Collective::allgather, net, with, Problem{m}) <=
          estimate(AllgatherRingSchedule(p), net, with, m).time);
  }
  // In constant evaluation too.
  static_assert(estimate(allreduce_ring_schedule(2), Ring<2>{}, with, m).time ==
                estimate(allreduce_ring_schedule(2), Ring<2>{}, one_port, m).time + fresh * m);
  // What it is for: with a threads team's terms at p = 2, an all-reduce that splits the
  // vector (the ring, or Rabenseifner's, which at p = 2 makes the same two steps and is
  // listed first) is picked over recursive doubling from about 4400 words (it combines half
  // as much), and with t_fresh = t_w not at all (measured, bench_collectives: the ring
  // 1.25-2.6x slower from 32 KiB).
  constexpr CostModel node{.t_s = 0.5e-6, .t_w = 0.5e-9, .t_r = 0.25e-9, .half_duplex = true, .crossbar = true};
  constexpr CostModel node_fresh{.t_s = 0.5e-6, .t_w = 0.5e-9, .t_r = 0.25e-9, .half_duplex = true,
                                 .crossbar = true, .t_fresh = 0.5e-9};
  for (double words : {8192.0, 32768.0, 131072.0}) {
    CAPTURE(words);
    const std::string_view split = select<Collective::allreduce>(Ring<2>{}, node, Problem{words}).name;
    CHECK((split == "ring" || split == "rabenseifner"));
    CHECK(estimate(allreduce_rabenseifner_schedule(2, false, true), Ring<2>{}, node, words) ==
          estimate(allreduce_ring_schedule(2), Ring<2>{}, node, words));
    CHECK(std::string_view(select<Collective::allreduce>(Ring<2>{}, node_fresh, Problem{words}).name) ==
          "recursive_doubling");
  }
  static_assert(std::string_view(select<Collective::allreduce>(Ring<2>{}, node_fresh, Problem{32768}).name) ==
                "recursive_doubling");
  // It is a term beyond the seeds: off by default, and a bad value is rejected by name.
  STATIC_REQUIRE(default_cost_model.t_fresh == 0);
  CostModel bad = one_port;
  for (double x : {-1.0, std::nan(""), HUGE_VAL}) {
    bad.t_fresh = x;
    CHECK_THROWS_WITH(bad.validated(), "collectives::CostModel: t_fresh must be finite and non-negative");
  }
}

// The estimate's per-rank and per-link tables (detail::ZeroedArray): zeroed, copied deep,
// moved, re-zeroed; at compile time (where it replaces std::vector to save the compilers'
// steps) and at run time.
namespace {
constexpr bool zeroed_array_laws()
{
  detail::ZeroedArray<std::size_t> a;
  bool ok = a.empty() && a.size() == 0 && a.data() == nullptr;
  a.zero(5);
  ok = ok && a.size() == 5 && a[0] == 0 && a[4] == 0;
  a[2] = 7;
  detail::ZeroedArray<std::size_t> b = a; // deep
  b[2] = 9;
  ok = ok && a[2] == 7 && b[2] == 9 && b.size() == 5;
  detail::ZeroedArray<std::size_t> c = std::move(b);
  ok = ok && b.empty() && c[2] == 9;
  c = a;
  ok = ok && c[2] == 7 && c.size() == 5;
  c.zero(3);
  ok = ok && c.size() == 3 && c[2] == 0 && a[2] == 7;
  c.zero(0);
  return ok && c.empty();
}
static_assert(zeroed_array_laws());
} // namespace

TEST_CASE("estimate tables: zeroed, copied deep, moved, re-zeroed", "[cost]")
{
  CHECK(zeroed_array_laws());
}
