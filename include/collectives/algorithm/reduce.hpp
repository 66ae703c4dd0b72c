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

// How the cost layer builds each algorithm (cost/selection.hpp); m: the whole vector -----
namespace detail {
template <>
struct rooted_schedules<Collective::reduce> {
  static constexpr auto tree(std::size_t p, TreeShape shape, const Problem& pr) { return ReduceTreeSchedule(p, shape, pr.root, pr.commutative); }
  static constexpr auto ring(std::size_t p, const Problem& pr) { return ReduceRingSchedule(p, pr.root, pr.commutative); }
};
} // namespace detail
/// Estimated with the halving reduce-scatter when p is a power of two, else pairwise, as
/// the front end runs it. (Two schedule types: estimate() is called on each branch.)
template <>
struct algorithm_cost<Collective::reduce, reduce_algorithm::ReduceScatterGather> : detail::CostBase<detail::Needs::nothing> {
  static constexpr double block_words(double m, std::size_t p) { return m / static_cast<double>(p); }
  template <class T, class N>
  static constexpr CostReport estimate_on(const T& t, const N& network, const CostModel& model, const Problem& pr)
  {
    const std::size_t p = t.size();
    const double b = block_words(pr.m, p);
    if (detail::is_power_of_two(p))
      return estimate(reduce_scatter_gather_halving(p, pr.root, pr.commutative), network, model, b);
    return estimate(reduce_scatter_gather_pairwise(p, pr.root, pr.commutative), network, model, b);
  }
};
template <>
struct algorithm_candidates<Collective::reduce> {
  static constexpr auto list()
  {
    return boost::hana::make_tuple(rooted_algorithm::binomial, rooted_algorithm::hypercube, rooted_algorithm::dimensional,
                                   rooted_algorithm::ring, reduce_algorithm::reduce_scatter_gather);
  }
};

/// reduce(comm, send, recv, op, root[, algorithm]): the root's recv (at least send.size()
/// elements) gets x0 op x1 op ... op x(p-1) element-wise, in rank order for any associative
/// op; other ranks' recv is not touched (it may be empty). Default: the cheapest for the
/// communicator's topology, cost model, size, root and operator (cost/selection.hpp).
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
      detail::run_cheapest<Collective::reduce>(
        comm, Problem{.m = comm.words(n * sizeof(T)), .root = root, .commutative = c},
        [&](auto tag) { (*this)(comm, send, recv, op, root, tag); });
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
