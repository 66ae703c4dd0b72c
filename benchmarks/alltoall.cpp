// Alltoall on the threads transport: time per call of every alltoall algorithm for several
// team sizes p and block sizes m, beside the memcpy roofline measured in the same run.
//
// The roofline: one alltoall makes each rank copy p*m bytes (p - 1 blocks received plus
// its own block), and no threads-transport alltoall can beat p threads each memcpy-ing p
// blocks of m bytes at the same time (from the alltoall's own send buffer into its own
// receive buffer). "% roofline" is that memcpy time over the alltoall's time;
// "GB/s/rank" is p*m bytes over the alltoall's time.
//
// Method: for each cell every rank loops inside one Team::run (pinned to its own CPU
// when there are enough). Iterations are separated by a barrier of this program (not
// timed): an iteration lasts from the moment the last rank starts it to the moment the
// last rank finishes it, so neither the separator nor the skew with which threads leave
// it counts. After a warm-up and a check that the result is right, iteration counts are
// calibrated so the alltoall's batches take about min-time of wall time in all (memcpy's
// a quarter of that); alltoall batches and memcpy batches alternate, and each time is the
// median over its batches. On a shared machine, read the load average printed with the
// table: other processes on the cores slow the alltoall (whose ranks wait for each
// other) far more than the memcpy.
//
// Usage: alltoall [--p 2,4,8] [--min-bytes N] [--max-bytes N] [--min-time-ms T]
//                 [--batches B] [--algorithms a,b,...] [--quick] [--no-pin] [--help]
// Sizes accept K and M suffixes (binary). The output is a Markdown table.

#include <collectives/collectives.hpp>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif
#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

namespace {

using namespace collectives;
using Clock = std::chrono::steady_clock;

// ---------------------------------------------------------------------------------------
// Settings

struct Settings {
  std::vector<std::size_t> ps{2, 4, 8};
  std::size_t min_bytes = 8;
  std::size_t max_bytes = std::size_t{1} << 20;
  double min_time_ms = 20.0; // wall time of a cell's alltoall batches (separators included)
  std::size_t batches = 5;
  std::size_t max_iterations = 20000; // per batch
  bool quick = false;
  bool pin = true;               // rank r on the r-th allowed CPU when p <= CPUs
  std::vector<std::string> only; // algorithm names; empty = all
};

[[noreturn]] void usage(int code)
{
  std::fprintf(code == 0 ? stdout : stderr,
               "usage: alltoall [--p 2,4,8] [--min-bytes N] [--max-bytes N] [--min-time-ms T]\n"
               "                [--batches B] [--algorithms a,b,...] [--quick] [--no-pin] [--help]\n"
               "  Times every alltoall algorithm on the threads transport for block sizes\n"
               "  8, 64, 512, 4K, 32K, 256K bytes (x8 apart) and max-bytes (default 1M), within\n"
               "  [min-bytes, max-bytes], beside the memcpy roofline.\n"
               "  Sizes take K/M suffixes. --quick: 8, 4K, 256K bytes, short cells.\n"
               "  Rank r runs on the r-th CPU the process may use when p <= CPUs; --no-pin: anywhere.\n");
  std::exit(code);
}

std::size_t parse_size(std::string_view s)
{
  if (s.empty()) throw std::invalid_argument("empty size");
  std::size_t mult = 1;
  const char last = s.back();
  if (last == 'K' || last == 'k') mult = std::size_t{1} << 10;
  if (last == 'M' || last == 'm') mult = std::size_t{1} << 20;
  if (mult != 1) s.remove_suffix(1);
  std::size_t used = 0;
  const unsigned long long v = std::stoull(std::string(s), &used);
  if (used != s.size()) throw std::invalid_argument("bad size '" + std::string(s) + "'");
  return static_cast<std::size_t>(v) * mult;
}

std::vector<std::string> split(std::string_view s)
{
  std::vector<std::string> out;
  while (!s.empty()) {
    const std::size_t comma = s.find(',');
    out.emplace_back(s.substr(0, comma));
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  return out;
}

Settings parse_args(int argc, char** argv)
{
  Settings s;
  bool max_given = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    auto value = [&]() -> std::string_view {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "alltoall: %s needs a value\n", argv[i]);
        usage(2);
      }
      return argv[++i];
    };
    try {
      if (a == "--help" || a == "-h") usage(0);
      else if (a == "--quick") s.quick = true;
      else if (a == "--no-pin") s.pin = false;
      else if (a == "--p") {
        s.ps.clear();
        for (const auto& t : split(value())) s.ps.push_back(parse_size(t));
      } else if (a == "--min-bytes") s.min_bytes = parse_size(value());
      else if (a == "--max-bytes") {
        s.max_bytes = parse_size(value());
        max_given = true;
      } else if (a == "--min-time-ms") s.min_time_ms = std::stod(std::string(value()));
      else if (a == "--batches") s.batches = parse_size(value());
      else if (a == "--algorithms") s.only = split(value());
      else {
        std::fprintf(stderr, "alltoall: unknown argument '%s'\n", argv[i]);
        usage(2);
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "alltoall: bad value for %s: %s\n", argv[i - 1], e.what());
      usage(2);
    }
  }
  if (s.quick) {
    s.min_time_ms = std::min(s.min_time_ms, 4.0);
    s.batches = std::min<std::size_t>(s.batches, 3);
    if (!max_given) s.max_bytes = std::size_t{256} << 10;
  }
  for (std::size_t p : s.ps)
    if (p < 1 || p > 64) {
      std::fprintf(stderr, "alltoall: p must be between 1 and 64\n");
      usage(2);
    }
  if (s.batches == 0) s.batches = 1;
  return s;
}

