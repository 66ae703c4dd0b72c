#pragma once
// Shared by the threads-transport benchmarks (alltoall.cpp, collectives.cpp): command
// line, the team loop and its timing protocol, the memcpy roofline, the topologies an
// algorithm may run on, and the Markdown table. mpi_collectives.cpp uses its topologies,
// barrier, thread placement and size parsing for its threads-transport column.
//
// Method (every program): for each group of cells (one collective at one p and size, every
// algorithm) every rank loops inside one Team::run (pinned to its own CPU when there are
// enough), the cells' batches interleaved round by round (CellGroup). Iterations are separated by a barrier of this
// harness (not timed): an iteration of the collective lasts from the moment the last rank
// starts it to the moment the last rank finishes it, so neither the separator nor the
// skew with which threads leave it counts. After a warm-up and a check that the result is
// right, iteration counts are calibrated so the collective's batches take about min-time
// of wall time in all (the roofline's a quarter of that); collective batches and roofline
// batches alternate. A batch's time is its mean iteration (--stat mean) or its median
// iteration (--stat median: a rank preempted for a whole time slice by another process,
// common on a loaded machine, then spoils one iteration instead of the batch's mean); the
// cell's time is the median over its batches. On a shared machine, read the load average
// printed with the table: other processes on the cores slow a collective (whose ranks
// wait for each other) far more than the memcpy.
//
// The roofline of a cell: every rank memcpys, at the same time as the others, the bytes it
// must at least copy in one call of the collective (each program says how many), between
// two buffers of its own. An iteration of the roofline lasts as long as the longest rank's
// copy, or, if longer, the sum of all ranks' copies over min(p, CPUs) (with more ranks than
// CPUs they cannot all copy at once). No threads-transport algorithm can beat that time.
// "% roofline" is the median over batches of the roofline batch's time over the time of
// the collective batch just before it (so it is not quite the ratio of the two printed
// medians); "roof B" is the bytes of the busiest rank.
//
// On a terminal the programs show which cell runs and how many are left (Progress, on
// stderr: stdout, redirected, gets the table alone, under mpirun too). With
// COLLECTIVES_TRACE=file.json every cell's warm-up calls are traced (TracingEndpoint)
// into that file, one process per cell, for Perfetto / chrome://tracing; the timed
// iterations never are.

#include <collectives/collectives.hpp>

#include <boost/hana/unpack.hpp>
#include <collectives/transport/tracing.hpp>

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
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
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
#if defined(__unix__)
#include <unistd.h>
#endif

namespace bench {

using namespace collectives;
/// The clock of every time stamp.
using Clock = std::chrono::steady_clock;

// ---------------------------------------------------------------------------------------
// Settings and the command line

/// What to measure and how long; filled by parse_args.
struct Settings {
  std::vector<std::size_t> ps{2, 4, 8};
  std::size_t min_bytes = 8;
  std::size_t max_bytes = std::size_t{1} << 20;
  double min_time_ms = 20.0; // wall time of a cell's collective batches (separators included)
  std::size_t batches = 5;
  std::size_t max_iterations = 20000; // per batch
  bool quick = false;
  bool all_sizes = false;        // every size x8 apart, not the program's short list
  bool median = false;           // a batch's time: its median iteration (else its mean)
  bool pin = true;               // rank r on the r-th allowed CPU when p <= CPUs
  std::vector<std::string> only; // algorithm names; empty = all
};

/// A size with an optional K or M suffix (binary): "64K" is 65536.
inline std::size_t parse_size(std::string_view s)
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

/// "a,b,c" as {"a", "b", "c"}.
inline std::vector<std::string> split(std::string_view s)
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

/// A program's name and usage text, for parse_args.
struct Program {
  const char* name;
  const char* usage; // printed by --help and on a bad argument
  /// --all-sizes is the program's default (alltoall) rather than an option.
  bool all_sizes_by_default = false;
  /// --stat median is the program's default (collectives) rather than --stat mean.
  bool median_by_default = false;
  /// --batches when not given.
  std::size_t default_batches = 5;
};

[[noreturn]] inline void usage(const Program& prog, int code)
{
  std::fputs(prog.usage, code == 0 ? stdout : stderr);
  std::exit(code);
}

/// Parses the flags every program shares (--p, --min-bytes, --max-bytes, --min-time-ms,
/// --batches, --algorithms, --all-sizes, --stat, --quick, --no-pin, --help). A flag it does not
/// know goes to extra(flag, value), where value() takes the next argument; extra returns
/// false for a flag it does not know either.
template <class Extra>
Settings parse_args(int argc, char** argv, const Program& prog, Extra&& extra)
{
  Settings s;
  s.all_sizes = prog.all_sizes_by_default;
  s.median = prog.median_by_default;
  s.batches = prog.default_batches;
  bool max_given = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    auto value = [&]() -> std::string_view {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s: %s needs a value\n", prog.name, argv[i]);
        usage(prog, 2);
      }
      return argv[++i];
    };
    try {
      if (a == "--help" || a == "-h") usage(prog, 0);
      else if (a == "--quick") s.quick = true;
      else if (a == "--no-pin") s.pin = false;
      else if (a == "--all-sizes") s.all_sizes = true;
      else if (a == "--stat") {
        const std::string_view v = value();
        if (v != "mean" && v != "median") throw std::invalid_argument("expected mean or median");
        s.median = v == "median";
      }
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
      else if (!extra(a, value)) {
        std::fprintf(stderr, "%s: unknown argument '%s'\n", prog.name, argv[i]);
        usage(prog, 2);
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: bad value for %s: %s\n", prog.name, argv[i - 1], e.what());
      usage(prog, 2);
    }
  }
  if (s.quick) {
    s.min_time_ms = std::min(s.min_time_ms, 4.0);
    s.batches = std::min<std::size_t>(s.batches, 3);
    if (!max_given) s.max_bytes = std::size_t{256} << 10;
  }
  for (std::size_t p : s.ps)
    if (p < 1 || p > 64) {
      std::fprintf(stderr, "%s: p must be between 1 and 64\n", prog.name);
      usage(prog, 2);
    }
  if (s.batches == 0) s.batches = 1;
  return s;
}

