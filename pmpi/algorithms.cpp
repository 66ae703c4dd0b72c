// The adapter's run-time half: names, fit and selection for every collective.

#include "algorithms.hpp"

#include <bit>

namespace collectives::pmpi::algorithms {

namespace {

template <class F>
decltype(auto) with_coll(Coll c, F&& f)
{
  switch (c) {
  case Coll::broadcast: return f(std::integral_constant<Coll, Coll::broadcast>{});
  case Coll::reduce: return f(std::integral_constant<Coll, Coll::reduce>{});
  case Coll::allgather: return f(std::integral_constant<Coll, Coll::allgather>{});
  case Coll::reduce_scatter: return f(std::integral_constant<Coll, Coll::reduce_scatter>{});
  case Coll::allreduce: return f(std::integral_constant<Coll, Coll::allreduce>{});
  case Coll::scan: return f(std::integral_constant<Coll, Coll::scan>{});
  case Coll::exscan: return f(std::integral_constant<Coll, Coll::exscan>{});
  case Coll::scatter: return f(std::integral_constant<Coll, Coll::scatter>{});
  case Coll::gather: return f(std::integral_constant<Coll, Coll::gather>{});
  case Coll::alltoall: return f(std::integral_constant<Coll, Coll::alltoall>{});
  case Coll::alltoallv: return f(std::integral_constant<Coll, Coll::alltoallv>{});
  case Coll::barrier: break;
  }
  return f(std::integral_constant<Coll, Coll::barrier>{});
}

} // namespace

std::span<const std::string_view> names(Coll c)
{
  return with_coll(c, [](auto k) { return std::span<const std::string_view>(names_v<decltype(k)::value>); });
}

std::string names_text(Coll c)
{
  std::string s;
  for (const auto n : names(c)) s += (s.empty() ? "" : ", ") + std::string(n);
  return s;
}

std::size_t index_of(Coll c, std::string_view name)
{
  const auto all = names(c);
  for (std::size_t i = 0; i < all.size(); ++i)
    if (all[i] == name) return i;
  return npos;
}

bool fits(Coll c, std::size_t index, const ShimTopology& topo, const Problem& problem)
{
  return with_coll(c, [&](auto k) {
    constexpr Coll C = decltype(k)::value;
    bool ok = false;
    with_algorithm<C>(index, [&](auto tag) {
      using Tag = decltype(tag);
      if constexpr (C == Coll::barrier) ok = true;
      else if constexpr (fits_type_v<collective_of<C>(), Tag, ShimTopology>)
        ok = collectives::fits<collective_of<C>(), Tag>(topo, problem);
    });
    return ok;
  });
}

std::size_t cheapest(Coll c, const ShimTopology& topo, const CostModel& model, const Problem& problem)
{
  return with_coll(c, [&](auto k) -> std::size_t {
    constexpr Coll C = decltype(k)::value;
    if constexpr (C == Coll::alltoallv)
      return index_of(c, std::has_single_bit(topo.size()) ? "pairwise_xor" : "pairwise");
    else if constexpr (C == Coll::barrier)
      return index_of(c, "dissemination");
    else
      return index_of(c, select<collective_of<C>()>(topo, model, problem).name);
  });
}

} // namespace collectives::pmpi::algorithms