std::vector<std::size_t> block_sizes(const Settings& s)
{
  std::vector<std::size_t> out;
  if (s.quick) {
    for (std::size_t m : {std::size_t{8}, std::size_t{4} << 10, std::size_t{256} << 10})
      if (m >= s.min_bytes && m <= s.max_bytes) out.push_back(m);
    return out;
  }
  for (std::size_t m = 8; m <= s.max_bytes; m *= 8)
    if (m >= s.min_bytes) out.push_back(m);
  if (s.max_bytes >= s.min_bytes && (out.empty() || out.back() != s.max_bytes)) out.push_back(s.max_bytes);
  return out;
}

// ---------------------------------------------------------------------------------------
// Synchronisation between iterations: a sense-reversing barrier. With a core per rank it
// spins (leaving it costs no futex wake-up); with more ranks than cores it sleeps, so the
// ranks still working get the cores. It is never timed.

class Barrier {
public:
  Barrier(std::size_t n, bool spin) : n_(n), spin_(spin) {}
  void arrive_and_wait()
  {
    const std::uint32_t gen = generation_.load(std::memory_order_acquire);
    if (count_.fetch_add(1, std::memory_order_acq_rel) + 1 == n_) {
      count_.store(0, std::memory_order_relaxed);
      generation_.store(gen + 1, std::memory_order_release);
      if (!spin_) generation_.notify_all();
      return;
    }
    for (unsigned spins = 0; generation_.load(std::memory_order_acquire) == gen; ++spins) {
      if (spins < 64) pause();
      else if (spin_) std::this_thread::yield();
      else generation_.wait(gen, std::memory_order_acquire);
    }
  }

private:
  static void pause()
  {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#endif
  }
  std::size_t n_;
  bool spin_;
  alignas(64) std::atomic<std::size_t> count_{0};
  alignas(64) std::atomic<std::uint32_t> generation_{0};
};

#if defined(__linux__)
/// The CPUs the process may use, as it started (main() reads it before pinning anything).
const cpu_set_t& original_cpus()
{
  static const cpu_set_t original = [] {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0)
      for (int c = 0; c < CPU_SETSIZE; ++c) CPU_SET(c, &set);
    return set;
  }();
  return original;
}
#endif

/// Number of CPUs this process may run on.
std::size_t usable_cpus()
{
#if defined(__linux__)
  return static_cast<std::size_t>(CPU_COUNT(&original_cpus()));
#else
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : n;
#endif
}

/// Places the calling thread, rank r of p: when p does not exceed the CPUs the process
/// may use, on the r-th of them, so two ranks never share a core while another idles
/// (each hand-off between them would be a context switch); otherwise anywhere in the
/// process's original mask (pinning 4 ranks to a core only stops the scheduler from
/// balancing them). No-op where unsupported.
void place_thread(std::size_t r, std::size_t p, bool pin)
{
#if defined(__linux__)
  const cpu_set_t& original = original_cpus();
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &original)) cpus.push_back(c);
  cpu_set_t want = original;
  if (pin && p <= cpus.size()) {
    CPU_ZERO(&want);
    CPU_SET(cpus[r], &want);
  }
  (void)pthread_setaffinity_np(pthread_self(), sizeof want, &want);