/// The message sizes to measure, within [min-bytes, max-bytes]: --quick: 8, 4K, 256K;
/// --all-sizes: 8, 64, 512, ... (x8 apart) and max-bytes; else `short_list` and max-bytes.
inline std::vector<std::size_t> message_sizes(const Settings& s, const std::vector<std::size_t>& short_list)
{
  std::vector<std::size_t> out;
  auto keep = [&](std::size_t m) {
    if (m >= s.min_bytes && m <= s.max_bytes && std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
  };
  if (s.quick) {
    for (std::size_t m : {std::size_t{8}, std::size_t{4} << 10, std::size_t{256} << 10}) keep(m);
    return out;
  }
  if (s.all_sizes)
    for (std::size_t m = 8; m <= s.max_bytes; m *= 8) keep(m);
  else
    for (std::size_t m : short_list) keep(m);
  keep(s.max_bytes);
  std::sort(out.begin(), out.end());
  return out;
}

/// True when `name` passes a filter list (an empty list passes everything).
inline bool selected(const std::vector<std::string>& only, std::string_view name)
{
  return only.empty() || std::find(only.begin(), only.end(), name) != only.end();
}

/// Counts `name` in `listed` when it passes the filter (a fold over a list of algorithms).
inline void count_if_selected(const std::vector<std::string>& only, std::string_view name, std::size_t& listed)
{
  if (selected(only, name)) ++listed;
}

// ---------------------------------------------------------------------------------------
// Synchronisation between iterations: a sense-reversing barrier. With a core per rank it
// spins (leaving it costs no futex wake-up); with more ranks than cores it sleeps, so the
// ranks still working get the cores. It is never timed.

/// The separator between timed iterations (not a collectives::barrier: it must not be
/// what is measured).
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
/// The CPUs the process may use, as it started (main() reads it, through usable_cpus(),
/// before pinning anything).
inline const cpu_set_t& original_cpus()
{
  static const cpu_set_t original = [] {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0)
      for (std::size_t c = 0; c < CPU_SETSIZE; ++c) CPU_SET(c, &set);
    return set;
  }();
  return original;
}
#endif

/// Number of CPUs this process may run on.
inline std::size_t usable_cpus()
{
#if defined(__linux__)
  return static_cast<std::size_t>(CPU_COUNT(&original_cpus()));
#else
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : n;
#endif
}

