#pragma once
// The vocabulary every layer above the schedules shares: which collective operation, and
// the facts of one call that an algorithm's fit and cost depend on (message size, root,
// shift, whether the operator commutes, in place).

#include <array>
#include <cstddef>
#include <string_view>

namespace collectives {

/// A collective operation (the seeds' names in the comments).
enum class Collective : unsigned char {
  broadcast,      ///< one-to-all broadcast (MPI_Bcast)
  reduce,         ///< all-to-one reduction (MPI_Reduce)
  allgather,      ///< all-to-all broadcast (MPI_Allgather)
  reduce_scatter, ///< all-to-all reduction (MPI_Reduce_scatter_block)
  allreduce,      ///< all-reduce (MPI_Allreduce)
  scan,           ///< prefix sums (MPI_Scan, MPI_Exscan)
  scatter,        ///< one-to-all personalized (MPI_Scatter)
  gather,         ///< all-to-one personalized (MPI_Gather)
  alltoall,       ///< all-to-all personalized (MPI_Alltoall)
  shift,          ///< circular q-shift
  alltoallv,      ///< all-to-all personalized with per-block counts (MPI_Alltoallv)
  barrier,        ///< no rank leaves before all have entered (MPI_Barrier)
};

/// Every Collective, in declaration order (for tools and tests that walk them all).
inline constexpr std::array<Collective, 12> all_collectives{
  Collective::broadcast, Collective::reduce,   Collective::allgather, Collective::reduce_scatter,
  Collective::allreduce, Collective::scan,     Collective::scatter,   Collective::gather,
  Collective::alltoall,  Collective::shift,    Collective::alltoallv, Collective::barrier};

/// The function's name in collectives:: ("alltoall", "reduce_scatter", ...).
constexpr std::string_view collective_name(Collective c)
{
  switch (c) {
  case Collective::broadcast: return "broadcast";
  case Collective::reduce: return "reduce";
  case Collective::allgather: return "allgather";
  case Collective::reduce_scatter: return "reduce_scatter";
  case Collective::allreduce: return "allreduce";
  case Collective::scan: return "scan";
  case Collective::scatter: return "scatter";
  case Collective::gather: return "gather";
  case Collective::alltoall: return "alltoall";
  case Collective::shift: return "shift";
  case Collective::alltoallv: return "alltoallv";
  case Collective::barrier: return "barrier";
  }
  return "?";
}

/// The facts of one call that an algorithm's fit and cost depend on besides the topology
/// and the model. `m` is the message size in words as the seeds use it: the block each
/// rank sends to each other rank (alltoall, alltoallv: the largest, allgather,
/// reduce_scatter, scatter, gather) or the whole vector (broadcast, reduce, allreduce,
/// scan, shift); 0 for barrier.
struct Problem {
  double m = 0;              ///< words (see above)
  std::size_t root = 0;      ///< rooted collectives
  std::ptrdiff_t q = 1;      ///< shift distance
  bool commutative = true;   ///< the reduction operator may be reordered
  bool in_place = false;     ///< the call works in place (some algorithms cannot)
  bool exclusive = false;    ///< scan: exclusive (MPI_Exscan)

  /// Equal when every fact is.
  friend constexpr bool operator==(const Problem&, const Problem&) = default;
};

} // namespace collectives
