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
// p: team sizes (recursive halving and Rabenseifner's unfolded schedule need a power of
// two; the dimensional reduce-scatter runs on the squarest 2-D mesh of p); bytes: each
// rank's input. A cell is the median of R rounds (default 5) of N calls (default: about
// 64 MiB of input a round).

#include <collectives/collectives.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <sys/resource.h>

using namespace collectives;

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

std::vector<std::size_t> parse_list(const char* s, bool bytes)
{
  std::vector<std::size_t> out;
  for (std::string_view rest(s); !rest.empty();) {
    const std::size_t comma = rest.find(',');
    std::string item(rest.substr(0, comma));
    std::size_t scale = 1;
    if (bytes && !item.empty() && (item.back() == 'K' || item.back() == 'M')) {
      scale = item.back() == 'K' ? 1024 : 1024 * 1024;
      item.pop_back();
    }
    out.push_back(std::strtoull(item.c_str(), nullptr, 10) * scale);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
  }
  return out;
}

/// Rows and columns of the squarest 2-D mesh of p ranks (rows <= columns).
std::pair<std::size_t, std::size_t> squarest(std::size_t p)
{
  std::size_t rows = 1;
  for (std::size_t r = 1; r * r <= p; ++r)
    if (p % r == 0) rows = r;
  return {rows, p / rows};
}

/// One row: `call(comm_ring, comm_mesh, in, out)` run `calls` times a round on `team`.
struct Row {
  const char* collective;
  const char* algorithm;
  bool on_mesh;
  bool power_of_two;
  bool scatter; // the output is one block of the input's p (else the whole input)
  std::function<void(Communicator<threads::Endpoint, Ring<>>&, Communicator<threads::Endpoint, Mesh<>>&,
                     std::span<const double>, std::span<double>)>
    call;
};

/// A reduce-scatter (Scatter) or all-reduce row of algorithm `alg`, on the ring or the mesh.
template <bool Scatter, bool OnMesh, class Alg>
Row row(const char* name, Alg alg, bool power_of_two = false)
{
  return {Scatter ? "reduce_scatter" : "allreduce", name, OnMesh, power_of_two, Scatter,
          [alg](auto& ring, auto& mesh, std::span<const double> in, std::span<double> out) {
            auto& comm = [&]() -> auto& {
              if constexpr (OnMesh) return mesh;
              else return ring;
            }();
            if constexpr (Scatter) reduce_scatter(comm, in, out, std::plus<>{}, alg);
            else allreduce(comm, in, out, std::plus<>{}, alg);
          }};
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
    if (flag == "--p") ps = parse_list(argv[++i], false);
    else if (flag == "--bytes") sizes = parse_list(argv[++i], true);
    else if (flag == "--calls") calls_arg = std::strtoull(argv[++i], nullptr, 10);
    else if (flag == "--rounds") rounds = std::max<std::size_t>(1, std::strtoull(argv[++i], nullptr, 10));
    else {
      std::fprintf(stderr, "rank_work: unknown flag %s\n", argv[i]);
      return 1;
    }
  }

  const std::vector<Row> rows = {
    row<true, false>("recursive_halving", reduce_scatter_algorithm::recursive_halving, true),
    row<true, false>("pairwise", reduce_scatter_algorithm::pairwise),
    row<true, false>("ring", reduce_scatter_algorithm::ring),
    row<true, true>("dimensional", reduce_scatter_algorithm::dimensional),
    row<false, false>("rabenseifner", allreduce_algorithm::rabenseifner, true),
    row<false, false>("recursive_doubling", allreduce_algorithm::recursive_doubling),
    row<false, false>("ring", allreduce_algorithm::ring),
  };

  std::printf("CPU time of the whole team a call, waiting ranks asleep at once; median of %zu rounds\n\n", rounds);
  std::printf("| collective | algorithm | topology | p | input a rank | CPU us a call | memcpy us | CPU / (p memcpy) |\n");
  std::printf("|---|---|---|--:|--:|--:|--:|--:|\n");
  threads::Options sleepy;
  sleepy.spin = 1;
  sleepy.yields = 1;
  for (std::size_t p : ps) {
    if (p < 2) continue;
    const std::pair<std::size_t, std::size_t> shape = squarest(p); // (clang 14: no bindings in lambdas)
    const std::size_t mesh_rows = shape.first, mesh_cols = shape.second;
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
          src[c % n] = dst[(c + 1) % n]; // keeps the copies from being elided
        }
        copies.push_back((wall_seconds() - t0) / static_cast<double>(calls));
      }
      const double memcpy_s = median(copies);
      for (const Row& row : rows) {
        if (row.power_of_two && (p & (p - 1)) != 0) continue;
        if (row.on_mesh && mesh_rows == 1) continue; // a ring: the same as the ring's
        std::vector<double> cpu;
        std::vector<char> right(p, 0); // per rank: the warm-up call's result is the sum
        team.run([&](threads::Endpoint& ep) {
          Communicator<threads::Endpoint, Ring<>> ring(ep, Ring<>{p});
          Communicator<threads::Endpoint, Mesh<>> mesh(ep, Mesh<>{mesh_rows, mesh_cols});
          std::vector<double> in(n, static_cast<double>(ep.rank() + 1)), out(row.scatter ? n / p : n);
          row.call(ring, mesh, in, out); // warm-up, and checked
          const double want = static_cast<double>(p * (p + 1) / 2);
          right[ep.rank()] = std::all_of(out.begin(), out.end(), [&](double x) { return x == want; }) ? 1 : 0;
          for (std::size_t round = 0; round < rounds; ++round) {
            barrier(ring);
            const double c0 = cpu_seconds();
            barrier(ring);
            for (std::size_t c = 0; c < calls; ++c) row.call(ring, mesh, in, out);
            barrier(ring);
            if (ep.rank() == 0) cpu.push_back((cpu_seconds() - c0) / static_cast<double>(calls));
          }
        });
        const std::string topology =
          row.on_mesh ? "Mesh " + std::to_string(mesh_rows) + "x" + std::to_string(mesh_cols) : "Ring " + std::to_string(p);
        const double c = median(cpu);
        std::printf("| %s | %s | %s | %zu | %zu | %.1f | %.1f | %.2f |%s\n", row.collective, row.algorithm,
                    topology.c_str(), p, n * sizeof(double), c * 1e6, memcpy_s * 1e6,
                    c / (static_cast<double>(p) * memcpy_s),
                    std::count(right.begin(), right.end(), 1) == static_cast<long>(p) ? "" : " WRONG RESULT");
      }
    }
  }
}
