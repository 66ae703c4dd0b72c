#pragma once
// collectives::allgather — all-to-all broadcast (MPI_Allgather), and in place.

#include <collectives/algorithm/allgather.hpp>
#include <collectives/collective/run.hpp>
#include <collectives/collective/buffers.hpp>
#include <collectives/detail/require.hpp>
#include <collectives/execution/communicator.hpp>

#include <cstddef>
#include <span>

namespace collectives {

namespace detail {

/// n_out: the elements of the output (an out-of-place input overlapping it is staged).
template <bool InPlace, class Alg, class Comm, class T>
void run_allgather(Comm& comm, const T* in, T* out, std::size_t m, std::size_t n_out, Alg alg)
{
  const Problem problem{.m = comm.words(m * sizeof(T)), .in_place = InPlace};
  const BlockLayout blocks = BlockLayout::uniform(m);
  run_or_replay<T, Alg>(comm, {key_word(in), key_word(out), m, n_out}, NoCombine{}, [&] {
    run_algorithm<Collective::allgather, true, InPlace>(comm, alg, problem, [&](auto a) {
      // In place, the schedules read the rank's block from the output.
      const T* input = InPlace ? in : input_for(a, comm, in, m, out, n_out);
      execute_call(a, comm, problem, a.schedule(comm.topology(), problem), input, blocks, out, blocks, blocks);
    });
  });
}

} // namespace detail

/// allgather(comm, send, recv[, algorithm]): rank r's send (m elements) becomes block r of
/// every rank's recv (at least p*m elements). allgather(comm, buf[, algorithm]) works in
/// place: rank r's block is block r of buf (p*m elements). Overlapping send and recv work
/// as if send had been copied first. Without an algorithm: the
/// cheapest of allgather's list. Bad sizes throw std::invalid_argument before anything is
/// written (a compile error when static). collective: every rank must call it with the
/// same m and algorithm.
struct allgather_fn {
  template <communicator Comm, buffer Send, output_buffer Recv, class Alg = Automatic>
    requires std::same_as<std::ranges::range_value_t<Send>, std::ranges::range_value_t<Recv>> &&
             selectable<Alg, Collective::allgather, typename Comm::topology_type>
  void operator()(Comm& comm, const Send& send, Recv&& recv, Alg alg = {}) const
  {
    constexpr std::size_t P = static_size_v<typename Comm::topology_type>;
    constexpr std::size_t NS = detail::static_extent_v<Send>, NR = detail::static_extent_v<Recv>;
    if constexpr (P != dynamic_extent && NS != dynamic_extent && NR != dynamic_extent)
      static_assert(NR >= P * NS, "collectives::allgather: the receive range is smaller than p times the send range");
    const std::size_t m = std::ranges::size(send);
    const std::size_t p = comm.size();
    if (std::ranges::size(recv) < p * m)
      detail::throw_invalid({"collectives::allgather: the receive range has ", std::ranges::size(recv),
                             " elements, needs p*m = ", p * m});
    detail::run_allgather<false>(comm, std::ranges::data(send), std::ranges::data(recv), m, std::ranges::size(recv),
                                 alg);
  }

  template <communicator Comm, output_buffer Buf, class Alg = Automatic>
    requires(!buffer<Alg>) && selectable<Alg, Collective::allgather, typename Comm::topology_type, true, true>
  void operator()(Comm& comm, Buf&& buf, Alg alg = {}) const
  {
    constexpr std::size_t P = static_size_v<typename Comm::topology_type>;
    constexpr std::size_t N = detail::static_extent_v<Buf>;
    if constexpr (P != dynamic_extent && N != dynamic_extent)
      static_assert(N % P == 0, "collectives::allgather (in place): the buffer's size is not a multiple of p");
    const std::size_t p = comm.size();
    const std::size_t n = std::ranges::size(buf);
    if (n % p != 0)
      detail::throw_invalid({"collectives::allgather (in place): the buffer has ", n,
                             " elements, not a multiple of p = ", p});
    auto* data = std::ranges::data(buf);
    detail::run_allgather<true>(comm, data, data, n / p, n, alg);
  }
};

/// See allgather_fn.
inline constexpr allgather_fn allgather{};

} // namespace collectives
