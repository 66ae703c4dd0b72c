#pragma once
// What the shim did, per MPI call: calls and bytes per algorithm, calls forwarded to Open
// MPI per reason. Printed at MPI_Finalize on world rank 0 with COLLECTIVES_PMPI_VERBOSE=1.

#include <atomic>
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

/// One row of the report: calls, and the bytes of this rank's buffers. Counted without a
/// lock (a communicator's picks keep a pointer to their row: a row never moves).
struct Counter {
  std::atomic<unsigned long long> calls{0};
  std::atomic<unsigned long long> bytes{0};
  void add(std::size_t n)
  {
    calls.fetch_add(1, std::memory_order_relaxed);
    bytes.fetch_add(n, std::memory_order_relaxed);
  }
};

/// The row of calls `c` served by the library's `algorithm` (a name of static storage).
Counter& served_row(Call c, std::string_view algorithm);
/// A call forwarded to PMPI for `reason` (static storage).
void record_forwarded(Call c, std::string_view reason);

/// How often a forced algorithm (COLLECTIVES_<COLLECTIVE>_ALGORITHM or
/// COLLECTIVES_PMPI_ROUND) ran, and how often it did not fit the call.
struct ForcedCounter {
  std::atomic<unsigned long long> ran{0};
  std::atomic<unsigned long long> unfit{0};
  void add(bool fitted) { (fitted ? ran : unfit).fetch_add(1, std::memory_order_relaxed); }
};
/// The counter of `algorithm` forced on `collective` (names of static storage).
ForcedCounter& forced_row(std::string_view collective, std::string_view algorithm);

/// Prints the table, every line starting with "collectives-pmpi:"; `header` first.
void print_report(std::FILE* out, const std::string& header);

} // namespace collectives::pmpi
