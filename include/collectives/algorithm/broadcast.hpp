#pragma once
// collectives::broadcast — one-to-all broadcast (MPI_Bcast).

#include <collectives/algorithm/broadcast/schedules.hpp>
#include <collectives/algorithm/rooted.hpp>
#include <collectives/detail/buffers.hpp>
#include <collectives/execution/chunks.hpp>
#include <collectives/execution/communicator.hpp>
#include <collectives/execution/executor.hpp>

#include <cstddef>
#include <ranges>

namespace collectives {

/// Algorithms for broadcast: rooted_algorithm::{binomial, hypercube, dimensional, ring}
/// and broadcast_algorithm::scatter_allgather.
namespace broadcast_algorithm {
using namespace rooted_algorithm;
/// Long messages: scatter p pieces, then an all-gather round the ring; any p.
struct ScatterAllgather {
  static constexpr const char* name = "scatter_allgather";
};
inline constexpr ScatterAllgather scatter_allgather{};
} // namespace broadcast_algorithm

// How the cost layer builds each algorithm (cost/selection.hpp); m: the whole vector -----
namespace detail {
template <>
struct rooted_schedules<Collective::broadcast> {
  static constexpr auto tree(std::size_t p, TreeShape shape, const Problem& pr) { return BroadcastTreeSchedule(p, shape, pr.root); }
  static constexpr auto ring(std::size_t p, const Problem& pr) { return BroadcastRingSchedule(p, pr.root); }
};
} // namespace detail
template <>
struct algorithm_cost<Collective::broadcast, broadcast_algorithm::ScatterAllgather> : detail::CostBase<detail::Needs::nothing> {
  template <class T> static constexpr auto schedule(const T& t, const Problem& pr) { return broadcast_scatter_allgather_schedule(t.size(), pr.root); }
  /// The vector in p pieces.
  static constexpr double block_words(double m, std::size_t p) { return m / static_cast<double>(p); }
};
template <>
struct algorithm_candidates<Collective::broadcast> {
  static constexpr auto list()
  {
    return boost::hana::make_tuple(rooted_algorithm::binomial, rooted_algorithm::hypercube, rooted_algorithm::dimensional,
                                   rooted_algorithm::ring, broadcast_algorithm::scatter_allgather);
  }
};

/// broadcast(comm, buf, root[, algorithm]): the root's buf reaches every rank's buf (all
/// the same size). Default: the cheapest for the communicator's topology, cost model, size
/// and root (cost/selection.hpp). A bad root throws
/// std::invalid_argument (compile error for a static root, see root_c).
/// collective: every rank must call it with the same size, root and algorithm.
struct broadcast_fn {
  template <communicator Comm, output_buffer Buf, class Root, class Alg = broadcast_algorithm::Default>
    requires(std::integral<Root> || detail::static_root<Root>)
  void operator()(Comm& comm, Buf&& buf, Root root_arg, Alg = {}) const
  {
    using T = std::ranges::range_value_t<Buf>;
    const std::size_t p = comm.size();
    const std::size_t root = detail::checked_root<typename Comm::topology_type>(p, root_arg, "collectives::broadcast");
    const std::size_t n = std::ranges::size(buf);
    T* data = std::ranges::data(buf);
    auto& ep = comm.endpoint();
    auto tree = [&](TreeShape shape) {
      execute(BroadcastTreeSchedule(p, shape, root), ep, data, BlockLayout{n}, data, BlockLayout{n}, n);
    };
    auto split = [&] {
      const detail::Chunks chunks(n, p);
      execute(broadcast_scatter_allgather_schedule(p, root), ep, data, chunks.layout(), data, chunks.layout(),
              chunks.repeated());
    };
    if constexpr (std::same_as<Alg, broadcast_algorithm::Default>) {
      detail::run_cheapest<Collective::broadcast>(comm, Problem{.m = comm.words(n * sizeof(T)), .root = root},
                                                  [&](auto tag) { (*this)(comm, buf, root, tag); });
    } else if constexpr (std::same_as<Alg, broadcast_algorithm::ScatterAllgather>) {
      split();
    } else if constexpr (std::same_as<Alg, broadcast_algorithm::Ring>) {
      execute(BroadcastRingSchedule(p, root), ep, data, BlockLayout{n}, data, BlockLayout{n}, n);
    } else {
      static_assert(requires { Alg::shape(comm.topology(), ""); },
                    "collectives::broadcast: the last argument is not a broadcast algorithm for this topology");
      tree(Alg::shape(comm.topology(), "collectives::broadcast"));
    }
  }
};

/// See broadcast_fn.
inline constexpr broadcast_fn broadcast{};

} // namespace collectives
