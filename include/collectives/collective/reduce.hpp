#pragma once
// collectives::reduce — all-to-one reduction (MPI_Reduce), and in place.

#include <collectives/algorithm/operators.hpp>
#include <collectives/algorithm/reduce.hpp>
#include <collectives/collective/rooted.hpp>
#include <collectives/collective/run.hpp>
#include <collectives/collective/buffers.hpp>
#include <collectives/execution/communicator.hpp>

#include <cstddef>
#include <span>

namespace collectives {

namespace detail {

/// out: the root's result (n_out elements; in place: the same memory as in).
template <bool InPlace, class Alg, class Comm, class T, class Op>
void run_reduce(Comm& comm, const T* in, T* out, std::size_t n, std::size_t n_out, Op op, std::size_t root, Alg alg)
{
  constexpr bool c = is_commutative_v<Op, T>;
  const std::size_t p = comm.size();
  const Problem problem{.m = comm.words(n * sizeof(T)), .root = root, .commutative = c, .in_place = InPlace};
  // MPI's use of in place is the root's alone: picked as if out of place on every rank.
  const Problem picked = picked_out_of_place<Collective::reduce, typename Comm::topology_type, c>(problem);
  run_or_replay<T, Alg>(comm, {key_word(in), key_word(out), n, n_out, root}, op, [&] {
    run_algorithm<Collective::reduce, c, false>(comm, alg, picked, [&](auto a) {
      const BlockLayout layout = message_layout(a, n, p);
      T* target = out;
      std::size_t n_target = comm.rank() == root ? n_out : 0;
      // Algorithms that leave the result on every rank borrow room for it off the root.
      if (a.output_everywhere)
        if (comm.rank() != root) {
          target = reinterpret_cast<T*>(comm.context().result(n * sizeof(T)));
          n_target = n;
        }
      // Out of place, schedules may read the input after writing the output (the trees fold
      // the contribution in late): a send range overlapping the receive range is copied.
      const T* input = InPlace ? input_for(a, comm, in, n, target, n_target) : unaliased_input(comm, in, n, target, n_target);
      execute_call(a, comm, problem, a.schedule(comm.topology(), problem), input, layout, target, layout, layout, op);
    });
  });
}

} // namespace detail

/// reduce(comm, send, recv, op, root[, algorithm]): the root's recv (at least send.size()
/// elements) gets x0 op x1 op ... op x(p-1) element-wise, in rank order for any associative
/// op; other ranks' recv is not touched (it may be empty). Overlapping send and recv
/// work as if send had been copied first. Without an algorithm: the
/// cheapest of reduce's list for the communicator's topology, cost model, size, root and
/// operator. Bad input throws std::invalid_argument before anything is written.
/// collective: every rank must call it with the same size, op, root and algorithm.
struct reduce_fn {
  template <communicator Comm, buffer Send, output_buffer Recv, class Op, class Root, class Alg = Automatic>
    requires std::same_as<std::ranges::range_value_t<Send>, std::ranges::range_value_t<Recv>> &&
             (std::integral<Root> || detail::static_root<Root>) &&
             selectable<Alg, Collective::reduce, typename Comm::topology_type,
                        is_commutative_v<Op, std::ranges::range_value_t<Send>>>
  void operator()(Comm& comm, const Send& send, Recv&& recv, Op op, Root root_arg, Alg alg = {}) const
  {
    using T = std::ranges::range_value_t<Send>;
    detail::check_reduction_operator<Op, T>();
    const std::size_t root = detail::checked_root<typename Comm::topology_type>(comm.size(), root_arg, "collectives::reduce");
    const std::size_t n = std::ranges::size(send);
    if (comm.rank() == root && std::ranges::size(recv) < n)
      detail::throw_invalid({"collectives::reduce: the root's receive range has ", std::ranges::size(recv),
                             " elements, needs ", n});
    detail::run_reduce<false>(comm, std::ranges::data(send), std::ranges::data(recv), n, std::ranges::size(recv), op,
                              root, alg);
  }

  /// In place (MPI_IN_PLACE at the root): every rank's buf is its contribution and the
  /// root's buf receives the result; other ranks' buf is not changed. The root may call
  /// it while the others call the form with send and recv, as with MPI_IN_PLACE: every
  /// rank picks the same default either way.
  template <communicator Comm, output_buffer Buf, class Op, class Root, class Alg = Automatic>
    requires(!buffer<Op> && (std::integral<Root> || detail::static_root<Root>) &&
             selectable<Alg, Collective::reduce, typename Comm::topology_type,
                        is_commutative_v<Op, std::ranges::range_value_t<Buf>>, true>)
  void operator()(Comm& comm, Buf&& buf, Op op, Root root_arg, Alg alg = {}) const
  {
    using T = std::ranges::range_value_t<Buf>;
    detail::check_reduction_operator<Op, T>();
    const std::size_t root = detail::checked_root<typename Comm::topology_type>(comm.size(), root_arg, "collectives::reduce");
    const std::size_t n = std::ranges::size(buf);
    // Runs on the buffer itself where the algorithm allows it (input_may_alias_output),
    // else on a copy of the contribution.
    T* data = std::ranges::data(buf);
    detail::run_reduce<true>(comm, data, data, n, n, op, root, alg);
  }
};

/// See reduce_fn.
inline constexpr reduce_fn reduce{};

} // namespace collectives
