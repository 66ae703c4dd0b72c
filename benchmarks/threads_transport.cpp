// The threads transport against its predecessor (commit 8407db1, benchmarks/baseline/) and
// against memcpy, in the same run (a program, not a test):
//
//   threads_transport [--p N] [--collectives a,b] [--sizes 8,64,...] [--batches B]
//                     [--eager BYTES] [--spin POLLS] [--yields N] [--stat median|min]
//
// For allreduce (doubles, +), alltoall (bytes; the size is one block), broadcast (root 0)
// and barrier, at each size (default 8 B .. 1 MiB by 8x) and p (default 2): the default
// algorithm on the current transport ("now"), on the 8407db1 transport ("8407db1"), and
// the memcpy roofline: every rank copies, at the same time as the others, the bytes it
// must at least move in one call (allreduce, broadcast: the message; alltoall: p - 1
// blocks) between two buffers of its own.
// Method: each variant runs `iterations` calls in one Team::run; calls are separated by a
// spin barrier of this program (yielding when there are more ranks than CPUs), and a
// call's time runs from the last rank's start to the last rank's end; a batch's time is
// its median call (--stat min: its fastest call, and the cell's time the fastest batch:
// on a heavily loaded machine, where most calls wait for a time slice, this estimates
// what a call costs when both ranks run). Variants alternate batch by batch (B batches each) and each reports its
// median batch, so a burst of load from other processes hits all of them alike. Every
// variant's result is checked once per cell. Ratios: now / 8407db1 (< 1: faster) and
// memcpy / now (the share of the roofline reached; reductions also read their own data).
// Then the executor's per-call overhead: the pairwise alltoall written by hand with
// Endpoint::exchange against the library's alltoall_algorithm::pairwise, per block size;
// and the executor alone: nanoseconds a call of each collective (default algorithm, 8
// bytes a rank, p ranks taking turns) on an endpoint whose exchange moves nothing, and of
// loops that change the root or the size from call to call; and the same broadcast and
// alltoall when the caller reads 1 MiB of its own memory between calls (as an application
// computes between collectives), each call timed alone, beside the same timing with nothing
// between calls; and a Team::run itself (an empty one, one with an 8-byte all-reduce)
// against p - 1 threads started and joined by hand.

#include "baseline/threads_8407db1.hpp"

#include <collectives/collectives.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace collectives;
using Clock = std::chrono::steady_clock;

/// A sense-reversing spin barrier that yields when oversubscribed (not timed).
class SpinBarrier {
public:
  explicit SpinBarrier(std::size_t p) : p_(p), yield_(p > std::max(1u, std::thread::hardware_concurrency())) {}
  void wait()
  {
    const bool sense = !sense_.load(std::memory_order_relaxed);
    if (count_.fetch_add(1, std::memory_order_acq_rel) + 1 == p_) {
      count_.store(0, std::memory_order_relaxed);
      sense_.store(sense, std::memory_order_release);
      return;
    }
    // Spin, then yield: on a loaded machine the last rank may wait for a CPU.
    for (unsigned spins = 0; sense_.load(std::memory_order_acquire) != sense; ++spins)
      if (yield_ || spins > 20000) std::this_thread::yield();
  }

private:
  std::size_t p_;
  bool yield_;
  std::atomic<std::size_t> count_{0};
  std::atomic<bool> sense_{false};
};

/// An endpoint whose exchange moves nothing: a call's time on it is the library's own work
/// (front end, selection, schedule, executor). Results are not meaningful.
struct NullEndpoint {
  std::size_t r = 0, p = 2;
  std::size_t rank() const { return r; }
  std::size_t size() const { return p; }
  void exchange(std::span<const SendRequest>, std::span<const RecvRequest>) {}
  static constexpr bool combines_on_receive = true; // as the threads transport
  CostModel model;
  CostModel cost_model() const { return model; }
};

volatile std::uint64_t bench_sink = 0;

/// p NullEndpoints and a communicator on a ring of p over each (not movable: the
/// communicators refer to the endpoints).
struct NullTeam {
  NullTeam(std::size_t p, const CostModel& model) : eps(p)
  {
    comms.reserve(p);
    for (std::size_t r = 0; r < p; ++r) {
      eps[r] = NullEndpoint{r, p, model};
      comms.emplace_back(eps[r], Ring<>{p});
    }
  }
  NullTeam(const NullTeam&) = delete;
  NullTeam& operator=(const NullTeam&) = delete;
  std::vector<NullEndpoint> eps;
  std::vector<Communicator<NullEndpoint, Ring<>>> comms;
};