#if defined(__linux__)
/// Places the calling thread, rank r of p, within `allowed`: when p does not exceed its
/// CPUs, on the r-th of them, so two ranks never share a core while another idles (each
/// hand-off between them would be a context switch); otherwise anywhere in `allowed`
/// (pinning 4 ranks to a core only stops the scheduler from balancing them).
inline void place_thread(std::size_t r, std::size_t p, bool pin, const cpu_set_t& allowed)
{
  std::vector<std::size_t> cpus;
  for (std::size_t c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  cpu_set_t want = allowed;
  if (pin && p <= cpus.size()) {
    CPU_ZERO(&want);
    CPU_SET(cpus[r], &want);
  }
  (void)pthread_setaffinity_np(pthread_self(), sizeof want, &want);
}
#endif

/// Places the calling thread, rank r of p, within the process's original mask (see the
/// overload above). No-op where unsupported.
inline void place_thread(std::size_t r, std::size_t p, bool pin)
{
#if defined(__linux__)
  place_thread(r, p, pin, original_cpus());
#else
  (void)r, (void)p, (void)pin;
#endif
}

/// Keeps the compiler from dropping stores to `p` (for the memcpy roofline).
inline void clobber(const void* p)
{
  asm volatile("" : : "r"(p) : "memory");
}

/// An allocator whose every block starts a page. A cell's buffers then sit in their pages
/// as every other cell's do: the speed of a copy depends on where its source and its
/// destination start within their pages, and the cells of a group, alive at once
/// (CellGroup), would otherwise each get their own placement from malloc (a gather at
/// p = 2, 64 KiB: the algorithm whose buffers were allocated first 9-13 % faster than the
/// same schedule under another name).
template <class T>
struct PageAligned {
  using value_type = T;
  static constexpr std::align_val_t page{4096};
  PageAligned() = default;
  template <class U>
  PageAligned(const PageAligned<U>&) noexcept
  {
  }
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), page)); }
  void deallocate(T* q, std::size_t) noexcept { ::operator delete(q, page); }
  template <class U>
  bool operator==(const PageAligned<U>&) const noexcept
  {
    return true;
  }
};

/// A benchmark's buffer (PageAligned).
template <class T>
using PageVector = std::vector<T, PageAligned<T>>;

/// One rank's share of a roofline that copies between buffers of its own: `bytes` from a
/// source to a destination, both first touched in the warm-up like the collective's.
class RooflineCopy {
public:
  explicit RooflineCopy(std::size_t bytes) : src_(bytes, 0x5a), dst_(bytes) {}
  void run()
  {
    if (!src_.empty()) std::memcpy(dst_.data(), src_.data(), src_.size());
    clobber(dst_.data());
  }
  std::size_t bytes() const { return src_.size(); }

private:
  PageVector<unsigned char> src_, dst_;
};

// ---------------------------------------------------------------------------------------
// Progress on the terminal

/// A one-line display of the cell being measured and how many are left, redrawn in place
/// on stderr when stderr is a terminal (and nothing otherwise): stdout, redirected, holds
/// the table alone, also under mpirun, which gives each rank a terminal of its own for
/// stdout whatever mpirun's own stdout is. Rows printed by print_row clear it first. One at
/// a time per program.
class Progress {
public:
  /// `total`: the cells the program will go through (measured or skipped).
  explicit Progress(std::size_t total) : total_(total), on_(stderr_is_terminal())
  {
    active() = this;
  }
  ~Progress()
  {
    clear();
    active() = nullptr;
  }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /// Shows that cell `what` starts.
  void start(const std::string& what)
  {
    ++done_;
    if (!on_) return;
    std::fflush(stdout); // the rows before it first
    std::fprintf(stderr, "\r\033[K[cell %zu/%zu, %zu left] %s", done_, total_, total_ > done_ ? total_ - done_ : 0,
                 what.c_str());
    std::fflush(stderr);
    shown_ = true;
  }
  /// Counts a cell that does not run (its algorithm does not fit).
  void skip() { ++done_; }
  /// Erases the line (before anything else is printed).
  void clear()
  {
    if (!shown_) return;
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    shown_ = false;
  }
  std::size_t done() const { return done_; }

  /// The program's Progress, if any (print_row clears it).
  static Progress*& active()
  {
    static Progress* p = nullptr;
    return p;
  }
  static bool stderr_is_terminal()
  {
#if defined(__unix__)
    return isatty(fileno(stderr)) != 0;
#else
    return false;
#endif
  }

private:
  std::size_t total_, done_ = 0;
  bool on_, shown_ = false;
};

/// Clears the active Progress line, if one is shown.
inline void clear_progress()
{
  if (Progress* p = Progress::active()) p->clear();
}

// ---------------------------------------------------------------------------------------
// Traces (COLLECTIVES_TRACE)

/// The endpoint every benchmark call runs on: the threads transport behind a
/// TracingEndpoint that records only while CellGroup::add traces a cell's warm-up (otherwise
/// it forwards; one branch per step).
using BenchEndpoint = TracingEndpoint<threads::Endpoint>;

