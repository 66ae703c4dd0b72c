#pragma once
// collectives::broadcast — one-to-all broadcast (MPI_Bcast).

#include <collectives/algorithm/broadcast.hpp>
#include <collectives/collective/rooted.hpp>
#include <collectives/collective/run.hpp>
#include <collectives/collective/buffers.hpp>
#include <collectives/execution/communicator.hpp>

#include <cstddef>
#include <span>

namespace collectives {

/// broadcast(comm, buf, root[, algorithm]): the root's buf reaches every rank's buf (all
/// the same size). Without an algorithm: the cheapest of broadcast's list for the
/// communicator's topology, cost model, size and root. A bad root throws
/// std::invalid_argument (a compile error for a static root, see root_c); an algorithm
/// that cannot fit the topology is a compile error (static) or std::invalid_argument.
/// collective: every rank must call it with the same size, root and algorithm.
struct broadcast_fn {
  template <communicator Comm, output_buffer Buf, class Root, class Alg = Automatic>
    requires(std::integral<Root> || detail::static_root<Root>) &&
            selectable<Alg, Collective::broadcast, typename Comm::topology_type>
  void operator()(Comm& comm, Buf&& buf, Root root_arg, Alg alg = {}) const
  {
    using T = std::ranges::range_value_t<Buf>;
    const std::size_t p = comm.size();
    const std::size_t root = detail::checked_root<typename Comm::topology_type>(p, root_arg, "collectives::broadcast");
    const std::size_t n = std::ranges::size(buf);
    T* data = std::ranges::data(buf);
    const Problem problem{.m = comm.words(n * sizeof(T)), .root = root};
    detail::run_or_replay<T, Alg>(comm, {detail::key_word(data), n, root}, NoCombine{}, [&] {
      detail::run_algorithm<Collective::broadcast, true, false>(comm, alg, problem, [&](auto a) {
        const BlockLayout layout = detail::message_layout(a, n, p);
        detail::execute_call(a, comm, problem, a.schedule(comm.topology(), problem), data, layout, data, layout, layout);
      });
    });
  }
};

/// See broadcast_fn.
inline constexpr broadcast_fn broadcast{};

} // namespace collectives
