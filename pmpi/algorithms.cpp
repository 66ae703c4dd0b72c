// algorithms.hpp by run-time collective: the adapter's templates for each.

#include "adapter.hpp"

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
  return with_coll(c, [&](auto k) { return fits_of<decltype(k)::value>(index, topo, problem); });
}

std::size_t cheapest(Coll c, const ShimTopology& topo, const CostModel& model, const Problem& problem)
{
  return with_coll(c, [&](auto k) { return cheapest_of<decltype(k)::value>(topo, model, problem); });
}

} // namespace collectives::pmpi::algorithms
