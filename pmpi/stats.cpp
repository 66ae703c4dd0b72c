// Counters of the report.

#include "stats.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <mutex>
#include <tuple>

namespace collectives::pmpi {

namespace {

struct Table {
  std::mutex mutex; // guards the maps' structure (the counters are atomic)
  // (call, forwarded?, algorithm or reason) -> counters
  std::map<std::tuple<int, bool, std::string_view>, Counter> rows;
  // (collective, forced algorithm) -> calls it ran, calls it did not fit
  std::map<std::pair<std::string_view, std::string_view>, ForcedCounter> forced;
};

Table& table()
{
  static Table t;
  return t;
}

} // namespace

std::string_view call_name(Call c)
{
  constexpr std::string_view names[num_calls] = {
    "MPI_Bcast",    "MPI_Reduce",   "MPI_Allreduce", "MPI_Allgather",          "MPI_Allgatherv",
    "MPI_Reduce_scatter_block",     "MPI_Reduce_scatter", "MPI_Alltoall",      "MPI_Alltoallv",
    "MPI_Scan",     "MPI_Exscan",   "MPI_Scatter",   "MPI_Scatterv",           "MPI_Gather",
    "MPI_Gatherv",  "MPI_Barrier"};
  return names[static_cast<std::size_t>(c)];
}

Counter& served_row(Call c, std::string_view algorithm)
{
  Table& t = table();
  std::lock_guard lock(t.mutex);
  return t.rows[{static_cast<int>(c), false, algorithm}];
}

void record_forwarded(Call c, std::string_view reason)
{
  Table& t = table();
  std::lock_guard lock(t.mutex);
  t.rows[{static_cast<int>(c), true, reason}].add(0);
}

ForcedCounter& forced_row(std::string_view collective, std::string_view algorithm)
{
  Table& t = table();
  std::lock_guard lock(t.mutex);
  return t.forced[{collective, algorithm}];
}

void print_report(std::FILE* out, const std::string& header)
{
  // The whole report is put together first and written at once: stderr is unbuffered, and
  // line by line (or piece by piece) mpirun may interleave the program's own output into
  // the middle of a line.
  std::string text;
  // (Every call below passes a literal format, which -Wformat-nonliteral cannot see.)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  const auto line = [&text](const char* format, auto... args) {
    char buffer[512];
    const int n = std::snprintf(buffer, sizeof buffer, format, args...);
    if (n > 0) text.append(buffer, std::min<std::size_t>(static_cast<std::size_t>(n), sizeof buffer - 1));
  };
#pragma GCC diagnostic pop
  Table& t = table();
  std::lock_guard lock(t.mutex);
  line("collectives-pmpi: %s\n", header.c_str());
  line("collectives-pmpi: %-26s %10s %16s  %s\n", "call", "calls", "bytes", "algorithm");
  unsigned long long served = 0, forwarded = 0;
  for (const auto& [key, n] : t.rows) {
    const auto& [call, fwd, what] = key;
    const unsigned long long calls = n.calls.load();
    if (calls == 0) continue;
    const std::string label = fwd ? "PMPI (" + std::string(what) + ")" : std::string(what);
    line("collectives-pmpi: %-26s %10llu %16s  %s\n", std::string(call_name(static_cast<Call>(call))).c_str(), calls,
         fwd ? "-" : std::to_string(n.bytes.load()).c_str(), label.c_str());
    (fwd ? forwarded : served) += calls;
  }
  for (const auto& [key, n] : t.forced)
    line("collectives-pmpi: forced %s=%s: ran %llu calls, did not fit %llu\n", std::string(key.first).c_str(),
         std::string(key.second).c_str(), n.ran.load(), n.unfit.load());
  line("collectives-pmpi: %llu calls served by the library, %llu forwarded to Open MPI\n", served, forwarded);
  std::fwrite(text.data(), 1, text.size(), out);
  std::fflush(out);
}

} // namespace collectives::pmpi
