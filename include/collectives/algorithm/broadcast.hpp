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

/// broadcast(comm, buf, root[, algorithm]): the root's buf reaches every rank's buf (all
/// the same size). Default: the tree (hypercube's own on a hypercube, else binomial)
/// below 12 KiB or for p < 8, else scatter + all-gather (as MPICH). A bad root throws
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
      if (n * sizeof(T) < 12 * 1024 || p < 8) tree(detail::default_shape(comm.topology()));
      else split();
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
