// Alltoall on the threads transport: time per call of every alltoall algorithm for several
// team sizes p and block sizes m, beside the memcpy roofline measured in the same run.
//
// The roofline: one alltoall makes each rank copy p*m bytes (p - 1 blocks received plus
// its own block), and no threads-transport alltoall can beat p threads each memcpy-ing p
// blocks of m bytes at the same time (from the alltoall's own send buffer into its own
// receive buffer). "% roofline" is that memcpy time over the alltoall's time;
// "GB/s/rank" is p*m bytes over the alltoall's time.
//
// Method: see benchmarks/harness.hpp (shared with collectives.cpp, which measures the
// other collectives the same way).
//
// Usage: alltoall [--p 2,4,8] [--min-bytes N] [--max-bytes N] [--min-time-ms T]
//                 [--batches B] [--algorithms a,b,...] [--stat mean|median] [--quick]
//                 [--no-pin] [--help]
// Sizes accept K and M suffixes (binary). The output is a Markdown table.

#include "harness.hpp"

#include <collectives/collectives.hpp>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

namespace {

using namespace bench;

const Program program{
  "alltoall",
  "usage: alltoall [--p 2,4,8] [--min-bytes N] [--max-bytes N] [--min-time-ms T]\n"
  "                [--batches B] [--algorithms a,b,...] [--stat mean|median] [--quick]\n"
  "                [--no-pin] [--help]\n"
  "  Times every alltoall algorithm on the threads transport for block sizes\n"
  "  8, 64, 512, 4K, 32K, 256K bytes (x8 apart) and max-bytes (default 1M), within\n"
  "  [min-bytes, max-bytes], beside the memcpy roofline.\n"
  "  Sizes take K/M suffixes. --quick: 8, 4K, 256K bytes, short cells.\n"
  "  A batch's time is its mean iteration; --stat median: its median iteration. The\n"
  "  algorithms of a (p, block) take their batches in turn.\n"
  "  Rank r runs on the r-th CPU the process may use when p <= CPUs; --no-pin: anywhere.\n",
  true,
  false,
};

/// Byte e of block j of rank r's send buffer.
inline unsigned char pattern(std::size_t r, std::size_t j, std::size_t e)
{
  return static_cast<unsigned char>(r * 131 + j * 31 + e * 7 + (e >> 8));
}

/// One rank's alltoall of p blocks of m bytes with algorithm `tag` on `topo`.
template <class Topo, class Tag>
struct AlltoallCall {
  Communicator<BenchEndpoint, Topo> comm;
  Tag tag;
  std::size_t m;
  PageVector<unsigned char> send, recv;

  AlltoallCall(BenchEndpoint& ep, const Topo& topo, Tag t, std::size_t m_)
    : comm(ep, topo), tag(t), m(m_), send(topo.size() * m_), recv(topo.size() * m_)
  {
    const std::size_t p = topo.size();
    for (std::size_t j = 0; j < p; ++j)
      for (std::size_t e = 0; e < m; ++e) send[j * m + e] = pattern(ep.rank(), j, e);
  }
  void run() { collectives::alltoall(comm, send, recv, tag); }
  bool check() const
  {
    const std::size_t p = comm.size();
    for (std::size_t i = 0; i < p; ++i)
      for (std::size_t e = 0; e < m; ++e)
        if (recv[i * m + e] != pattern(i, comm.rank(), e)) return false;
    return true;
  }
  /// The roofline: the same p*m bytes from the same send buffer into the same receive
  /// buffer, block by block, but each rank from its own memory.
  void roofline()
  {
    const std::size_t p = comm.size();
    for (std::size_t j = 0; j < p; ++j) std::memcpy(recv.data() + j * m, send.data() + j * m, m);
    clobber(recv.data());
  }
  std::size_t roofline_bytes() const { return comm.size() * m; }
};

} // namespace