#else
  (void)r, (void)p, (void)pin;
#endif
}

/// Keeps the compiler from dropping stores to `p` (for the memcpy roofline).
inline void clobber(const void* p)
{
  asm volatile("" : : "r"(p) : "memory");
}

// ---------------------------------------------------------------------------------------
// The timing protocol. The alltoall and its memcpy roofline are timed in the same team
// run, batch after batch in turn, so a busy moment of the (shared) machine slows both.

struct CellResult {
  double seconds = 0;          // median time per alltoall
  double roofline_seconds = 0; // median time of the same copies done locally by memcpy
  bool correct = true;         // the alltoall's result, checked after the warm-up
};

/// Runs on every rank of `team`: make(ep) returns the rank's call, an object with run()
/// (one alltoall), check() (true when the last run's result is right) and roofline()
/// (the p memcpys of m bytes that stand for one alltoall's copies).
template <class Make>
CellResult measure(threads::Team& team, const Settings& s, Make make)
{
  const std::size_t p = team.size();
  const std::size_t max_n = s.max_iterations;
  Barrier barrier(p, p <= usable_cpus());
  std::vector<std::vector<Clock::time_point>> starts(p, std::vector<Clock::time_point>(max_n));
  std::vector<std::vector<Clock::time_point>> ends(p, std::vector<Clock::time_point>(max_n));
  std::atomic<bool> wrong{false};
  CellResult result;

  team.run([&](threads::Endpoint& ep) {
    const std::size_t r = ep.rank();
    place_thread(r, p, s.pin);
    auto call = make(ep);
    // n iterations of f. Every rank returns the same {mean time per iteration, wall time
    // per iteration including the separators}, computed from everyone's time stamps after
    // the closing barrier.
    struct Timing {
      double op, wall;
    };
    auto batch = [&](std::size_t n, auto&& f) {
      for (std::size_t i = 0; i < n; ++i) {
        barrier.arrive_and_wait();
        starts[r][i] = Clock::now();
        f();
        ends[r][i] = Clock::now();
      }
      barrier.arrive_and_wait();
      double total = 0;
      Clock::time_point first = starts[0][0], last = ends[0][n - 1];
      for (std::size_t i = 0; i < n; ++i) {
        Clock::time_point last_start = starts[0][i], last_end = ends[0][i];
        for (std::size_t q = 1; q < p; ++q) {
          last_start = std::max(last_start, starts[q][i]);
          last_end = std::max(last_end, ends[q][i]);
        }
        total += std::chrono::duration<double>(last_end - last_start).count();
      }
      for (std::size_t q = 1; q < p; ++q) {
        first = std::min(first, starts[q][0]);
        last = std::max(last, ends[q][n - 1]);
      }
      // The next batch's first barrier keeps its writers from racing these reads.
      const double dn = static_cast<double>(n);
      return Timing{total / dn, std::chrono::duration<double>(last - first).count() / dn};
    };
    // Iterations per batch so that `batches` batches of f take about `budget` seconds of
    // wall time (separators included: with more ranks than cores they cost more than a
    // small operation).
    auto calibrate = [&](double budget, auto&& f) {
      std::size_t n = 1;
      double wall = batch(n, f).wall;
      while (wall * static_cast<double>(n) < 1e-3 && n < max_n) { // estimate over >= 1 ms
        n = std::min(max_n, std::max(n * 2, static_cast<std::size_t>(1e-3 / std::max(wall, 1e-9))));
        wall = batch(n, f).wall;
      }
      const double per_batch = budget / static_cast<double>(s.batches);
      return std::clamp<std::size_t>(static_cast<std::size_t>(std::ceil(per_batch / std::max(wall, 1e-9))), 1, max_n);
    };
    auto alltoall = [&] { call.run(); };
    auto roofline = [&] { call.roofline(); };

    batch(2, alltoall); // warm-up: page in buffers, grow the executor's vectors
    if (!call.check()) wrong.store(true);
    batch(2, roofline);

    const std::size_t n = calibrate(s.min_time_ms * 1e-3, alltoall);
    const std::size_t n_roof = calibrate(s.min_time_ms * 1e-3 / 4, roofline);
    std::vector<double> times, roof_times;
    for (std::size_t b = 0; b < s.batches; ++b) {
      times.push_back(batch(n, alltoall).op);
      roof_times.push_back(batch(n_roof, roofline).op);
    }
    std::sort(times.begin(), times.end());
    std::sort(roof_times.begin(), roof_times.end());
    if (r == 0) {
      result.seconds = times[times.size() / 2];
      result.roofline_seconds = roof_times[roof_times.size() / 2];
    }
  });
  result.correct = !wrong.load();
  return result;
}

