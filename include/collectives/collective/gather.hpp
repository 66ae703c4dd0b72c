#pragma once
// collectives::gather — all-to-one personalized communication (MPI_Gather).

#include <collectives/algorithm/gather.hpp>
#include <collectives/collective/rooted.hpp>
#include <collectives/collective/run.hpp>
#include <collectives/collective/buffers.hpp>
#include <collectives/execution/communicator.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace collectives {

/// gather(comm, send, recv, root[, algorithm]): rank j's send (m elements) becomes block j
/// of the root's recv (at least p*m elements; other ranks may pass an empty range).
/// send and recv may overlap (as if send had been copied first). Without an algorithm:
/// the cheapest of gather's list. Bad sizes or root throw
/// std::invalid_argument before anything is written.
/// collective: every rank must call it with the same m, root and algorithm.
struct gather_fn {
  template <communicator Comm, buffer Send, output_buffer Recv, class Root, class Alg = Automatic>
    requires std::same_as<std::ranges::range_value_t<Send>, std::ranges::range_value_t<Recv>> &&
             (std::integral<Root> || detail::static_root<Root>) &&
             selectable<Alg, Collective::gather, typename Comm::topology_type>
  void operator()(Comm& comm, const Send& send, Recv&& recv, Root root_arg, Alg alg = {}) const
  {
    using T = std::ranges::range_value_t<Send>;
    const std::size_t p = comm.size();
    const std::size_t root = detail::checked_root<typename Comm::topology_type>(p, root_arg, "collectives::gather");
    const std::size_t m = std::ranges::size(send);
    if (comm.rank() == root && std::ranges::size(recv) < p * m)
      detail::throw_invalid({"collectives::gather: the root's receive range has ", std::ranges::size(recv),
                             " elements, needs p*m = ", p * m});
    const Problem problem{.m = comm.words(m * sizeof(T)), .root = root};
    T* out = std::ranges::data(recv);
    const BlockLayout blocks = BlockLayout::uniform(m);
    const T* send_data = std::ranges::data(send);
    const std::size_t ns = std::ranges::size(send), nr = std::ranges::size(recv);
    const std::array<std::uintptr_t, 5> args{detail::key_word(send_data), ns, detail::key_word(out), nr, root};
    detail::run_or_replay<T, Alg>(comm, args, NoCombine{}, [&] {
      detail::run_algorithm<Collective::gather, true, false>(comm, alg, problem, [&](auto a) {
        const T* in = detail::input_for(a, comm, send_data, ns, out, nr);
        detail::execute_call(a, comm, problem, a.schedule(comm.topology(), problem), in, blocks, out, blocks, blocks);
      });
    });
  }
};

/// See gather_fn.
inline constexpr gather_fn gather{};

} // namespace collectives