int main(int argc, char** argv)
{
  const Settings settings = parse_args(argc, argv, program, [](std::string_view, auto&&) { return false; });
  const std::size_t cpus = usable_cpus(); // before any thread is pinned

  // alltoall's list and its default; each runs on the topology its needs call for (see
  // on_topology), and is skipped at a p that has none.
  const auto algorithms = entries_of<Collective::alltoall>();


  std::printf("# alltoall on the threads transport, %zu CPUs, load average %s; ranks %s\n", cpus,
              load_average().c_str(), settings.pin ? "pinned one per CPU when p <= CPUs" : "not pinned");
  std::printf("# time: median over %zu batches (~%.0f ms wall per cell) of the batch's %s time per call, from the\n"
              "#   last rank entering to the last rank leaving; the algorithms of a (p, block) timed in turn, batch by\n"
              "#   batch; GB/s/rank: p*m bytes / time;\n"
              "# memcpy: p threads each memcpy p blocks of m bytes (the bytes one alltoall copies per rank), the\n"
              "#   longest copy or all copies over min(p, CPUs), timed in the same run, batches interleaved;\n"
              "#   %% roofline: median over batches of memcpy time / alltoall time.\n"
              "# Fastest algorithm of each (p, block) in bold.\n",
              settings.batches, settings.min_time_ms, settings.median ? "median" : "mean");
  std::printf("\n");
  const TableStyle style{false, "block B"};
  print_header(style);

  bool all_correct = true;
  std::vector<std::string> skipped;
  const auto sizes = message_sizes(settings, {});
  std::size_t listed = 0;
  std::apply([&](const auto&... e) { (count_if_selected(settings.only, e.tag.name, listed), ...); }, algorithms);
  Progress progress(settings.ps.size() * sizes.size() * listed);
  for (std::size_t p : settings.ps) {
    threads::Team team{p};
    for (std::size_t m : sizes) {
      std::vector<Row> rows;
      CellGroup group(team, settings);
      auto run_entry = [&](const auto& e) {
        using Tag = std::remove_cvref_t<decltype(e.tag)>;
        if (!selected(settings.only, Tag::name)) return;
        const std::size_t before = progress.done();
        const bool done = on_topology(e, p, [&](const auto& topo) {
          using Topo = std::remove_cvref_t<decltype(topo)>;
          if constexpr (selectable<Tag, Collective::alltoall, Topo>) {
            if constexpr (!std::same_as<Tag, Automatic>)
              if (!fits(e.tag, topo)) return false;
            const std::string cell = "alltoall " + std::string(Tag::name) + " on " + describe(topo) + ", p = " +
                                     std::to_string(p) + ", " + size_text(m) + " B";
            progress.start(cell);
            group.add([topo, tag = e.tag, m](BenchEndpoint& ep) { return AlltoallCall<Topo, Tag>(ep, topo, tag, m); },
                      cell);
            rows.push_back(Row{"alltoall", Tag::name, describe(topo), p, m, {}, default_on_ring_may_run<Tag>});
            return true;
          } else {
            return false;
          }
        });
        if (progress.done() == before) progress.skip();
        if (!done && m == sizes.front()) skipped.push_back(std::string(Tag::name) + " (p=" + std::to_string(p) + ")");
      };
      std::apply([&](const auto&... e) { (run_entry(e), ...); }, algorithms);
      const std::vector<CellResult> cells = group.time();
      for (std::size_t i = 0; i < rows.size(); ++i) rows[i].cell = cells[i];
      all_correct = print_group(style, rows) && all_correct;
    }
  }
  std::printf("\n# load average at the end: %s\n", load_average().c_str());
  if (!skipped.empty()) {
    std::printf("# skipped (no listed topology fits p):");
    for (const auto& n : skipped) std::printf(" %s", n.c_str());
    std::printf("\n");
  }
  if (!all_correct) {
    std::fprintf(stderr, "alltoall: some algorithm produced a wrong result\n");
    return 1;
  }
  return 0;
}