/// Byte e of block j of rank r's send buffer.
inline unsigned char pattern(std::size_t r, std::size_t j, std::size_t e)
{
  return static_cast<unsigned char>(r * 131 + j * 31 + e * 7 + (e >> 8));
}

/// One rank's alltoall of p blocks of m bytes with algorithm `tag` on `topo`.
template <class Topo, class Tag>
struct AlltoallCall {
  Communicator<threads::Endpoint, Topo> comm;
  Tag tag;
  std::size_t m;
  std::vector<unsigned char> send, recv;

  AlltoallCall(threads::Endpoint& ep, const Topo& topo, Tag t, std::size_t m_)
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
};

// ---------------------------------------------------------------------------------------
// Topologies an algorithm may run on.

enum class Kind { ring, mesh, hypercube };

/// Most square r x c = p with r, c >= 2 (r <= c), or {0, 0} when there is none.
std::pair<std::size_t, std::size_t> mesh_shape(std::size_t p)
{
  std::pair<std::size_t, std::size_t> best{0, 0};
  for (std::size_t r = 2; r * r <= p; ++r)
    if (p % r == 0) best = {r, p / r};
  return best;
}

/// Calls f(topology) with the topology of kind K and size p and returns what f returns,
/// or false when there is no such topology. K is static so that f is instantiated only
/// for the topologies an algorithm lists (schedules reject others with static_assert).
template <Kind K, class F>
bool with_topology(std::size_t p, F&& f)
{
  if constexpr (K == Kind::ring) {
    return f(Ring<>{p});
  } else if constexpr (K == Kind::mesh) {
    const auto [r, c] = mesh_shape(p);
    return r != 0 && f(Mesh<>{r, c});
  } else {
    return std::has_single_bit(p) && f(Hypercube<>::of_size(p));
  }
}

std::string describe(const Ring<>& t) { return "Ring " + std::to_string(t.size()); }
std::string describe(const Mesh<>& t) { return "Mesh " + std::to_string(t.extent(0)) + "x" + std::to_string(t.extent(1)); }
std::string describe(const Hypercube<>& t) { return "Hypercube " + std::to_string(t.ndims()); }

/// One line of the list: an algorithm's tag (which knows its name) and the topologies to
/// run it on, the first that fits p being used.
template <class Tag, Kind... K>
struct Entry {
  Tag tag;
};
template <Kind... K, class Tag>
constexpr Entry<Tag, K...> entry(Tag tag)
{
  return {tag};
}

/// Runs f(topology) on the first of e's topologies that fits p; false if none does.
template <class Tag, Kind... K, class F>
bool on_first_topology(const Entry<Tag, K...>&, std::size_t p, F&& f)
{
  return (with_topology<K>(p, f) || ...);
}

struct Row {
  std::string algorithm, topology;
  std::size_t p = 0, m = 0;
  CellResult cell;
};

void print_header()
{
  std::printf("| %-18s | %-12s | %3s | %8s | %11s | %10s | %11s | %10s |\n", "algorithm", "topology", "p", "block B",
              "time us", "GB/s/rank", "memcpy us", "% roofline");
  std::printf("|%s|%s|%s|%s|%s|%s|%s|%s|\n", "--------------------", "--------------", "----:", "---------:",
              "------------:", "-----------:", "------------:", "-----------:");
  std::fflush(stdout);
}

std::string size_text(std::size_t m)
{
  if (m >= (std::size_t{1} << 20) && m % (std::size_t{1} << 20) == 0) return std::to_string(m >> 20) + "M";
  if (m >= 1024 && m % 1024 == 0) return std::to_string(m >> 10) + "K";
  return std::to_string(m);
}

void print_row(const Row& row, bool best)
{
  const double bytes = static_cast<double>(row.p * row.m);
  const std::string name = std::string(best ? "**" : "") + row.algorithm + (best ? "**" : "");
  std::printf("| %-18s | %-12s | %3zu | %8s | %11.2f | %10.2f | %11.2f | %9.1f%% |%s\n", name.c_str(),
              row.topology.c_str(), row.p, size_text(row.m).c_str(), row.cell.seconds * 1e6,
              bytes / row.cell.seconds / 1e9, row.cell.roofline_seconds * 1e6,
              100.0 * row.cell.roofline_seconds / row.cell.seconds, row.cell.correct ? "" : " WRONG RESULT");
}

