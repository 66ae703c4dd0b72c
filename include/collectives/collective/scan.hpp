#pragma once
// collectives::scan and collectives::exscan — prefix reductions (MPI_Scan, MPI_Exscan).

#include <collectives/algorithm/operators.hpp>
#include <collectives/algorithm/scan.hpp>
#include <collectives/collective/run.hpp>
#include <collectives/collective/buffers.hpp>
#include <collectives/detail/require.hpp>
#include <collectives/execution/communicator.hpp>

#include <cstddef>
#include <span>
#include <string>

namespace collectives {

namespace detail {

/// n_out: the elements of the output (in place: the same memory as in). Some ranks may call
/// in place and others not.
template <bool Exclusive, bool InPlace, class Alg, class Comm, class T, class Op>
void run_scan(Comm& comm, const T* in, T* out, std::size_t n, std::size_t n_out, Op op, Alg alg)
{
  constexpr bool c = is_commutative_v<Op, T>;
  const Problem problem{.m = comm.words(n * sizeof(T)), .commutative = c, .in_place = InPlace, .exclusive = Exclusive};
  const BlockLayout whole = BlockLayout::uniform(n);
  // MPI lets each rank choose in place or not: picked as if out of place on every rank.
  const Problem picked = picked_out_of_place<Collective::scan, typename Comm::topology_type, c>(problem);
  run_or_replay<T, Alg>(comm, {key_word(in), key_word(out), n, n_out}, op, [&] {
    run_algorithm<Collective::scan, c, false>(comm, alg, picked, [&](auto a) {
      // In place the algorithms run on the buffer itself (input_may_alias_output); out of
      // place, overlapping buffers are staged.
      const T* input = InPlace ? input_for(a, comm, in, n, out, n_out) : unaliased_input(comm, in, n, out, n_out);
      execute_call(a, comm, problem, a.schedule(comm.topology(), problem), input, whole, out, whole, whole, op);
    });
  });
}

template <bool Exclusive>
struct scan_fn_base {
  static constexpr const char* call = Exclusive ? "collectives::exscan" : "collectives::scan";

  template <communicator Comm, buffer Send, output_buffer Recv, class Op, class Alg = Automatic>
    requires std::same_as<std::ranges::range_value_t<Send>, std::ranges::range_value_t<Recv>> &&
             selectable<Alg, Collective::scan, typename Comm::topology_type,
                        is_commutative_v<Op, std::ranges::range_value_t<Send>>>
  void operator()(Comm& comm, const Send& send, Recv&& recv, Op op, Alg alg = {}) const
  {
    using T = std::ranges::range_value_t<Send>;
    check_reduction_operator<Op, T>();
    constexpr std::size_t NS = static_extent_v<Send>, NR = static_extent_v<Recv>;
    if constexpr (NS != dynamic_extent && NR != dynamic_extent)
      static_assert(NR >= NS, "collectives::scan/exscan: the receive range is smaller than the send range");
    const std::size_t n = std::ranges::size(send);
    if (std::ranges::size(recv) < n)
      throw_invalid({call, ": the receive range has ", std::ranges::size(recv), " elements, needs ", n});
    run_scan<Exclusive, false>(comm, std::ranges::data(send), std::ranges::data(recv), n, std::ranges::size(recv), op,
                               alg);
  }

  /// In place: buf holds the contribution and receives the prefix.
  template <communicator Comm, output_buffer Buf, class Op, class Alg = Automatic>
    requires(!buffer<Op>) && selectable<Alg, Collective::scan, typename Comm::topology_type,
                                        is_commutative_v<Op, std::ranges::range_value_t<Buf>>, true>
  void operator()(Comm& comm, Buf&& buf, Op op, Alg alg = {}) const
  {
    using T = std::ranges::range_value_t<Buf>;
    check_reduction_operator<Op, T>();
    const std::size_t n = std::ranges::size(buf);
    // Every algorithm reads the contribution before it writes the prefix, so it runs on the
    // buffer itself (input_for: input_may_alias_output).
    T* data = std::ranges::data(buf);
    run_scan<Exclusive, true>(comm, data, data, n, n, op, alg);
  }
};

} // namespace detail

/// scan(comm, send, recv, op[, algorithm]): rank r's recv gets x0 op ... op xr
/// element-wise, in rank order for any associative op; scan(comm, buf, op) in place
/// (overlapping send and recv work as if send had been copied first).
/// Without an algorithm: the cheapest of scan's list. Bad sizes throw
/// std::invalid_argument before anything is written.
/// collective: every rank must call it with the same size, op and algorithm (in place or
/// not, each rank as it likes, as with MPI_IN_PLACE).
inline constexpr detail::scan_fn_base<false> scan{};

/// exscan(comm, send, recv, op[, algorithm]): rank r > 0 gets x0 op ... op x(r-1); rank
/// 0's recv is left untouched (as MPI leaves it undefined). Otherwise as scan.
inline constexpr detail::scan_fn_base<true> exscan{};

} // namespace collectives