/// The traces of the program's cells, written to COLLECTIVES_TRACE after each cell.
class TraceSink {
public:
  static TraceSink& instance()
  {
    static TraceSink sink;
    return sink;
  }
  bool enabled() const { return !file_.empty(); }
  /// A new trace for a cell of p ranks called `label`.
  Trace& add(std::size_t p, const std::string& label)
  {
    traces_.push_back(std::make_unique<Trace>(p, label));
    return *traces_.back();
  }
  /// Rewrites the file with every trace so far (a program stopped midway leaves a
  /// readable file).
  void write() const
  {
    std::vector<const Trace*> all;
    for (const auto& t : traces_) all.push_back(t.get());
    Trace::write_file(file_, all);
  }
  const std::string& file() const { return file_; }

private:
  TraceSink() : file_(trace_file_from_environment()) {}
  std::string file_;
  std::vector<std::unique_ptr<Trace>> traces_;
};

// ---------------------------------------------------------------------------------------
// The timing protocol. The collective and its memcpy roofline are timed in the same team
// run, batch after batch in turn, so a busy moment of the (shared) machine slows both.

/// What CellGroup found for one cell.
struct CellResult {
  double seconds = 0;            // median time per call
  double roofline_seconds = 0;   // median time of the roofline's copies (0: no roofline)
  double roofline_ratio = 0;     // median over batches of roofline time / collective time
  std::size_t roofline_bytes = 0; // the roofline's bytes on its busiest rank
  bool has_roofline = false;
  bool correct = true; // the call's result, checked after the warm-up
  std::string ran;     // the algorithm its calls ran (a default call's pick); "" if no message
};

/// The algorithm of the first step `trace` recorded on any rank ("" if none).
inline std::string algorithm_in(const Trace& trace)
{
  for (std::size_t r = 0; r < trace.size(); ++r)
    for (const TraceEvent& e : trace.rank(r).events)
      if (e.algorithm != 0) return trace.rank(r).names.at(e.algorithm);
  return "";
}

/// A trace of p ranks that nothing records into (when COLLECTIVES_TRACE is unset).
inline Trace& idle_trace(std::size_t p)
{
  static std::vector<std::unique_ptr<Trace>> idle(65);
  if (!idle.at(p)) idle[p] = std::make_unique<Trace>(p);
  return *idle[p];
}

/// One rank's side of the timing protocol, shared by the cells of a team run: n
/// iterations of a function between the harness's barriers, and the iteration count that
/// makes a cell's batches last a given wall time.
class BatchTimer {
public:
  /// Every rank returns the same {mean time per iteration, median, wall time per
  /// iteration including the separators}, computed from everyone's time stamps after the
  /// closing barrier.
  struct Timing {
    double mean, median, wall;
  };
  /// The stamps every rank of a team run shares (rank r writes row r).
  struct Stamps {
    Stamps(std::size_t p, std::size_t max_n)
      : starts(p, std::vector<Clock::time_point>(max_n)), ends(p, std::vector<Clock::time_point>(max_n))
    {
    }
    std::vector<std::vector<Clock::time_point>> starts, ends;
  };

  BatchTimer(std::size_t rank, std::size_t p, Barrier& barrier, Stamps& stamps, const Settings& s)
    : r_(rank), p_(p), cores_(usable_cpus()), barrier_(barrier), stamps_(stamps), s_(s), its_(s.max_iterations)
  {
  }

  /// n iterations of f (roof: f is the roofline's copies, timed as the top of the file says).
  template <class F>
  Timing batch(std::size_t n, F&& f, bool roof)
  {
    auto& starts = stamps_.starts;
    auto& ends = stamps_.ends;
    for (std::size_t i = 0; i < n; ++i) {
      barrier_.arrive_and_wait();
      starts[r_][i] = Clock::now();
      f();
      ends[r_][i] = Clock::now();
    }
    barrier_.arrive_and_wait();
    auto secs = [](Clock::duration d) { return std::chrono::duration<double>(d).count(); };
    double total = 0;
    Clock::time_point first = starts[0][0], last = ends[0][n - 1];
    for (std::size_t i = 0; i < n; ++i) {
      if (roof) {
        // The copies cannot finish before the busiest rank's, nor before all of them
        // spread over the cores. (From the last start to the last end would miss a
        // busy rank that finished before an idle one started.)
        double longest = 0, sum = 0;
        for (std::size_t q = 0; q < p_; ++q) {
          const double d = secs(ends[q][i] - starts[q][i]);
          longest = std::max(longest, d);
          sum += d;
        }
        its_[i] = std::max(longest, sum / static_cast<double>(std::min(p_, cores_)));
      } else {
        Clock::time_point last_start = starts[0][i], last_end = ends[0][i];
        for (std::size_t q = 1; q < p_; ++q) {
          last_start = std::max(last_start, starts[q][i]);
          last_end = std::max(last_end, ends[q][i]);
        }
        its_[i] = secs(last_end - last_start);
      }
      total += its_[i];
    }
    for (std::size_t q = 1; q < p_; ++q) {
      first = std::min(first, starts[q][0]);
      last = std::max(last, ends[q][n - 1]);
    }
    // The next batch's first barrier keeps its writers from racing these reads.
    std::nth_element(its_.begin(), its_.begin() + static_cast<std::ptrdiff_t>(n / 2),
                     its_.begin() + static_cast<std::ptrdiff_t>(n));
    const double dn = static_cast<double>(n);
    return Timing{total / dn, its_[n / 2], secs(last - first) / dn};
  }

