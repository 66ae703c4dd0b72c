#pragma once
// collectives::alltoall — all-to-all personalized exchange (MPI_Alltoall).

#include <collectives/algorithm/alltoall.hpp>
#include <collectives/collective/run.hpp>
#include <collectives/collective/buffers.hpp>
#include <collectives/detail/require.hpp>
#include <collectives/execution/communicator.hpp>

#include <cstddef>
#include <span>
#include <string>

namespace collectives {

namespace detail {

/// Shared checks of the alltoall family; returns m, the elements per block.
template <class Comm, class Send, class Recv>
constexpr std::size_t alltoall_block_size(const Comm& comm, const Send& send, const Recv& recv, const char* call)
{
  using Topo = typename Comm::topology_type;
  constexpr std::size_t P = static_size_v<Topo>;
  constexpr std::size_t NS = static_extent_v<Send>;
  constexpr std::size_t NR = static_extent_v<Recv>;
  if constexpr (P != dynamic_extent && NS != dynamic_extent)
    static_assert(NS % P == 0, "collectives::alltoall: the send range's size is not a multiple of the communicator's size");
  if constexpr (NS != dynamic_extent && NR != dynamic_extent)
    static_assert(NR >= NS, "collectives::alltoall: the receive range is smaller than the send range");
  const std::size_t p = comm.size();
  const std::size_t ns = std::ranges::size(send);
  const std::size_t nr = std::ranges::size(recv);
  if (ns % p != 0)
    throw_invalid({call, ": the send range has ", ns, " elements, which is not p*m for p = ", p});
  if (nr < ns)
    throw_invalid({call, ": the receive range has ", nr, " elements, needs ", ns});
  return ns / p;
}

} // namespace detail

/// alltoall(comm, send, recv[, algorithm]): block j (m elements) of rank i's `send` becomes
/// block i of rank j's `recv`. send holds p*m elements; recv at least p*m.
/// send and recv may be the same buffer (or overlap): the call then works as if send had
/// been copied first. Requirements: trivially copyable elements of one type; the algorithm must fit the
/// topology (a compile error naming the algorithm and the requirement when the topology's
/// type settles it, else std::invalid_argument). Without an algorithm: the cheapest of
/// alltoall's list for the communicator's topology, cost model and m. Bad input throws
/// std::invalid_argument (a compile error when sizes are static) before anything is written.
/// Cost: see each algorithm. collective: every rank must call it with the same algorithm and m.
struct alltoall_fn {
  template <communicator Comm, buffer Send, output_buffer Recv, class Alg = Automatic>
    requires std::same_as<std::ranges::range_value_t<Send>, std::ranges::range_value_t<Recv>> &&
             selectable<Alg, Collective::alltoall, typename Comm::topology_type>
  void operator()(Comm& comm, const Send& send, Recv&& recv, Alg alg = {}) const
  {
    using T = std::ranges::range_value_t<Send>;
    const std::size_t m = detail::alltoall_block_size(comm, send, recv, "collectives::alltoall");
    const Problem problem{.m = comm.words(m * sizeof(T))};
    T* out = std::ranges::data(recv);
    const BlockLayout blocks = BlockLayout::uniform(m);
    const T* send_data = std::ranges::data(send);
    const std::size_t ns = std::ranges::size(send), nr = std::ranges::size(recv);
    detail::run_or_replay<T, Alg>(comm, {detail::key_word(send_data), ns, detail::key_word(out), nr}, NoCombine{}, [&] {
      detail::run_algorithm<Collective::alltoall, true, false>(comm, alg, problem, [&](auto a) {
        const T* in = detail::input_for(a, comm, send_data, ns, out, nr);
        detail::execute_call(a, comm, problem, a.schedule(comm.topology(), problem), in, blocks, out, blocks, blocks);
      });
    });
  }
};

/// See alltoall_fn.
inline constexpr alltoall_fn alltoall{};

} // namespace collectives
