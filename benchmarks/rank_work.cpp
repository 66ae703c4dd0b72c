// The work a reduction does, oversubscribed: the CPU time of the whole team per call, on a
// team whose waiting ranks sleep at once (threads::Options spin = 1, yields = 1), so that a
// wait costs little CPU and the figure is the ranks' copying and combining. With more
// ranks than cores the wall time of one algorithm moves by 1.5-2x between runs (which rank
// the scheduler runs when); its CPU time less, so this is where a change to what a step
// reads and writes (the executor's fused receives, say) shows. (Wall time is not printed:
// here it is mostly waking sleepers, 30-40 us each on a 2-vCPU VM. Below a few hundred
// KiB the sleeps and wake-ups are much of the CPU time too.) Each row also gives,
// measured in the same run, one memcpy of a rank's input on one thread, and the call's CPU
// time in those memcpys per rank (how many passes over its input each rank makes).
//   build/release/benchmarks/rank_work [--p 4,8,9] [--bytes 256K,1M] [--calls N] [--rounds R]
// Every algorithm of the two collectives' lists (the registry's, benchmarks/harness.hpp's
// entries_of), then the default, each on the topology bench_collectives gives it
// (on_topology: a 2-D mesh for the per-dimension ones, a hypercube for those that need a
// power of two, a ring otherwise). p: team sizes; bytes: each rank's input. A cell is the
// median of R rounds (default 5) of N calls (default: about 64 MiB of input a round).

#include "harness.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include <sys/resource.h>

using namespace collectives;
using namespace bench;

namespace {

double cpu_seconds()
{
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

double wall_seconds()
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v)
{
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

/// "a,b,c" with K/M suffixes, as bench_collectives reads its lists.
std::vector<std::size_t> parse_list(const char* s)
{
  std::vector<std::size_t> out;
  for (const std::string& t : split(s)) out.push_back(parse_size(t));
  return out;
}

/// The team's CPU time a call of `tag`'s collective C on `topo` (median of `rounds` rounds
/// of `calls` calls over n doubles a rank), or a negative time when the algorithm refuses
/// the problem; `right`: whether the first call's result was the sum on every rank.
template <Collective C, class Topo, class Tag>
double cpu_per_call(threads::Team& team, const Topo& topo, Tag tag, std::size_t n, std::size_t calls,
                    std::size_t rounds, bool& right)
{
  const std::size_t p = topo.size();
  std::vector<double> cpu;
  std::vector<char> ok(p, 0); // per rank: the warm-up call's result is the sum
  auto call = [&](auto& comm, std::span<const double> in, std::span<double> out) {
    if constexpr (C == Collective::reduce_scatter) reduce_scatter(comm, in, out, std::plus<>{}, tag);
    else allreduce(comm, in, out, std::plus<>{}, tag);
  };
  try {
    team.run([&](threads::Endpoint& ep) {
      Communicator<threads::Endpoint, Topo> comm(ep, topo);
      std::vector<double> in(n, static_cast<double>(ep.rank() + 1));
      std::vector<double> out(C == Collective::reduce_scatter ? n / p : n);
      call(comm, in, out); // warm-up, and checked
      const double want = static_cast<double>(p * (p + 1) / 2);
      ok[ep.rank()] = std::all_of(out.begin(), out.end(), [&](double x) { return x == want; }) ? 1 : 0;
      for (std::size_t round = 0; round < rounds; ++round) {
        barrier(comm);
        const double c0 = cpu_seconds();
        barrier(comm);
        for (std::size_t c = 0; c < calls; ++c) call(comm, in, out);
        barrier(comm);
        if (ep.rank() == 0) cpu.push_back((cpu_seconds() - c0) / static_cast<double>(calls));
      }
    });
  } catch (const std::invalid_argument&) { // every rank, before any message
    return -1;
  }
  right = std::count(ok.begin(), ok.end(), 1) == static_cast<long>(p);
  return median(cpu);
}

} // namespace

int main(int argc, char** argv)
{
  std::vector<std::size_t> ps{4, 8, 9}, sizes{256 * 1024, 1024 * 1024};
  std::size_t calls_arg = 0, rounds = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--help" || i + 1 >= argc) {
      std::printf("usage: rank_work [--p 4,8,9] [--bytes 256K,1M] [--calls N] [--rounds R]\n");
      return flag == "--help" ? 0 : 1;
    }
    if (flag == "--p") ps = parse_list(argv[++i]);
    else if (flag == "--bytes") sizes = parse_list(argv[++i]);
    else if (flag == "--calls") calls_arg = std::strtoull(argv[++i], nullptr, 10);
    else if (flag == "--rounds") rounds = std::max<std::size_t>(1, std::strtoull(argv[++i], nullptr, 10));
    else {
      std::fprintf(stderr, "rank_work: unknown flag %s\n", argv[i]);
      return 1;
    }
  }


  std::printf("CPU time of the whole team a call, waiting ranks asleep at once; median of %zu rounds\n\n", rounds);
  std::printf("| collective | algorithm | topology | p | input a rank | CPU us a call | memcpy us | CPU / (p memcpy) |\n");
  std::printf("|---|---|---|--:|--:|--:|--:|--:|\n");
  threads::Options sleepy;
  sleepy.spin = 1;
  sleepy.yields = 1;
  for (std::size_t p : ps) {
    if (p < 2) continue;
    threads::Team team(p, sleepy);
    for (std::size_t bytes : sizes) {
      const std::size_t n = std::max<std::size_t>(bytes / sizeof(double) / p, 1) * p; // p blocks
      const std::size_t calls =
        calls_arg != 0 ? calls_arg : std::max<std::size_t>(8, (std::size_t{64} << 20) / (n * sizeof(double) * p));
      // The memcpy limit: one thread copying one rank's input, in the same run.
      std::vector<double> src(n, 1.0), dst(n);
      std::vector<double> copies;
      for (std::size_t round = 0; round < rounds; ++round) {
        const double t0 = wall_seconds();
        for (std::size_t c = 0; c < calls; ++c) {
          std::memcpy(dst.data(), src.data(), n * sizeof(double));
          clobber(dst.data());
        }
        copies.push_back((wall_seconds() - t0) / static_cast<double>(calls));
      }
      const double memcpy_s = median(copies);
      auto run_list = [&]<Collective C>(std::integral_constant<Collective, C>) {
        std::apply(
          [&](const auto&... e) {
            (on_topology(e, p,
                         [&](const auto& topo) {
                           bool right = false;
                           const double c = cpu_per_call<C>(team, topo, e.tag, n, calls, rounds, right);
                           if (c < 0) return true;
                           std::printf("| %s | %s | %s | %zu | %zu | %.1f | %.1f | %.2f |%s\n",
                                       std::string(collective_name(C)).c_str(), decltype(e.tag)::name,
                                       describe(topo).c_str(), p, n * sizeof(double), c * 1e6, memcpy_s * 1e6,
                                       c / (static_cast<double>(p) * memcpy_s), right ? "" : " WRONG RESULT");
                           return true;
                         }),
             ...);
          },
          entries_of<C>());
      };
      run_list(std::integral_constant<Collective, Collective::reduce_scatter>{});
      run_list(std::integral_constant<Collective, Collective::allreduce>{});
    }
  }
}
