#pragma once
// collectives::scatter and collectives::gather — one-to-all and all-to-one personalized
// communication (MPI_Scatter, MPI_Gather).

#include <collectives/algorithm/gather/schedules.hpp>
#include <collectives/algorithm/rooted.hpp>
#include <collectives/algorithm/scatter/schedules.hpp>
#include <collectives/detail/buffers.hpp>
#include <collectives/execution/communicator.hpp>
#include <collectives/execution/executor.hpp>

#include <cstddef>
#include <ranges>

namespace collectives {

/// Algorithms for scatter and gather: rooted_algorithm::{binomial, hypercube, dimensional,
/// ring}; the default is the cheapest for the communicator's topology, cost model, block
/// size and root (cost/selection.hpp).
namespace scatter_algorithm {
using namespace rooted_algorithm;
}
namespace gather_algorithm {
using namespace rooted_algorithm;
}

// How the cost layer builds each algorithm (cost/selection.hpp); m: one block -----------
namespace detail {
template <>
struct rooted_schedules<Collective::scatter> {
  static constexpr auto tree(std::size_t p, TreeShape shape, const Problem& pr) { return ScatterTreeSchedule(p, shape, pr.root); }
  static constexpr auto ring(std::size_t p, const Problem& pr) { return ScatterRingSchedule(p, pr.root); }
};
template <>
struct rooted_schedules<Collective::gather> {
  static constexpr auto tree(std::size_t p, TreeShape shape, const Problem& pr) { return GatherTreeSchedule(p, shape, pr.root); }
  static constexpr auto ring(std::size_t p, const Problem& pr) { return GatherRingSchedule(p, pr.root); }
};
} // namespace detail
template <Collective C>
  requires(C == Collective::scatter || C == Collective::gather)
struct algorithm_candidates<C> {
  static constexpr auto list()
  {
    return boost::hana::make_tuple(rooted_algorithm::binomial, rooted_algorithm::hypercube, rooted_algorithm::dimensional,
                                   rooted_algorithm::ring);
  }
};

namespace detail {

template <bool Gather, class Alg, class Comm, class T>
void run_personalized(Comm& comm, const T* in, T* out, std::size_t m, std::size_t root)
{
  const std::size_t p = comm.size();
  auto& ep = comm.endpoint();
  const BlockLayout blocks{m};
  auto tree = [&](TreeShape shape) {
    if constexpr (Gather) execute(GatherTreeSchedule(p, shape, root), ep, in, blocks, out, blocks, m);
    else execute(ScatterTreeSchedule(p, shape, root), ep, in, blocks, out, blocks, m);
  };
  if constexpr (std::same_as<Alg, rooted_algorithm::Default>) {
    constexpr Collective c = Gather ? Collective::gather : Collective::scatter;
    run_cheapest<c>(comm, Problem{.m = comm.words(m * sizeof(T)), .root = root},
                    [&](auto tag) { run_personalized<Gather, decltype(tag)>(comm, in, out, m, root); });
  } else if constexpr (std::same_as<Alg, rooted_algorithm::Ring>) {
    if constexpr (Gather) execute(GatherRingSchedule(p, root), ep, in, blocks, out, blocks, m);
    else execute(ScatterRingSchedule(p, root), ep, in, blocks, out, blocks, m);
  } else {
    static_assert(requires { Alg::shape(comm.topology(), ""); },
                  "collectives::scatter/gather: the last argument is not a scatter/gather algorithm for this topology");
    tree(Alg::shape(comm.topology(), Gather ? "collectives::gather" : "collectives::scatter"));
  }
}

} // namespace detail

/// scatter(comm, send, recv, root[, algorithm]): block j (recv.size() elements) of the
/// root's send goes to rank j's recv. send needs p*m elements at the root only (other
/// ranks may pass an empty range). Bad sizes or root throw std::invalid_argument before
/// anything is written. collective: every rank must call it with the same m and root.
struct scatter_fn {
  template <communicator Comm, buffer Send, output_buffer Recv, class Root, class Alg = scatter_algorithm::Default>
    requires std::same_as<std::ranges::range_value_t<Send>, std::ranges::range_value_t<Recv>> &&
             (std::integral<Root> || detail::static_root<Root>)
  void operator()(Comm& comm, const Send& send, Recv&& recv, Root root_arg, Alg = {}) const
  {
    const std::size_t p = comm.size();
    const std::size_t root = detail::checked_root<typename Comm::topology_type>(p, root_arg, "collectives::scatter");
    const std::size_t m = std::ranges::size(recv);
    if (comm.rank() == root && std::ranges::size(send) < p * m)
      detail::throw_invalid_argument("collectives::scatter: the root's send range has " +
                                     detail::to_text(std::ranges::size(send)) + " elements, needs p*m = " +
                                     detail::to_text(p * m));
    detail::run_personalized<false, Alg>(comm, std::ranges::data(send), std::ranges::data(recv), m, root);
  }
};

/// gather(comm, send, recv, root[, algorithm]): rank j's send (m elements) becomes block j
/// of the root's recv (at least p*m elements; other ranks may pass an empty range).
/// collective: every rank must call it with the same m and root.
struct gather_fn {
  template <communicator Comm, buffer Send, output_buffer Recv, class Root, class Alg = gather_algorithm::Default>
    requires std::same_as<std::ranges::range_value_t<Send>, std::ranges::range_value_t<Recv>> &&
             (std::integral<Root> || detail::static_root<Root>)
  void operator()(Comm& comm, const Send& send, Recv&& recv, Root root_arg, Alg = {}) const
  {
    const std::size_t p = comm.size();
    const std::size_t root = detail::checked_root<typename Comm::topology_type>(p, root_arg, "collectives::gather");
    const std::size_t m = std::ranges::size(send);
    if (comm.rank() == root && std::ranges::size(recv) < p * m)
      detail::throw_invalid_argument("collectives::gather: the root's receive range has " +
                                     detail::to_text(std::ranges::size(recv)) + " elements, needs p*m = " +
                                     detail::to_text(p * m));
    detail::run_personalized<true, Alg>(comm, std::ranges::data(send), std::ranges::data(recv), m, root);
  }
};

/// See scatter_fn.
inline constexpr scatter_fn scatter{};
/// See gather_fn.
inline constexpr gather_fn gather{};

} // namespace collectives
