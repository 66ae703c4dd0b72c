// The memory ceiling of an all-reduce of doubles on two threads, one per core (issue 12's
// "reductions at >= 80 % of the memcpy roofline"): three hand-written ways of summing two
// vectors into both threads' outputs, with nothing of the library in them, timed against
// memcpy of one vector on one core in the same run. Prints two tables: the results left
// unread between calls, and each thread reading its whole output after each call, as the
// program that called an all-reduce does with its result.
//   build/release/benchmarks/allreduce_ceiling [bytes ...]   (default 256K 1M)
// The ways:
//   both      each thread sums the whole vectors into its output (recursive doubling at
//             p = 2: reads 2m, writes m per thread);
//   push      thread t sums half t and writes it to both outputs (reads m, writes m: the
//             half in the peer's output is a write into memory the peer reads later);
//   pull      thread t sums half t into its output, then copies the peer's half from the
//             peer's output (the ring's and Rabenseifner's all-gather: it reads lines the
//             peer has just written, from the peer's cache).
// Each row is the best of 5 rounds of `reps` calls, with a two-thread barrier after each
// call (in `pull`, also between the halves), as a collective needs. Left unread, `push`
// looks fastest only because the half it wrote into the peer's output stays in the writer's
// cache: with the results read, the peer fetches that half from the other core after the
// call, a transfer `pull` makes inside it (the second table; the read's own time is in
// every way's row, memcpy's included).

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

struct alignas(64) Arrival {
  std::atomic<long> generation{0};
};

// A barrier of two threads by generation counters, spinning (one thread per core).
class PairBarrier {
public:
  void arrive_and_wait(int me, long& generation)
  {
    ++generation;
    arrivals_[me].generation.store(generation, std::memory_order_release);
    while (arrivals_[1 - me].generation.load(std::memory_order_acquire) < generation) {
    }
  }

private:
  Arrival arrivals_[2];
};

void add(double* __restrict out, const double* __restrict a, const double* __restrict b, std::size_t n)
{
  for (std::size_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

std::size_t parse_bytes(const char* s)
{
  char* end = nullptr;
  std::size_t n = std::strtoull(s, &end, 10);
  if (*end == 'K' || *end == 'k') n <<= 10;
  if (*end == 'M' || *end == 'm') n <<= 20;
  return n;
}

enum Way { copy, both, push, pull, ways };

// Microseconds per call of each way (copy: memcpy on thread 0 alone), best of 5 rounds.
// (read: after each call, each thread reads its whole output, as a caller uses its result;
// on the copy row, thread 0 reads the copy.)
std::vector<double> measure(std::size_t bytes, bool read)
{
  const std::size_t n = bytes / sizeof(double), half = n / 2;
  const int reps = static_cast<int>(std::clamp<std::size_t>((std::size_t{1} << 30) / (bytes + 1), 20, 5000));
  std::vector<double> in[2] = {std::vector<double>(n, 1.0), std::vector<double>(n, 2.0)};
  std::vector<double> out[2] = {std::vector<double>(n), std::vector<double>(n)};
  std::vector<double> best(ways, 1e300);
  PairBarrier barrier;
  std::uint64_t seen[2] = {0, 0}; // what the reads saw, so they are not left out
  // Reads every word of v (a vectorised XOR of its bits: at memory speed).
  auto read_all = [n](const std::vector<double>& v) {
    const auto* w = reinterpret_cast<const std::uint64_t*>(v.data());
    std::uint64_t x = 0;
    for (std::size_t i = 0; i < n; ++i) x ^= w[i];
    return x;
  };
  auto body = [&](int me) {
    long generation = 0;
    const std::size_t lo = me == 0 ? 0 : half, len = me == 0 ? half : n - half;
    const std::size_t peer_lo = me == 0 ? half : 0, peer_len = n - len;
    for (int round = 0; round < 5; ++round)
      for (int way = 0; way < ways; ++way) {
        barrier.arrive_and_wait(me, generation);
        const auto start = std::chrono::steady_clock::now();
        for (int r = 0; r < reps; ++r) {
          if (way == copy) {
            if (me == 0) {
              std::memcpy(out[0].data(), in[0].data(), bytes);
              if (read) seen[0] ^= read_all(out[0]);
            }
            continue;
          }
          if (way == both) {
            add(out[me].data(), in[me].data(), in[1 - me].data(), n);
          } else if (way == push) {
            add(out[me].data() + lo, in[me].data() + lo, in[1 - me].data() + lo, len);
            std::memcpy(out[1 - me].data() + lo, out[me].data() + lo, len * sizeof(double));
          } else {
            add(out[me].data() + lo, in[me].data() + lo, in[1 - me].data() + lo, len);
            barrier.arrive_and_wait(me, generation);
            std::memcpy(out[me].data() + peer_lo, out[1 - me].data() + peer_lo, peer_len * sizeof(double));
          }
          barrier.arrive_and_wait(me, generation);
          if (read) seen[me] ^= read_all(out[me]);
        }
        barrier.arrive_and_wait(me, generation);
        const double us =
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / reps;
        if (me == 0) best[static_cast<std::size_t>(way)] = std::min(best[static_cast<std::size_t>(way)], us);
      }
  };
  std::thread other(body, 1);
  body(0);
  other.join();
  for (int t = 0; t < 2; ++t)
    for (std::size_t i = 0; i < n; ++i)
      if (out[t][i] != 3.0) {
        std::fprintf(stderr, "allreduce_ceiling: wrong sum at %zu on thread %d\n", i, t);
        std::exit(1);
      }
  if (seen[0] == 1 && seen[1] == 1) std::printf(" "); // keeps the reads (never true: sums are 3.0)
  return best;
}

} // namespace

int main(int argc, char** argv)
{
  std::vector<std::size_t> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(parse_bytes(argv[i]));
  if (sizes.empty()) sizes = {std::size_t{256} << 10, std::size_t{1} << 20};
  std::printf("# all-reduce (sum of doubles) on 2 threads, hand-written, vs memcpy of one vector on one core;\n"
              "# best of 5 rounds, us per call, and %% of the memcpy roofline (memcpy time / time)\n");
  for (const bool read : {false, true}) {
    std::printf(read ? "\n## each thread reads its output after each call (memcpy: thread 0 reads its copy)\n\n"
                     : "\n## results left unread between calls\n\n");
    std::printf("| bytes | memcpy us | both us | both %% | push us | push %% | pull us | pull %% |\n");
    std::printf("|------:|----------:|--------:|-------:|--------:|-------:|--------:|-------:|\n");
    for (std::size_t bytes : sizes) {
      const std::vector<double> t = measure(bytes, read);
      std::printf("| %zu | %.2f | %.2f | %.0f | %.2f | %.0f | %.2f | %.0f |\n", bytes, t[copy], t[both],
                  100 * t[copy] / t[both], t[push], 100 * t[copy] / t[push], t[pull], 100 * t[copy] / t[pull]);
    }
  }
}