  /// Iterations per batch so that the settings' batches of f take about `budget` seconds of
  /// wall time (separators included: with more ranks than cores they cost more than a
  /// small operation).
  template <class F>
  std::size_t calibrate(double budget, F&& f, bool roof)
  {
    const std::size_t max_n = s_.max_iterations;
    std::size_t n = 1;
    double wall = batch(n, f, roof).wall;
    while (wall * static_cast<double>(n) < 1e-3 && n < max_n) { // estimate over >= 1 ms
      n = std::min(max_n, std::max(n * 2, static_cast<std::size_t>(1e-3 / std::max(wall, 1e-9))));
      wall = batch(n, f, roof).wall;
    }
    const double per_batch = budget / static_cast<double>(s_.batches);
    return std::clamp<std::size_t>(static_cast<std::size_t>(std::ceil(per_batch / std::max(wall, 1e-9))), 1, max_n);
  }

  /// The time of a batch a cell reports: its mean or its median iteration.
  double reported(const Timing& t) const { return s_.median ? t.median : t.mean; }

private:
  std::size_t r_, p_, cores_;
  Barrier& barrier_;
  Stamps& stamps_;
  const Settings& s_;
  std::vector<double> its_; // this rank's per-iteration times
};

namespace detail_bench {

/// A rank's call of one cell, whatever its type: what the timed run needs of it.
struct TimedCall {
  virtual ~TimedCall() = default;
  virtual BatchTimer::Timing batch(BatchTimer& t, std::size_t n, bool roof) = 0;
  virtual std::size_t calibrate(BatchTimer& t, double budget, bool roof) = 0;
  virtual bool check() = 0;
  virtual bool has_roofline() const = 0;
  virtual std::size_t roofline_bytes() = 0;
};

template <class Call>
struct TimedCallOf final : TimedCall {
  static constexpr bool roofed = requires(Call& c) { c.roofline(); };
  Call call;
  template <class Make>
  TimedCallOf(const Make& make, BenchEndpoint& ep) : call(make(ep))
  {
  }
  // The batch loops are instantiated per call type: the loop calls run() directly.
  BatchTimer::Timing batch(BatchTimer& t, std::size_t n, bool roof) override
  {
    if constexpr (roofed)
      if (roof) return t.batch(n, [&] { call.roofline(); }, true);
    return t.batch(n, [&] { call.run(); }, false);
  }
  std::size_t calibrate(BatchTimer& t, double budget, bool roof) override
  {
    if constexpr (roofed)
      if (roof) return t.calibrate(budget, [&] { call.roofline(); }, true);
    return t.calibrate(budget, [&] { call.run(); }, false);
  }
  bool check() override { return call.check(); }
  bool has_roofline() const override { return roofed; }
  std::size_t roofline_bytes() override
  {
    if constexpr (roofed)
      return call.roofline_bytes();
    else
      return 0;
  }
};

} // namespace detail_bench

/// The machine's memory in bytes (4 GiB where the system does not say).
inline std::size_t physical_memory_bytes()
{
#if defined(__linux__)
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) return static_cast<std::size_t>(pages) * static_cast<std::size_t>(page);
#endif
  return std::size_t{4} << 30;
}

/// The cells of one group (a collective at one p and size: its algorithms), timed in one
/// team run with their batches interleaved: round b times cell (b + k) mod K for k = 0 ..
/// K-1, each batch followed by its roofline's. So a shift of the shared machine's speed
/// during the group (another tenant, the hypervisor moving the vCPUs) slows every
/// algorithm of the group alike instead of the cells that ran during it, and the group's
/// ratios (the default against the best named algorithm) compare like with like, as
/// mpi_collectives' rounds do. (A group whose buffers would take more than a quarter of
/// the memory is timed in consecutive chunks that fit, each interleaved.)
class CellGroup {
public:
  CellGroup(threads::Team& team, const Settings& s) : team_(team), s_(s) {}

