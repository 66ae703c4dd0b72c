#pragma once
// collectives::alltoall — all-to-all personalized exchange (MPI_Alltoall).

#include <collectives/algorithm/alltoall/bruck.hpp>
#include <collectives/algorithm/alltoall/dimensional.hpp>
#include <collectives/algorithm/alltoall/hypercube.hpp>
#include <collectives/algorithm/alltoall/pairwise.hpp>
#include <collectives/algorithm/alltoall/ring.hpp>
// Each schedule header also defines its tag in collectives::alltoall_algorithm.
#include <collectives/algorithm/requirements.hpp>
#include <collectives/cost/selection.hpp>
#include <collectives/detail/buffers.hpp>
#include <collectives/detail/require.hpp>
#include <collectives/execution/communicator.hpp>
#include <collectives/execution/executor.hpp>

#include <bit>
#include <cstddef>
#include <ranges>
#include <string>
#include <type_traits>

namespace collectives {

namespace alltoall_algorithm {

/// The algorithm used when none is named: the cheapest for the communicator's topology,
/// cost model and block size (cost/selection.hpp).
struct Default {
  static constexpr const char* name = "default";
};
inline constexpr Default automatic{};

} // namespace alltoall_algorithm

// How the cost layer builds each algorithm (cost/selection.hpp) ---------------------------
template <class Tag>
  requires std::same_as<Tag, alltoall_algorithm::Pairwise> || std::same_as<Tag, alltoall_algorithm::Ring> ||
           std::same_as<Tag, alltoall_algorithm::RingTwoWay> || std::same_as<Tag, alltoall_algorithm::Bruck>
struct algorithm_cost<Collective::alltoall, Tag> : detail::CostBase<detail::Needs::nothing> {
  template <class T> static constexpr auto schedule(const T& t, const Problem&) { return Tag::schedule(t); }
};
template <class Tag>
  requires std::same_as<Tag, alltoall_algorithm::PairwiseXor> || std::same_as<Tag, alltoall_algorithm::StandardExchange> ||
           std::same_as<Tag, alltoall_algorithm::AllPort>
struct algorithm_cost<Collective::alltoall, Tag> : detail::CostBase<detail::Needs::power_of_two> {
  template <class T> static constexpr auto schedule(const T& t, const Problem&) { return Tag::schedule(t); }
};
template <>
struct algorithm_cost<Collective::alltoall, alltoall_algorithm::Dimensional> : detail::CostBase<detail::Needs::product_2d> {
  template <class T> static constexpr auto schedule(const T& t, const Problem&) { return alltoall_algorithm::Dimensional::schedule(t); }
};
template <>
struct algorithm_candidates<Collective::alltoall> {
  static constexpr auto list()
  {
    return boost::hana::make_tuple(alltoall_algorithm::pairwise, alltoall_algorithm::pairwise_xor, alltoall_algorithm::ring,
                                   alltoall_algorithm::ring_two_way, alltoall_algorithm::bruck,
                                   alltoall_algorithm::standard_exchange, alltoall_algorithm::all_port,
                                   alltoall_algorithm::dimensional);
  }
};

namespace detail {

template <class A, class T>
concept alltoall_algorithm_for = requires(const T& t) { A::schedule(t); };

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
    throw_invalid_argument(std::string(call) + ": the send range has " + to_text(ns) +
                           " elements, which is not p*m for p = " + to_text(p));
  if (nr < ns)
    throw_invalid_argument(std::string(call) + ": the receive range has " + to_text(nr) + " elements, needs " +
                           to_text(ns));
  return ns / p;
}

} // namespace detail

/// alltoall(comm, send, recv[, algorithm]): block j (m elements) of rank i's `send` becomes
/// block i of rank j's `recv`. send holds p*m elements; recv at least p*m.
/// Requirements: trivially copyable elements of one type; the algorithm must fit the
/// topology (hypercube algorithms need p a power of two). Bad input throws
/// std::invalid_argument (a compile error when sizes are static) before anything is written.
/// Cost: see each algorithm. collective: every rank must call it with the same algorithm and m.
struct alltoall_fn {
  template <communicator Comm, buffer Send, output_buffer Recv, class Alg>
    requires std::same_as<std::ranges::range_value_t<Send>, std::ranges::range_value_t<Recv>>
  void operator()(Comm& comm, const Send& send, Recv&& recv, Alg) const
  {
    using Topo = typename Comm::topology_type;
    using T = std::ranges::range_value_t<Send>;
    const std::size_t m = detail::alltoall_block_size(comm, send, recv, "collectives::alltoall");
    const T* in = std::ranges::data(send);
    T* out = std::ranges::data(recv);
    if constexpr (std::same_as<Alg, alltoall_algorithm::Default>) {
      detail::run_cheapest<Collective::alltoall>(comm, Problem{.m = comm.words(m * sizeof(T))},
                                                 [&](auto tag) { (*this)(comm, send, recv, tag); });
    } else {
      static_assert(detail::alltoall_algorithm_for<Alg, Topo>,
                    "collectives::alltoall: the last argument is not an alltoall algorithm for this topology");
      execute(Alg::schedule(comm.topology()), comm.endpoint(), in, BlockLayout{m}, out, BlockLayout{m}, m);
    }
  }

  template <communicator Comm, buffer Send, output_buffer Recv>
  void operator()(Comm& comm, const Send& send, Recv&& recv) const
  {
    (*this)(comm, send, std::forward<Recv>(recv), alltoall_algorithm::automatic);
  }
};

/// See alltoall_fn.
inline constexpr alltoall_fn alltoall{};

} // namespace collectives
