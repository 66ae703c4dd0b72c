#pragma once
// collectives::shift — circular q-shift: rank r's block (m elements) ends in the receive
// buffer of rank (r + q) mod p (MPI_Sendrecv with dest = r + q, source = r - q).
//
// Algorithms (shift_algorithm, algorithm/shift/):
//   ring          min(q, p - q) one-hop steps the shorter way; any p
//   mesh          row shift, compensation, column shift; 2-D meshes and tori only
//   direct        one step straight to r + q (hypercube CT, E-cube); any p
//   hypercube_sf  store-and-forward along the reflected-Gray-code ring; p a power of two.
//                 It shifts POSITIONS ON THAT RING, not ranks: the block of node
//                 embedded_ring_node(i) goes to node embedded_ring_node(i + q). That is the
//                 seed's algorithm; the rank shift cannot be done at its cost (see
//                 algorithm/shift/hypercube.hpp). It is not in shift's list, so the
//                 default never picks it.

#include <collectives/algorithm/shift.hpp>
#include <collectives/collective/run.hpp>
#include <collectives/collective/buffers.hpp>
#include <collectives/detail/require.hpp>
#include <collectives/execution/communicator.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace collectives {

/// shift(comm, send, recv, q[, algorithm]): rank r's `send` (m elements) is copied into
/// the `recv` of rank (r + q) mod p, for any integer q (0, negative and |q| >= p included);
/// with shift_algorithm::hypercube_sf, of the node q places further along the Gray-code
/// ring instead (see the top of this header).
/// Requirements: send and recv hold the same number m of trivially copyable elements of one
/// type (the same buffer works: as if send had been copied first); m and q are the same on every rank; the algorithm fits the
/// topology (mesh: a 2-D mesh or torus, a compile error otherwise; hypercube_sf: p a power
/// of two, a compile error when p is static, else std::invalid_argument). Without an
/// algorithm: the cheapest of shift's list. Bad sizes throw std::invalid_argument (a
/// compile error when both are static) before anything is written.
/// collective: every rank must call it with the same q, m and algorithm.
struct shift_fn {
  template <communicator Comm, buffer Send, output_buffer Recv, class Alg = Automatic>
    requires std::same_as<std::ranges::range_value_t<Send>, std::ranges::range_value_t<Recv>> &&
             selectable<Alg, Collective::shift, typename Comm::topology_type>
  void operator()(Comm& comm, const Send& send, Recv&& recv, std::ptrdiff_t q, Alg alg = {}) const
  {
    using T = std::ranges::range_value_t<Send>;
    constexpr std::size_t NS = detail::static_extent_v<Send>, NR = detail::static_extent_v<Recv>;
    if constexpr (NS != dynamic_extent && NR != dynamic_extent)
      static_assert(NS == NR, "collectives::shift: the send and receive ranges differ in size");
    const std::size_t m = std::ranges::size(send);
    if (std::ranges::size(recv) != m)
      detail::throw_invalid({"collectives::shift: the send range has ", m, " elements but the receive range has ",
                             std::ranges::size(recv), "; they must be equal"});
    const Problem problem{.m = comm.words(m * sizeof(T)), .q = q};
    T* out = std::ranges::data(recv);
    const BlockLayout block = BlockLayout::uniform(m);
    const T* send_data = std::ranges::data(send);
    const std::array<std::uintptr_t, 5> args{detail::key_word(send_data), detail::key_word(out), m, detail::key_word(q)};
    detail::run_or_replay<T, Alg>(comm, args, NoCombine{}, [&] {
      detail::run_algorithm<Collective::shift, true, false>(comm, alg, problem, [&](auto a) {
        const T* in = detail::input_for(a, comm, send_data, m, out, m);
        detail::execute_call(a, comm, problem, a.schedule(comm.topology(), problem), in, block, out, block, block);
      });
    });
  }
};

/// See shift_fn.
inline constexpr shift_fn shift{};

} // namespace collectives
