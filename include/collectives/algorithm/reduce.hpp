#pragma once
// collectives::reduce — all-to-one reduction (MPI_Reduce).

#include <collectives/algorithm/operators.hpp>
#include <collectives/algorithm/reduce/schedules.hpp>
#include <collectives/algorithm/reduction_checks.hpp>
#include <collectives/algorithm/requirements.hpp>
#include <collectives/algorithm/rooted.hpp>
#include <collectives/detail/buffers.hpp>
#include <collectives/execution/chunks.hpp>
#include <collectives/execution/communicator.hpp>
#include <collectives/execution/executor.hpp>

#include <cstddef>
#include <ranges>
#include <vector>

namespace collectives {

/// Algorithms for reduce: rooted_algorithm::{binomial, hypercube, dimensional, ring} (the
/// duals of the broadcasts; SINGLE_NODE_ACC on a hypercube) and
/// reduce_algorithm::reduce_scatter_gather.
namespace reduce_algorithm {
using namespace rooted_algorithm;
/// Long vectors: reduce-scatter, then gather the p pieces at the root; any p.
struct ReduceScatterGather {
  static constexpr const char* name = "reduce_scatter_gather";
};
inline constexpr ReduceScatterGather reduce_scatter_gather{};
} // namespace reduce_algorithm

/// reduce(comm, send, recv, op, root[, algorithm]): the root's recv (at least send.size()
/// elements) gets x0 op x1 op ... op x(p-1) element-wise, in rank order for any associative
/// op; other ranks' recv is not touched (it may be empty). Default: the tree up to 2 KiB or
/// fewer elements than ranks, else reduce-scatter + gather (as MPICH).
/// Bad input throws std::invalid_argument before anything is written.
/// collective: every rank must call it with the same size, op, root and algorithm.
struct reduce_fn {
  template <communicator Comm, buffer Send, output_buffer Recv, class Op, class Root,
            class Alg = reduce_algorithm::Default>
    requires std::same_as<std::ranges::range_value_t<Send>, std::ranges::range_value_t<Recv>> &&
             (std::integral<Root> || detail::static_root<Root>)
  void operator()(Comm& comm, const Send& send, Recv&& recv, Op op, Root root_arg, Alg = {}) const
  {
    using T = std::ranges::range_value_t<Send>;
    detail::check_reduction_operator<Op, T>();
    constexpr bool c = is_commutative_v<Op, T>;
    const std::size_t p = comm.size();
    const std::size_t root = detail::checked_root<typename Comm::topology_type>(p, root_arg, "collectives::reduce");
    const std::size_t n = std::ranges::size(send);
    if (comm.rank() == root && std::ranges::size(recv) < n)
      detail::throw_invalid_argument("collectives::reduce: the root's receive range has " +
                                     detail::to_text(std::ranges::size(recv)) + " elements, needs " + detail::to_text(n));
    const T* in = std::ranges::data(send);
    T* out = std::ranges::data(recv);
    auto& ep = comm.endpoint();
    const BlockLayout whole{n};
    auto tree = [&](TreeShape shape) { execute(ReduceTreeSchedule(p, shape, root, c), ep, in, whole, out, whole, n, op); };
    auto split = [&] {
      // Every rank needs room for the whole vector; non-roots borrow a temporary.
      std::vector<T> temp(comm.rank() == root ? 0 : n);
      T* target = comm.rank() == root ? out : temp.data();
      const detail::Chunks chunks(n, p);
      if (detail::is_power_of_two(p))
        execute(reduce_scatter_gather_halving(p, root, c), ep, in, chunks.layout(), target, chunks.layout(),
                chunks.repeated(), op);
      else
        execute(reduce_scatter_gather_pairwise(p, root, c), ep, in, chunks.layout(), target, chunks.layout(),
                chunks.repeated(), op);
    };
    if constexpr (std::same_as<Alg, reduce_algorithm::Default>) {
      if (n * sizeof(T) <= 2048 || n < p) tree(detail::default_shape(comm.topology()));
      else split();
    } else if constexpr (std::same_as<Alg, reduce_algorithm::ReduceScatterGather>) {
      split();
    } else if constexpr (std::same_as<Alg, reduce_algorithm::Ring>) {
      execute(ReduceRingSchedule(p, root, c), ep, in, whole, out, whole, n, op);
    } else {
      static_assert(requires { Alg::shape(comm.topology(), ""); },
                    "collectives::reduce: the last argument is not a reduce algorithm for this topology");
      tree(Alg::shape(comm.topology(), "collectives::reduce"));
    }
  }

  /// In place (MPI_IN_PLACE at the root): every rank's buf is its contribution and the
  /// root's buf receives the result. Costs one copy of the contribution.
  template <communicator Comm, output_buffer Buf, class Op, class Root, class Alg = reduce_algorithm::Default>
    requires(!buffer<Op> && (std::integral<Root> || detail::static_root<Root>))
  void operator()(Comm& comm, Buf&& buf, Op op, Root root, Alg alg = {}) const
  {
    using T = std::ranges::range_value_t<Buf>;
    const std::vector<T> contribution(std::ranges::begin(buf), std::ranges::end(buf));
    (*this)(comm, contribution, buf, op, root, alg);
  }
};

/// See reduce_fn.
inline constexpr reduce_fn reduce{};

} // namespace collectives
