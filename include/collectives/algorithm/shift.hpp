#pragma once
// collectives::shift — circular q-shift: rank r's block (m elements) ends in the receive
// buffer of rank (r + q) mod p (MPI_Sendrecv with dest = r + q, source = r - q).
//
// Algorithms (tags in collectives::shift_algorithm, schedules in algorithm/shift/):
//   ring          min(q, p - q) one-hop steps the shorter way; any p
//   mesh          row shift, compensation, column shift; 2-D meshes and tori only
//   direct        one step straight to r + q (hypercube CT, E-cube); any p
//   hypercube_sf  store-and-forward along the reflected-Gray-code ring; p a power of two.
//                 It shifts POSITIONS ON THAT RING, not ranks: the block of node
//                 embedded_ring_node(i) goes to node embedded_ring_node(i + q). That is the
//                 seed's algorithm; the rank shift cannot be done at its cost (see
//                 algorithm/shift/hypercube.hpp). Its verifier spec is GrayShiftOp.
//   automatic     (the default) the cheapest of ring, direct and mesh for the communicator's
//                 topology, cost model, size and q (cost/selection.hpp); hypercube_sf is
//                 never picked, as it shifts another order of the nodes.

#include <collectives/algorithm/requirements.hpp>
#include <collectives/algorithm/shift/direct.hpp>
#include <collectives/algorithm/shift/hypercube.hpp>
#include <collectives/algorithm/shift/mesh.hpp>
#include <collectives/algorithm/shift/ring.hpp>
#include <collectives/detail/buffers.hpp>
#include <collectives/detail/require.hpp>
#include <collectives/execution/communicator.hpp>
#include <collectives/cost/selection.hpp>
#include <collectives/execution/executor.hpp>

#include <cstddef>
#include <ranges>
#include <string>
#include <utility>

namespace collectives {

namespace shift_algorithm {
/// The algorithm used when none is named: the cheapest (see the top of this header).
struct Default {
  static constexpr const char* name = "default";
};
inline constexpr Default automatic{};
} // namespace shift_algorithm

// How the cost layer builds each algorithm (cost/selection.hpp); m: the block ------------
template <class Tag>
  requires std::same_as<Tag, shift_algorithm::Ring> || std::same_as<Tag, shift_algorithm::Direct>
struct algorithm_cost<Collective::shift, Tag> : detail::CostBase<detail::Needs::nothing> {
  template <class T> static constexpr auto schedule(const T& t, const Problem& pr) { return Tag::schedule(t, pr.q); }
};
template <>
struct algorithm_cost<Collective::shift, shift_algorithm::Mesh> : detail::CostBase<detail::Needs::two_dim_torus> {
  template <class T> static constexpr auto schedule(const T& t, const Problem& pr) { return ShiftMeshSchedule<T>(t, pr.q); }
};
template <>
struct algorithm_cost<Collective::shift, shift_algorithm::HypercubeSf> : detail::CostBase<detail::Needs::power_of_two> {
  template <class T> static constexpr auto schedule(const T& t, const Problem& pr) { return ShiftHypercubeSfSchedule<T>(t, pr.q); }
};
template <>
struct algorithm_candidates<Collective::shift> {
  static constexpr auto list()
  {
    return boost::hana::make_tuple(shift_algorithm::ring, shift_algorithm::direct, shift_algorithm::mesh);
  }
};

/// shift(comm, send, recv, q[, algorithm]): rank r's `send` (m elements) is copied into
/// the `recv` of rank (r + q) mod p, for any integer q (0, negative and |q| >= p included);
/// with shift_algorithm::hypercube_sf, of the node q places further along the Gray-code
/// ring instead (see the top of this header).
/// Requirements: send and recv hold the same number m of trivially copyable elements of one
/// type and do not overlap; m and q are the same on every rank; the algorithm fits the
/// topology (mesh: a 2-D mesh or torus, a compile error otherwise; hypercube_sf: p a power
/// of two, a compile error when p is static, else std::invalid_argument). Bad sizes throw
/// std::invalid_argument (a compile error when both are static) before anything is written.
/// Cost: see each algorithm. collective: every rank must call it with the same q, m and
/// algorithm.
struct shift_fn {
  template <communicator Comm, buffer Send, output_buffer Recv, class Alg>
    requires std::same_as<std::ranges::range_value_t<Send>, std::ranges::range_value_t<Recv>>
  void operator()(Comm& comm, const Send& send, Recv&& recv, std::ptrdiff_t q, Alg) const
  {
    using Topo = typename Comm::topology_type;
    static_assert(std::same_as<Alg, shift_algorithm::Default> || requires(const Topo& t) { Alg::schedule(t, q); },
                  "collectives::shift: the last argument is not a shift algorithm (see collectives::shift_algorithm)");
    constexpr std::size_t NS = detail::static_extent_v<Send>, NR = detail::static_extent_v<Recv>;
    if constexpr (NS != dynamic_extent && NR != dynamic_extent)
      static_assert(NS == NR, "collectives::shift: the send and receive ranges differ in size");
    const std::size_t m = std::ranges::size(send);
    if (std::ranges::size(recv) != m)
      detail::throw_invalid_argument("collectives::shift: the send range has " + detail::to_text(m) +
                                     " elements but the receive range has " +
                                     detail::to_text(std::ranges::size(recv)) + "; they must be equal");
    if constexpr (std::same_as<Alg, shift_algorithm::Default>) {
      using T = std::ranges::range_value_t<Send>;
      detail::run_cheapest<Collective::shift>(comm, Problem{.m = comm.words(m * sizeof(T)), .q = q},
                                              [&](auto tag) { (*this)(comm, send, recv, q, tag); });
    } else {
      // Building the schedule checks that the algorithm fits the topology, before any write.
      const auto schedule = Alg::schedule(comm.topology(), q);
      execute(schedule, comm.endpoint(), std::ranges::data(send), BlockLayout{m}, std::ranges::data(recv),
              BlockLayout{m}, m);
    }
  }

  template <communicator Comm, buffer Send, output_buffer Recv>
    requires std::same_as<std::ranges::range_value_t<Send>, std::ranges::range_value_t<Recv>>
  void operator()(Comm& comm, const Send& send, Recv&& recv, std::ptrdiff_t q) const
  {
    (*this)(comm, send, std::forward<Recv>(recv), q, shift_algorithm::automatic);
  }
};

/// See shift_fn.
inline constexpr shift_fn shift{};

} // namespace collectives
