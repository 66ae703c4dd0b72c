#pragma once
// collectives::barrier — no rank leaves before every rank has entered (MPI_Barrier).

#include <collectives/algorithm/barrier.hpp>
#include <collectives/collective/run.hpp>
#include <collectives/execution/communicator.hpp>

#include <cstddef>

namespace collectives {

/// barrier(comm[, algorithm]): returns on each rank only after every rank has called it.
/// Without an algorithm: the cheapest of barrier's list (dissemination, t_s ceil(log p),
/// on most networks). collective: every rank must call it.
struct barrier_fn {
  template <communicator Comm, class Alg = Automatic>
    requires selectable<Alg, Collective::barrier, typename Comm::topology_type>
  void operator()(Comm& comm, Alg alg = {}) const
  {
    const Problem problem{};
    char* none = nullptr;
    const BlockLayout empty = BlockLayout::uniform(0);
    detail::run_or_replay<char, Alg>(comm, {}, NoCombine{}, [&] {
      detail::run_algorithm<Collective::barrier, true, false>(comm, alg, problem, [&](auto a) {
        detail::execute_call(a, comm, problem, a.schedule(comm.topology(), problem), none, empty, none, empty, empty);
      });
    });
  }
};

/// See barrier_fn.
inline constexpr barrier_fn barrier{};

} // namespace collectives
