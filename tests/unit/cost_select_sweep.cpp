// Selection by cost over every collective: select() returns the argmin of the candidates'
// estimates (ties to the earlier candidate) on rings, hypercubes, meshes and fully
// connected networks, for latency- and bandwidth-bound models, roots, operators that do
// and do not commute, in place and not.
// The collectives (all_collectives) and their algorithms (algorithms<C>) are read from
// the registry, so a new collective or algorithm is swept without touching this file.
// (Kept apart from cost_select.cpp: it instantiates every algorithm on four topologies.)

#include <catch2/catch.hpp>

#include <collectives/cost.hpp>

#include <boost/hana/for_each.hpp>

#include <cstddef>
#include <string>
#include <utility>

using namespace collectives;
namespace hana = boost::hana;

namespace {

constexpr CostModel latency{.t_s = 1, .t_w = 1e-3};
constexpr CostModel bandwidth{.t_s = 0, .t_w = 1};

/// Brute force: the argmin of predict() over collective C's algorithms (ties: first).
template <Collective C, class T>
Selection argmin(const T& topo, const CostModel& model, const Problem& problem)
{
  Selection best;
  std::size_t at = 0;
  hana::for_each(algorithms<C>, [&](auto tag) {
    using Tag = decltype(tag);
    if constexpr (fits_topology_type<Tag, T>) {
      if (fits(tag, topo, problem)) {
        const double t = predict(tag, topo, model, problem).time;
        if (!best.found() || t < best.time) best = Selection{at, Tag::name, t, 0};
      }
    }
    ++at;
  });
  return best;
}

template <Collective C, class T>
void check_select(const T& topo, const CostModel& model, const Problem& problem)
{
  const Selection got = select<C>(topo, model, problem);
  const Selection want = argmin<C>(topo, model, problem);
  INFO(std::string(collective_name(C)) << " p=" << topo.size() << " m=" << problem.m << " got " << got.name
                                       << " want " << want.name);
  CHECK(got.index == want.index);
  CHECK(got.name == want.name);
  CHECK(got.time == want.time);
}

template <Collective C, class T>
void check_all_models(const T& topo)
{
  const CostModel models[] = {
    latency, bandwidth, CostModel{1e-6, 1e-9, 5e-8, 1e-10},
    CostModel{1e-6, 1e-9, 5e-8, 0, Routing::store_and_forward, Ports::all},
  };
  for (const CostModel& model : models)
    for (double m : {1.0, 100.0, 1e5})
      for (std::size_t root : {std::size_t{0}, topo.size() - 1})
        for (bool commutative : {true, false})
          for (bool in_place : {false, true})
            check_select<C>(topo, model, Problem{m, root, 3, commutative, in_place});
}

/// check_all_models for every collective of all_collectives.
template <class T, std::size_t... I>
void check_every_collective(const T& topo, std::index_sequence<I...>)
{
  (check_all_models<all_collectives[I]>(topo), ...);
}

template <class T>
void check_every_collective(const T& topo)
{
  check_every_collective(topo, std::make_index_sequence<all_collectives.size()>{});
}

} // namespace

TEST_CASE("select: the argmin of the candidates' estimates", "[cost][select]")
{
  for (std::size_t p : {1, 2, 3, 6, 8, 12}) check_every_collective(Ring<>{p});
  for (std::size_t d : {0, 1, 2, 4}) check_every_collective(Hypercube<>::of_dims(d));
  for (auto [r, c] : {std::pair{2, 3}, {4, 4}}) check_every_collective(Mesh<>{std::size_t(r), std::size_t(c)});
  for (std::size_t p : {5, 8}) check_every_collective(FullyConnected<>{p});
}

