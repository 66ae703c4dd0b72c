#pragma once
// collectives::allreduce — all-reduce (MPI_Allreduce), and in place.

#include <collectives/algorithm/allreduce.hpp>
#include <collectives/algorithm/operators.hpp>
#include <collectives/collective/run.hpp>
#include <collectives/collective/buffers.hpp>
#include <collectives/detail/require.hpp>
#include <collectives/execution/communicator.hpp>

#include <cstddef>
#include <span>

namespace collectives {

namespace detail {

/// n_out: the elements of the output (an out-of-place input overlapping it is staged).
template <bool InPlace, class Alg, class Comm, class T, class Op>
void run_allreduce(Comm& comm, const T* in, T* out, std::size_t n, std::size_t n_out, Op op, Alg alg)
{
  constexpr bool c = is_commutative_v<Op, T>;
  const std::size_t p = comm.size();
  const Problem problem{.m = comm.words(n * sizeof(T)), .commutative = c, .in_place = InPlace};
  run_or_replay<T, Alg>(comm, {key_word(in), key_word(out), n, n_out}, op, [&] {
    run_algorithm<Collective::allreduce, c, InPlace>(comm, alg, problem, [&](auto a) {
      const BlockLayout layout = message_layout(a, n, p);
      // In place, the schedules read the contributions from the output.
      const T* input = InPlace ? in : input_for(a, comm, in, n, out, n_out);
      execute_call(a, comm, problem, a.schedule(comm.topology(), problem), input, layout, out, layout, layout, op);
    });
  });
}

} // namespace detail

/// allreduce(comm, send, recv, op[, algorithm]): every rank's recv (at least send.size()
/// elements) gets x0 op x1 op ... op x(p-1) element-wise, in rank order for any associative
/// op; identical bits on every rank, and in every run of the same algorithm (a default
/// call's pick follows the communicator's cost model). allreduce(comm, buf, op[, algorithm])
/// works in place; overlapping send and recv work as if send had been copied first.
/// Without an algorithm: the cheapest of allreduce's list (only those
/// the operator and in-place use allow). Bad sizes throw std::invalid_argument before
/// anything is written. collective: every rank must call it with the same size, op and
/// algorithm.
struct allreduce_fn {
  template <communicator Comm, buffer Send, output_buffer Recv, class Op, class Alg = Automatic>
    requires std::same_as<std::ranges::range_value_t<Send>, std::ranges::range_value_t<Recv>> &&
             selectable<Alg, Collective::allreduce, typename Comm::topology_type,
                        is_commutative_v<Op, std::ranges::range_value_t<Send>>>
  void operator()(Comm& comm, const Send& send, Recv&& recv, Op op, Alg alg = {}) const
  {
    using T = std::ranges::range_value_t<Send>;
    detail::check_reduction_operator<Op, T>();
    constexpr std::size_t NS = detail::static_extent_v<Send>, NR = detail::static_extent_v<Recv>;
    if constexpr (NS != dynamic_extent && NR != dynamic_extent)
      static_assert(NR >= NS, "collectives::allreduce: the receive range is smaller than the send range");
    const std::size_t n = std::ranges::size(send);
    if (std::ranges::size(recv) < n)
      detail::throw_invalid({"collectives::allreduce: the receive range has ", std::ranges::size(recv),
                             " elements, needs ", n});
    detail::run_allreduce<false>(comm, std::ranges::data(send), std::ranges::data(recv), n, std::ranges::size(recv), op,
                                 alg);
  }

  template <communicator Comm, output_buffer Buf, class Op, class Alg = Automatic>
    requires(!buffer<Op>) && selectable<Alg, Collective::allreduce, typename Comm::topology_type,
                                        is_commutative_v<Op, std::ranges::range_value_t<Buf>>, true>
  void operator()(Comm& comm, Buf&& buf, Op op, Alg alg = {}) const
  {
    using T = std::ranges::range_value_t<Buf>;
    detail::check_reduction_operator<Op, T>();
    auto* data = std::ranges::data(buf);
    detail::run_allreduce<true>(comm, data, data, std::ranges::size(buf), std::ranges::size(buf), op, alg);
  }
};

/// See allreduce_fn.
inline constexpr allreduce_fn allreduce{};

} // namespace collectives
