#pragma once
// collectives::allgather — all-to-all broadcast (MPI_Allgather), and in place.

#include <collectives/algorithm/allgather/schedules.hpp>
#include <collectives/algorithm/requirements.hpp>
#include <collectives/detail/buffers.hpp>
#include <collectives/detail/require.hpp>
#include <collectives/execution/communicator.hpp>
#include <collectives/cost/selection.hpp>
#include <collectives/execution/executor.hpp>

#include <cstddef>
#include <ranges>
#include <string>

namespace collectives {

/// Algorithms for allgather; pass one as the last argument to name it.
namespace allgather_algorithm {
/// ALL_TO_ALL_BC_RING: p - 1 steps; any p.
struct Ring {
  static constexpr const char* name = "ring";
  template <topology T> static constexpr auto schedule(const T& t, bool in_place) { return AllgatherRingSchedule<T>(t, in_place); }
};
/// ALL_TO_ALL_BC_HCUBE: log p steps, messages double; p a power of two.
struct RecursiveDoubling {
  static constexpr const char* name = "recursive_doubling";
  template <topology T>
  static constexpr auto schedule(const T& t, bool in_place) { return AllgatherRecursiveDoublingSchedule<T>(t, in_place); }
};
/// Bruck: ceil(log2 p) steps; any p.
struct Bruck {
  static constexpr const char* name = "bruck";
  template <topology T> static constexpr auto schedule(const T& t, bool in_place) { return AllgatherBruckSchedule<T>(t, in_place); }
};
/// ALL_TO_ALL_BC_MESH: a ring along each dimension in turn; meshes, tori, hypercubes.
struct Dimensional {
  static constexpr const char* name = "dimensional";
  template <product_topology T>
  static constexpr auto schedule(const T& t, bool in_place) { return AllgatherDimensionalSchedule<T>(t, in_place); }
};
/// The cheapest for the communicator's topology, cost model and block size
/// (cost/selection.hpp).
struct Default {
  static constexpr const char* name = "default";
};
inline constexpr Ring ring{};
inline constexpr RecursiveDoubling recursive_doubling{};
inline constexpr Bruck bruck{};
inline constexpr Dimensional dimensional{};
inline constexpr Default automatic{};
} // namespace allgather_algorithm

// How the cost layer builds each algorithm (cost/selection.hpp) ---------------------------
template <class Tag>
  requires std::same_as<Tag, allgather_algorithm::Ring> || std::same_as<Tag, allgather_algorithm::Bruck>
struct algorithm_cost<Collective::allgather, Tag> : detail::CostBase<detail::Needs::nothing> {
  template <class T> static constexpr auto schedule(const T& t, const Problem& pr) { return Tag::schedule(t, pr.in_place); }
};
template <>
struct algorithm_cost<Collective::allgather, allgather_algorithm::RecursiveDoubling>
  : detail::CostBase<detail::Needs::power_of_two> {
  template <class T>
  static constexpr auto schedule(const T& t, const Problem& pr) { return AllgatherRecursiveDoublingSchedule<T>(t, pr.in_place); }
};
template <>
struct algorithm_cost<Collective::allgather, allgather_algorithm::Dimensional> : detail::CostBase<detail::Needs::product> {
  template <class T>
  static constexpr auto schedule(const T& t, const Problem& pr) { return AllgatherDimensionalSchedule<T>(t, pr.in_place); }
};
template <>
struct algorithm_candidates<Collective::allgather> {
  static constexpr auto list()
  {
    return boost::hana::make_tuple(allgather_algorithm::ring, allgather_algorithm::recursive_doubling,
                                   allgather_algorithm::bruck, allgather_algorithm::dimensional);
  }
};

namespace detail {

template <class Alg, class Comm, class T>
void run_allgather(Comm& comm, const T* in, T* out, std::size_t m, bool in_place, Alg)
{
  const BlockLayout blocks{m};
  if constexpr (std::same_as<Alg, allgather_algorithm::Default>) {
    run_cheapest<Collective::allgather>(comm, Problem{.m = comm.words(m * sizeof(T)), .in_place = in_place},
                                        [&](auto tag) { run_allgather(comm, in, out, m, in_place, tag); });
  } else {
    static_assert(requires { Alg::schedule(comm.topology(), in_place); },
                  "collectives::allgather: the last argument is not an allgather algorithm for this topology");
    execute(Alg::schedule(comm.topology(), in_place), comm.endpoint(), in, blocks, out, blocks, m);
  }
}

} // namespace detail

/// allgather(comm, send, recv[, algorithm]): rank r's send (m elements) becomes block r of
/// every rank's recv (at least p*m elements). allgather(comm, buf[, algorithm]) works in
/// place: rank r's block is block r of buf (p*m elements).
/// Bad sizes throw std::invalid_argument before anything is written (a compile error when
/// static). Cost: see each algorithm. collective: every rank must call it with the same m.
struct allgather_fn {
  template <communicator Comm, buffer Send, output_buffer Recv, class Alg = allgather_algorithm::Default>
    requires std::same_as<std::ranges::range_value_t<Send>, std::ranges::range_value_t<Recv>>
  void operator()(Comm& comm, const Send& send, Recv&& recv, Alg alg = {}) const
  {
    constexpr std::size_t P = static_size_v<typename Comm::topology_type>;
    constexpr std::size_t NS = detail::static_extent_v<Send>, NR = detail::static_extent_v<Recv>;
    if constexpr (P != dynamic_extent && NS != dynamic_extent && NR != dynamic_extent)
      static_assert(NR >= P * NS, "collectives::allgather: the receive range is smaller than p times the send range");
    const std::size_t m = std::ranges::size(send);
    const std::size_t p = comm.size();
    if (std::ranges::size(recv) < p * m)
      detail::throw_invalid_argument("collectives::allgather: the receive range has " +
                                     detail::to_text(std::ranges::size(recv)) + " elements, needs p*m = " +
                                     detail::to_text(p * m));
    detail::run_allgather(comm, std::ranges::data(send), std::ranges::data(recv), m, false, alg);
  }

  template <communicator Comm, output_buffer Buf, class Alg = allgather_algorithm::Default>
    requires(!buffer<Alg>)
  void operator()(Comm& comm, Buf&& buf, Alg alg = {}) const
  {
    constexpr std::size_t P = static_size_v<typename Comm::topology_type>;
    constexpr std::size_t N = detail::static_extent_v<Buf>;
    if constexpr (P != dynamic_extent && N != dynamic_extent)
      static_assert(N % P == 0, "collectives::allgather (in place): the buffer's size is not a multiple of p");
    const std::size_t p = comm.size();
    const std::size_t n = std::ranges::size(buf);
    if (n % p != 0)
      detail::throw_invalid_argument("collectives::allgather (in place): the buffer has " + detail::to_text(n) +
                                     " elements, not a multiple of p = " + detail::to_text(p));
    auto* data = std::ranges::data(buf);
    detail::run_allgather(comm, data, data, n / p, true, alg);
  }
};

/// See allgather_fn.
inline constexpr allgather_fn allgather{};

} // namespace collectives
