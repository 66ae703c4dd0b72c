// Selection by cost over every collective: select() returns the argmin of the candidates'
// estimates (ties to the earlier candidate) on rings, hypercubes, meshes and fully
// connected networks, for latency- and bandwidth-bound models, roots and operators.
// (Kept apart from cost_select.cpp: it instantiates every algorithm on four topologies.)

#include <catch2/catch.hpp>

#include <collectives/cost/fully_connected.hpp>
#include <collectives/cost/select.hpp>

#include <boost/hana/for_each.hpp>

#include <cstddef>
#include <string>

using namespace collectives;
namespace hana = boost::hana;

namespace {

constexpr CostModel latency{.t_s = 1, .t_w = 1e-3};
constexpr CostModel bandwidth{.t_s = 0, .t_w = 1};

/// Brute force: the argmin of predict() over the default candidates (ties: first).
template <Collective C, class T>
Selection argmin(const T& topo, const CostModel& model, const Problem& problem)
{
  Selection best;
  std::size_t at = 0;
  hana::for_each(default_candidates<C>(), [&](auto tag) {
    using Tag = decltype(tag);
    if constexpr (fits_type_v<C, Tag, T>) {
      if (fits<C, Tag>(topo, problem)) {
        const double t = predict<C>(tag, topo, model, problem).time;
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
void check_all_models(const T& topo, bool commutative)
{
  const CostModel models[] = {
    latency, bandwidth, CostModel{1e-6, 1e-9, 5e-8, 1e-10},
    CostModel{1e-6, 1e-9, 5e-8, 0, Routing::store_and_forward, Ports::all},
  };
  for (const CostModel& model : models)
    for (double m : {1.0, 100.0, 1e5})
      for (std::size_t root : {std::size_t{0}, topo.size() - 1})
        check_select<C>(topo, model, Problem{m, root, 3, commutative});
}

template <class T>
void check_every_collective(const T& topo)
{
  check_all_models<Collective::alltoall>(topo, true);
  check_all_models<Collective::allgather>(topo, true);
  check_all_models<Collective::reduce_scatter>(topo, false);
  check_all_models<Collective::allreduce>(topo, true);
  check_all_models<Collective::broadcast>(topo, true);
  check_all_models<Collective::reduce>(topo, false);
  check_all_models<Collective::scatter>(topo, true);
  check_all_models<Collective::gather>(topo, true);
  check_all_models<Collective::scan>(topo, true);
  check_all_models<Collective::shift>(topo, true);
}

} // namespace

TEST_CASE("select: the argmin of the candidates' estimates", "[cost][select]")
{
  for (std::size_t p : {1, 2, 3, 6, 8, 12}) check_every_collective(Ring<>{p});
  for (std::size_t d : {0, 1, 2, 4}) check_every_collective(Hypercube<>::of_dims(d));
  for (auto [r, c] : {std::pair{2, 3}, {4, 4}}) check_every_collective(Mesh<>{std::size_t(r), std::size_t(c)});
  for (std::size_t p : {5, 8}) check_every_collective(FullyConnected<>{p});
}

