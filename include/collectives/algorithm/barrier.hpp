#pragma once
// collectives::barrier — no rank leaves before every rank has entered (MPI_Barrier).

#include <collectives/algorithm/allgather/schedules.hpp>
#include <collectives/algorithm/allreduce/schedules.hpp>
#include <collectives/execution/communicator.hpp>
#include <collectives/execution/executor.hpp>

#include <cstddef>

namespace collectives {

/// Algorithms for barrier.
namespace barrier_algorithm {
/// Dissemination: in step k signal rank - 2^k and wait for rank + 2^k; ceil(log2 p) steps,
/// any p. It is Bruck's all-gather with empty blocks, so the verifier's proof that every
/// block reaches every rank is the proof that every rank waited for every other.
struct Dissemination {
  static constexpr const char* name = "dissemination";
};
/// An all-reduce of nothing (recursive doubling, folded for any p).
struct Allreduce {
  static constexpr const char* name = "allreduce";
};
inline constexpr Dissemination dissemination{};
inline constexpr Allreduce allreduce{};
} // namespace barrier_algorithm

/// barrier(comm[, algorithm]): returns on each rank only after every rank has called it.
/// Cost: t_s ceil(log p). collective: every rank must call it.
struct barrier_fn {
  template <communicator Comm, class Alg = barrier_algorithm::Dissemination>
  void operator()(Comm& comm, Alg = {}) const
  {
    using Topo = typename Comm::topology_type;
    const char* none = nullptr;
    if constexpr (std::same_as<Alg, barrier_algorithm::Allreduce>)
      execute(allreduce_doubling_schedule(comm.topology(), false, true), comm.endpoint(), none, BlockLayout{0}, const_cast<char*>(none),
              BlockLayout{0}, std::size_t{0}, NoCombine{});
    else
      execute(AllgatherBruckSchedule<Topo>(comm.topology()), comm.endpoint(), none, BlockLayout{0}, const_cast<char*>(none),
              BlockLayout{0}, std::size_t{0});
  }
};

/// See barrier_fn.
inline constexpr barrier_fn barrier{};

} // namespace collectives