/// Nanoseconds per call of `call(comm)` for each rank of a NullEndpoint team of p, the
/// median of 5 batches of `n` calls over all ranks in turn.
template <class Call>
double null_ns(std::size_t p, const CostModel& model, std::size_t n, Call call)
{
  NullTeam team(p, model);
  std::vector<double> t;
  for (int b = 0; b < 5; ++b) {
    const auto t0 = Clock::now();
    for (auto& c : team.comms)
      for (std::size_t i = 0; i < n; ++i) call(c);
    t.push_back(std::chrono::duration<double>(Clock::now() - t0).count() / static_cast<double>(n * p) * 1e9);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/// Like null_ns, but each call comes after the caller has read `bytes` of other memory (its
/// own work between collectives), so the library's data and stack are no longer in the
/// nearest caches: ns a call, timed around the call alone, less the same timing around
/// nothing (medians of 5 batches of n calls, over all ranks).
template <class Call>
double null_cold_ns(std::size_t p, const CostModel& model, std::size_t n, std::size_t bytes, Call call)
{
  NullTeam team(p, model);
  std::vector<std::uint64_t> other(bytes / sizeof(std::uint64_t) + 1, 1);
  auto work = [&] {
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < other.size(); i += 8) sum += other[i]; // a line at a time
    bench_sink = sum; // (volatile: the reads are kept)
  };
  std::vector<double> called, empty;
  for (int b = 0; b < 5; ++b) {
    double t_call = 0, t_empty = 0;
    for (auto& c : team.comms)
      for (std::size_t i = 0; i < n; ++i) {
        work();
        auto t0 = Clock::now();
        auto t1 = Clock::now();
        t_empty += std::chrono::duration<double>(t1 - t0).count();
        work();
        t0 = Clock::now();
        call(c);
        t1 = Clock::now();
        t_call += std::chrono::duration<double>(t1 - t0).count();
      }
    called.push_back(t_call / static_cast<double>(n * p) * 1e9);
    empty.push_back(t_empty / static_cast<double>(n * p) * 1e9);
  }
  std::sort(called.begin(), called.end());
  std::sort(empty.begin(), empty.end());
  return called[called.size() / 2] - empty[empty.size() / 2];
}

struct Settings {
  std::size_t p = 2;
  std::vector<std::string> collectives{"allreduce", "alltoall", "broadcast", "barrier"};
  std::vector<std::size_t> sizes{8, 64, 512, 4096, 32768, 262144, 1048576};
  std::size_t batches = 5;
  threads::Options options{};
};

bool use_min = false;

/// Median of v, or its minimum with --stat min.
double median(std::vector<double> v)
{
  std::sort(v.begin(), v.end());
  return use_min ? v.front() : v[v.size() / 2];
}

/// Runs `iterations` calls of op(rank) (after two warm-up calls and check(rank)) on every
/// rank of a team and returns the median call time; `ok` is cleared if a check fails.
/// roofline: the call time is max(longest rank, sum of ranks / CPUs), as copies on
/// oversubscribed cores cannot overlap.
template <class Team, class Op, class Check>
double batch(Team& team, std::size_t iterations, Op&& op, Check&& check, bool& ok, bool roofline)
{
  const std::size_t p = team.size();
  const std::size_t cpus = std::max(1u, std::thread::hardware_concurrency());
  SpinBarrier barrier(p);
  std::vector<std::vector<Clock::time_point>> start(p, std::vector<Clock::time_point>(iterations)),
    end(p, std::vector<Clock::time_point>(iterations));
  std::vector<char> good(p, 1);
  team.run([&](auto& ep) {
    const std::size_t r = ep.rank();
    auto state = op.make(ep);
    state.call();
    state.call();
    good[r] = check(state, r) ? 1 : 0;
    for (std::size_t i = 0; i < iterations; ++i) {
      barrier.wait();
      start[r][i] = Clock::now();
      state.call();
      end[r][i] = Clock::now();
    }
  });
  for (char g : good) ok = ok && g;
  std::vector<double> t(iterations);
  for (std::size_t i = 0; i < iterations; ++i) {
    Clock::time_point s = start[0][i], e = end[0][i];
    double longest = 0, sum = 0;
    for (std::size_t q = 0; q < p; ++q) {
      s = std::max(s, start[q][i]);
      e = std::max(e, end[q][i]);
      const double d = std::chrono::duration<double>(end[q][i] - start[q][i]).count();
      longest = std::max(longest, d);
      sum += d;
    }
    t[i] = roofline ? std::max(longest, sum / static_cast<double>(std::min(p, cpus)))
                    : std::chrono::duration<double>(e - s).count();
  }
  return median(t);
}

/// One collective at one size: make(ep) builds a rank's buffers and returns an object
/// whose call() runs the collective once; check(state, rank) verifies the last result.
template <class Make, class Check>
struct Cell {
  Make make_fn;
  Check check_fn;
  template <class E>
  auto make(E& ep) const { return make_fn(ep); }
};

/// A rank's state for collective `name` at `bytes` on endpoint type E.
template <class E>
struct RankCall {
  std::string name;
  std::size_t bytes, p, me;
  Communicator<E, Ring<>> comm;
  std::vector<double> x, y;
  std::vector<std::uint8_t> s, t;
  RankCall(E& ep, std::string n, std::size_t b)
    : name(std::move(n)), bytes(b), p(ep.size()), me(ep.rank()), comm(ep, Ring<>{ep.size()})
  {
    if (name == "allreduce") {
      x.assign(std::max<std::size_t>(1, bytes / 8), double(me + 1));
      y.assign(x.size(), 0);
    } else if (name == "alltoall") {
      s.resize(p * bytes);
      t.resize(p * bytes);
      for (std::size_t i = 0; i < s.size(); ++i) s[i] = static_cast<std::uint8_t>(me * 7 + i / bytes);
    } else if (name == "broadcast") {
      s.assign(bytes, static_cast<std::uint8_t>(me == 0 ? 42 : 0));
    }
  }
  void call()
  {
    if (name == "allreduce") allreduce(comm, x, y, std::plus<>{});
    else if (name == "alltoall") alltoall(comm, s, t);
    else if (name == "broadcast") broadcast(comm, s, 0);
    else barrier(comm);
  }
  bool right() const
  {
    if (name == "allreduce") return y[0] == double(p * (p + 1) / 2);
    if (name == "alltoall") {
      for (std::size_t j = 0; j < p; ++j)
        if (t[j * bytes] != static_cast<std::uint8_t>(j * 7 + me)) return false;
      return true;
    }
    if (name == "broadcast") return s.empty() || s[0] == 42;
    return true;
  }
};

/// The per-call overhead's two sides: the pairwise alltoall written by hand on the
/// endpoint (own block by memcpy, then p - 1 exchanges to rank + k from rank - k, the same
/// partners and order as PairwiseSchedule: no schedule, no executor), or the library's
/// alltoall with alltoall_algorithm::pairwise. bytes: one block.
struct PairwiseCall {
  bool by_hand;
  std::size_t bytes, p, me;
  Communicator<threads::Endpoint, Ring<>> comm;
  std::vector<std::uint8_t> s, t;
  PairwiseCall(threads::Endpoint& ep, bool hand, std::size_t b)
    : by_hand(hand), bytes(b), p(ep.size()), me(ep.rank()), comm(ep, Ring<>{ep.size()}), s(p * b), t(p * b)
  {
    for (std::size_t i = 0; i < s.size(); ++i) s[i] = static_cast<std::uint8_t>(me * 7 + i / bytes);
  }
  void call()
  {
    if (!by_hand) {
      alltoall(comm, s, t, alltoall_algorithm::pairwise);
      return;
    }
    std::memcpy(t.data() + me * bytes, s.data() + me * bytes, bytes);
    for (std::size_t k = 1; k < p; ++k) {
      const std::size_t to = (me + k) % p, from = (me + p - k) % p;
      const ConstBytes out{reinterpret_cast<const std::byte*>(s.data()) + to * bytes, bytes};
      const MutableBytes in{reinterpret_cast<std::byte*>(t.data()) + from * bytes, bytes};
      const SendRequest snd{to, {&out, 1}};
      const RecvRequest rcv{from, {&in, 1}};
      comm.endpoint().exchange({&snd, 1}, {&rcv, 1});
    }
  }
  bool right() const
  {
    for (std::size_t j = 0; j < p; ++j)
      if (t[j * bytes] != static_cast<std::uint8_t>(j * 7 + me)) return false;
    return true;
  }
};

/// The memcpy roofline's rank state.
struct Copy {
  std::vector<std::uint8_t> src, dst;
  void call()
  {
    if (!src.empty()) std::memcpy(dst.data(), src.data(), src.size());
    asm volatile("" : : "r"(dst.data()) : "memory");
  }
};

std::vector<std::size_t> parse_list(const char* text)
{
  std::vector<std::size_t> v;
  for (const char* c = text; *c;) {
    char* end = nullptr;
    v.push_back(std::strtoull(c, &end, 10));
    c = *end == ',' ? end + 1 : end;
  }
  return v;
}

std::vector<std::string> split(const std::string& s)
{
  std::vector<std::string> v;
  std::size_t at = 0;
  while (at <= s.size()) {
    const std::size_t comma = std::min(s.find(',', at), s.size());
    v.push_back(s.substr(at, comma - at));
    at = comma + 1;
  }
  return v;
}

} // namespace