  /// Adds a cell. make(ep) returns the rank's call (ep: a BenchEndpoint): an object with
  /// run() (one call of the collective) and check() (true when the last run's result is
  /// right; every rank calls it at the same point, so it may itself communicate), and
  /// optionally roofline() (this rank's copies that stand for one call) with
  /// roofline_bytes(). `make` is kept (by value) and called again by time(). The cell's
  /// warm-up and check run now, in a team run of their own (traced under
  /// COLLECTIVES_TRACE, as `label`): an algorithm that does not fit throws its
  /// std::invalid_argument here (on every rank before any message) and is not added.
  template <class Make>
  void add(Make make, const std::string& label = "cell")
  {
    Maker maker = [make](BenchEndpoint& ep) -> std::unique_ptr<detail_bench::TimedCall> {
      using Call = decltype(make(ep));
      return std::make_unique<detail_bench::TimedCallOf<Call>>(make, ep);
    };
    TraceSink& sink = TraceSink::instance();
    // The warm-up is always traced, into the sink's file or a trace of its own: the
    // algorithm its calls ran (a default call's pick) is read from it.
    std::optional<Trace> own;
    if (!sink.enabled()) own.emplace(team_.size(), label);
    Trace& trace = sink.enabled() ? sink.add(team_.size(), label) : *own;
    std::atomic<bool> wrong{false};
    std::atomic<std::size_t> roof_bytes{0};
    in_team([&](std::size_t, BatchTimer& timer, threads::Endpoint& raw) {
      BenchEndpoint ep(raw, trace);
      ep.set_enabled(true); // the warm-up only
      const auto call = maker(ep);
      call->batch(timer, 2, false);
      ep.set_enabled(sink.enabled()); // (the check too, into the file)
      if (!call->check()) wrong.store(true);
      ep.set_enabled(false);
      for (std::size_t b = call->roofline_bytes(), seen = roof_bytes.load(); b > seen;)
        if (roof_bytes.compare_exchange_weak(seen, b)) break;
    });
    if (sink.enabled()) sink.write();
    CellResult c;
    c.correct = !wrong.load();
    c.roofline_bytes = roof_bytes.load();
    c.ran = algorithm_in(trace);
    makers_.push_back(std::move(maker));
    results_.push_back(c);
  }

  std::size_t size() const { return makers_.size(); }

  /// Times every cell added, in the order added (see the class comment): the results,
  /// with what add() found (correct, roofline bytes).
  std::vector<CellResult> time()
  {
    // Every cell of a chunk is alive at once: chunks of at most a quarter of the memory
    // (a cell counted as 4 x its busiest rank's roofline bytes on each rank, its buffers and
    // scratch with room to spare), so that a large p and size time in turn what fits
    // instead of running out of memory.
    const std::size_t budget = physical_memory_bytes() / 4;
    std::size_t first = 0, held = 0;
    for (std::size_t i = 0; i < makers_.size(); ++i) {
      const std::size_t bytes = 4 * std::max<std::size_t>(results_[i].roofline_bytes, 1) * team_.size();
      if (i > first && held + bytes > budget) {
        time_cells(first, i);
        first = i;
        held = 0;
      }
      held += bytes;
    }
    if (first < makers_.size()) time_cells(first, makers_.size());
    return results_;
  }

private:
  using Maker = std::function<std::unique_ptr<detail_bench::TimedCall>(BenchEndpoint&)>;

