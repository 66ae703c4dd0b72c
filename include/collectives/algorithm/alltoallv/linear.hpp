#pragma once
// alltoallv in one step: the linear alltoall schedule (algorithm/alltoall/linear.hpp), which
// sends every block as one message straight from the sender's input to the receiver's
// output, so blocks of different sizes need no uniform staging.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/alltoall/linear.hpp>
#include <collectives/topology/concepts.hpp>

namespace collectives {

namespace alltoallv_algorithm {
/// Every block sent at once, one step; p <= 64 (Open MPI's basic_linear).
struct Linear : AlgorithmBase<Collective::alltoallv> {
  static constexpr const char* name = "linear";
  static constexpr Needs needs{.max_ranks = linear_alltoall_max_ranks};
  template <topology T> static constexpr auto schedule(const T& t, const Problem&) { return detail::alltoall_linear_schedule(t); }
};
inline constexpr Linear linear{};
} // namespace alltoallv_algorithm

} // namespace collectives