int main(int argc, char** argv)
{
  Settings set;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--p") set.p = std::strtoull(argv[i + 1], nullptr, 10);
    else if (a == "--sizes") set.sizes = parse_list(argv[i + 1]);
    else if (a == "--collectives") set.collectives = split(argv[i + 1]);
    else if (a == "--batches") set.batches = std::strtoull(argv[i + 1], nullptr, 10);
    else if (a == "--eager") set.options.eager_bytes = std::strtoull(argv[i + 1], nullptr, 10);
    else if (a == "--spin") set.options.spin = static_cast<unsigned>(std::strtoul(argv[i + 1], nullptr, 10));
    else if (a == "--yields") set.options.yields = static_cast<unsigned>(std::strtoul(argv[i + 1], nullptr, 10));
    else if (a == "--stat") use_min = std::string(argv[i + 1]) == "min";
    else {
      std::fprintf(stderr, "threads_transport: unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  double load[3] = {0, 0, 0};
  if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3) load[0] = -1;
    std::fclose(f);
  }
  threads::Team now(set.p, set.options);
  threads_8407db1::Team old(set.p);
  std::printf("p = %zu, %u CPUs, eager threshold %zu B, %s, load average %.2f %.2f %.2f\n\n", set.p,
              std::thread::hardware_concurrency(), now.eager_bytes(), use_min ? "fastest call" : "median call",
              load[0], load[1], load[2]);
  std::printf("| collective | bytes | now us | 8407db1 us | memcpy us | now / 8407db1 | memcpy / now |\n");
  std::printf("|---|--:|--:|--:|--:|--:|--:|\n");
  bool all_ok = true;
  for (const auto& name : set.collectives)
    for (std::size_t bytes : set.sizes) {
      if (name == "barrier" && bytes != set.sizes.front()) continue;
      const std::size_t copy = name == "alltoall" ? (set.p - 1) * bytes : name == "barrier" ? 0 : bytes;
      auto check = [](const auto& st, std::size_t) { return st.right(); };
      auto make_now = [&](threads::Endpoint& ep) { return RankCall<threads::Endpoint>(ep, name, bytes); };
      auto make_old = [&](threads_8407db1::Endpoint& ep) { return RankCall<threads_8407db1::Endpoint>(ep, name, bytes); };
      auto make_copy = [&](auto&) { return Copy{std::vector<std::uint8_t>(copy, 1), std::vector<std::uint8_t>(copy)}; };
      Cell<decltype(make_now), decltype(check)> cell_now{make_now, check};
      Cell<decltype(make_old), decltype(check)> cell_old{make_old, check};
      auto copy_ok = [](const Copy&, std::size_t) { return true; };
      Cell<decltype(make_copy), decltype(copy_ok)> cell_copy{make_copy, copy_ok};
      bool ok = true;
      // Iterations: about 20 ms per batch, from a first short batch.
      const double first = batch(now, 20, cell_now, check, ok, false);
      const std::size_t n = std::clamp<std::size_t>(static_cast<std::size_t>(0.02 / std::max(first, 1e-7)), 10, 20000);
      std::vector<double> t_now, t_old, t_copy;
      for (std::size_t b = 0; b < set.batches; ++b) {
        t_now.push_back(batch(now, n, cell_now, check, ok, false));
        t_old.push_back(batch(old, n, cell_old, check, ok, false));
        if (copy != 0) t_copy.push_back(batch(now, n, cell_copy, copy_ok, ok, true));
      }
      const double a = median(t_now), o = median(t_old), c = copy != 0 ? median(t_copy) : 0;
      all_ok = all_ok && ok;
      std::printf("| %s | %zu | %.3f | %.3f | %s | %.2f | %s |%s\n", name.c_str(), name == "barrier" ? 0 : bytes,
                  a * 1e6, o * 1e6, copy ? std::to_string(c * 1e6).substr(0, 8).c_str() : "-", a / o,
                  copy ? (std::to_string(int(100 * c / a + 0.5)) + " %").c_str() : "-", ok ? "" : " WRONG");
      std::fflush(stdout);
    }
  // The executor's per-call overhead: the same pairwise exchange by hand and through the
  // library, alternating batch by batch.
  std::printf("\nThe pairwise alltoall by hand on threads::Endpoint (exchange) and through the library\n"
              "(alltoall_algorithm::pairwise); bytes: one block.\n\n");
  std::printf("| bytes | exchange us | pairwise us | pairwise - exchange us | pairwise / exchange |\n");
  std::printf("|--:|--:|--:|--:|--:|\n");
  for (std::size_t bytes : set.sizes) {
    auto check = [](const PairwiseCall& st, std::size_t) { return st.right(); };
    auto make_hand = [&](threads::Endpoint& ep) { return PairwiseCall(ep, true, bytes); };
    auto make_lib = [&](threads::Endpoint& ep) { return PairwiseCall(ep, false, bytes); };
    Cell<decltype(make_hand), decltype(check)> cell_hand{make_hand, check};
    Cell<decltype(make_lib), decltype(check)> cell_lib{make_lib, check};
    bool ok = true;
    const double first = batch(now, 20, cell_hand, check, ok, false);
    const std::size_t n = std::clamp<std::size_t>(static_cast<std::size_t>(0.02 / std::max(first, 1e-7)), 10, 20000);
    std::vector<double> t_hand, t_lib;
    for (std::size_t b = 0; b < set.batches; ++b) {
      t_hand.push_back(batch(now, n, cell_hand, check, ok, false));
      t_lib.push_back(batch(now, n, cell_lib, check, ok, false));
    }
    const double h = median(t_hand), l = median(t_lib);
    all_ok = all_ok && ok;
    std::printf("| %zu | %.3f | %.3f | %.3f | %.2f |%s\n", bytes, h * 1e6, l * 1e6, (l - h) * 1e6, l / h, ok ? "" : " WRONG");
    std::fflush(stdout);
  }
  // The executor alone, with the threads team's model (so the same defaults are picked).
  std::printf("\nThe library's own work a call (default algorithm, 8 bytes a rank) on an endpoint whose\n"
              "exchange moves nothing, p = %zu: ns a call, over all ranks.\n\n",
              set.p);
  std::printf("| collective | ns |\n|---|--:|\n");
  {
    const CostModel model = now.cost_model();
    const std::size_t n = 20000;
    std::vector<double> one(1, 1.0), res(1), blocks(set.p, 1.0), got(set.p);
    auto row = [&](const char* name, double ns) { std::printf("| %s | %.0f |\n", name, ns); };
    row("broadcast", null_ns(set.p, model, n, [&](auto& c) { broadcast(c, std::span<double>(one), 0); }));
    row("reduce", null_ns(set.p, model, n, [&](auto& c) {
          reduce(c, std::span<const double>(one), std::span<double>(res), std::plus<>{}, 0);
        }));
    row("allreduce", null_ns(set.p, model, n, [&](auto& c) {
          allreduce(c, std::span<const double>(one), std::span<double>(res), std::plus<>{});
        }));
    row("allgather", null_ns(set.p, model, n, [&](auto& c) {
          allgather(c, std::span<const double>(one), std::span<double>(got));
        }));
    row("alltoall", null_ns(set.p, model, n, [&](auto& c) {
          alltoall(c, std::span<const double>(blocks), std::span<double>(got));
        }));
    row("barrier", null_ns(set.p, model, n, [&](auto& c) { barrier(c); }));
    // Loops whose calls differ from one to the next: the root moving from rank to rank
    // (the k-th pivot row of an LU factorisation from rank k % p), and all-reduces of 24
    // sizes in turn. Each call finds its own kept plan and pick among the 64 a communicator
    // keeps (until 75d87fb it kept 4 plans and 16 picks, and these were planned, and
    // selected, again on every call).
    std::size_t k = 0;
    row("broadcast, root k % p", null_ns(set.p, model, n, [&](auto& c) {
          broadcast(c, std::span<double>(one), k++ % c.size());
        }));
    row("reduce, root k % p", null_ns(set.p, model, n, [&](auto& c) {
          reduce(c, std::span<const double>(one), std::span<double>(res), std::plus<>{}, k++ % c.size());
        }));
    std::vector<double> many(200, 1.0), many_res(200);
    auto sizes_in_turn = [&](std::size_t sizes) {
      return null_ns(set.p, model, n, [&](auto& c) {
        const std::size_t m = 1 + k++ % sizes;
        allreduce(c, std::span<const double>(many.data(), m), std::span<double>(many_res.data(), m), std::plus<>{});
      });
    };
    row("allreduce, 1..24 elements in turn", sizes_in_turn(24));
    // More sizes than the 64 plans a communicator keeps, fewer than the 1024 problems whose
    // picks it keeps (until 2026-11-27 it kept 64, and every call of these loops selected
    // again). Until the fifty-second session every call made its plan again (the least
    // recently used slot was always the one needed next); since then the slots keep 63
    // plans for the loop's next round (detail::plan_churn_after).
    row("allreduce, 1..100 elements in turn", sizes_in_turn(100));
    row("allreduce, 1..200 elements in turn", sizes_in_turn(200));
    // Calls between which the caller reads 1 MiB of its own memory, as an application's
    // computation does between collectives: the same calls, with the library's data and
    // stack farther from the core.
    const std::size_t other = std::size_t{1} << 20, cold_n = 2000;
    row("broadcast, 1 MiB read between calls",
        null_cold_ns(set.p, model, cold_n, other, [&](auto& c) { broadcast(c, std::span<double>(one), 0); }));
    row("broadcast, nothing between calls (the same timing)",
        null_cold_ns(set.p, model, cold_n, 0, [&](auto& c) { broadcast(c, std::span<double>(one), 0); }));
    row("alltoall, 1 MiB read between calls", null_cold_ns(set.p, model, cold_n, other, [&](auto& c) {
          alltoall(c, std::span<const double>(blocks), std::span<double>(got));
        }));
    row("alltoall, nothing between calls (the same timing)", null_cold_ns(set.p, model, cold_n, 0, [&](auto& c) {
          alltoall(c, std::span<const double>(blocks), std::span<double>(got));
        }));
  }
  // A run itself: the team keeps its ranks' threads, so a run wakes them; until the
  // forty-ninth session every run started and joined p - 1 threads (and placed them), which
  // the by-hand column is a lower bound of.
  std::printf("\nTeam::run itself, p = %zu: us a run of an empty function and of one 8-byte all-reduce on\n"
              "the team, against p - 1 std::threads started and joined by hand (median of %zu batches of\n"
              "200 runs).\n\n",
              set.p, set.batches);
  std::printf("| run | us | / threads by hand |\n|---|--:|--:|\n");
  {
    constexpr int runs = 200;
    auto per_run = [&](auto&& once) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int r = 0; r < runs; ++r) once();
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / runs;
    };
    std::vector<int> sums(set.p);
    auto empty = [&] { now.run([](threads::Endpoint&) {}); };
    auto one_allreduce = [&] {
      now.run([&](threads::Endpoint& ep) {
        Communicator comm(ep, Ring<>(ep.size()));
        const double mine = 1.0;
        double sum = 0;
        allreduce(comm, std::span<const double>(&mine, 1), std::span<double>(&sum, 1), std::plus<>{});
        sums[ep.rank()] = static_cast<int>(sum);
      });
    };
    auto by_hand = [&] {
      std::vector<std::thread> started;
      for (std::size_t r = 1; r < set.p; ++r) started.emplace_back([] {});
      for (std::thread& t : started) t.join();
    };
    std::vector<double> t_empty, t_one, t_hand;
    for (std::size_t b = 0; b < set.batches; ++b) {
      t_empty.push_back(per_run(empty));
      t_one.push_back(per_run(one_allreduce));
      t_hand.push_back(per_run(by_hand));
    }
    const bool ok = std::all_of(sums.begin(), sums.end(), [&](int x) { return x == static_cast<int>(set.p); });
    all_ok = all_ok && ok;
    const double e = median(t_empty), o = median(t_one), h = median(t_hand);
    std::printf("| empty function | %.1f | %.2f |\n", e * 1e6, e / h);
    std::printf("| one 8-byte all-reduce | %.1f | %.2f |%s\n", o * 1e6, o / h, ok ? "" : " WRONG");
    std::printf("| p - 1 threads by hand | %.1f | 1.00 |\n", h * 1e6);
  }
  return all_ok ? 0 : 1;
}