  /// Times cells [first, last) in one team run, their batches interleaved.
  void time_cells(std::size_t first, std::size_t last)
  {
    const std::size_t k = last - first;
    in_team([&](std::size_t r, BatchTimer& timer, threads::Endpoint& raw) {
      BenchEndpoint ep(raw, idle_trace(team_.size()));
      ep.set_enabled(false);
      std::vector<std::unique_ptr<detail_bench::TimedCall>> calls;
      for (std::size_t i = first; i < last; ++i) calls.push_back(makers_[i](ep));
      const double budget = s_.min_time_ms * 1e-3;
      std::vector<std::size_t> n(k), n_roof(k);
      for (std::size_t i = 0; i < k; ++i) {
        calls[i]->batch(timer, 2, false); // warm-up: page in buffers, grow the executor's vectors
        if (calls[i]->has_roofline()) calls[i]->batch(timer, 2, true);
        n[i] = calls[i]->calibrate(timer, budget, false);
        n_roof[i] = calls[i]->has_roofline() ? calls[i]->calibrate(timer, budget / 4, true) : 0;
      }
      std::vector<std::vector<double>> times(k), roof_times(k);
      for (std::size_t b = 0; b < s_.batches; ++b)
        for (std::size_t j = 0; j < k; ++j) {
          const std::size_t i = (b + j) % k;
          times[i].push_back(timer.reported(calls[i]->batch(timer, n[i], false)));
          if (calls[i]->has_roofline()) roof_times[i].push_back(timer.reported(calls[i]->batch(timer, n_roof[i], true)));
        }
      if (r != 0) return;
      auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
      };
      for (std::size_t i = 0; i < k; ++i) {
        CellResult& c = results_[first + i];
        c.seconds = median(times[i]);
        c.has_roofline = calls[i]->has_roofline();
        if (!c.has_roofline) continue;
        c.roofline_seconds = median(roof_times[i]);
        // The ratio batch by batch, each collective batch against the roofline batch right
        // after it: when the machine's speed shifts, the pairs still compare like with like.
        std::vector<double> ratios;
        for (std::size_t b = 0; b < roof_times[i].size(); ++b) ratios.push_back(roof_times[i][b] / times[i][b]);
        c.roofline_ratio = median(ratios);
      }
    });
  }

  /// Runs f(rank, timer, endpoint) on every rank of the team, each rank placed as the
  /// settings say.
  template <class F>
  void in_team(F&& f)
  {
    const std::size_t p = team_.size();
    Barrier barrier(p, p <= usable_cpus());
    BatchTimer::Stamps stamps(p, s_.max_iterations);
    // Rank 0 runs on this thread and pins it; a team created on it afterwards counts the
    // CPUs it may run on (one) and takes itself for oversubscribed (the next group's team:
    // eager up to 4 KiB, no shared copies, the oversubscribed model's picks). So the
    // process's mask comes back when the run ends.
    struct RestoreMask {
      ~RestoreMask() { place_thread(0, 1, false); }
    } restore_mask;
    team_.run([&](threads::Endpoint& raw) {
      const std::size_t r = raw.rank();
      place_thread(r, p, s_.pin);
      BatchTimer timer(r, p, barrier, stamps, s_);
      f(r, timer, raw);
    });
  }

  threads::Team& team_;
  const Settings& s_;
  std::vector<Maker> makers_;
  std::vector<CellResult> results_;
};

// ---------------------------------------------------------------------------------------
// Topologies an algorithm may run on.

/// Most square r x c = p with r, c >= 2 (r <= c), or {0, 0} when there is none.
inline std::pair<std::size_t, std::size_t> mesh_shape(std::size_t p)
{
  std::pair<std::size_t, std::size_t> best{0, 0};
  for (std::size_t r = 2; r * r <= p; ++r)
    if (p % r == 0) best = {r, p / r};
  return best;
}

/// The topology column of the table.
inline std::string describe(const Ring<>& t) { return "Ring " + std::to_string(t.size()); }
inline std::string describe(const Mesh<>& t) { return "Mesh " + std::to_string(t.extent(0)) + "x" + std::to_string(t.extent(1)); }
inline std::string describe(const Hypercube<>& t) { return "Hypercube " + std::to_string(t.ndims()); }

/// One algorithm of a collective's list (or the default), as the benchmarks run it.
template <class Tag>
struct Entry {
  Tag tag;
};

/// Collective C's list, then its default: every algorithm the registry has, in its order.
template <Collective C>
constexpr auto entries_of()
{
  return boost::hana::unpack(algorithms<C>, [](auto... a) {
    return std::tuple{Entry<decltype(a)>{a}..., Entry<Automatic>{automatic}};
  });
}

/// Whether a default call on a ring may run Tag's schedule: not a per-dimension algorithm
/// (those run on a mesh, on_topology's choice), and one whose needs a ring's type meets.
/// The default itself counts as one.
template <class Tag>
inline constexpr bool default_on_ring_may_run =
  std::same_as<Tag, Automatic> ||
  (!(Tag::needs.product || Tag::needs.two_or_more_dims || Tag::needs.two_dims) && fits_topology_type<Tag, Ring<>>);

/// Issue 12's tolerance for the default: a time within 1.1x of the best, as both
/// benchmarks' summaries count it.
inline bool within_tenth(double t, double best) { return t <= 1.1 * best; }
/// Two timings of one schedule (the default and its pick's own column) within 1.1x of each
/// other: the run's own resolution for the counts above.
inline bool agree_within_tenth(double a, double b) { return std::max(a, b) <= 1.1 * std::min(a, b); }

