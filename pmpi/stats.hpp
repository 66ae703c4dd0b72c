#pragma once
// What the shim did, per MPI call: calls and bytes per algorithm, calls forwarded to Open
// MPI per reason. Printed at MPI_Finalize on world rank 0 with COLLECTIVES_PMPI_VERBOSE=1.

#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

namespace collectives::pmpi {

/// The MPI calls the shim defines.
enum class Call : unsigned char {
  bcast, reduce, allreduce, allgather, allgatherv, reduce_scatter_block, reduce_scatter, alltoall, alltoallv,
  scan, exscan, scatter, scatterv, gather, gatherv, barrier,
};
inline constexpr std::size_t num_calls = 16;

/// "MPI_Bcast", ...
std::string_view call_name(Call c);

/// A call served by the library's `algorithm` (a name of static storage), moving `bytes`
/// (this rank's payload).
void record_served(Call c, std::string_view algorithm, std::size_t bytes);
/// A call forwarded to PMPI for `reason` (static storage).
void record_forwarded(Call c, std::string_view reason);

/// A call of `collective` with `algorithm` forced (COLLECTIVES_<COLLECTIVE>_ALGORITHM or
/// COLLECTIVES_PMPI_ROUND): whether the algorithm fitted it (names of static storage).
void record_forced(std::string_view collective, std::string_view algorithm, bool fitted);

/// Prints the table, every line starting with "collectives-pmpi:"; `header` first.
void print_report(std::FILE* out, const std::string& header);

} // namespace collectives::pmpi