/// The 1-, 5- and 15-minute load averages (Linux), to judge how quiet the machine was.
std::string load_average()
{
  std::string text = "unknown";
#if defined(__linux__)
  if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
    double a = 0, b = 0, c = 0;
    if (std::fscanf(f, "%lf %lf %lf", &a, &b, &c) == 3) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.2f %.2f %.2f", a, b, c);
      text = buf;
    }
    std::fclose(f);
  }
#endif
  return text;
}

} // namespace

int main(int argc, char** argv)
{
  namespace alg = collectives::alltoall_algorithm;
  const Settings settings = parse_args(argc, argv);
  const std::size_t cpus = usable_cpus(); // before any thread is pinned

  // The algorithms: one line each. An algorithm runs on the first listed topology that
  // fits p (a hypercube needs p a power of two, a mesh two dimensions of at least 2) and
  // that its schedule accepts; with none it is skipped for that p.
  const auto algorithms = std::tuple{
    entry<Kind::ring>(alg::pairwise),
    entry<Kind::hypercube>(alg::pairwise_xor),
    entry<Kind::ring>(alg::ring),
    entry<Kind::ring>(alg::ring_two_way),
    entry<Kind::ring>(alg::bruck),
    entry<Kind::hypercube>(alg::standard_exchange),
    entry<Kind::hypercube>(alg::all_port),
    entry<Kind::mesh>(alg::dimensional),
  };

  auto wanted = [&](const char* name) {
    return settings.only.empty() || std::find(settings.only.begin(), settings.only.end(), name) != settings.only.end();
  };
  std::printf("# alltoall on the threads transport, %zu CPUs, load average %s; ranks %s\n", cpus,
              load_average().c_str(), settings.pin ? "pinned one per CPU when p <= CPUs" : "not pinned");
  std::printf("# time: median over %zu batches (~%.0f ms wall per cell) of the time per call, from the last rank\n"
              "#   entering to the last rank leaving; GB/s/rank: p*m bytes / time;\n"
              "# memcpy: p threads each memcpy p blocks of m bytes (the bytes one alltoall copies per rank),\n"
              "#   timed in the same run, batches interleaved; %% roofline: memcpy time / alltoall time.\n"
              "# Fastest algorithm of each (p, block) in bold.\n",
              settings.batches, settings.min_time_ms);
  std::printf("\n");
  print_header();

  bool all_correct = true;
  std::vector<std::string> skipped;
  const auto sizes = block_sizes(settings);
  for (std::size_t p : settings.ps) {
    threads::Team team{p};
    for (std::size_t m : sizes) {
      std::vector<Row> rows;
      auto run_entry = [&](const auto& e) {
        using Tag = std::remove_cvref_t<decltype(e.tag)>;
        if (!wanted(Tag::name)) return;
        const bool done = on_first_topology(e, p, [&](const auto& topo) {
          using Topo = std::remove_cvref_t<decltype(topo)>;
          if constexpr (requires { Tag::schedule(topo); }) {
            try {
              (void)Tag::schedule(topo); // run-time fit (e.g. p a power of two)
            } catch (const std::invalid_argument&) {
              return false;
            }
            const CellResult c = measure(team, settings, [&](threads::Endpoint& ep) {
              return AlltoallCall<Topo, Tag>(ep, topo, e.tag, m);
            });
            rows.push_back(Row{Tag::name, describe(topo), p, m, c});
            return true;
          } else {
            return false;
          }
        });
        if (!done && m == sizes.front()) skipped.push_back(std::string(Tag::name) + " (p=" + std::to_string(p) + ")");
      };
      std::apply([&](const auto&... e) { (run_entry(e), ...); }, algorithms);

      std::size_t best = 0;
      for (std::size_t i = 0; i < rows.size(); ++i)
        if (rows[i].cell.seconds < rows[best].cell.seconds) best = i;
      for (std::size_t i = 0; i < rows.size(); ++i) {
        print_row(rows[i], i == best && rows.size() > 1);
        all_correct = all_correct && rows[i].cell.correct;
      }
      std::fflush(stdout);
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
