#pragma once
// collectives::reduce_scatter — all-to-all reduction (MPI_Reduce_scatter_block).

#include <collectives/algorithm/operators.hpp>
#include <collectives/algorithm/reduce_scatter/schedules.hpp>
#include <collectives/algorithm/reduction_checks.hpp>
#include <collectives/algorithm/requirements.hpp>
#include <collectives/detail/buffers.hpp>
#include <collectives/detail/require.hpp>
#include <collectives/execution/communicator.hpp>
#include <collectives/cost/selection.hpp>
#include <collectives/execution/executor.hpp>

#include <cstddef>
#include <ranges>
#include <vector>

namespace collectives {

/// Algorithms for reduce_scatter; pass one as the last argument to name it.
namespace reduce_scatter_algorithm {
/// ALL_TO_ALL_RED_HCUBE, recursive halving; p a power of two; any operator.
struct RecursiveHalving {
  static constexpr const char* name = "recursive_halving";
};
/// ALL_TO_ALL_RED_RING; any p; commutative operators only.
struct Ring {
  static constexpr const char* name = "ring";
};
/// Direct exchange then an in-order fold; any p, any operator.
struct Pairwise {
  static constexpr const char* name = "pairwise";
};
/// The seeds' mesh/torus algorithm, one ring per dimension; commutative operators only.
struct Dimensional {
  static constexpr const char* name = "dimensional";
};
/// The cheapest for the communicator's topology, cost model, block size and operator
/// (cost/selection.hpp).
struct Default {
  static constexpr const char* name = "default";
};
inline constexpr RecursiveHalving recursive_halving{};
inline constexpr Ring ring{};
inline constexpr Pairwise pairwise{};
inline constexpr Dimensional dimensional{};
inline constexpr Default automatic{};
} // namespace reduce_scatter_algorithm

// How the cost layer builds each algorithm (cost/selection.hpp) ---------------------------
template <>
struct algorithm_cost<Collective::reduce_scatter, reduce_scatter_algorithm::RecursiveHalving>
  : detail::CostBase<detail::Needs::power_of_two> {
  template <class T> static constexpr auto schedule(const T& t, const Problem& pr) { return ReduceScatterHalvingSchedule<T>(t, pr.commutative); }
};
template <>
struct algorithm_cost<Collective::reduce_scatter, reduce_scatter_algorithm::Ring>
  : detail::CostBase<detail::Needs::nothing, false> {
  template <class T> static constexpr auto schedule(const T& t, const Problem&) { return ReduceScatterRingSchedule<T>(t); }
};
template <>
struct algorithm_cost<Collective::reduce_scatter, reduce_scatter_algorithm::Pairwise>
  : detail::CostBase<detail::Needs::nothing> {
  template <class T> static constexpr auto schedule(const T& t, const Problem& pr) { return ReduceScatterPairwiseSchedule<T>(t, pr.commutative); }
};
template <>
struct algorithm_cost<Collective::reduce_scatter, reduce_scatter_algorithm::Dimensional>
  : detail::CostBase<detail::Needs::product, false> {
  template <class T> static constexpr auto schedule(const T& t, const Problem&) { return ReduceScatterDimensionalSchedule<T>(t); }
};
template <>
struct algorithm_candidates<Collective::reduce_scatter> {
  static constexpr auto list()
  {
    return boost::hana::make_tuple(reduce_scatter_algorithm::recursive_halving, reduce_scatter_algorithm::ring,
                                   reduce_scatter_algorithm::pairwise, reduce_scatter_algorithm::dimensional);
  }
};

/// reduce_scatter(comm, send, recv, op[, algorithm]): send holds p blocks of m elements;
/// rank r's recv (at least m elements) gets block r reduced over all ranks, in rank order
/// x0 op x1 op ... op x(p-1), for any associative op (commutative ones may be reordered).
/// Bad sizes throw std::invalid_argument before anything is written (compile error when
/// static). collective: every rank must call it with the same m, op and algorithm.
struct reduce_scatter_fn {
  template <communicator Comm, buffer Send, output_buffer Recv, class Op, class Alg = reduce_scatter_algorithm::Default>
    requires std::same_as<std::ranges::range_value_t<Send>, std::ranges::range_value_t<Recv>>
  void operator()(Comm& comm, const Send& send, Recv&& recv, Op op, Alg = {}) const
  {
    using T = std::ranges::range_value_t<Send>;
    using Topo = typename Comm::topology_type;
    detail::check_reduction_operator<Op, T>();
    constexpr bool comm_op = is_commutative_v<Op, T>;
    constexpr std::size_t P = static_size_v<Topo>;
    constexpr std::size_t NS = detail::static_extent_v<Send>, NR = detail::static_extent_v<Recv>;
    if constexpr (P != dynamic_extent && NS != dynamic_extent) {
      static_assert(NS % P == 0, "collectives::reduce_scatter: the send range's size is not a multiple of p");
      if constexpr (NR != dynamic_extent)
        static_assert(NR >= NS / P, "collectives::reduce_scatter: the receive range is smaller than a block");
    }
    const std::size_t p = comm.size();
    const std::size_t ns = std::ranges::size(send);
    if (ns % p != 0)
      detail::throw_invalid_argument("collectives::reduce_scatter: the send range has " + detail::to_text(ns) +
                                     " elements, not a multiple of p = " + detail::to_text(p));
    const std::size_t m = ns / p;
    if (std::ranges::size(recv) < m)
      detail::throw_invalid_argument("collectives::reduce_scatter: the receive range has " +
                                     detail::to_text(std::ranges::size(recv)) + " elements, needs " + detail::to_text(m));
    const T* in = std::ranges::data(send);
    T* out = std::ranges::data(recv);
    const BlockLayout blocks{m};
    auto& ep = comm.endpoint();
    if constexpr (std::same_as<Alg, reduce_scatter_algorithm::RecursiveHalving>) {
      execute(ReduceScatterHalvingSchedule<Topo>(comm.topology(), comm_op), ep, in, blocks, out, blocks, m, op);
    } else if constexpr (std::same_as<Alg, reduce_scatter_algorithm::Ring>) {
      static_assert(comm_op, "collectives::reduce_scatter(ring): the operator must be commutative (wrap it in "
                             "collectives::commutative(op) or specialise collectives::op_traits)");
      execute(ReduceScatterRingSchedule<Topo>(comm.topology()), ep, in, blocks, out, blocks, m, op);
    } else if constexpr (std::same_as<Alg, reduce_scatter_algorithm::Dimensional>) {
      static_assert(comm_op, "collectives::reduce_scatter(dimensional): the operator must be commutative (wrap it in "
                             "collectives::commutative(op) or specialise collectives::op_traits)");
      static_assert(product_topology<Topo>, "collectives::reduce_scatter(dimensional): needs a mesh, torus or hypercube");
      execute(ReduceScatterDimensionalSchedule<Topo>(comm.topology()), ep, in, blocks, out, blocks, m, op);
    } else if constexpr (std::same_as<Alg, reduce_scatter_algorithm::Pairwise>) {
      execute(ReduceScatterPairwiseSchedule<Topo>(comm.topology(), comm_op), ep, in, blocks, out, blocks, m, op);
    } else {
      static_assert(std::same_as<Alg, reduce_scatter_algorithm::Default>,
                    "collectives::reduce_scatter: the last argument is not a reduce_scatter algorithm");
      detail::run_cheapest<Collective::reduce_scatter>(
        comm, Problem{.m = comm.words(m * sizeof(T)), .commutative = comm_op}, [&](auto tag) {
          if constexpr (detail::accepts_operator_v<Collective::reduce_scatter, decltype(tag), comm_op>)
            (*this)(comm, send, recv, op, tag);
        });
    }
  }

  /// In place: buf holds the p blocks of this rank's contribution and its first m
  /// elements receive block r of the result. Costs one copy of the contribution.
  template <communicator Comm, output_buffer Buf, class Op, class Alg = reduce_scatter_algorithm::Default>
    requires(!buffer<Op>)
  void operator()(Comm& comm, Buf&& buf, Op op, Alg alg = {}) const
  {
    using T = std::ranges::range_value_t<Buf>;
    const std::vector<T> contribution(std::ranges::begin(buf), std::ranges::end(buf));
    (*this)(comm, contribution, buf, op, alg);
  }
};

/// See reduce_scatter_fn.
inline constexpr reduce_scatter_fn reduce_scatter{};

} // namespace collectives