/// Calls f(topology) with the topology of p nodes the algorithm's needs call for (a 2-D
/// mesh, as square as p allows, for the per-dimension algorithms; a hypercube for the
/// power-of-two ones; a ring otherwise and for the default) and returns what f returns,
/// or false when p has none. Only that topology's type is instantiated.
template <class Tag, class F>
bool on_topology(const Entry<Tag>&, std::size_t p, F&& f)
{
  if constexpr (std::same_as<Tag, Automatic>) {
    return f(Ring<>{p});
  } else if constexpr (Tag::needs.product || Tag::needs.two_or_more_dims || Tag::needs.two_dims) {
    const auto [r, c] = mesh_shape(p);
    return r != 0 && f(Mesh<>{r, c});
  } else if constexpr (Tag::needs.power_of_two) {
    return std::has_single_bit(p) && f(Hypercube<>::of_size(p));
  } else {
    return f(Ring<>{p});
  }
}

// ---------------------------------------------------------------------------------------
// The table

/// One measured cell.
struct Row {
  std::string collective, algorithm, topology;
  std::size_t p = 0, m = 0;
  CellResult cell;
  bool on_ring = true; // default_on_ring_may_run
};

/// Column choices: the collective and roof B columns (collectives.cpp) or not (alltoall.cpp,
/// whose roofline bytes are always p*m), and the name of the size column.
struct TableStyle {
  bool wide = false;
  const char* size_label = "block B";
};

/// 8, 1K, 64K, 1M.
inline std::string size_text(std::size_t m)
{
  if (m >= (std::size_t{1} << 20) && m % (std::size_t{1} << 20) == 0) return std::to_string(m >> 20) + "M";
  if (m >= 1024 && m % 1024 == 0) return std::to_string(m >> 10) + "K";
  return std::to_string(m);
}

inline void print_header(const TableStyle& st)
{
  if (st.wide) std::printf("| %-14s ", "collective");
  std::printf("| %-21s | %-12s | %3s | %8s ", "algorithm", "topology", "p", st.size_label);
  if (st.wide) std::printf("| %8s ", "roof B");
  std::printf("| %11s | %10s | %11s | %10s |\n", "time us", "GB/s/rank", "memcpy us", "% roofline");
  if (st.wide) std::printf("|----------------");
  std::printf("|-----------------------|--------------|----:|---------:");
  if (st.wide) std::printf("|---------:");
  std::printf("|------------:|-----------:|------------:|-----------:|\n");
  std::fflush(stdout);
}

/// One row; the fastest of its group (`best`) in bold. A cell without a roofline
/// (barrier) shows only its time.
inline void print_row(const TableStyle& st, const Row& row, bool best)
{
  clear_progress();
  const std::string name = std::string(best ? "**" : "") + row.algorithm + (best ? "**" : "");
  if (st.wide) std::printf("| %-14s ", row.collective.c_str());
  std::printf("| %-21s | %-12s | %3zu | %8s ", name.c_str(), row.topology.c_str(), row.p,
              row.cell.has_roofline ? size_text(row.m).c_str() : "-");
  const CellResult& c = row.cell;
  if (st.wide) std::printf("| %8s ", c.has_roofline ? size_text(c.roofline_bytes).c_str() : "-");
  std::printf("| %11.2f ", c.seconds * 1e6);
  if (c.has_roofline)
    std::printf("| %10.2f | %11.2f | %9.1f%% |", static_cast<double>(c.roofline_bytes) / c.seconds / 1e9,
                c.roofline_seconds * 1e6, 100.0 * c.roofline_ratio);
  else
    std::printf("| %10s | %11s | %10s |", "-", "-", "-");
  std::printf("%s\n", c.correct ? "" : " WRONG RESULT");
}

/// Index of the fastest row (rows must not be empty).
inline std::size_t fastest(const std::vector<Row>& rows)
{
  std::size_t best = 0;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].cell.seconds < rows[best].cell.seconds) best = i;
  return best;
}

/// Prints a group of rows (one collective, p and size), the fastest in bold when there
/// are several; returns false when any row's result was wrong.
inline bool print_group(const TableStyle& st, const std::vector<Row>& rows)
{
  bool correct = true;
  const std::size_t best = rows.empty() ? 0 : fastest(rows);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    print_row(st, rows[i], i == best && rows.size() > 1);
    correct = correct && rows[i].cell.correct;
  }
  std::fflush(stdout);
  return correct;
}

/// The 1-, 5- and 15-minute load averages (Linux), to judge how quiet the machine was.
inline std::string load_average()
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

} // namespace bench
