#pragma once
// collectives::reduce_scatter — all-to-all reduction (MPI_Reduce_scatter_block), and in
// place.

#include <collectives/algorithm/operators.hpp>
#include <collectives/algorithm/reduce_scatter.hpp>
#include <collectives/collective/run.hpp>
#include <collectives/collective/buffers.hpp>
#include <collectives/detail/require.hpp>
#include <collectives/execution/communicator.hpp>

#include <cstddef>
#include <span>

namespace collectives {

namespace detail {

/// in: p blocks of m elements; out: n_out elements (in place: the same memory as in).
template <bool InPlace, class Alg, class Comm, class T, class Op>
void run_reduce_scatter(Comm& comm, const T* in, T* out, std::size_t m, std::size_t n_out, Op op, Alg alg)
{
  constexpr bool c = is_commutative_v<Op, T>;
  const Problem problem{.m = comm.words(m * sizeof(T)), .commutative = c, .in_place = InPlace};
  const BlockLayout blocks = BlockLayout::uniform(m);
  run_or_replay<T, Alg>(comm, {key_word(in), key_word(out), m, n_out}, op, [&] {
    run_algorithm<Collective::reduce_scatter, c, InPlace>(comm, alg, problem, [&](auto a) {
      // Out of place the schedules may write the result before reading all of the input
      // (ring's last message lands in it), so an overlapping send range is copied.
      const T* input = InPlace ? input_for(a, comm, in, comm.size() * m, out, n_out)
                               : unaliased_input(comm, in, comm.size() * m, out, n_out);
      execute_call(a, comm, problem, a.schedule(comm.topology(), problem), input, blocks, out, blocks, blocks, op);
    });
  });
}

/// m, the elements per block, of p blocks in n elements (a compile error when static).
template <class Comm, class Send>
std::size_t reduce_scatter_block(const Comm& comm, std::size_t n, const char* call)
{
  constexpr std::size_t P = static_size_v<typename Comm::topology_type>;
  constexpr std::size_t NS = static_extent_v<Send>;
  if constexpr (P != dynamic_extent && NS != dynamic_extent)
    static_assert(NS % P == 0, "collectives::reduce_scatter: the send range's size is not a multiple of p");
  const std::size_t p = comm.size();
  if (n % p != 0)
    throw_invalid({call, ": the send range has ", n, " elements, not a multiple of p = ", p});
  return n / p;
}

} // namespace detail

/// reduce_scatter(comm, send, recv, op[, algorithm]): send holds p blocks of m elements;
/// rank r's recv (at least m elements) gets block r reduced over all ranks, in rank order
/// x0 op x1 op ... op x(p-1), for any associative op (commutative ones may be reordered).
/// reduce_scatter(comm, buf, op[, algorithm]) works in place: buf holds the p blocks of
/// this rank's contribution and its first m elements receive block r of the result;
/// overlapping send and recv work as if send had been copied first.
/// Without an algorithm: the cheapest of reduce_scatter's list. Bad sizes throw
/// std::invalid_argument before anything is written (a compile error when static).
/// collective: every rank must call it with the same m, op and algorithm.
struct reduce_scatter_fn {
  template <communicator Comm, buffer Send, output_buffer Recv, class Op, class Alg = Automatic>
    requires std::same_as<std::ranges::range_value_t<Send>, std::ranges::range_value_t<Recv>> &&
             selectable<Alg, Collective::reduce_scatter, typename Comm::topology_type,
                        is_commutative_v<Op, std::ranges::range_value_t<Send>>>
  void operator()(Comm& comm, const Send& send, Recv&& recv, Op op, Alg alg = {}) const
  {
    using T = std::ranges::range_value_t<Send>;
    detail::check_reduction_operator<Op, T>();
    constexpr std::size_t P = static_size_v<typename Comm::topology_type>;
    constexpr std::size_t NS = detail::static_extent_v<Send>, NR = detail::static_extent_v<Recv>;
    if constexpr (P != dynamic_extent && NS != dynamic_extent && NR != dynamic_extent)
      static_assert(NR >= NS / P, "collectives::reduce_scatter: the receive range is smaller than a block");
    const std::size_t m = detail::reduce_scatter_block<Comm, Send>(comm, std::ranges::size(send), "collectives::reduce_scatter");
    if (std::ranges::size(recv) < m)
      detail::throw_invalid({"collectives::reduce_scatter: the receive range has ", std::ranges::size(recv),
                             " elements, needs ", m});
    detail::run_reduce_scatter<false>(comm, std::ranges::data(send), std::ranges::data(recv), m,
                                      std::ranges::size(recv), op, alg);
  }

  template <communicator Comm, output_buffer Buf, class Op, class Alg = Automatic>
    requires(!buffer<Op>) && selectable<Alg, Collective::reduce_scatter, typename Comm::topology_type,
                                        is_commutative_v<Op, std::ranges::range_value_t<Buf>>, true>
  void operator()(Comm& comm, Buf&& buf, Op op, Alg alg = {}) const
  {
    using T = std::ranges::range_value_t<Buf>;
    detail::check_reduction_operator<Op, T>();
    const std::size_t n = std::ranges::size(buf);
    const std::size_t m = detail::reduce_scatter_block<Comm, Buf>(comm, n, "collectives::reduce_scatter (in place)");
    // Runs on the buffer itself where the algorithm allows it (input_may_alias_output),
    // else on a copy of the contribution.
    T* data = std::ranges::data(buf);
    detail::run_reduce_scatter<true>(comm, data, data, m, n, op, alg);
  }
};

/// See reduce_scatter_fn.
inline constexpr reduce_scatter_fn reduce_scatter{};

} // namespace collectives
