#pragma once
// collectives::scan and collectives::exscan — prefix reductions (MPI_Scan, MPI_Exscan).

#include <collectives/algorithm/operators.hpp>
#include <collectives/algorithm/reduction_checks.hpp>
#include <collectives/algorithm/scan/schedules.hpp>
#include <collectives/detail/buffers.hpp>
#include <collectives/detail/require.hpp>
#include <collectives/execution/communicator.hpp>
#include <collectives/cost/selection.hpp>
#include <collectives/execution/executor.hpp>

#include <cstddef>
#include <ranges>
#include <vector>

namespace collectives {

/// Algorithms for scan and exscan; pass one as the last argument to name it.
namespace scan_algorithm {
/// PREFIX_SUMS_HCUBE; p a power of two.
struct Hypercube {
  static constexpr const char* name = "hypercube";
  template <topology T> static constexpr auto schedule(const T& t, bool ex, bool c) { return ScanHypercubeSchedule<T>(t, ex, c); }
};
/// Pipeline along the ring, p - 1 steps; any p.
struct Ring {
  static constexpr const char* name = "ring";
  template <topology T> static constexpr auto schedule(const T& t, bool ex, bool c) { return ScanRingSchedule<T>(t, ex, c); }
};
/// Recursive doubling (Hillis–Steele), ceil(log2 p) steps; any p.
struct RecursiveDoubling {
  static constexpr const char* name = "recursive_doubling";
  template <topology T> static constexpr auto schedule(const T& t, bool ex, bool c) { return ScanDoublingSchedule<T>(t, ex, c); }
};
/// The cheapest for the communicator's topology, cost model and vector size
/// (cost/selection.hpp).
struct Default {
  static constexpr const char* name = "default";
};
inline constexpr Hypercube hypercube{};
inline constexpr Ring ring{};
inline constexpr RecursiveDoubling recursive_doubling{};
inline constexpr Default automatic{};
} // namespace scan_algorithm

// How the cost layer builds each algorithm (cost/selection.hpp; scan and exscan cost the
// same, so it builds scan's); m: the whole vector -----------------------------------------
template <class Tag>
  requires std::same_as<Tag, scan_algorithm::Ring> || std::same_as<Tag, scan_algorithm::RecursiveDoubling>
struct algorithm_cost<Collective::scan, Tag> : detail::CostBase<detail::Needs::nothing> {
  template <class T> static constexpr auto schedule(const T& t, const Problem& pr) { return Tag::schedule(t, false, pr.commutative); }
};
template <>
struct algorithm_cost<Collective::scan, scan_algorithm::Hypercube> : detail::CostBase<detail::Needs::power_of_two> {
  template <class T> static constexpr auto schedule(const T& t, const Problem& pr) { return ScanHypercubeSchedule<T>(t, false, pr.commutative); }
};
template <>
struct algorithm_candidates<Collective::scan> {
  static constexpr auto list()
  {
    return boost::hana::make_tuple(scan_algorithm::hypercube, scan_algorithm::ring, scan_algorithm::recursive_doubling);
  }
};

namespace detail {

template <class Alg, class Comm, class T, class Op>
void run_scan(Comm& comm, const T* in, T* out, std::size_t n, bool exclusive, Op op)
{
  constexpr bool c = is_commutative_v<Op, T>;
  const BlockLayout whole{n};
  if constexpr (std::same_as<Alg, scan_algorithm::Default>) {
    run_cheapest<Collective::scan>(comm, Problem{.m = comm.words(n * sizeof(T)), .commutative = c},
                                   [&](auto tag) { run_scan<decltype(tag)>(comm, in, out, n, exclusive, op); });
  } else {
    static_assert(requires { Alg::schedule(comm.topology(), exclusive, c); },
                  "collectives::scan: the last argument is not a scan algorithm");
    execute(Alg::schedule(comm.topology(), exclusive, c), comm.endpoint(), in, whole, out, whole, n, op);
  }
}

template <bool Exclusive>
struct scan_fn_base {
  static constexpr const char* call = Exclusive ? "collectives::exscan" : "collectives::scan";

  template <communicator Comm, buffer Send, output_buffer Recv, class Op, class Alg = scan_algorithm::Default>
    requires std::same_as<std::ranges::range_value_t<Send>, std::ranges::range_value_t<Recv>>
  void operator()(Comm& comm, const Send& send, Recv&& recv, Op op, Alg = {}) const
  {
    using T = std::ranges::range_value_t<Send>;
    check_reduction_operator<Op, T>();
    constexpr std::size_t NS = static_extent_v<Send>, NR = static_extent_v<Recv>;
    if constexpr (NS != dynamic_extent && NR != dynamic_extent)
      static_assert(NR >= NS, "collectives::scan/exscan: the receive range is smaller than the send range");
    const std::size_t n = std::ranges::size(send);
    if (std::ranges::size(recv) < n)
      throw_invalid_argument(std::string(call) + ": the receive range has " + to_text(std::ranges::size(recv)) +
                             " elements, needs " + to_text(n));
    run_scan<Alg>(comm, std::ranges::data(send), std::ranges::data(recv), n, Exclusive, op);
  }

  /// In place: buf holds the contribution and receives the prefix (one extra copy).
  template <communicator Comm, output_buffer Buf, class Op, class Alg = scan_algorithm::Default>
    requires(!buffer<Op>)
  void operator()(Comm& comm, Buf&& buf, Op op, Alg = {}) const
  {
    using T = std::ranges::range_value_t<Buf>;
    check_reduction_operator<Op, T>();
    const std::vector<T> contribution(std::ranges::begin(buf), std::ranges::end(buf));
    run_scan<Alg>(comm, contribution.data(), std::ranges::data(buf), contribution.size(), Exclusive, op);
  }
};

} // namespace detail

/// scan(comm, send, recv, op[, algorithm]): rank r's recv gets x0 op ... op xr
/// element-wise, in rank order for any associative op; scan(comm, buf, op) in place.
/// Bad sizes throw std::invalid_argument before anything is written.
/// collective: every rank must call it with the same size, op and algorithm.
inline constexpr detail::scan_fn_base<false> scan{};

/// exscan(comm, send, recv, op[, algorithm]): rank r > 0 gets x0 op ... op x(r-1); rank
/// 0's recv is left untouched (as MPI leaves it undefined). Otherwise as scan.
inline constexpr detail::scan_fn_base<true> exscan{};

} // namespace collectives
