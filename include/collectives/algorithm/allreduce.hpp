#pragma once
// collectives::allreduce — all-reduce (MPI_Allreduce), and in place.

#include <collectives/algorithm/allreduce/schedules.hpp>
#include <collectives/algorithm/operators.hpp>
#include <collectives/algorithm/reduction_checks.hpp>
#include <collectives/detail/buffers.hpp>
#include <collectives/detail/require.hpp>
#include <collectives/execution/chunks.hpp>
#include <collectives/execution/communicator.hpp>
#include <collectives/cost/selection.hpp>
#include <collectives/execution/executor.hpp>

#include <cstddef>
#include <ranges>

namespace collectives {

/// Algorithms for allreduce; pass one as the last argument to name it.
namespace allreduce_algorithm {
/// Recursive doubling (any p: folded onto a power of two); best for short vectors.
struct RecursiveDoubling {
  static constexpr const char* name = "recursive_doubling";
};
/// Rabenseifner: recursive-halving reduce-scatter + recursive-doubling all-gather (folded).
struct Rabenseifner {
  static constexpr const char* name = "rabenseifner";
};
/// Ring reduce-scatter + ring all-gather; commutative operators only; not in place.
struct Ring {
  static constexpr const char* name = "ring";
};
/// A binomial reduce to rank 0, then a binomial broadcast; any p, any operator.
struct ReduceBroadcast {
  static constexpr const char* name = "reduce_broadcast";
};
/// The cheapest for the communicator's topology, cost model, vector size and operator
/// (cost/selection.hpp).
struct Default {
  static constexpr const char* name = "default";
};
inline constexpr RecursiveDoubling recursive_doubling{};
inline constexpr Rabenseifner rabenseifner{};
inline constexpr Ring ring{};
inline constexpr ReduceBroadcast reduce_broadcast{};
inline constexpr Default automatic{};
} // namespace allreduce_algorithm

// How the cost layer builds each algorithm (cost/selection.hpp); m: the whole vector -----
template <>
struct algorithm_cost<Collective::allreduce, allreduce_algorithm::RecursiveDoubling> : detail::CostBase<detail::Needs::nothing> {
  template <class T> static constexpr auto schedule(const T& t, const Problem& pr) { return allreduce_doubling_schedule(t, pr.in_place, pr.commutative); }
};
template <>
struct algorithm_cost<Collective::allreduce, allreduce_algorithm::Rabenseifner> : detail::CostBase<detail::Needs::nothing> {
  template <class T> static constexpr auto schedule(const T& t, const Problem& pr) { return allreduce_rabenseifner_schedule(t, pr.in_place, pr.commutative); }
  /// The vector in pow2_floor(p) pieces.
  static constexpr double block_words(double m, std::size_t p) { return m / static_cast<double>(pow2_floor(p)); }
};
/// Commutative operators only, and not in place.
template <>
struct algorithm_cost<Collective::allreduce, allreduce_algorithm::Ring> : detail::CostBase<detail::Needs::nothing, false, false> {
  template <class T> static constexpr auto schedule(const T& t, const Problem&) { return allreduce_ring_schedule(t); }
  /// The vector in p pieces.
  static constexpr double block_words(double m, std::size_t p) { return m / static_cast<double>(p); }
};
template <>
struct algorithm_cost<Collective::allreduce, allreduce_algorithm::ReduceBroadcast> : detail::CostBase<detail::Needs::nothing> {
  template <class T> static constexpr auto schedule(const T& t, const Problem& pr) { return allreduce_reduce_broadcast_schedule(t.size(), pr.in_place, pr.commutative); }
};
template <>
struct algorithm_candidates<Collective::allreduce> {
  static constexpr auto list()
  {
    return boost::hana::make_tuple(allreduce_algorithm::recursive_doubling, allreduce_algorithm::rabenseifner,
                                   allreduce_algorithm::ring, allreduce_algorithm::reduce_broadcast);
  }
};

namespace detail {

template <class Alg, class Comm, class T, class Op>
void run_allreduce(Comm& comm, const T* in, T* out, std::size_t n, bool in_place, Op op)
{
  constexpr bool comm_op = is_commutative_v<Op, T>;
  const std::size_t p = comm.size();
  auto& ep = comm.endpoint();
  auto doubling = [&] {
    const BlockLayout whole{n};
    execute(allreduce_doubling_schedule(comm.topology(), in_place, comm_op), ep, in, whole, out, whole, n, op);
  };
  auto rabenseifner = [&] {
    const Chunks chunks(n, pow2_floor(p));
    execute(allreduce_rabenseifner_schedule(comm.topology(), in_place, comm_op), ep, in, chunks.layout(), out,
            chunks.layout(), chunks.repeated(), op);
  };
  if constexpr (std::same_as<Alg, allreduce_algorithm::RecursiveDoubling>) {
    doubling();
  } else if constexpr (std::same_as<Alg, allreduce_algorithm::ReduceBroadcast>) {
    const BlockLayout whole{n};
    execute(allreduce_reduce_broadcast_schedule(p, in_place, comm_op), ep, in, whole, out, whole, n, op);
  } else if constexpr (std::same_as<Alg, allreduce_algorithm::Rabenseifner>) {
    rabenseifner();
  } else if constexpr (std::same_as<Alg, allreduce_algorithm::Ring>) {
    static_assert(comm_op, "collectives::allreduce(ring): the operator must be commutative (wrap it in "
                           "collectives::commutative(op) or specialise collectives::op_traits)");
    if (in_place)
      throw_invalid_argument("collectives::allreduce(ring): the ring algorithm does not work in place");
    const Chunks chunks(n, p);
    execute(allreduce_ring_schedule(comm.topology()), ep, in, chunks.layout(), out, chunks.layout(), chunks.repeated(),
            op);
  } else {
    static_assert(std::same_as<Alg, allreduce_algorithm::Default>,
                  "collectives::allreduce: the last argument is not an allreduce algorithm");
    run_cheapest<Collective::allreduce>(
      comm, Problem{.m = comm.words(n * sizeof(T)), .commutative = comm_op, .in_place = in_place}, [&](auto tag) {
        if constexpr (accepts_operator_v<Collective::allreduce, decltype(tag), comm_op>)
          run_allreduce<decltype(tag)>(comm, in, out, n, in_place, op);
      });
  }
}

} // namespace detail

/// allreduce(comm, send, recv, op[, algorithm]): every rank's recv (at least send.size()
/// elements) gets x0 op x1 op ... op x(p-1) element-wise, in rank order for any associative
/// op; identical bits on every rank and every run. allreduce(comm, buf, op[, algorithm])
/// works in place. Bad sizes throw std::invalid_argument before anything is written.
/// collective: every rank must call it with the same size, op and algorithm.
struct allreduce_fn {
  template <communicator Comm, buffer Send, output_buffer Recv, class Op, class Alg = allreduce_algorithm::Default>
    requires std::same_as<std::ranges::range_value_t<Send>, std::ranges::range_value_t<Recv>>
  void operator()(Comm& comm, const Send& send, Recv&& recv, Op op, Alg = {}) const
  {
    using T = std::ranges::range_value_t<Send>;
    detail::check_reduction_operator<Op, T>();
    constexpr std::size_t NS = detail::static_extent_v<Send>, NR = detail::static_extent_v<Recv>;
    if constexpr (NS != dynamic_extent && NR != dynamic_extent)
      static_assert(NR >= NS, "collectives::allreduce: the receive range is smaller than the send range");
    const std::size_t n = std::ranges::size(send);
    if (std::ranges::size(recv) < n)
      detail::throw_invalid_argument("collectives::allreduce: the receive range has " +
                                     detail::to_text(std::ranges::size(recv)) + " elements, needs " + detail::to_text(n));
    detail::run_allreduce<Alg>(comm, std::ranges::data(send), std::ranges::data(recv), n, false, op);
  }

  template <communicator Comm, output_buffer Buf, class Op, class Alg = allreduce_algorithm::Default>
    requires(!buffer<Op>)
  void operator()(Comm& comm, Buf&& buf, Op op, Alg = {}) const
  {
    using T = std::ranges::range_value_t<Buf>;
    detail::check_reduction_operator<Op, T>();
    auto* data = std::ranges::data(buf);
    detail::run_allreduce<Alg>(comm, data, data, std::ranges::size(buf), true, op);
  }
};

/// See allreduce_fn.
inline constexpr allreduce_fn allreduce{};

} // namespace collectives
