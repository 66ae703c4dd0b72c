#pragma once
// collectives::alltoallv — all-to-all personalized exchange with a count and displacement
// per block (MPI_Alltoallv). It runs the alltoall schedules that send each block as one
// message straight from the sender's input to the receiver's output (pairwise, pairwise
// XOR), with per-block layouts; schedules that stage blocks in uniform scratch space
// (ring, ring two-way) cannot take blocks of different sizes and are rejected.

#include <collectives/algorithm/alltoallv.hpp>
#include <collectives/collective/buffers.hpp>
#include <collectives/collective/run.hpp>
#include <collectives/detail/bits.hpp>
#include <collectives/detail/require.hpp>
#include <collectives/execution/communicator.hpp>
#include <collectives/execution/executor.hpp>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <span>
#include <string>
#include <utility>
#include <type_traits>
#include <vector>

namespace collectives {

/// Counts or displacements of an alltoallv: a contiguous sized range of std::size_t
/// (std::vector, std::array, std::span, a C array), one entry per rank, in elements.
template <class R>
concept count_range = std::ranges::contiguous_range<R> && std::ranges::sized_range<R> &&
                      std::same_as<std::ranges::range_value_t<R>, std::size_t>;

namespace detail {

/// Checks one side's layout: p counts and p displacements, every block inside the n
/// elements of the range, and (receive side) no two non-empty blocks overlapping.
inline void check_v_layout(std::size_t p, const std::size_t* counts, std::size_t n_counts,
                           const std::size_t* displs, std::size_t n_displs, std::size_t n, bool receive)
{
  const char* const side = receive ? "receive" : "send";
  const char* const call = "collectives::alltoallv: ";
  if (n_counts != p) throw_invalid({call, side, " counts have ", n_counts, " entries, need p = ", p});
  if (n_displs != p) throw_invalid({call, side, " displacements have ", n_displs, " entries, need p = ", p});
  for (std::size_t j = 0; j < p; ++j)
    if (displs[j] > n || counts[j] > n - displs[j])
      throw_invalid({call, side, " block ", j, " (displacement ", displs[j], ", ", counts[j],
                     " elements) does not fit in the ", side, " range of ", n, " elements"});
  if (!receive) return;
  // Two receives into the same elements would leave them depending on message order.
  // Blocks in ascending order (packed, the common case) are checked in one pass, with no
  // allocation; others are sorted by displacement first.
  bool ascending = true;
  for (std::size_t j = 0, last = p; j < p && ascending; ++j) {
    if (counts[j] == 0) continue;
    if (last != p && displs[j] < displs[last]) ascending = false;
    else if (last != p && displs[last] + counts[last] > displs[j])
      throw_invalid({call, "receive blocks ", last, " and ", j, " overlap"});
    else last = j;
  }
  if (ascending) return;
  std::vector<std::size_t> order;
  order.reserve(p);
  for (std::size_t j = 0; j < p; ++j)
    if (counts[j] != 0) order.push_back(j);
  std::ranges::sort(order, [&](std::size_t a, std::size_t b) { return displs[a] < displs[b]; });
  for (std::size_t i = 1; i < order.size(); ++i) {
    const std::size_t a = order[i - 1], b = order[i];
    if (displs[a] + counts[a] > displs[b])
      throw_invalid({call, "receive blocks ", std::min(a, b), " and ", std::max(a, b), " overlap"});
  }
}

/// Static checks: a count or displacement range of static length must have p entries.
template <class Topo, class R>
constexpr void check_v_extent()
{
  constexpr std::size_t P = static_size_v<Topo>, N = static_extent_v<R>;
  if constexpr (P != dynamic_extent && N != dynamic_extent)
    static_assert(N == P, "collectives::alltoallv: a count or displacement range does not have p entries");
}

/// Exclusive prefix sums of counts into `displs`: the displacements of blocks packed back
/// to back.
template <count_range C>
void packed_displacements(const C& counts, std::size_t* displs)
{
  std::size_t at = 0;
  for (std::size_t j = 0; j < std::ranges::size(counts); ++j) {
    displs[j] = at;
    at += std::ranges::data(counts)[j];
  }
}

} // namespace detail

/// alltoallv(comm, send, send_counts, send_displs, recv, recv_counts, recv_displs[, algorithm]):
/// block j of rank i's `send` (send_counts[j] elements at send_displs[j]) becomes block i of
/// rank j's `recv` (recv_counts[i] elements at recv_displs[i]); counts and displacements
/// are in elements, p entries each (count_range).
/// alltoallv(comm, send, send_counts, recv, recv_counts[, algorithm]): blocks packed back to
/// back (displacements = exclusive prefix sums of the counts).
/// Requirements: trivially copyable elements of one type; every block inside its range;
/// receive blocks do not overlap; rank a's send count to b equals b's receive count from
/// a. Algorithm: alltoallv_algorithm::pairwise (any p), pairwise_xor (p a power of two) or
/// linear (every block sent at once, one step; p <= 64);
/// without one, the cheapest of alltoallv's list for the largest block.
/// Errors: bad lengths or blocks outside their ranges throw std::invalid_argument naming
/// the problem before anything is written; a rank whose send count to itself differs from
/// its receive count from itself throws std::length_error, also before any write; a
/// mismatch between two ranks is found by the transport when the message arrives
/// (std::length_error from the threads transport, naming both ranks), after other blocks
/// may have been received.
/// Cost: p - 1 steps, each one message of the block's size: sum over steps of
/// (t_s + t_w * largest block of the step). collective: every rank must call it with the
/// same algorithm.
struct alltoallv_fn {
  template <communicator Comm, buffer Send, count_range SC, count_range SD, output_buffer Recv, count_range RC,
            count_range RD, class Alg = Automatic>
    requires std::same_as<std::ranges::range_value_t<Send>, std::ranges::range_value_t<Recv>> &&
             selectable<Alg, Collective::alltoallv, typename Comm::topology_type>
  void operator()(Comm& comm, const Send& send, const SC& send_counts, const SD& send_displs, Recv&& recv,
                  const RC& recv_counts, const RD& recv_displs, Alg alg = {}) const
  {
    using Topo = typename Comm::topology_type;
    using T = std::ranges::range_value_t<Send>;
    detail::check_v_extent<Topo, SC>();
    detail::check_v_extent<Topo, SD>();
    detail::check_v_extent<Topo, RC>();
    detail::check_v_extent<Topo, RD>();
    const std::size_t p = comm.size();
    const std::size_t* sc = std::ranges::data(send_counts);
    const std::size_t* sd = std::ranges::data(send_displs);
    const std::size_t* rc = std::ranges::data(recv_counts);
    const std::size_t* rd = std::ranges::data(recv_displs);
    detail::check_v_layout(p, sc, std::ranges::size(send_counts), sd, std::ranges::size(send_displs),
                           std::ranges::size(send), false);
    detail::check_v_layout(p, rc, std::ranges::size(recv_counts), rd, std::ranges::size(recv_displs),
                           std::ranges::size(recv), true);
    // The own block is a local copy, which the transport never sees: check it here.
    const std::size_t me = comm.rank();
    if (sc[me] != rc[me])
      detail::throw_length({"collectives::alltoallv: rank ", me, " sends ", sc[me], " elements to itself (rank ", me,
                            ") but expects ", rc[me]});
    // Block sizes differ from rank to rank, and every rank must pick the same algorithm
    // without communicating: the default is picked for m = 0 (start-ups and hops), which
    // every rank knows.
    const Problem problem{.m = 0};
    const BlockLayout in = BlockLayout::counted(sc, sd), out = BlockLayout::counted(rc, rd);
    T* dst = std::ranges::data(recv);
    detail::run_algorithm<Collective::alltoallv, true, false>(comm, alg, problem, [&](auto a) {
      const T* src = detail::input_for(a, comm, std::ranges::data(send), std::ranges::size(send), dst,
                                       std::ranges::size(recv));
      detail::execute_call(a, comm, problem, a.schedule(comm.topology(), problem), src, in, dst, out, BlockLayout{});
    });
  }

  template <communicator Comm, buffer Send, count_range SC, output_buffer Recv, count_range RC, class Alg = Automatic>
    requires std::same_as<std::ranges::range_value_t<Send>, std::ranges::range_value_t<Recv>> &&
             selectable<Alg, Collective::alltoallv, typename Comm::topology_type>
  void operator()(Comm& comm, const Send& send, const SC& send_counts, Recv&& recv, const RC& recv_counts,
                  Alg alg = {}) const
  {
    detail::check_v_extent<typename Comm::topology_type, SC>();
    detail::check_v_extent<typename Comm::topology_type, RC>();
    // The displacements live in the communicator's memory: a call in a loop allocates nothing.
    const std::size_t ns = std::ranges::size(send_counts), nr = std::ranges::size(recv_counts);
    std::size_t* displs = comm.context().displacements(ns + nr);
    detail::packed_displacements(send_counts, displs);
    detail::packed_displacements(recv_counts, displs + ns);
    (*this)(comm, send, send_counts, std::span<const std::size_t>(displs, ns), std::forward<Recv>(recv), recv_counts,
            std::span<const std::size_t>(displs + ns, nr), alg);
  }
};

/// See alltoallv_fn.
inline constexpr alltoallv_fn alltoallv{};

} // namespace collectives
